// Package pipeline runs a search: the five stages (S1 recall, S2 Matryoshka
// filter, S3 weighted RRF fusion, S4 late-interaction rerank, S5 thresholds and
// temporal badges), the simpler modes, direction and intent boosts, and explain
// traces.
//
// Fusion and planning are pure functions over ranked lists; the pipeline reaches
// indexes through small interfaces it owns and never touches storage.
package pipeline
