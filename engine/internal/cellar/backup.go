package cellar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cgraph/cgraph/record"
)

// Backup writes a consistent copy of the store into dir, which must not
// exist yet: a RocksDB checkpoint (table files hard-linked when dir is on
// the same file system, copied otherwise; the MANIFEST and OPTIONS copied),
// taken online while writes go on, then the store marker. The copy is a
// store in its own right: open it with --db, or move it into place to
// restore. Only the writer can back up (a read-only view of RocksDB cannot
// checkpoint reliably). On a failure the partial dir is removed.
func (e *Store) Backup(ctx context.Context, dir string) (err error) {
	if e.lock == nil {
		return fmt.Errorf("back up %s: %w: the backup needs the writer (stop the process that holds the store, then run it again)", e.dir, record.ErrReadOnly)
	}
	if err := e.begin(ctx, false); err != nil {
		return err
	}
	defer e.end()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("backup directory %s: %w", dir, err)
	}
	if _, err := os.Lstat(abs); err == nil {
		return &record.ValidationError{Field: "backup directory", Problem: fmt.Sprintf("%s already exists", abs), Fix: "name a directory that does not exist yet; the backup creates it"}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("backup directory %s: %w", abs, err)
	}
	if storeAbs, err := filepath.Abs(e.dir); err == nil {
		if rel, err := filepath.Rel(storeAbs, abs); err == nil && filepath.IsLocal(rel) {
			return &record.ValidationError{Field: "backup directory", Problem: fmt.Sprintf("%s is inside the store %s", abs, e.dir), Fix: "put the backup outside the store directory"}
		}
	}
	rs, ok := e.kv.(*rocksStore)
	if !ok {
		return fmt.Errorf("back up %s: this store has no RocksDB to checkpoint", e.dir)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, os.RemoveAll(abs)) // the checkpoint's own partial directory
		}
	}()
	cp, err := rs.db.NewCheckpoint()
	if err != nil {
		return fmt.Errorf("back up %s: %w", e.dir, err)
	}
	defer cp.Destroy()
	// Flush first (log size 0): the copy then holds every acknowledged write
	// in table files, whether or not its WAL is replayed.
	if err := cp.CreateCheckpoint(abs, 0); err != nil {
		return fmt.Errorf("back up %s into %s: %w", e.dir, abs, err)
	}
	// A backup is a store of its own: a server of the original must not
	// answer for it, nor it for the original.
	bs, err := openRocks(abs, rocksWrite)
	if err != nil {
		return fmt.Errorf("back up %s into %s: give the backup its identity: %w", e.dir, abs, err)
	}
	if err := errors.Join(putNewID(bs), bs.close()); err != nil {
		return fmt.Errorf("back up %s into %s: %w", e.dir, abs, err)
	}
	if err := writeMarker(abs); err != nil {
		return fmt.Errorf("back up %s into %s: %w", e.dir, abs, err)
	}
	return nil
}
