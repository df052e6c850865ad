// Package claudecode reads Claude Code session transcripts into capture
// turns. A transcript is JSON Lines under
// ~/.claude/projects/<project>/<session>.jsonl, one object a line with
// "type" ("user", "assistant", "summary", "system", and bookkeeping kinds
// such as "file-history-snapshot"), "uuid", "parentUuid", "sessionId",
// "timestamp", "cwd", "gitBranch", "isSidechain", and for user and
// assistant lines a "message" {role, content}. Content is a string or an
// array of blocks: {"type":"text","text"}, {"type":"tool_use","id","name",
// "input"}, {"type":"tool_result","tool_use_id","content","is_error"}
// (content a string or blocks of text and images), and "thinking" blocks.
// Where these facts come from: Claude Code's hooks reference (hooks get
// session_id, transcript_path, cwd and hook_event_name on stdin; a copy is
// in the claude-mem repository, docs/reference/claude-code), its SDK
// sessions page (docs.claude.com, sdk-sessions: lines with type, uuid,
// parentUuid, timestamp, message), and public readers of the format
// (claude-code-log's test transcripts, docs.rs crates claude-code-transcripts
// and mi6-core: isSidechain, toolUseResult, "summary" lines with leafUuid,
// tool_result is_error, sub-agent files). The format is not a published
// contract and changes between versions, so the reader is tolerant.
//
// # API
//
//	res, err := claudecode.ReadFrom(r, cursor, claudecode.Options{Path: p})
//	res.Turns     // complete turns, in line order
//	res.Next      // where the next read starts (store it; pass it back)
//	res.Problems  // malformed lines, by number; never fatal
//
// ReadFile does the same for a path (opening it and seeking to the
// cursor). A read returns only complete turns: a tool call whose result is
// not written yet, and a last line without its newline, stay unread and
// Next points at them, so a hook that reads after every Stop never pairs a
// call with the wrong result and never returns a turn twice. When the
// session has ended (SessionEnd), set Options.Final: pending calls are
// returned without a result and a last line without a newline is read.
//
// Every turn carries its idempotence key (Turn.Key: session, line uuid,
// block) and Seq, the line number of its first line, which is the same on
// every read: re-ingesting a file yields the same keys and sequence numbers.
//
// # Tolerance
//
// Unknown line types, unknown block types and unknown fields are skipped.
// A line that is not JSON, or whose known fields have the wrong JSON type,
// is reported in Result.Problems with its line number and byte offset and
// skipped; ReadFrom fails only when reading r fails. "thinking" blocks,
// isMeta lines, and host notes (slash-command echoes, interrupts,
// system reminders) are dropped. Lines longer than Options.MaxLineBytes are
// reported and skipped without being held in memory.
//
// # Secrets and size
//
// All text (prompts, replies, tool inputs, tool output) goes through a
// redact.Redactor (redact.Default unless Options.Redactor is set) before a
// turn is returned, so nothing a face stores or logs from a turn holds a
// secret of a known shape. Tool output is cut to Options.MaxToolOutput
// bytes (head and tail kept, the cut marked "[… N bytes cut …]"); image
// blocks, base64 runs and output that is not text are replaced by a note.
//
// It must not write anything, keep state between calls (the caller keeps
// the cursor) or decide what is worth remembering (package extract does).
package claudecode
