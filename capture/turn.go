package capture

import (
	"strconv"
	"time"
)

// TurnKind says who spoke in a turn.
type TurnKind uint8

// The turn kinds. The numbers are not persisted; only the names are
// (String, written into memory metadata by the faces).
const (
	// KindUser is a prompt the person typed.
	KindUser TurnKind = iota + 1
	// KindAssistant is the agent's prose.
	KindAssistant
	// KindTool is one tool call with its result.
	KindTool
	// KindSummary is a summary the host wrote (context compaction, a
	// session title), not something either party said.
	KindSummary
)

var kindNames = [...]string{"", "user", "assistant", "tool", "summary"}

// String is the kind's name ("user", "assistant", "tool", "summary").
func (k TurnKind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return "unknown"
}

// Turn is one step of a session: a prompt, a reply, or a tool call paired
// with its result. Turns of one session are in transcript order.
type Turn struct {
	Kind TurnKind
	// Session is the host's session id.
	Session string
	// Seq is the 1-based line number of the turn's first line in its
	// transcript: increasing within a session, the same on every read of
	// the same file, so a resumed read continues the sequence (E4).
	Seq uint64
	// Time is the timestamp of the turn's first line (zero when absent).
	Time time.Time
	// UUIDs are the host's ids of the lines the turn was read from, first
	// line first (a tool turn has the call's line and the result's line).
	UUIDs []string
	// CWD and Branch are the working directory and git branch the host
	// recorded on the turn's first line.
	CWD, Branch string
	// Block is the index of the turn's content block in its first line
	// when one line holds several turns (an assistant line with text and
	// tool calls); 0 otherwise.
	Block int
	// Sidechain marks a turn of a sub-agent (Claude Code's Task tool).
	Sidechain bool
	// Text is the prompt, the reply or the summary; empty on tool turns.
	Text string
	// Tool is set on KindTool turns.
	Tool *ToolCall
	// Files are the files the turn touched (tool inputs, obvious shell
	// arguments), in order of first mention, without duplicates.
	Files []string
	// Source is where the turn was read from: "PATH#UUID" of its first line
	// (or "#UUID" when the reader was not given a path).
	Source string
}

// Key is the turn's idempotence key: the session, the uuid of its first
// line and, when that line holds several turns, the block index.
// Ingesting the same line twice yields the same key.
func (t Turn) Key() string {
	if len(t.UUIDs) == 0 {
		return ""
	}
	k := t.Session + "/" + t.UUIDs[0]
	if t.Block > 0 {
		k += "#" + strconv.Itoa(t.Block)
	}
	return k
}

// ToolCall is one tool invocation and what came back.
type ToolCall struct {
	// ID is the host's tool-use id that pairs the call with its result.
	ID string
	// Name is the tool's name as the host spells it ("Bash", "Edit", …).
	Name string
	// Input is the call's arguments, decoded from JSON (strings redacted).
	Input map[string]any
	// Output is the result's text, redacted and cut to the reader's limit
	// (head and tail kept, the cut marked in the text); binary content is
	// replaced by a note saying what was left out.
	Output string
	// OutputBytes is the length of the result's text before cutting.
	OutputBytes int
	// Truncated says Output was cut.
	Truncated bool
	// IsError is the host's own error flag on the result (for a shell
	// command: a non-zero exit status).
	IsError bool
	// HasResult is false when the session ended before a result came.
	HasResult bool
}

// Str returns the string argument name of the call's input, or "".
func (c *ToolCall) Str(name string) string {
	if c == nil {
		return ""
	}
	s, _ := c.Input[name].(string)
	return s
}
