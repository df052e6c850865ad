// Package cli implements the cgraph command line: Execute, the root command
// with its global flags, and the commands of a store's memories (init, add,
// get, list, delete, search, context, update, link, unlink, related,
// topics, ingest, export, import, stats, maintain, contradictions,
// reembed), each with its flags, its human and --json output and its
// error messages. The other command groups are packages of their own under
// cli/ — benchcmd, hookscmd, modelscmd, servecmd, storecmd — which
// commands.go imports; what every command shares is package cli/app.
// cmd/cgraph only calls Execute.
//
// Decisions every command follows (root.go, cli/app):
//
//   - Output: human text by default; with --json stdout holds exactly one JSON
//     value, also on failure ({"error": {"message", "exit_code"}}).
//   - Errors: one line on stderr, "cgraph: <what was wrong>: <how to fix it>".
//     Exit codes: 0 done, 1 failed (ExitError), 2 bad usage or input
//     (ExitUsage: *UsageError or *record.ValidationError; nothing was written),
//     130/143 stopped by SIGINT/SIGTERM (what was acknowledged is stored).
//   - Store access: App.OpenStore(write) opens the memory store with the
//     embedders of --models-dir (cli/app/store.go); every command that writes
//     memories (init, add, delete, reembed) goes through it so each memory
//     gets its fingerprint and leaves every index on delete. Commands that
//     only read records (list, stats, get) use App.OpenRecords, which loads
//     no model. Commands that only read open the store read-only, so they
//     work beside a running writer (search too); get records the access when
//     it can take the writer lock and reads without it otherwise. A store is
//     created only by init. A store built with other models is refused
//     (exit 1) naming `cgraph reembed`.
//   - Search (search.go): the default mode is multi_space; flags are parsed
//     into a engine.SearchRequest before the store is opened, so a bad
//     profile, mode, slot, direction or override is a usage error listing
//     the valid values. Searching an empty store is an error (exit 1) that
//     says how to fill it: it is most often a wrong --db.
//   - Bulk input (add --jsonl): a bad line is reported by number and skipped;
//     valid lines are stored in atomic batches; an interrupt stores the lines
//     already read and names the last one (--skip-lines N resumes). Content
//     the store already holds is reported as a duplicate, not stored twice.
//   - A running server (cli/servecmd, cli/app/serverclient.go): `cgraph
//     serve` keeps the store and warm models in one process and announces
//     itself in the store directory; search and context then send it their
//     typed requests (POST /v1/search/explain, POST /v1/context) and print
//     its typed answers as a local run prints its own, and a stdio `cgraph
//     mcp` relays its session to its /mcp. Models otherwise open on first
//     use, so a command loads only the models its query needs.
//
// Commands register themselves from their files with app.Register(newXCmd);
// an app.App serves one Execute call, so tests run commands in-process with
// buffers.
package cli
