// Package fingerprint defines the embedder slots E1–E13 (their names, categories,
// topic weights and thresholds) and the Fingerprint type: one representation per
// slot for one memory, with its versioned binary codec.
//
// Each slot stores exactly one Kind of Value (SlotID.Kind): dense vectors (E1,
// E7), asymmetric pairs (E5 cause/effect, E8 source/target, E10
// intent/context), term frequencies (E6), learned sparse weights (E13), a token
// matrix (E12), a 10,000-bit hypervector with its projection (E9), temporal
// codes (E2 creation time, E3 Fourier features, E4 session position) and an
// entity set (E11). Every slot entry carries a Status (present, fallback with a
// note, unavailable with a reason) and the Producer (model id + sha256) that
// made it.
//
// Encode and Decode implement the format in FORMAT.md: magic "CGFP", a format
// version, little-endian fields, float32 values, a CRC-32C; the encoding is
// canonical and every decode error wraps record.ErrCorrupt. testdata holds a fixture
// of each format version, which must keep decoding.
//
// fingerprint depends on nothing internal; every other package names slots through
// SlotID. It must not compute representations (package embedders does) nor search
// them (package indexes does).
package fingerprint
