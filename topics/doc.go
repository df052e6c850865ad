// Package topics clusters memories in each slot space, groups them into topics by
// weighted cross-slot agreement, tracks topic stability and raises divergence
// alerts from the semantic slots.
//
// It works on fingerprints (package fingerprint) and memory indexes into the
// caller's slice; it never reads a store. Package topics/topicstore computes
// topics over a engine.Engine and keeps snapshots in the topic_profiles column
// family.
//
// # Clustering (HDBSCAN)
//
// HDBSCAN is written here on the standard library (no usable Go module is
// served): core distances, Prim's minimum spanning tree of the
// mutual-reachability graph, the single-linkage hierarchy condensed with
// min_cluster_size, excess-of-mass selection. It follows scikit-learn's
// HDBSCAN (min_samples counts the point itself) and gives the same partition
// and membership probabilities on the fixtures of testdata/gen_hdbscan.py
// (blobs, varied density, uniform noise, moons). It costs O(n²) distance
// calls and O(n) memory.
//
// Each non-temporal slot is clustered in its own space, on its "dense view"
// (see space in views.go): the unit vector (E1, E7), both sides of a pair
// concatenated (E5, E8, E10), the E9 projection, the E11 entity vector (or
// Jaccard of entity sets), the mean token vector (E12), TF-IDF (E6) and the
// SPLADE weights (E13), with distance 1 − cosine. Memories without a value in
// a slot (unavailable model) are noise there; a slot nobody has is skipped and
// reported.
//
// # Topics (ARCH-09)
//
// The weighted agreement of memories a and b is
//
//	A(a, b) = Σ over clustered slots s of w(s) · [label_s(a) = label_s(b) ≠ noise]
//
// with w = 1.0 for the semantic slots (E1, E5, E6, E7, E10, E12, E13), 0.5
// for the relational (E8, E11) and structural (E9) ones and 0 for the
// temporal ones (E2–E4): at most 8.5. Topics are formed by complete linkage
// over A: groups merge (closest first) only while every cross pair agrees at
// A ≥ 2.5, so every two members of a topic agree at ≥ 2.5 — no chaining of
// unrelated memories through a middle one — and a topic has at least
// min_cluster_size members. Each topic reports its mean and minimum pairwise
// agreement, the share of member pairs each slot supports and its most
// distinctive E6 terms.
// Detection.Reachable is the sum of the weights of the slots that could be
// clustered: with only the model-free slots (E6 1.0, E9 0.5, E11 0.5) it is
// 2.0 and no topic can form, which the report says instead of lowering the
// bar.
//
// # Stability
//
// A Snapshot is the topics' memberships (memory id text) at a time. Compare
// restricts both snapshots to the memories present in both, matches each
// current topic with the previous topic of highest membership Jaccard and
// reports it stable (≥ 0.8), changed (> 0) or new; Overall is the size-weighted
// mean Jaccard. New and deleted memories are not counted as change.
//
// # Divergence (ARCH-10)
//
// Divergence compares target memories (typically the newest) with reference
// memories (the members of the current topics, or every other memory when
// there is none) in the 7 semantic slots only. In each slot the measure is the
// target's best similarity to any reference memory, in the slot's clustering
// view (cosine, TF-IDF cosine for E6); below 0.20 is a medium alert, below
// 0.10 a high one. A slot where the target or every reference memory has no
// value is reported unmeasured, never as an alert. With anisotropic encoders
// (e5's cosines of unrelated texts sit near 0.7) the dense slots rarely fall
// below the thresholds; the lexical slots (E6, E13) do when a memory shares no
// distinctive term with anything before it.
package topics
