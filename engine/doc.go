// Package engine is the memory store: it opens a store directory backed by RocksDB
// column families, gives every memory a typed MemoryID (UUIDv7) and a dense uint32
// DocNum, and writes everything one memory owns in one atomic WriteBatch.
//
// The on-disk layout (column families, key and value encodings, format version) is
// specified in FORMAT.md beside this file. Storage details stay inside this package
// and package indexes; callers see Engine methods only.
//
// engine must not know how a slot is embedded or how results are fused: it calls
// package embedders and package pipeline through their interfaces.
package engine
