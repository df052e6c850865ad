// Package convert turns model weights published in a framework format into an
// ONNX graph that package runtime can run, in pure Go, at install time: no
// Python, no torch, no network.
//
// It owns a few small pieces:
//
//   - a safetensors reader (safetensors.go): the 8-byte header length, the
//     JSON header, and little-endian tensor data, checked strictly (known
//     dtypes, sizes that match shapes, offsets that tile the data exactly);
//   - an ONNX writer (proto.go, onnx.go): the protobuf wire encoding of the
//     few ONNX messages a graph of standard operators needs, written by hand;
//   - graph builders, one per Kind: SafetensorsBertMLM builds a BERT masked-LM
//     (embeddings, post-LN encoder layers, MLM head with the decoder tied to
//     the word embeddings) whose output "logits" [batch, sequence, vocab] is
//     what runtime.TaskMaskedLM reads for SPLADE pooling;
//   - an initializer patcher (patch.go): PatchFloats reads an existing ONNX
//     model's protobuf just far enough to change named float32 weights (a
//     learned low-rank update added to a matrix) and copies every other byte;
//   - a graph extender (project.go): AddProjection appends a linear map of a
//     token-states output (E12's PCA) as a new output, so a GPU run hands the
//     host the projected tokens instead of the token states.
//
// Output is byte-deterministic: the same inputs always give the same file,
// so the manifest can pin its sha256 and the installer check it like any
// downloaded file. Weights are copied bit for bit (transposed where ONNX
// needs another layout, never recomputed), nothing depends on map order,
// time, or the Go version, and a change to the bytes this package writes
// means re-pinning every converted model in models/manifest.json (the
// golden digest in the tests says so first).
//
// convert must not fetch anything, know about the manifest or slots, or run
// models; package models calls Convert with files it has already checked by
// sha256.
package convert
