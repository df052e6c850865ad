package cellar

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/record"
)

// SnapshotFamily names a store-wide family of time-keyed snapshots: data
// derived from the whole store rather than from one memory (FORMAT.md,
// "topic_profiles, synergy_matrix").
type SnapshotFamily int

// The snapshot families.
const (
	TopicProfiles SnapshotFamily = iota
	SynergyMatrix
)

func (f SnapshotFamily) family() Family {
	if f == SynergyMatrix {
		return FamSynergyMatrix
	}
	return FamTopicProfiles
}

// snapPrefix starts every snapshot key; the key goes on with the time.
const snapPrefix = "snap/"

func snapKey(t time.Time) []byte {
	return binary.BigEndian.AppendUint64([]byte(snapPrefix), uint64(t.UnixNano()))
}

// PutSnapshot stores value as the snapshot of f taken at at, and deletes
// all but the newest keep snapshots, in one atomic batch. It needs the
// writer lock. Cost: one pass over f's keys and one WAL append.
func (e *Store) PutSnapshot(ctx context.Context, f SnapshotFamily, at time.Time, value []byte, keep int) error {
	if keep < 1 {
		return fmt.Errorf("keep %d snapshots: keep at least 1", keep)
	}
	if err := e.begin(ctx, true); err != nil {
		return err
	}
	defer e.end()
	e.mu.Lock()
	defer e.mu.Unlock()
	fam := f.family()
	key := snapKey(at)
	var older [][]byte // every stored key but key, oldest first
	it := e.kv.iter(fam, []byte(snapPrefix), prefixEnd([]byte(snapPrefix)))
	for it.first(); it.valid(); it.next() {
		if k := it.key(); !bytes.Equal(k, key) {
			older = append(older, k)
		}
	}
	err := it.err()
	it.close()
	if err != nil {
		return fmt.Errorf("list %s snapshots: %w", families[fam].name, err)
	}
	b := e.kv.newBatch()
	defer b.destroy()
	b.put(fam, key, value)
	for _, k := range older[:max(0, len(older)-(keep-1))] {
		b.del(fam, k)
	}
	if err := e.kv.write(b, e.opts.Sync); err != nil {
		return fmt.Errorf("save a %s snapshot: %w", families[fam].name, err)
	}
	return nil
}

// LatestSnapshot returns the newest snapshot of f and when it was taken;
// ok is false when f holds none. Cost: one seek.
func (e *Store) LatestSnapshot(ctx context.Context, f SnapshotFamily) (value []byte, at time.Time, ok bool, err error) {
	if err := e.begin(ctx, false); err != nil {
		return nil, at, false, err
	}
	defer e.end()
	snap := e.kv.snapshot()
	defer snap.release()
	fam := f.family()
	it := snap.iter(fam, []byte(snapPrefix), prefixEnd([]byte(snapPrefix)))
	defer it.close()
	it.last()
	if !it.valid() {
		return nil, at, false, it.err()
	}
	k := it.key()
	if len(k) != len(snapPrefix)+8 {
		return nil, at, false, fmt.Errorf("%s/%x is not a snapshot key: %w", families[fam].name, k, record.ErrCorrupt)
	}
	return it.value(), time.Unix(0, int64(binary.BigEndian.Uint64(k[len(snapPrefix):]))).UTC(), true, nil
}
