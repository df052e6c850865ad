package cellar

// This file is the engine's public contract, agreed before the implementation:
// the CLI, MCP server and bench code against it. Bodies live in cellar.go.

// Options configure Open.
type Options struct {
	// ReadOnly opens the store beside a writer, as a RocksDB secondary
	// instance that catches up with the writer at the start of every call
	// (FORMAT.md, "One writer, many readers"); writes return record.ErrReadOnly.
	ReadOnly bool
	// Create makes the directory and a new store if none exists.
	Create bool
	// MaxContentBytes bounds a memory's content; 0 means 1 MiB.
	MaxContentBytes int
	// Sync fsyncs RocksDB's log before Add, AddBatch and Delete return, so
	// acknowledged writes survive a power loss, at the cost of an fsync per
	// call. Without it they survive a crash of the process (the log is in the
	// OS page cache) but not of the machine.
	Sync bool
	// CreatedBy names the build that creates a new store, kept in
	// meta/created_by.
	CreatedBy string
}
