// Package pipeline runs a search: the five stages (S1 recall, S2 Matryoshka
// filter, S3 weighted RRF fusion, S4 late-interaction rerank, S5 thresholds and
// temporal badges), the simpler modes, direction and intent boosts, and explain
// traces.
//
// Fusion and planning are pure functions over ranked lists; the pipeline reaches
// indexes through the small Spaces interface it owns and never touches storage.
// Run is the entry point; Plan(req) lists every probe Run may make for a
// request (the query views the caller encodes first — Run never probes
// outside it); WRRF, MergeDirections, E10Multiplier and ExactNameMultiplier
// are the pure parts, usable on their own. Which slots fuse, lead or only
// badge, and what the sides of a pair are called, come from fingerprint's
// slot-facts table.
//
// # Stages and modes
//
//	pipeline       S1 recall   E13 top RecallK (10,000); E6 when E13 is unavailable or empty
//	                           (trace note); + Profile.ExtraRecall slots (typo_tolerant:
//	                           E9), top FusionK each, kept past S2
//	               S2 filter   E1 Matryoshka-128 top FilterK (1,000) within S1
//	               S3 fusion   WRRF over the profile's fused slots, each scoring every
//	                           S2 candidate with its own view; keep FusionK (100)
//	               S3 feedback only with Request.Feedback N > 0: the top N fused
//	                           documents move the E1/E5 queries (Rocchio) and
//	                           expand E6 (RM3, Expander); those slots score the S2
//	                           candidates again and WRRF fuses again
//	               S4 rerank   E12 MaxSim over the S3 top as one more WRRF list
//	               S5 validate thresholds, E2/E3/E4 badges, top-k
//	multi_space    S3 over all documents (each slot top FusionK, in parallel; keep
//	               FusionK), S3 feedback (over all documents) when asked, S5
//	e1_only        one E1 search (top-k), S5
//	embedder_first one search in any retrieving slot (--embedder Ek), S5
//
// Fused slots are the profile's slots with weight > 0 except E2–E4 (they never
// retrieve: S5 only), E12 (reranks only: S4) and E13 (recalls only: S1). In
// multi_space a weighted E12/E13 is reported as skipped. E13's weight never
// scores (pipeline mode recalls from E13 whatever its weight); E12's weight is
// its S4 WRRF weight, Request.RerankWeight (0.15) when the profile gives 0,
// unless Request.RerankSkip skips S4 for such a profile (the engine does while
// E12 is its e5 token-state fallback, which measured no gain as a rerank).
// FusionK is raised to TopK when smaller. In single-slot modes
// the score is the slot's raw score and the profile does not weigh anything.
//
// # Scores
//
// Fusion is rank-based by default (ARCH-21), so cosine, BM25 and Jaccard
// scores are never added together: WRRF(d) = Σ w_i/(60 + rank_i(d)), rank
// 0-indexed. Request.Fusion = FusionMinMax (opt-in) adds each list's min-max
// normalised scores instead, w_i · (s − floor_i)/(top_i − floor_i) clamped to
// [0, 1] with floor_i the list's score at rank NormDepth: every list on its
// own [0, 1] scale, so scales still never mix (docs/BENCHMARKS.md "Min-max
// fusion": +0.01–0.03 nDCG@10 on every set). Raw scores otherwise only
// re-order a slot's own list before fusion:
//
//   - AP-77 direction factors on E5/E8: a forward match (query cause → document
//     effect, source → target) ×1.2, a backward match ×0.8. search_causes
//     (--direction causes: the query is an effect) searches the documents'
//     CAUSE vectors with the query's EFFECT view (ViewBackward) and scores
//     ×0.8; search_effects the reverse ×1.2; with no direction both views run
//     and each document keeps its better boosted score.
//   - the E10 boost (profiles with E10Boost > 0): E1 score × E10Multiplier,
//     clamped to [0.8, 1.2]; E1 ≤ 0 is never boosted.
//
// A fused document's final score is S3 score × E11 exact-name factor
// (1 + 0.1·Jaccard of entity sets, profiles weighing E11) + the S4 E12
// contribution + in temporal profiles the S5 E2–E4 contributions. Every part is
// in the result's explain (slots, boosts).
//
// # Per-query weights (the auto profile)
//
// For an adaptive profile (profiles "auto") S3 does not use the profile's
// weights: AutoModel.Weigh sets each list's weight from features of the query
// text (QueryFeatures) and of what each slot returned (ListEvidence: top
// score, gap, entropy of the top 10, agreement with the other lists), with
// the parameters embedded in auto_model.json, before the E10 boost and WRRF.
// Its base weights route between a code vector and a prose vector on the
// share of the lists' top hits that read as code (CodeShare, with
// Request.IsCode, which the engine answers from its in-memory mark of
// such memories). A slot whose confidence passes its learned gate is
// returned alone. The decision is Result.Auto and a line in the S3 trace.
// Weigh does no I/O: O(lists × top 50) plus one IsCode call per
// distinct top-10 document. The parameters are fitted offline
// (bench/autofit_experiment_test.go, docs/PROFILES.md).
//
// # Thresholds and badges
//
// S5 drops a result that has at least one thresholded score (every slot but
// E6/E13, whose scores are unbounded, and the temporal slots) and whose
// thresholded scores are all below their slot's Low threshold
// (fingerprint.Info); each explained score carries its level (high/mid/low).
// E2/E3/E4 are searched only within the retrieved results; a score at or above
// the slot's High gives the badge recent / periodic / in_sequence. A badge
// breaks ties between equal scores and never reorders unequal ones — except in
// temporal profiles in fusion modes, where E2–E4 add their WRRF contributions.
//
// # Failures
//
// Every probe is reported in Result.Spaces with a status: ok, empty,
// unavailable (fallback applied), skipped (weighted but not used in this mode)
// or failed. An index error fails the search with the stage and probe in the
// message, unless Request.Partial asks to report it as failed and go on.
//
// # Implementing Spaces (for the engine)
//
// The engine encodes the query once per slot (embedders.EmbedQuery) and wraps
// its indexes in a Spaces value for that query. Probe → index:
//
//	E1  symmetric       dense ANN over e1_semantic (full dims)
//	E1  matryoshka128   indexes.Flat over e1_matryoshka_128, within the S1 set
//	E5/E8/E10 forward   query embedded as SideA (cause/source/intent) against the
//	                    stored SideB index (e5_effect, e8_target, e10_context) —
//	                    embedders.FindEffects / FindTargets / FindContexts
//	E5/E8/E10 backward  query as SideB against the SideA index (e5_cause, …) —
//	                    FindCauses / FindSources / FindIntents; see View.Sides
//	E6, E13 symmetric   inverted index (BM25, SPLADE impacts)
//	E7, E9, E11 sym.    dense ANN (E9: its dense projection or Hamming scan)
//	E11 entity_set      Jaccard of the query's and each candidate's entity sets
//	E12 symmetric       MaxSim of the query token matrix, candidates only
//	E2/E3/E4 symmetric  temporal scores in [0, 1] of the candidates (E2 recency
//	                    computed at query time), candidates only
//
// A slot without a model returns an error wrapping ErrUnavailable (wrap the
// embedders' own unavailable error with it). Never substitute another slot:
// the fallback is the pipeline's job and it reports it.
//
// # JSON
//
// Result marshals to the shape the CLI prints with --json; the engine adds each
// memory's "id" and "content" beside "doc":
//
//	{"query": "why did the build fail", "profile": "causal_reasoning", "mode": "pipeline",
//	 "results": [{"id": "0191…", "doc": 17, "score": 0.0142, "content": "…",
//	              "slots": {"E1": {"rank": 0, "score": 0.81, "contribution": 0.0033, "level": "high"}, …},
//	              "boosts": [{"name": "E11 exact names", "signal": 0.5, "factor": 1.05}],
//	              "badges": ["recent"]}],
//	 "spaces": [{"stage": "S3 fusion", "slot": "E5", "view": "backward", "weight": 0.45,
//	             "status": "ok", "hits": 980, "note": "direction factor ×0.8"}],
//	 "trace": [{"stage": "S1 recall", "candidates": 9871, "ms": 1.9, "note": "E13 recall k=10000"}, …]}
//
// Run is safe for concurrent use when the Spaces are; it keeps no state
// between calls.
package pipeline
