// Package profiles owns the named weight profiles (one weight per slot E1–E13),
// their validation rules, and custom profiles read from TOML or YAML files.
//
// A Profile says how much each embedder slot counts when the pipeline fuses
// ranked lists with weighted RRF. It is plain data: this package never
// searches, and it must not know about indexes or storage.
//
// # Validation rules
//
// Validate enforces, for built-in and custom profiles alike:
//
//  1. every weight is a finite number in [0, 1];
//  2. the weights sum to 1 ± 0.01 (SumTolerance);
//  3. the temporal slots E2, E3, E4 weigh 0 unless the profile is a temporal
//     profile (Profile.Temporal). Temporal slots never retrieve (ARCH-25,
//     AP-60); a temporal profile lets them re-order results after retrieval.
//     The built-in temporal profiles are temporal_navigation,
//     sequence_navigation, conversation_history — and balanced, the uniform
//     research baseline, whose table row gives every slot (E2–E4 included)
//     .077, so it is declared temporal too;
//  4. the stage-only slots E12 (late interaction, reranks only: AP-73) and E13
//     (SPLADE, recalls only: AP-74/75) weigh 0 unless the profile is a staged
//     profile (Profile.Staged), i.e. one written for the five-stage pipeline in
//     which E13 feeds S1 recall and E12 feeds S4 rerank. From DESIGN.md's table
//     the staged built-ins are exactly those that weigh E12 or E13 or are named
//     for a pipeline stage: typo_tolerant, temporal_navigation,
//     sequence_navigation, conversation_history, pipeline_stage1_recall,
//     pipeline_stage2_scoring, pipeline_full and balanced;
//  5. weights are named by slot; an unknown slot is rejected with the list of
//     valid slot names (fingerprint.ParseSlot);
//  6. E10Boost (the strength of the E10 multiplicative boost on E1) is in
//     [0, MaxE10Boost]; ExtraRecall names only retrieving slots.
//
// The flags are declarations, not loopholes: a custom file that weighs E2 must
// say `temporal = true`, which tells the reader (and the pipeline) that the
// profile re-orders results by time.
//
// # The auto profile
//
// The built-in profile auto is adaptive (Profile.Adaptive): the pipeline
// sets its fusion weights per query from what each space returned, with the
// model embedded in package pipeline (auto_model.json). Its Weights here
// (AutoBase) are the model's base weights: they say which slots are searched
// and what the weights are before the evidence moves them. Profile files
// cannot declare a profile adaptive, Encode refuses one, and per-query
// overrides are refused on it (there is no fixed weight to pin).
//
// # Per-query overrides
//
// An override "E5=0.6" (ParseOverride) pins one slot's weight. After applying
// overrides, WithOverrides re-normalises the slots that were not overridden
// proportionally so the sum stays 1: each other weight w becomes
// w·(1−Σpinned)/Σothers. Slots at 0 stay at 0. An override set that cannot be
// re-normalised (pinned weights above 1, or nothing left to scale) is an error,
// and the result is validated by the same rules as any profile.
//
// # Files
//
// A custom profile file is TOML (.toml) or YAML (.yaml, .yml):
//
//	name = "my_causal"
//	description = "causal reasoning with more code"
//	e10_boost = 1.0          # optional, default 0 (no boost)
//	temporal = false         # optional
//	staged = false           # optional
//	extra_recall = ["E9"]    # optional
//	[weights]                # slot names ("E5", "5", "causal") → weight
//	E1 = 0.3
//	E5 = 0.4
//	E7 = 0.3
//
// Unknown keys, duplicate slots and names that shadow a built-in profile are
// errors. Files are small; loading one costs a parse and a validation.
package profiles
