// Package cellar is the record store under package engine: it opens a store directory backed by RocksDB
// column families, gives every memory a typed record.ID (UUIDv7) and a dense uint32
// record.DocNum, and writes everything one memory owns in one atomic WriteBatch.
//
// The on-disk layout (column families, key and value encodings, format version) is
// specified in FORMAT.md beside this file. Storage details stay inside this package
// and package indexes; callers see Store methods only.
//
// Storage is reached through a small key-value seam (kv.go: families, get, atomic
// batch, bounded iteration, snapshot) so that another backend with the same model
// (TiKV) can replace RocksDB (kv_rocks.go) later.
//
// One process writes a store at a time: a second writer gets *record.StoreInUseError naming
// the holder's pid. Any number of readers (Options.ReadOnly) open beside it as
// RocksDB secondary instances and see every write acknowledged before their call.
// Derived data (fingerprints, slot vectors, postings) joins a memory's batch through
// a MemoryHook; Delete removes a memory's keys from every family keyed per memory.
//
// engine must not know how a slot is embedded or how results are fused: it calls
// package embedders and package pipeline through their interfaces.
package cellar
