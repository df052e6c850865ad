// Package memory is the store with fingerprints and search: it composes
// package engine (records, RocksDB families, hooks, the write lock), an
// *embedders.Registry (fingerprints, query views), in-memory package indexes
// structures rebuilt from the families on open, and pipeline.Run behind a
// pipeline.Spaces adapter. All writes that should be searchable go through
// Store. It owns the value layouts of the derived families (engine/FORMAT.md,
// "Derived families") and must not fuse scores (package pipeline does) nor
// compute representations (package embedders does).
//
// # Write path
//
// Add/AddBatch validate, fix CreatedAt (the engine's default, set here so E2
// and E3 see it) and compute full fingerprints with Registry.EmbedDocuments
// (batched, slots in parallel) before any lock. Then, under the store's write
// mutex, engine.AddBatchWith hands each memory's fingerprint to the store's
// MemoryHook (engine.Tx.Payload), which writes in the memory's one WriteBatch:
// the fingerprint, every per-doc slot family, the E6/E13 postings (one key per
// (term, doc)) with their statistics, and the slot registry entry of a slot's
// first value. E4 is recomputed inside the hook from the record, because the
// engine assigns the session sequence in that batch. The hook first checks the
// vectors against the indexes' dimensions, so a committed memory never fails
// to index; any hook error writes nothing. After the commit the indexes are
// updated in commit order. Delete reads the stored fingerprint in the hook to
// remove the postings and statistics (the engine removes the per-doc keys).
//
// # Slot registry and re-embedding
//
// default/slot/Ek records each slot's producer, status and dims. Open compares
// them with the registry and refuses a difference with *ProducerMismatchError
// (a store without memories simply takes the current producers). With
// Options.Reembed the mismatched slots are "stale": unsearchable (Spaces
// report them unavailable with the reason) and Add is refused until Reembed
// has recomputed them. Reembed walks every memory in batches of 64, each one
// UpdateDerived batch (fingerprint, slot families, postings, generation bump),
// and writes the new producers last. A crash in between leaves the old
// records, so the store opens only with Reembed, and the next Reembed skips
// memories whose entry already has the new producer. If the new producer has
// other dimensions, the rebuild of a stale slot keeps the vectors of the
// current dimensions.
//
// # In-memory indexes
//
// One indexes structure per space: Dense (int8 sign sketch + exact rerank) for
// E1, E5 cause, E5 effect, E7, E8 source, E8 target, E9 projection, E10
// intent, E10 context and the E11 entity vector; Flat (float32) for
// E1-Matryoshka-128; BM25 (E6) and Splade (E13); E11 entity sets as sorted
// name ids; the E9 hypervectors for exact Hamming scores; per doc the
// creation time, session and position for E2/E3/E4. E12 token matrices stay
// on disk and are loaded per S4 candidate. Dense spaces are Int8 because ten
// 384-d float32 spaces alone take 15.9 KB per memory; the measured total is
// in the benchmarks section. Doc numbers: engine.DocNum, indexes.DocNum and
// pipeline.DocNum are all uint32 types owned by their packages; the adapter
// converts (free at run time) rather than aliasing, so each package keeps
// its own documented type.
//
// A read-only store catches up before every Search: slot/generation changed
// (the writer re-embedded) ⇒ full rebuild; meta/next_docnum moved ⇒ the new
// doc numbers are read (record + fingerprint) and indexed (more than 5,000 ⇒
// rebuild); meta/memory_count differs from the indexed count ⇒ the stored doc
// numbers are scanned and the missing ones dropped. A hit whose memory was
// deleted after the index search is dropped at resolution (the trace says so).
//
// # Spaces
//
// A probe searches its slot's index with the query's view, at most k hits best
// first, within the candidates when given, and — when k ≥ |within| — every
// candidate with a representation: dense slots by cosine; E6 BM25 with the
// query's term counts and E13 SPLADE dot products, where a document has a
// representation when it shares a query term; E9 candidates from the
// projection ANN (4k, at least 100, or all of a small within) scored by
// Hamming similarity in [0, 1]; E11 symmetric by entity-vector cosine and
// entity_set by Jaccard of the exact names; E12 MaxSim as the mean over query
// tokens of the best cosine, candidates only; E2/E3/E4 candidates only, scored
// in [0, 1] by the slot's own embedder (Score) over values it recomputes from
// the time/session/position kept in RAM (model-free and deterministic: the
// same inputs the stored entry came from); E4 only within the query's session.
// A view the query has no value for (no model, no session, no entity, no code
// structure) makes the slot unavailable for that search, with the reason;
// only a failing E1 encoder fails the search.
//
// Search resolves hits with engine.PeekDocs (no access recorded), reports
// Encode (query views, in parallel) and Total.
//
// # Benchmarks
//
// See bench_test.go for the setup and the command; figures are in the
// package's benchmark section below, measured on the 2-core machine kind.
package memory
