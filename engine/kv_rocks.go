package engine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/linxGnu/grocksdb"
)

// rocksStore is the RocksDB implementation of kvStore. A writer is a normal
// read-write instance; a reader is a secondary instance that follows the
// writer's MANIFEST and WAL when catchUp is called. It is safe for
// concurrent use.
type rocksStore struct {
	db        *grocksdb.DB
	opts      *grocksdb.Options
	ro        *grocksdb.ReadOptions
	handles   [numFamilies]*grocksdb.ColumnFamilyHandle
	extra     []*grocksdb.ColumnFamilyHandle // families on disk this build does not know
	secondary string                         // the secondary's own directory, removed on close

	// catchMu makes a secondary's views consistent: catchUp holds it
	// exclusively, a snapshot shared (secondaries have no RocksDB snapshots,
	// and their data changes only when they catch up).
	catchMu sync.RWMutex
}

var _ kvStore = (*rocksStore)(nil)

// rocksOptions are the options every store is opened with. Debian's RocksDB
// is built with assertions on and logs at DEBUG by default: log errors only.
func rocksOptions() *grocksdb.Options {
	o := grocksdb.NewDefaultOptions()
	o.SetInfoLogLevel(grocksdb.ErrorInfoLogLevel)
	o.SetKeepLogFileNum(2)
	o.SetMaxLogFileSize(1 << 20)
	return o
}

// rocksOpenMode says how openRocks opens a directory.
type rocksOpenMode int

const (
	rocksCreate    rocksOpenMode = iota // new store: create the DB and every family
	rocksWrite                          // existing store, read-write
	rocksSecondary                      // existing store, secondary (read-only follower)
)

// openRocks opens the DB in dir with every family on disk. In rocksWrite
// mode families of this build missing on disk are NOT created here: the
// caller checks the format version first and then calls createMissing.
func openRocks(dir string, mode rocksOpenMode) (*rocksStore, error) {
	s := &rocksStore{opts: rocksOptions()}
	var names []string
	switch mode {
	case rocksCreate:
		s.opts.SetCreateIfMissing(true)
		s.opts.SetErrorIfExists(true)
		s.opts.SetCreateIfMissingColumnFamilies(true)
		names = familyNames()
	default:
		onDisk, err := grocksdb.ListColumnFamilies(s.opts, dir)
		if err != nil {
			s.opts.Destroy()
			return nil, fmt.Errorf("list column families of %s: %w", dir, err)
		}
		names = onDisk
	}
	cfOpts := make([]*grocksdb.Options, len(names))
	for i := range cfOpts {
		cfOpts[i] = s.opts
	}
	var (
		db      *grocksdb.DB
		handles []*grocksdb.ColumnFamilyHandle
		err     error
	)
	if mode == rocksSecondary {
		s.secondary, err = os.MkdirTemp("", "cgraph-secondary-")
		if err != nil {
			s.opts.Destroy()
			return nil, fmt.Errorf("make a directory for the read-only instance: %w", err)
		}
		s.opts.SetMaxOpenFiles(-1) // required by secondary instances
		// Every catch-up loads table handlers of every family with this many
		// fresh threads (16 by default: ~350 thread spawns, ~30 ms per call
		// with 22 families). One thread makes a catch-up cost ~0.1 ms.
		s.opts.SetMaxFileOpeningThreads(1)
		db, handles, err = grocksdb.OpenDbAsSecondaryColumnFamilies(s.opts, dir, s.secondary, names, cfOpts)
	} else {
		db, handles, err = grocksdb.OpenDbColumnFamilies(s.opts, dir, names, cfOpts)
	}
	if err != nil {
		s.opts.Destroy()
		if s.secondary != "" {
			err = errors.Join(err, os.RemoveAll(s.secondary))
		}
		return nil, fmt.Errorf("open rocksdb %s: %w", dir, err)
	}
	s.db = db
	s.ro = grocksdb.NewDefaultReadOptions()
	for i, h := range handles {
		if f, ok := familyByName(names[i]); ok {
			s.handles[f] = h
		} else {
			s.extra = append(s.extra, h)
		}
	}
	return s, nil
}

// missing lists the families of this build that the open DB lacks.
func (s *rocksStore) missing() []family {
	var fs []family
	for f, h := range s.handles {
		if h == nil {
			fs = append(fs, family(f))
		}
	}
	return fs
}

// createMissing creates the families of this build that the DB lacks (a
// store made by an older build). Writer only.
func (s *rocksStore) createMissing() error {
	for _, f := range s.missing() {
		h, err := s.db.CreateColumnFamily(s.opts, families[f].name)
		if err != nil {
			return fmt.Errorf("create column family %s: %w", families[f].name, err)
		}
		s.handles[f] = h
	}
	return nil
}

func (s *rocksStore) handle(f family) *grocksdb.ColumnFamilyHandle {
	h := s.handles[f]
	if h == nil {
		// Only a reader of a store written by an older build that never
		// created f gets here; the open path rejects that case.
		panic(fmt.Sprintf("engine: column family %s is not open", families[f].name))
	}
	return h
}

func (s *rocksStore) get(f family, key []byte) ([]byte, bool, error) {
	return rocksGet(s.db, s.ro, s.handle(f), key)
}

func rocksGet(db *grocksdb.DB, ro *grocksdb.ReadOptions, h *grocksdb.ColumnFamilyHandle, key []byte) ([]byte, bool, error) {
	v, err := db.GetCF(ro, h, key)
	if err != nil {
		return nil, false, fmt.Errorf("get %s/%x: %w", h.Name(), key, err)
	}
	defer v.Free()
	if !v.Exists() {
		return nil, false, nil
	}
	return append([]byte{}, v.Data()...), true, nil
}

