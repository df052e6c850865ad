package cellar

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/record"
)

// Get returns the memory with id. On a writable store it also records the
// access (AccessedAt = now, AccessCount+1) in the store and in the returned
// memory; this costs a write per Get. A read-only store records nothing.
func (e *Store) Get(ctx context.Context, id record.ID) (record.Memory, error) {
	if err := e.begin(ctx, false); err != nil {
		return record.Memory{}, err
	}
	defer e.end()
	if e.lock == nil {
		return e.readMemory(e.kv, id)
	}
	e.mu.Lock() // a concurrent Delete must not be undone by the access update
	defer e.mu.Unlock()
	m, err := e.readMemory(e.kv, id)
	if err != nil {
		return record.Memory{}, err
	}
	m.AccessedAt = time.Now().UTC()
	m.AccessCount++
	b := e.kv.newBatch()
	defer b.destroy()
	b.put(FamMemories, id[:], encodeRecord(nil, &m))
	if err := e.kv.write(b, false); err != nil {
		return record.Memory{}, fmt.Errorf("record access of memory %s: %w", id, err)
	}
	return m, nil
}

// Use is how often a memory was handed out (by search, context packing)
// since the last RecordUses, and when last.
type Use struct {
	Count uint64
	Last  time.Time
}

// RecordUses adds uses to the memories' access counts and moves their
// access times forward (never back), in one write; memories deleted since
// are skipped. It is the batched form of the access Get records, for reads
// too frequent to write one by one. A read-only store records nothing.
func (e *Store) RecordUses(ctx context.Context, uses map[record.ID]Use) error {
	if len(uses) == 0 || e.lock == nil {
		return nil
	}
	if err := e.begin(ctx, true); err != nil {
		return err
	}
	defer e.end()
	e.mu.Lock() // a concurrent Delete must not be undone by the access update
	defer e.mu.Unlock()
	b := e.kv.newBatch()
	defer b.destroy()
	n := 0
	for id, u := range uses {
		m, err := e.readMemory(e.kv, id)
		if errors.Is(err, record.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("record uses: %w", err)
		}
		if u.Last.After(m.AccessedAt) {
			m.AccessedAt = u.Last.UTC()
		}
		m.AccessCount += u.Count
		b.put(FamMemories, id[:], encodeRecord(nil, &m))
		n++
	}
	if n == 0 {
		return nil
	}
	if err := e.kv.write(b, false); err != nil {
		return fmt.Errorf("record uses of %d memories: %w", n, err)
	}
	return nil
}

func (e *Store) readMemory(r kvReader, id record.ID) (record.Memory, error) {
	v, ok, err := r.get(FamMemories, id[:])
	if err != nil {
		return record.Memory{}, err
	}
	if !ok {
		return record.Memory{}, e.notFound(id)
	}
	m, err := decodeRecord(v)
	if err != nil {
		return record.Memory{}, fmt.Errorf("memories/%s: %w", id, err)
	}
	return m, nil
}

// DefaultListLimit is the page size List uses when record.ListOptions.Limit is 0.
const DefaultListLimit = 100

// List returns one page of memories ordered by creation time, newest first
// unless o.Oldest; o.After is the last id of the previous page. Memories
// created at the same nanosecond are ordered by id. It reads one snapshot.
// Cost: one index step and one point lookup per memory returned.
func (e *Store) List(ctx context.Context, o record.ListOptions) ([]record.Memory, error) {
	if err := e.begin(ctx, false); err != nil {
		return nil, err
	}
	defer e.end()
	if o.Limit < 0 {
		return nil, &record.ValidationError{Field: "limit", Problem: fmt.Sprintf("%d is negative", o.Limit), Fix: "give a page size of 1 or more"}
	}
	if o.Limit == 0 {
		o.Limit = DefaultListLimit
	}
	snap := e.kv.snapshot()
	defer snap.release()
	var start []byte
	if !o.After.IsZero() {
		after, err := e.readMemory(snap, o.After)
		if errors.Is(err, record.ErrNotFound) {
			return nil, fmt.Errorf("list after %s: that memory was deleted, start again from the first page: %w", o.After, err)
		}
		if err != nil {
			return nil, err
		}
		start = createdKey(after.CreatedAt, after.ID)
	}
	it := snap.iter(FamCreated, nil, nil)
	defer it.close()
	step := it.prev
	switch {
	case start == nil && o.Oldest:
		it.first()
		step = it.next
	case start == nil:
		it.last()
	case o.Oldest:
		it.seek(start)
		step = it.next
		if it.valid() && string(it.key()) == string(start) {
			step()
		}
	default:
		it.seekForPrev(start)
		if it.valid() && string(it.key()) == string(start) {
			step()
		}
	}
	var out []record.Memory
	for ; it.valid() && len(out) < o.Limit; step() {
		id, err := parseCreatedKey(it.key())
		if err != nil {
			return nil, err
		}
		m, err := e.readMemory(snap, id)
		if errors.Is(err, record.ErrNotFound) {
			return nil, fmt.Errorf("created_index names memory %s that is not in memories: %w", id, record.ErrCorrupt)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if err := it.err(); err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	return out, nil
}

// record.Stats returns the memory count, doc-number counter, format version and
// per-family estimates (RocksDB's estimate-num-keys and sizes of SST files
// plus memtables). Cost: a few property reads per family.
func (e *Store) Stats(ctx context.Context) (record.Stats, error) {
	if err := e.begin(ctx, false); err != nil {
		return record.Stats{}, err
	}
	defer e.end()
	var next, count, version uint64
	err := func() error {
		snap := e.kv.snapshot() // released before the family figures, which take their own locks
		defer snap.release()
		var err error
		if next, err = readMetaUint(snap, metaNextDocNumKey, 4); err != nil {
			return err
		}
		if count, err = readMetaUint(snap, metaMemoryCountKey, 8); err != nil {
			return err
		}
		version, err = readMetaUint(snap, metaFormatKey, 4)
		return err
	}()
	if err != nil {
		return record.Stats{}, err
	}
	st := record.Stats{Memories: count, NextDocNum: record.DocNum(next), FormatVersion: uint32(version), Families: make(map[string]record.FamilyStats, numFamilies)}
	for f, info := range families {
		fs := e.kv.familyStats(Family(f))
		st.Families[info.name] = record.FamilyStats{Keys: fs.keys, Bytes: fs.bytes}
	}
	return st, nil
}
