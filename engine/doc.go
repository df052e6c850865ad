// Package engine is cgraph's front door: Open, Add, AddBatch, Get, Peek,
// Update, History, Delete, Link, Unlink, Related, Relations, List, Stats,
// Search, Maintain, AuditLog, Undo, Tally, Reembed, Check, RepairPostings,
// RepairLinks, Backup, ResolveID, ResolveAction, Warm, SessionTimeline and topic snapshots over one store. It composes its cellar (engine/internal/cellar:
// RocksDB column families, keys, the record codec, the writer lock), an
// *embedders.Registry (fingerprints, query views), in-memory structures of
// package indexes rebuilt from the families on open, and pipeline.Run. The
// faces (cli, mcpserver, benchstore (the bench's store-backed retriever)) use only this API.
//
// It owns the value layouts of the derived families (engine/FORMAT.md,
// "Derived families"). It must not fuse scores (package pipeline does),
// compute representations (package embedders does) or expose its storage:
// nothing outside engine can import the cellar.
//
// # Write path
//
// AddBatch validates each memory once, fixes CreatedAt (so E2 and E3 see
// it) and computes every slot but E4 with Registry.EmbedSlots (batched,
// slots in parallel) before any lock, then searches each memory's similar
// stored memories (the near-duplicate rule and the contradiction judge:
// presearch); the write keeps that search while the indexes have only
// gained docs since, and completes it with those. Then, holding writeMu, it begins one
// cellar.Batch (the store's write lock): a memory whose content the store
// already holds (record.SameContent, found through the BM25 index's top
// matches for its rarest terms) is returned as the earlier memory with
// Duplicate set and nothing is written for it, unless AllowDuplicate;
// Batch.Add assigns each other record its id (or keeps NewMemory.ID, an
// import's), doc number and session sequence; E4 is computed once from those
// sequences; the fingerprint, every per-doc slot family and the E6/E13
// postings with their statistics go into the same batch through typed
// cellar.Family handles, with the slot registry entry of a slot's first
// value; Commit writes it as one WriteBatch. The vectors are checked against
// the indexes' dimensions first, so a committed memory never fails to
// index. The in-memory indexes take the batch while it is encoded and
// written (batches in commit order, under the write lock), and a failed
// commit takes it out of them again; a search in between may meet a memory
// not yet committed and drops it, as one deleted while it searched.
// WriteStats says where the writes spent their time.
// Delete reads the stored fingerprint in its batch to remove the postings
// (the cellar removes every per-memory key).
//
// # Lifecycle
//
// Update applies a record.Change as the next revision (Batch.Replace keeps
// the one it replaces in the history family); new content is fingerprinted
// before the lock, like Add, and replaces every slot's values and postings
// in the same batch; other changes write the record alone. Link and Unlink
// write both keys of a relation; a memory's relations and history go with
// it in Delete's batch. Write batches that change memories in place bump
// meta/edit_count, and a read-only engine that sees it move rebuilds.
//
// The index set keeps an attribute table (attrs: a bitmap per type, tag,
// project, session, source and metadata pair; a row per doc for times and
// importance; the superseded docs). Search turns record.Filter into a
// bitmap there and every probe searches inside it (spaces.allow), so a
// filter is applied before fusion and never empties a top-k that matching
// memories could fill. AddBatch compares each new memory with its E1
// neighbours in its project (findSimilar) and reports near-duplicates only
// when E1, E6 and E11 all agree (DefaultNearDuplicate); NewMemory.Supersede
// links them in the memory's batch. Decay (DecayOf) is shown as a badge and
// used by Maintain; it never changes a ranking. Every action Maintain
// applies is written with its audit entry in one batch (audit.go); a delete
// keeps the memory whole so that Undo puts it back without a model.
//
// Contradictions found on write (contradict.Judge over the same evidence)
// follow the write's policy (NewMemory.OnConflict, else
// Options.OnConflict): report keeps a "contradicts" relation new → old,
// supersede-newer a "supersedes" one, in the memory's batch. The attribute
// table marks the targets of both (attrs.superseded filters, contradicted
// badges: record.Memory.ContradictedBy); Contradictions lists the open
// pairs. A supersedes link also ends its target's validity in the record
// (record.Memory.ValidUntil, written by the cellar's Batch.Link and
// Unlink); record.Filter.AsOf filters on creation and end times in the
// attribute rows and RevisionsAt puts back the revision each hit had then.
// Ranking as of a time uses today's fingerprints.
//
// With Options.DeferSlots, AddBatch computes only the other slots and marks
// the deferred ones in the pending family, in the memory's batch; the
// filler (filler.go: FillPending, run in the background by engines that
// defer and by StartFiller) computes them later in batches, each one
// atomic, so a memory is searchable by E1 and keywords at once and a
// restart resumes the filling. The background filler yields to writes: it
// waits for a pause (at most a few seconds, then small batches), because a
// write's own encoding is what its caller waits for.
//
// A writer keeps the E12 token matrices S4 reranks in an LRU cache
// (Options.TokenCacheBytes); Warm, which a long-lived server calls at start,
// loads the models and fills that cache newest memories first (WarmTokens).
//
// # Slot registry and re-embedding
//
// default/slot/Ek records each slot's producer, status and dims. Open
// compares them with the registry and refuses a difference with
// *ProducerMismatchError (a store without memories takes the current
// producers). With Options.Reembed the mismatched slots are stale:
// unsearchable and Add refused until Reembed has recomputed them, batch by
// batch, recording the new producers last, so an interrupted Reembed
// resumes. Reembed refuses a slot whose embedder is unavailable now (a
// missing or corrupt model): that would drop its values.
//
// # In-memory indexes and searches
//
// Open rebuilds one structure of package indexes per space from the
// families (dense ANN per dense space and pair side, the M128 flat scan,
// BM25, SPLADE, the E9 hypervectors, the E11 name sets, the E2–E4 time
// table); E12 token matrices stay in the store and are read per S4
// candidate, the recently used ones kept decoded in a writer's bounded LRU
// (Options.TokenCacheBytes; the query views have one too,
// Options.ViewCacheSize). Search refuses a query over MaxQueryBytes, asks
// pipeline.Plan which probes the request can make,
// encodes exactly those query views (in parallel; a view the query has none
// for makes its slot unavailable for that search, with the reason — only a
// failing E1 encoder fails it), runs pipeline.Run over a pipeline.Spaces
// adapter and resolves hits without recording accesses. A read-only engine
// catches up with the writer before every Search (new doc numbers indexed,
// deleted ones dropped, a re-embed rebuilds).
//
// # Locks
//
// writeMu serialises writes from batch to index update; a write holds
// writeMu, then the cellar's write lock (a Batch), then mu (the index set and
// slot records) only to swap state. Searches hold mu shared.
//
// Measured latency, RAM and agreement with exact search are in
// docs/BENCHMARKS.md.
package engine
