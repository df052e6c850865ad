// Package neural builds the model-backed embedders of the fingerprint and the
// full 13-slot registry (Registry): the model-free slots of package modelfree
// plus one embedder per model-backed slot whose model is installed. A slot
// whose model is missing is embedders.Unavailable naming the model and the
// `cgraph models pull` that installs it; it never becomes a copy of another
// slot.
//
// Each model file is opened once (one runtime.Model, one ONNX Runtime
// session) and shared by every slot that uses it. Every slot's producer is
// the model id plus a sha256 over the ONNX file's pinned sha256, the slot's
// recipe and its parameters (prefixes, heads, projections), so any change is
// a different producer and a store built otherwise is refused.
//
// # Slot plan
//
//   - E1: e5-small-v2 with "query: " / "passage: " (its training format);
//     the store derives E1-Matryoshka-128 with fingerprint.Matryoshka128.
//   - E7: jina-embeddings-v2-base-code where installed, else
//     all-MiniLM-L6-v2 (CodeSearchNet pairs are among its 1B training pairs).
//
// It must not search (package indexes) nor decide fusion (package pipeline).
package neural
