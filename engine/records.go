package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/record"
)

// This file is the engine's record-level API: what a face needs besides
// adding and searching — listing, reading without recording an access,
// sizes, verification, sessions and store-wide snapshots. None of it needs
// embedders, so it works on an engine opened without them (Options).

// Version names the build; a new store records it (FORMAT.md,
// meta/created_by) and reports carry it. The build sets it (-ldflags -X).
var Version = "cgraph-dev"

// ErrNoEmbedders is returned by Add, Search and Reembed of an engine opened
// without Options.Embedders.
var ErrNoEmbedders = errors.New("store opened without embedders")

// needEmbedders refuses op on an engine opened for records only.
func (s *Engine) needEmbedders(op string) error {
	if s.reg == nil {
		return fmt.Errorf("store %s: %w: cannot %s; open it with embedders (the installed models)", s.dir, ErrNoEmbedders, op)
	}
	return nil
}

// List returns one page of memories in creation order (newest first unless
// o.Oldest), without recording accesses.
func (s *Engine) List(ctx context.Context, o record.ListOptions) ([]record.Memory, error) {
	return s.cellar.List(ctx, o)
}

// Stats reports the memory count, the doc-number counter, the format
// version and per-family sizes (RocksDB estimates).
func (s *Engine) Stats(ctx context.Context) (record.Stats, error) { return s.cellar.Stats(ctx) }

// Peek returns the memories with ids as stored, without recording an
// access; found[i] is false when ids[i] is not stored. One consistent view.
func (s *Engine) Peek(ctx context.Context, ids []record.ID) (ms []record.Memory, found []bool, err error) {
	return s.cellar.Peek(ctx, ids)
}

// Check verifies the store's cross-family invariants on one consistent view
// (FORMAT.md, "Writes") and returns every problem found, joined. Cost: a
// full scan of every per-memory family.

// RepairReport says what Repair found and did.
type RepairReport = cellar.RepairReport

// Repair brings back a store whose CURRENT file is missing or names a
// manifest without cgraph metadata (record.ErrDamaged), by pointing CURRENT
// at the newest manifest that holds the store; see FORMAT.md, "Recovery".
// It takes the writer lock; a healthy store is left untouched.
func Repair(dir string) (RepairReport, error) { return cellar.Repair(dir) }

// TimelineEntry is one memory of a session timeline.
type TimelineEntry struct {
	Seq    uint64
	Memory record.Memory
}

// Timeline is one page of a session's memories in sequence order.
type Timeline struct {
	Entries []TimelineEntry
	// Total is how many memories the session holds.
	Total int
	// Next is the sequence number the next page starts at; 0 when this
	// page is the last.
	Next uint64
}

// SessionTimeline lists up to limit memories of session from sequence
// number fromSeq on, without recording accesses. A memory deleted between
// the scan and the read is left out. Cost: one pass over the session's keys
// and a point read per entry.
func (s *Engine) SessionTimeline(ctx context.Context, session string, fromSeq uint64, limit int) (Timeline, error) {
	page, err := s.cellar.Session(ctx, session, fromSeq, limit)
	if err != nil {
		return Timeline{}, err
	}
	ids := make([]record.ID, len(page.Entries))
	for i, en := range page.Entries {
		ids[i] = en.ID
	}
	ms, found, err := s.cellar.Peek(ctx, ids)
	if err != nil {
		return Timeline{}, err
	}
	tl := Timeline{Total: page.Total, Next: page.Next, Entries: make([]TimelineEntry, 0, len(ids))}
	for i, en := range page.Entries {
		if found[i] {
			tl.Entries = append(tl.Entries, TimelineEntry{Seq: en.Seq, Memory: ms[i]})
		}
	}
	return tl, nil
}

// SaveTopicSnapshot stores value (package topicstore's encoding) as the
// topic snapshot taken at at and keeps the newest keep. It needs the writer
// lock.
func (s *Engine) SaveTopicSnapshot(ctx context.Context, at time.Time, value []byte, keep int) error {
	return s.cellar.PutSnapshot(ctx, cellar.TopicProfiles, at, value, keep)
}

// LatestTopicSnapshot returns the newest topic snapshot and when it was
// taken; ok is false when none is saved.
func (s *Engine) LatestTopicSnapshot(ctx context.Context) (value []byte, at time.Time, ok bool, err error) {
	return s.cellar.LatestSnapshot(ctx, cellar.TopicProfiles)
}

// refuseReadOnly is the error of a write on a read-only engine, returned
// before any work; to says what the write was for ("change it").
func (s *Engine) refuseReadOnly(to string) error {
	return fmt.Errorf("store %s: %w: open it without --read-only to %s", s.dir, record.ErrReadOnly, to)
}
