// Package indexes holds the in-memory search structures of a store: dense ANN per
// dense space, the E1-Matryoshka-128 flat scan, inverted indexes over roaring
// bitmaps for E6 and E13, and the E12 late-interaction store.
//
// Every index is a cache: it can be rebuilt from the column families that package
// engine owns and must never be the only copy of anything.
package indexes
