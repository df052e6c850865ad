// Package fingerprint defines the embedder slots E1–E13 (their names, categories,
// topic weights and thresholds) and the Fingerprint type: one representation per
// slot for one memory, with its versioned binary codec.
//
// fingerprint depends on nothing internal; every other package names slots through
// SlotID. It must not compute representations (package embedders does) nor search
// them (package indexes does).
package fingerprint
