// Package engine is the store with fingerprints and search: it composes
// package cellar (records, RocksDB families, hooks, the write lock), an
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
// mutex, cellar.AddBatchWith hands each memory's fingerprint to the store's
// MemoryHook (cellar.Tx.Payload), which writes in the memory's one WriteBatch:
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
// in the benchmarks section. Doc numbers: record.DocNum, record.DocNum and
// record.DocNum are all uint32 types owned by their packages; the adapter
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
// Search resolves hits with cellar.PeekDocs (no access recorded), reports
// Encode (query views, in parallel) and Total.
//
// # Benchmarks
//
// CGRAPH_MEMORY_BENCH=1 go test ./memory -run XXX -bench Search -benchtime 100x
// -timeout 90m (bench_test.go says how the stores are made: 3,000 Go
// standard-library comment blocks fingerprinted by the installed models — E1
// e5-small-v2-q, E5/E7/E8/E10/E11/E12 from the neural registry, the model-free
// slots — replicated with noise to 10k and 100k; 200 held-out first sentences
// as queries). Medians of 100 queries on 2 shared cores (load average 3–7 from
// other jobs, so p95 is noisy), after query encoding, each against an
// exact-scan baseline (dense brute force, exhaustive inverted scoring) run on
// the same query in the same loop:
//
//	                       10k p50 (exact)      100k p50 (exact)     goal at 100k
//	e1_only                0.33 ms (2.76 ms)    1.76 ms (26.3 ms)    ≤ 2 ms
//	multi_space semantic   6.5 ms (30.5 ms)     12.0 ms (180 ms)     ≤ 8 ms
//	pipeline pipeline_full 12.4 ms (12.8 ms)    42 ms (35 ms)        ≤ 15 ms
//	pipeline end to end    59 ms (encode 45)    80 ms (encode 58)    ≤ 50 ms
//	RAM, all indexes       5.80 KB/memory       5.65 KB/memory       ≤ 6 KB
//
// (100k rows after the E1 rerank change; the 10k rows and the end-to-end
// figures from the run before it, E1 reranking 512.)
//
// Pipeline stages at 100k (p50): S1 E6 recall k=10,000 3.5–7 ms, S2 M128
// 1.8–4 ms, S3 fusion 8–13 ms, S4 E12 MaxSim 14–18 ms (100 token matrices
// read from e12_late_interaction: at 100k they no longer sit in the block
// cache; 4 ms at 10k), S5 0.3 ms. The pipeline's exact baseline is as slow as
// the indexes because every stage after S1 already scores a candidate set
// exhaustively. RAM per memory at 100k: E1 964 B (int8 space 445 + M128
// float32 520), E5 888, E10 888, E7 444, E9 1,564 (projection space ~300 +
// hypervectors 1,256), E6 225, E11 322, E8 306 (only memories with code
// structure), E2–E4 table 44. A SPLADE model for E13 would add 1.2–2.4 KB
// (indexes doc) and break the 6 KB goal: the E9 hypervectors would then have
// to go back to disk (5 ms per 1,000 candidates).
//
// Agreement with the exact baseline's top 10 is low on this replicated corpus:
// e1_only 0.87 at 10k and 0.74 at 100k (0.75 counting any replica of the
// same source text); multi_space 0.77 and 0.67 (0.77). Each source has 33 noisy replicas at cosine ≈ 0.95, so the
// true top 10 are near-ties inside one cluster of 34, the hardest case for a
// sign sketch; E1 recall@10 by rerank depth (e1_recall) is 0.896 / 0.939 /
// 0.962 / 0.971 at 10k and 0.70 / 0.77 / 0.84 / 0.89 at 100k for 512 / 1024 /
// 2048 / 4096 (int8; float32 is within 0.02, so the sketch, not the
// quantization, loses them). E1 uses 1024.
package engine
