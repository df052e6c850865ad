// Package record is the vocabulary every layer of cgraph shares about a
// memory: its id (ID, a UUIDv7), its dense doc number (DocNum, the one
// number type that indexes, the pipeline and the engine use), its type, the
// stored record (Memory) and what a caller gives to store one (NewMemory),
// with the validation and limits every door applies, and the errors callers
// test with errors.Is — among them the one ErrCorrupt that every decoder of
// stored bytes wraps.
//
// It is a leaf: it imports nothing of cgraph, holds no state and does no
// I/O. It must not learn how records are encoded on disk (that is the
// engine's cellar, engine/FORMAT.md) or how memories are embedded or
// searched.
package record
