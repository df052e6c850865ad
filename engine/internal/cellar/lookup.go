package cellar

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// DocNumOf returns the dense doc number of a memory. Cost: one point lookup.
func (e *Store) DocNumOf(ctx context.Context, id record.ID) (record.DocNum, error) {
	if err := e.begin(ctx, false); err != nil {
		return 0, err
	}
	defer e.end()
	v, ok, err := e.kv.get(FamDocnums, docnumIDKey(id))
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, e.notFound(id)
	}
	if len(v) != 4 {
		return 0, fmt.Errorf("docnums/%x holds %d bytes, want 4: %w", docnumIDKey(id), len(v), record.ErrCorrupt)
	}
	return record.DocNum(binary.BigEndian.Uint32(v)), nil
}

// MemoryIDOf returns the id of the memory with doc number d, the way search
// hits (which carry doc numbers) get back to memories. Cost: one point
// lookup.
func (e *Store) MemoryIDOf(ctx context.Context, d record.DocNum) (record.ID, error) {
	if err := e.begin(ctx, false); err != nil {
		return record.ID{}, err
	}
	defer e.end()
	v, ok, err := e.kv.get(FamDocnums, docnumDocKey(d))
	if err != nil {
		return record.ID{}, err
	}
	if !ok {
		return record.ID{}, fmt.Errorf("%w: no memory with doc number %d in store %s", record.ErrNotFound, d, e.dir)
	}
	if len(v) != 16 {
		return record.ID{}, fmt.Errorf("docnums/%x holds %d bytes, want 16: %w", docnumDocKey(d), len(v), record.ErrCorrupt)
	}
	return record.ID(v), nil
}

// Scan calls fn for every key of family f that starts with prefix,
// in key order, on one consistent view; it is how indexes rebuild from the
// families they own (FORMAT.md). key and value are fn's to keep. fn must not
// call Store methods; an error from fn stops the scan and is returned.
// Cost: one sequential pass over the prefix.
func (e *Store) Scan(ctx context.Context, f Family, prefix []byte, fn func(key, value []byte) error) error {
	if err := f.known(); err != nil {
		return err
	}
	if err := e.begin(ctx, false); err != nil {
		return err
	}
	defer e.end()
	snap := e.kv.snapshot()
	defer snap.release()
	var lower []byte
	if len(prefix) > 0 {
		lower = prefix
	}
	it := snap.iter(f, lower, prefixEnd(prefix))
	defer it.close()
	n := 0
	for it.first(); it.valid(); it.next() {
		k := it.key()
		if !bytes.HasPrefix(k, prefix) {
			break
		}
		if err := fn(k, it.value()); err != nil {
			return err
		}
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if err := it.err(); err != nil {
		return fmt.Errorf("scan %s: %w", families[f].name, err)
	}
	return nil
}
