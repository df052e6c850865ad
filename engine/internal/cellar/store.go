package cellar

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/cgraph/cgraph/record"
)

// FormatVersion is the on-disk format this build writes (FORMAT.md). A store
// with a higher version is refused with record.ErrNewerFormat; a writer
// opening a store of an older version upgrades it (FORMAT.md, "Versions").
const FormatVersion uint32 = 4

// Store is one open store. It is safe for concurrent use: writes are
// serialised by one mutex (one writer process, one write at a time); reads
// run in parallel. A read-only Store is a RocksDB secondary instance that
// catches up with the writer before every call, so it sees every write the
// writer acknowledged before the call began.
type Store struct {
	dir  string
	opts Options
	kv   kvStore
	lock *writerLock // nil when read-only
	id   uuid.UUID   // meta/store_id, read at Open; zero when the store has none yet

	closeMu sync.RWMutex // held shared by every call, exclusively by Close
	closed  bool

	mu      sync.Mutex // serialises writes and guards the fields below
	nextDoc record.DocNum
	count   uint64
}

// Open opens the store in dir. With opts.Create a missing directory and
// store are created. A writer takes the store's lock: a second writer, in
// any process, gets *record.StoreInUseError. Open never writes to a store with a
// newer format version (record.ErrNewerFormat).
func Open(dir string, opts Options) (*Store, error) {
	if opts.MaxContentBytes <= 0 {
		opts.MaxContentBytes = record.DefaultMaxContentBytes
	}
	exists, err := checkDir(dir, opts)
	if err != nil {
		return nil, err
	}
	e := &Store{dir: dir, opts: opts}
	if opts.ReadOnly {
		if !exists {
			return nil, noStore(dir)
		}
		if e.kv, err = openReader(dir); err != nil {
			return nil, err
		}
		if err := e.loadID(); err != nil {
			return nil, errors.Join(err, e.kv.close())
		}
		return e, nil
	}
	if e.lock, err = acquireWriterLock(dir); err != nil {
		return nil, err
	}
	if !exists && !opts.Create {
		return nil, errors.Join(noStore(dir), e.lock.release())
	}
	if e.kv, err = openWriter(dir, exists, opts.CreatedBy); err != nil {
		return nil, errors.Join(err, e.lock.release())
	}
	if err := e.loadCounters(); err != nil {
		return nil, errors.Join(err, e.kv.close(), e.lock.release())
	}
	if err := e.loadID(); err != nil {
		return nil, errors.Join(err, e.kv.close(), e.lock.release())
	}
	return e, nil
}

// Dir returns the store directory.
func (e *Store) Dir() string { return e.dir }

// Close releases the store and its lock. Calls after Close return record.ErrClosed;
// Close waits for calls in progress.
func (e *Store) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	err := e.kv.close()
	if e.lock != nil {
		err = errors.Join(err, e.lock.release())
	}
	if err != nil {
		return fmt.Errorf("close store %s: %w", e.dir, err)
	}
	return nil
}

// begin starts a call: it fails on a closed engine and, for a reader,
// catches up with the writer. The caller must call e.end.
func (e *Store) begin(ctx context.Context, write bool) error {
	e.closeMu.RLock()
	if e.closed {
		e.closeMu.RUnlock()
		return fmt.Errorf("store %s: %w", e.dir, record.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		e.closeMu.RUnlock()
		return err
	}
	if write && e.lock == nil {
		e.closeMu.RUnlock()
		return fmt.Errorf("store %s: %w: open it without --read-only to change it", e.dir, record.ErrReadOnly)
	}
	if err := e.kv.catchUp(); err != nil {
		e.closeMu.RUnlock()
		return err
	}
	return nil
}

func (e *Store) end() { e.closeMu.RUnlock() }

func (e *Store) notFound(id record.ID) error {
	return fmt.Errorf("%w: no memory with id %s in store %s", record.ErrNotFound, id, e.dir)
}
