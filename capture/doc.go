// Package capture is the host-neutral vocabulary of memory capture: what a
// coding session looked like (Turn, ToolCall) once a host adapter has read
// it, and what extraction proposes to remember from it (Plan, Candidate,
// Link). It sits between the adapters and the faces:
//
//	transcript ─► capture/claudecode.ReadFrom ─► []capture.Turn
//	           ─► capture/extract.Session      ─► capture.Plan
//	           ─► a face (cgraph ingest, cgraph hook) writes the plan through the
//	              engine: AddBatch of Plan.Memories (Candidate.NewMemory), then
//	              Link for each Plan.Links entry, From and To mapped to the ids
//	              AddBatch returned.
//
// One package for the types, one per host for reading (claudecode today,
// a Cursor reader later) and one for the rules (extract), so a second host
// reuses the rules unchanged and the rules never learn a host's format.
//
// It must not read files, talk to a store or call a model: it holds types
// and the small pure helpers on them. Turns and candidates carry their
// provenance (session, line uuids, source path) so that every memory a face
// writes can be traced back to the line of the transcript it came from and
// re-ingesting the same lines can be recognised (Turn.Key, Candidate.Key).
package capture
