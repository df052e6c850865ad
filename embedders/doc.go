// Package embedders turns memory text and metadata into the per-slot
// representations of a fingerprint: one Embedder per slot E1–E13, each with a
// document view and a query view; asymmetric slots (E5, E8, E10) embed a query
// as the side the caller names (Query.As), compared with the stored other side.
//
// The package owns the interface, the Registry (keyed by SlotID: no type
// switch over slots anywhere) and the Unavailable embedder. Implementations
// live in sub-packages:
//
//   - temporal: E2 recency, E3 periodicity, E4 sequence (post-retrieval only)
//   - keywords: E6 code-aware tokens, term frequencies, BM25
//   - hdc: E9 character-trigram hypervectors and their dense projection
//   - entities: E11 entity sets and Jaccard overlap
//   - structure: the structure text (imports, calls, definitions, paths) the
//     model-backed E8 embeds
//   - modelfree: the registry of the model-free slots, with model-backed
//     slots marked unavailable until a model runtime provides them
//
// Model-backed slots run through package models; they implement the same
// interface and are passed to modelfree.Registry as extra embedders. A slot
// without a model says so in every entry and status; it never falls back to a
// copy of another slot.
//
// Every embedder records a fingerprint.Producer: the model id and weights
// sha256, or for model-free slots an algorithm id and the sha256 of the
// parameters that change its output (ModelFree), so that the engine can refuse
// to mix stores built differently.
package embedders
