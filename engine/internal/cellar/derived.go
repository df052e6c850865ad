package cellar

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// This file serves the layer that keeps derived data (package memory:
// fingerprints, slot vectors, postings, the slot registry): reads that record
// no access, point reads of many keys in one call, and rewrites of derived
// data of stored memories.

// Peek returns the memories with ids, as stored, without recording an access
// (search results and exports must not count as reads by a user). found[i] is
// false when ids[i] is not stored. It reads one consistent view. Cost: one
// point lookup per id.
func (e *Store) Peek(ctx context.Context, ids []record.ID) (ms []record.Memory, found []bool, err error) {
	if err := e.begin(ctx, false); err != nil {
		return nil, nil, err
	}
	defer e.end()
	snap := e.kv.snapshot()
	defer snap.release()
	ms, found = make([]record.Memory, len(ids)), make([]bool, len(ids))
	for i, id := range ids {
		m, err := e.readMemory(snap, id)
		if errors.Is(err, record.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		ms[i], found[i] = m, true
	}
	return ms, found, nil
}

// PeekDocs is Peek by doc number: the way search hits get back to memories in
// one call. found[i] is false when no stored memory has docs[i] (deleted).
func (e *Store) PeekDocs(ctx context.Context, docs []record.DocNum) (ms []record.Memory, found []bool, err error) {
	if err := e.begin(ctx, false); err != nil {
		return nil, nil, err
	}
	defer e.end()
	snap := e.kv.snapshot()
	defer snap.release()
	ms, found = make([]record.Memory, len(docs)), make([]bool, len(docs))
	for i, d := range docs {
		v, ok, err := snap.get(FamDocnums, docnumDocKey(d))
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		if len(v) != 16 {
			return nil, nil, fmt.Errorf("docnums/%x holds %d bytes, want 16: %w", docnumDocKey(d), len(v), record.ErrCorrupt)
		}
		m, err := e.readMemory(snap, record.ID(v))
		if errors.Is(err, record.ErrNotFound) {
			return nil, nil, fmt.Errorf("docnums maps doc %d to memory %x that is not in memories: %w", d, v, record.ErrCorrupt)
		}
		if err != nil {
			return nil, nil, err
		}
		ms[i], found[i] = m, true
	}
	return ms, found, nil
}

// Values returns the values of keys in family f on one consistent
// view; a missing key gives a nil value. Values are the caller's to keep.
// Cost: one point lookup per key (and, on a reader, one catch-up per call, so
// batch the keys).
func (e *Store) Values(ctx context.Context, f Family, keys [][]byte) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := e.ViewValues(ctx, f, keys, func(i int, v []byte, ok bool) error {
		if ok {
			out[i] = append([]byte{}, v...) // non-nil, also for an empty value
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ViewValues calls fn for each of keys in f, from one snapshot: with the
// value in place when the key is found (ok; not copied, valid only during
// fn, which must not keep it or any part of it) and with nil, false when it
// is absent. The first error stops it and is returned: fn's as it is, a
// read's naming the key. It is Values for a caller that decodes the values
// and drops them (a write reading the close memories' fingerprints),
// without copying them.
func (e *Store) ViewValues(ctx context.Context, f Family, keys [][]byte, fn func(i int, value []byte, ok bool) error) error {
	if err := f.known(); err != nil {
		return err
	}
	if err := e.begin(ctx, false); err != nil {
		return err
	}
	defer e.end()
	snap := e.kv.snapshot()
	defer snap.release()
	for i, k := range keys {
		var fnErr error
		found, err := snap.view(f, k, func(v []byte) error { fnErr = fn(i, v, true); return fnErr })
		switch {
		case fnErr != nil:
			return fnErr
		case err != nil:
			return fmt.Errorf("read %s/%x: %w", families[f].name, k, err)
		case !found:
			if err := fn(i, nil, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// Counters are the store's doc-number counter and memory count.
type Counters struct {
	NextDocNum record.DocNum
	Memories   uint64
	// Edits counts the committed batches that changed stored memories in
	// place (updates, links, unlinks): a reader that saw another count
	// re-reads them (meta/edit_count, absent = 0).
	Edits uint64
}

// Counters reads meta/next_docnum and meta/memory_count on one view: how a
// reader learns cheaply whether the writer added (the counter moved) or
// deleted (the count fell behind) memories. Cost: two point lookups.
func (e *Store) Counters(ctx context.Context) (Counters, error) {
	if err := e.begin(ctx, false); err != nil {
		return Counters{}, err
	}
	defer e.end()
	snap := e.kv.snapshot()
	defer snap.release()
	next, err := readMetaUint(snap, metaNextDocNumKey, 4)
	if err != nil {
		return Counters{}, err
	}
	count, err := readMetaUint(snap, metaMemoryCountKey, 8)
	if err != nil {
		return Counters{}, err
	}
	edits, err := readEdits(snap)
	if err != nil {
		return Counters{}, err
	}
	return Counters{NextDocNum: record.DocNum(next), Memories: count, Edits: edits}, nil
}

// readEdits reads meta/edit_count; a store no edit reached has none.
func readEdits(r kvReader) (uint64, error) {
	v, ok, err := r.get(FamDefault, metaEditCountKey)
	if err != nil || !ok {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("default/%s is %x, want 8 bytes: %w", metaEditCountKey, v, record.ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v), nil
}

// SlotKeyPrefix is the prefix of the default family's keys that a Batch
// may write: the slot registry (FORMAT.md). Every other key of the default
// family is store metadata that only the cellar writes.
const SlotKeyPrefix = "slot/"

func isSlotKey(k []byte) bool { return bytes.HasPrefix(k, []byte(SlotKeyPrefix)) }

// ScanDocs calls fn with every stored doc number and its memory id, in
// doc-number order, on one consistent view (the docnums family's 'd' keys).
// It is how a reader finds memories the writer deleted. fn must not call
// Store methods. Cost: one sequential pass over one key per memory.
func (e *Store) ScanDocs(ctx context.Context, fn func(d record.DocNum, id record.ID) error) error {
	return e.Scan(ctx, FamDocnums, []byte{docnumByDocPrefix}, func(k, v []byte) error {
		if len(k) != 5 || len(v) != 16 {
			return fmt.Errorf("docnums key %x value %x: %w", k, v, record.ErrCorrupt)
		}
		return fn(record.DocNum(binary.BigEndian.Uint32(k[1:])), record.ID(v))
	})
}
