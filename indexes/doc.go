// Package indexes holds the in-memory search structures of a store: dense ANN per
// dense space (Dense), the E1-Matryoshka-128 flat scan (Flat), inverted indexes
// for E6 (BM25) and E13 (Splade), and E12 late interaction (TokenMatrix, MaxSim,
// Late). It owns the value layout of a quantized token matrix (TokenMatrix,
// version 1, pinned by testdata/token_matrix_v1.hex) and nothing else on disk.
//
// Every index is a cache: it can be rebuilt from the column families that package
// engine owns and must never be the only copy of anything. Each has a bulk Build
// (the open path: one call with all of a family's values, nothing changed on
// error), Add (insert or replace), Delete (exact and immediate) and, where order
// matters, a sorted Export. Indexes must not read RocksDB, pick query views or
// fuse scores: the pipeline does.
//
// # Shapes shared by all indexes
//
// Documents are record.DocNum (dense uint32 numbers from the engine; per-number tables
// cost a few bytes up to the largest number). Results are Hits, best first
// (score descending, ties by ascending record.DocNum, so results are deterministic).
// Candidate sets move between stages as roaring bitmaps (every Search takes
// one as its "within" set). Scores keep their index's scale (cosine, BM25,
// sparse dot, MaxSim sum): fuse ranks, never raw scores.
//
// Concurrency: every index is safe for concurrent use. Searches share a read
// lock; Add, Delete and Build take the write lock (one writer at a time; Build
// does its work before taking the lock, so readers wait only for the swap).
//
// # Dense ANN: why a binary sketch with exact rerank, not HNSW
//
// Dense keeps, per space, each unit vector contiguously plus a sign sketch of the
// vector minus the corpus mean (Dim/8 bytes). Search computes the Hamming
// distance from the query's sketch to every live sketch (6 popcounts for 384-d),
// takes the 6×Rerank (default 512) closest with a histogram cut, orders those by
// the asymmetric score (the unquantized query against the doc's sign bits, 48
// table look-ups per doc), and rescores the best Rerank with the exact cosine.
// The asymmetric stage is what keeps recall on near-duplicate-heavy data, where
// the sketches of a text's copies hardly differ. Reasons, from measurements
// (DESIGN.md and below):
//
//   - Correctness is easy to argue and to test: deletes are exact (swap-remove),
//     a filter restricts the scan itself (graph indexes lose recall under
//     filters), the result at small n equals brute force, there is no build-order
//     or graph-repair state. coder/hnsw returned wrong neighbours and panicked
//     after Delete; fogfish/hnsw has no delete and races under concurrent insert.
//   - It meets the latency goal at 100k on 2 cores with margin (below), builds at
//     5–25 µs per vector (HNSW at M=16, ef=100 needs thousands of distance
//     computations per insert) and opens in one pass.
//   - Cost is O(n) popcounts, so beyond ~1M vectors per space an HNSW (own,
//     tested against Dense.BruteForce) would be needed; the seam is the Search
//     signature.
//
// Precision Float32 (default) keeps float32 vectors; Int8 keeps one int8 per
// dimension with a per-vector scale: 445 instead of 1592 bytes per doc for 384-d,
// cosines within 0.004 of float32. Ten 384-d spaces cost 15.9 KB per memory in
// Float32 and 4.4 KB in Int8; the 6 KB budget of issue 5 needs Int8.
//
// Measured recall, latency and bytes per document of every index, and how
// to reproduce them, are in docs/BENCHMARKS.md. In short: Dense Int8 keeps
// 445 B/doc at 384-d with recall@10 ≥ 0.98 of exact search at 100k on
// paraphrase-like data; Flat stays float32 (SIMD beats int8 at 128-d); BM25
// and SPLADE top-k are exact (MaxScore or term at a time, whichever measured
// faster for the query shape); E12 token matrices are int8 per row and are
// read from the store per S4 candidate.
package indexes
