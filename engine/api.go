package engine

// This file is the engine's public contract, agreed before the implementation:
// the CLI, MCP server and bench code against it. Bodies live in engine.go.

import (
	"time"
)

// MemoryID identifies a memory: a UUIDv7, so ids sort by creation time.
// Its canonical text form is the 36-character UUID string.
type MemoryID [16]byte

// DocNum is the dense uint32 number a store gives each memory, for roaring
// bitmaps and compact index arrays. It is never reused within a store.
type DocNum uint32

// MemoryType says what kind of thing a memory is.
type MemoryType string

// The memory types. Unknown types are rejected by Validate.
const (
	TypeFact         MemoryType = "fact"
	TypeDecision     MemoryType = "decision"
	TypeError        MemoryType = "error"
	TypePattern      MemoryType = "pattern"
	TypeCode         MemoryType = "code"
	TypeConversation MemoryType = "conversation"
	TypeNote         MemoryType = "note"
	TypePreference   MemoryType = "preference"
)

// NewMemory is what a caller gives Add. Zero values get defaults: Type note,
// CreatedAt now, Importance 0.5. Sequence is assigned by the store (next in the
// session) when Session is set and Sequence is 0.
type NewMemory struct {
	Content    string
	Type       MemoryType
	Tags       []string
	Source     string
	Session    string
	Sequence   uint64
	CreatedAt  time.Time
	Importance float64
}

// Memory is a stored memory record.
type Memory struct {
	ID          MemoryID
	DocNum      DocNum
	Content     string
	Type        MemoryType
	Tags        []string
	Source      string
	Session     string
	Sequence    uint64
	CreatedAt   time.Time
	UpdatedAt   time.Time
	AccessedAt  time.Time
	AccessCount uint64
	Importance  float64
}

// Options configure Open.
type Options struct {
	// ReadOnly opens the store beside a writer, as a RocksDB secondary
	// instance that catches up with the writer at the start of every call
	// (FORMAT.md, "One writer, many readers"); writes return ErrReadOnly.
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
	// Hooks add derived data (fingerprints, vectors, postings) to the batch
	// of each memory and remove it on delete; see MemoryHook.
	Hooks []MemoryHook
}

// ListOptions page through memories in creation order (newest first unless
// Oldest is set). After is the last id of the previous page, or zero.
type ListOptions struct {
	Limit  int
	After  MemoryID
	Oldest bool
}

// Stats describe a store.
type Stats struct {
	Memories      uint64
	NextDocNum    DocNum
	FormatVersion uint32
	Families      map[string]FamilyStats
}

// FamilyStats are per-column-family figures (RocksDB estimates).
type FamilyStats struct {
	Keys  uint64
	Bytes uint64
}
