// Package embedders turns memory text and metadata into the per-slot
// representations of a fingerprint: one Embedder per slot E1–E13, each with a
// document view and, for asymmetric slots, a query view per direction.
//
// Model-backed slots run through package models; the others (temporal codes, BM25
// terms, hypervectors, entity sets) are computed here. A slot without a model says
// so; it never falls back to a copy of another slot.
package embedders
