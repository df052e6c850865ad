// Package models owns the model manifest (which model serves which slot, its files,
// sha256 sums and sources), the installer and verifier, and the ONNX Runtime
// sessions, tokenizers and pooling that turn text into vectors.
//
// models knows nothing about slots beyond the manifest; package embedders decides
// how a model output becomes a fingerprint slot.
package models