func (s *rocksStore) iter(f family, lower, upper []byte) kvIter {
	return newRocksIter(s.db, nil, s.handle(f), lower, upper)
}

func (s *rocksStore) newBatch() kvBatch {
	return &rocksBatch{wb: grocksdb.NewWriteBatch(), s: s}
}

func (s *rocksStore) write(b kvBatch, sync bool) error {
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	wo.SetSync(sync)
	if err := s.db.Write(wo, b.(*rocksBatch).wb); err != nil {
		return fmt.Errorf("write batch of %d operations: %w", b.count(), err)
	}
	return nil
}

func (s *rocksStore) snapshot() kvSnapshot {
	if s.secondary != "" {
		s.catchMu.RLock()
		return frozenSecondary{s}
	}
	snap := s.db.NewSnapshot()
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetSnapshot(snap)
	return &rocksSnapshot{s: s, snap: snap, ro: ro}
}

func (s *rocksStore) catchUp() error {
	if s.secondary == "" {
		return nil
	}
	s.catchMu.Lock()
	defer s.catchMu.Unlock()
	if err := s.db.TryCatchUpWithPrimary(); err != nil {
		return fmt.Errorf("catch up with the writer: %w", err)
	}
	return nil
}

func (s *rocksStore) familyStats(f family) kvFamilyStats {
	h := s.handle(f)
	num := func(prop string) uint64 {
		n, _ := strconv.ParseUint(s.db.GetPropertyCF(prop, h), 10, 64) // "" (unsupported) counts as 0
		return n
	}
	return kvFamilyStats{
		keys:  num("rocksdb.estimate-num-keys"),
		bytes: num("rocksdb.total-sst-files-size") + num("rocksdb.cur-size-all-mem-tables"),
	}
}

// close destroys every column-family handle before closing the DB (Debian's
// RocksDB asserts on that), then removes a secondary's directory.
func (s *rocksStore) close() error {
	for i, h := range s.handles {
		if h != nil {
			h.Destroy()
			s.handles[i] = nil
		}
	}
	for _, h := range s.extra {
		h.Destroy()
	}
	s.extra = nil
	s.ro.Destroy()
	s.db.Close()
	s.opts.Destroy()
	if s.secondary != "" {
		if err := os.RemoveAll(s.secondary); err != nil {
			return fmt.Errorf("remove the read-only instance's directory: %w", err)
		}
	}
	return nil
}

// rocksBatch is a grocksdb.WriteBatch bound to its store's handles.
type rocksBatch struct {
	wb *grocksdb.WriteBatch
	s  *rocksStore
}

func (b *rocksBatch) put(f family, k, v []byte) { b.wb.PutCF(b.s.handle(f), k, v) }
func (b *rocksBatch) del(f family, k []byte)    { b.wb.DeleteCF(b.s.handle(f), k) }
func (b *rocksBatch) count() int                { return b.wb.Count() }
func (b *rocksBatch) destroy()                  { b.wb.Destroy() }

// frozenSecondary is a secondary's view while catching up is held off.
type frozenSecondary struct{ *rocksStore }

func (f frozenSecondary) release() { f.catchMu.RUnlock() }

// rocksSnapshot reads at one sequence number.
type rocksSnapshot struct {
	s    *rocksStore
	snap *grocksdb.Snapshot
	ro   *grocksdb.ReadOptions
}

func (r *rocksSnapshot) get(f family, key []byte) ([]byte, bool, error) {
	return rocksGet(r.s.db, r.ro, r.s.handle(f), key)
}

func (r *rocksSnapshot) iter(f family, lower, upper []byte) kvIter {
	return newRocksIter(r.s.db, r.snap, r.s.handle(f), lower, upper)
}

func (r *rocksSnapshot) release() {
	r.ro.Destroy()
	r.s.db.ReleaseSnapshot(r.snap)
}

// rocksIter wraps a grocksdb.Iterator with bounds; it owns its read options.
type rocksIter struct {
	it           *grocksdb.Iterator
	ro           *grocksdb.ReadOptions
	lower, upper []byte // kept alive: RocksDB holds pointers to them
}

func newRocksIter(db *grocksdb.DB, snap *grocksdb.Snapshot, h *grocksdb.ColumnFamilyHandle, lower, upper []byte) *rocksIter {
	ro := grocksdb.NewDefaultReadOptions()
	if snap != nil {
		ro.SetSnapshot(snap)
	}
	it := &rocksIter{ro: ro}
	if lower != nil {
		it.lower = append([]byte{}, lower...)
		ro.SetIterateLowerBound(it.lower)
	}
	if upper != nil {
		it.upper = append([]byte{}, upper...)
		ro.SetIterateUpperBound(it.upper)
	}
	it.it = db.NewIteratorCF(ro, h)
	return it
}

func (i *rocksIter) first()               { i.it.SeekToFirst() }
func (i *rocksIter) last()                { i.it.SeekToLast() }
func (i *rocksIter) seek(k []byte)        { i.it.Seek(k) }
func (i *rocksIter) seekForPrev(k []byte) { i.it.SeekForPrev(k) }
func (i *rocksIter) next()                { i.it.Next() }
func (i *rocksIter) prev()                { i.it.Prev() }
func (i *rocksIter) valid() bool          { return i.it.Valid() }
func (i *rocksIter) key() []byte          { return append([]byte{}, i.it.Key().Data()...) }
func (i *rocksIter) value() []byte        { return append([]byte{}, i.it.Value().Data()...) }
func (i *rocksIter) err() error           { return i.it.Err() }
func (i *rocksIter) close() {
	i.it.Close()
	i.ro.Destroy()
}
