// Package cellar is the storage under package engine: one store directory
// backed by RocksDB column families (engine/FORMAT.md specifies every
// family, key and value layout this package writes, and the format version).
// It gives every memory a record.ID (UUIDv7) and a dense record.DocNum,
// and writes everything a memory owns — its record and, through the same
// Batch, whatever the engine derives from it — in one atomic WriteBatch.
//
// Only package engine can import it (it is internal to engine): faces reach
// the store through the engine's API. It must not know how memories are
// embedded, indexed or searched; families are typed handles (Family), never
// names passed as strings by callers.
//
// Storage is reached through a small key-value seam (kv.go: families, get,
// atomic batch, bounded iteration, snapshot) so that another backend with
// the same model (TiKV) can replace RocksDB (kv_rocks.go) later. How the
// store keeps its file count bounded and refuses damaged directories is in
// rocks_files.go and storedir.go (FORMAT.md, "Files and their lifecycle",
// "Recovery").
//
// One process writes a store at a time: a second writer gets
// *record.StoreInUseError naming the holder's pid. Any number of readers
// (Options.ReadOnly) open beside it as RocksDB secondary instances and see
// every write acknowledged before their call. A secondary skips table files
// that are gone (the writer may have just deleted them), so before a
// reader's first open the store is opened read-only with every table file
// and their sizes are checked against the manifest (tables.go): a store that
// lost a table file is refused instead of answering from what is left.
// A reader's private folder in the temp dir carries an owner lock, so one
// left by a killed reader is removed by the next reader's open
// (secondary.go).
package cellar
