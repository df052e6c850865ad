package cellar

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/record"
)

// rocksStore is the RocksDB implementation of kvStore. A writer is a normal
// read-write instance; a reader is a secondary instance that follows the
// writer's MANIFEST and WAL when catchUp is called. It is safe for
// concurrent use.
type rocksStore struct {
	dir       string
	opts      *grocksdb.Options
	ro        *grocksdb.ReadOptions
	secondary string   // the secondary's own directory, removed on close; "" for a writer
	owner     *os.File // the secondary's held owner lock in it (secondary.go); nil for a writer

	// mu guards a secondary against catching up or reopening under a
	// reader: reads and snapshots hold it shared, catchUp exclusively (a
	// secondary has no RocksDB snapshots, and its data changes only when it
	// catches up). A writer never takes it.
	mu       sync.RWMutex
	db       *grocksdb.DB
	handles  [numFamilies]*grocksdb.ColumnFamilyHandle
	extra    []*grocksdb.ColumnFamilyHandle // families on disk this build does not know
	manifest string                         // secondary: MANIFEST name and size when last in step
	instance string                         // secondary: this instance's directory inside secondary

	// ledger says the writer's logs were verified at open (or their loss
	// accepted by Repair), so close may record them (walledger.go).
	ledger bool

	// spare is the WriteBatch of the last batch, cleared, for the next:
	// its buffer keeps its capacity, so a bulk import's batches (~10 MB
	// each) do not grow a fresh one by doubling, faulting in new pages at
	// every step. spareMu guards it.
	spareMu sync.Mutex
	spare   *grocksdb.WriteBatch
}

var _ kvStore = (*rocksStore)(nil)

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
// An existing store whose log ledger names a log it still needs that is
// gone is refused (*LostLogError) before anything is written to it.
func openRocks(dir string, mode rocksOpenMode) (*rocksStore, error) {
	s, _, err := openRocksReport(dir, mode, false)
	return s, err
}

// openRocksReport is openRocks; with acceptLost (Repair only) a store
// whose logs are lost opens, and what was lost is returned beside it.
func openRocksReport(dir string, mode rocksOpenMode, acceptLost bool) (*rocksStore, *LostLogError, error) {
	var ledger []walEntry
	var before map[uint64]int64
	hasLedger := false
	if mode != rocksCreate {
		var err error
		if ledger, hasLedger, err = readWALLedger(dir); err != nil {
			return nil, nil, err
		}
		if before, err = logsOnDisk(dir); err != nil {
			return nil, nil, err
		}
	}
	s, err := openRocksRaw(dir, mode)
	if err != nil {
		return nil, nil, err
	}
	minLog := s.minLogToKeep()
	var lost *LostLogError
	if hasLedger {
		if l := lostLogs(ledger, before, minLog); len(l) > 0 {
			lost = &LostLogError{Dir: dir, Logs: l}
			if !acceptLost {
				return nil, nil, errors.Join(lost, s.close())
			}
		}
	}
	if mode == rocksSecondary {
		return s, lost, nil
	}
	s.ledger = true
	if err := s.flushIfOverBudget(); err != nil {
		return nil, nil, errors.Join(err, s.close())
	}
	if err := writeWALLedger(dir, s.minLogToKeep(), false); err != nil {
		return nil, nil, errors.Join(err, s.close())
	}
	return s, lost, nil
}

// minLogToKeep is the number of the oldest log RocksDB still needs: older
// logs hold only flushed writes (0 before the first flush).
func (s *rocksStore) minLogToKeep() uint64 {
	n, err := strconv.ParseUint(s.db.GetProperty("rocksdb.min-log-number-to-keep"), 10, 64)
	if err != nil {
		return 0 // unknown: every recorded log counts as needed
	}
	return n
}

func openRocksRaw(dir string, mode rocksOpenMode) (*rocksStore, error) {
	opts, err := rocksOptions()
	if err != nil {
		return nil, err
	}
	s := &rocksStore{dir: dir, opts: opts}
	if mode == rocksCreate {
		s.opts.SetCreateIfMissing(true)
		s.opts.SetErrorIfExists(true)
		s.opts.SetCreateIfMissingColumnFamilies(true)
	}
	if mode == rocksSecondary {
		sweepSecondaryDirs()
		if s.secondary, s.owner, err = makeSecondaryDir(); err != nil {
			s.opts.Destroy()
			return nil, err
		}
		s.opts.SetMaxOpenFiles(-1) // required by secondary instances
		// Every catch-up loads table handlers of every family with this many
		// fresh threads (16 by default: ~350 thread spawns, ~30 ms per call
		// with 22 families). One thread makes a catch-up cost ~0.1 ms.
		s.opts.SetMaxFileOpeningThreads(1)
	}
	if err := s.openDB(mode == rocksCreate); err != nil {
		s.opts.Destroy()
		if s.secondary != "" {
			err = errors.Join(err, os.RemoveAll(s.secondary), s.owner.Close())
		}
		return nil, err
	}
	s.ro = grocksdb.NewDefaultReadOptions()
	return s, nil
}

// openDB opens s.db and its handles: this build's families when creating,
// else every family on disk. A secondary first notes the MANIFEST it
// starts from.
// REQUIRES: s.mu held exclusively, or s not yet shared.
func (s *rocksStore) openDB(create bool) error {
	names := familyNames()
	if !create {
		onDisk, err := grocksdb.ListColumnFamilies(s.opts, s.dir)
		if err != nil {
			return fmt.Errorf("list column families of %s: %w", s.dir, err)
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
	if s.secondary != "" {
		if s.manifest, err = manifestState(s.dir); err != nil {
			return err
		}
		if s.db == nil { // the first open, not a catch-up's reopen
			if err := verifyForReader(s.dir, names); err != nil {
				return err
			}
		}
		// Each instance gets its own directory for its info log: a reopen
		// runs beside the instance it replaces.
		if s.instance, err = os.MkdirTemp(s.secondary, "instance-"); err != nil {
			return fmt.Errorf("make a directory for the read-only instance: %w", err)
		}
		db, handles, err = grocksdb.OpenDbAsSecondaryColumnFamilies(s.opts, s.dir, s.instance, names, cfOpts)
	} else {
		db, handles, err = grocksdb.OpenDbColumnFamilies(s.opts, s.dir, names, cfOpts)
	}
	if err != nil {
		return fmt.Errorf("open rocksdb %s: %w", s.dir, err)
	}
	s.db = db
	for i, h := range handles {
		if f, ok := familyByName(names[i]); ok {
			s.handles[f] = h
		} else {
			s.extra = append(s.extra, h)
		}
	}
	// A writer's open already fails on a missing or short table file
	// (RocksDB checks every file's size on open); a secondary does not,
	// which verifyForReader covers before the first open. Checking the live
	// files of an open writer would race its background compaction, which
	// deletes the files it has just merged.
	return nil
}

// closeDB closes s.db.
// REQUIRES: s.mu held exclusively, or s no longer shared.
func (s *rocksStore) closeDB() {
	closeDB(s.db, s.handles[:], s.extra)
	s.db, s.handles, s.extra = nil, [numFamilies]*grocksdb.ColumnFamilyHandle{}, nil
}

// closeDB destroys every column-family handle before closing the DB
// (Debian's RocksDB asserts on that).
func closeDB(db *grocksdb.DB, handles, extra []*grocksdb.ColumnFamilyHandle) {
	for _, h := range handles {
		if h != nil {
			h.Destroy()
		}
	}
	for _, h := range extra {
		h.Destroy()
	}
	db.Close()
}

// manifestState names the store's current MANIFEST and its size. Every
// flush and compaction appends to the MANIFEST, so a change means the
// writer moved data from memtables into SST files.
func manifestState(dir string) (string, error) {
	cur, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
	if err != nil {
		return "", fmt.Errorf("read the store's CURRENT file: %w", err)
	}
	name := strings.TrimSpace(string(cur))
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("stat the store's manifest: %w", err)
	}
	return fmt.Sprintf("%s:%d", name, fi.Size()), nil
}

// missing lists the families of this build that the open DB lacks.
func (s *rocksStore) missing() []Family {
	var fs []Family
	for f, h := range s.handles {
		if h == nil {
			fs = append(fs, Family(f))
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
			return fmt.Errorf("create column Family %s: %w", families[f].name, err)
		}
		s.handles[f] = h
	}
	return nil
}

func (s *rocksStore) handle(f Family) *grocksdb.ColumnFamilyHandle {
	h := s.handles[f]
	if h == nil {
		// Only a reader of a store written by an older build that never
		// created f gets here; the open path rejects that case.
		panic(fmt.Sprintf("engine: column Family %s is not open", families[f].name))
	}
	return h
}

func (s *rocksStore) get(f Family, key []byte) ([]byte, bool, error) {
	if s.secondary != "" {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	return rocksGet(s.db, s.ro, s.handle(f), key)
}

func (s *rocksStore) view(f Family, key []byte, fn func([]byte) error) (bool, error) {
	if s.secondary != "" {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	return rocksView(s.db, s.ro, s.handle(f), key, fn)
}

// rocksView is a point lookup whose value fn reads in place: a pinned
// slice (the block cache's bytes, or the memtable's), not the copy into C
// memory GetCF makes nor the one into Go memory rocksGet adds.
func rocksView(db *grocksdb.DB, ro *grocksdb.ReadOptions, h *grocksdb.ColumnFamilyHandle, key []byte, fn func([]byte) error) (bool, error) {
	v, err := db.GetPinnedCF(ro, h, key)
	if err != nil {
		return false, fmt.Errorf("get %s/%x: %w", h.Name(), key, markCorrupt(err))
	}
	if !v.Exists() {
		return false, nil
	}
	defer v.Destroy()
	return true, fn(v.Data())
}

func rocksGet(db *grocksdb.DB, ro *grocksdb.ReadOptions, h *grocksdb.ColumnFamilyHandle, key []byte) ([]byte, bool, error) {
	v, err := db.GetCF(ro, h, key)
	if err != nil {
		return nil, false, fmt.Errorf("get %s/%x: %w", h.Name(), key, markCorrupt(err))
	}
	defer v.Free()
	if !v.Exists() {
		return nil, false, nil
	}
	return append([]byte{}, v.Data()...), true, nil
}

func (s *rocksStore) iter(f Family, lower, upper []byte) kvIter {
	if s.secondary == "" {
		return newRocksIter(s.db, nil, s.handle(f), lower, upper)
	}
	s.mu.RLock() // released by close
	it := newRocksIter(s.db, nil, s.handle(f), lower, upper)
	it.unlock = s.mu.RUnlock
	return it
}

func (s *rocksStore) newBatch() kvBatch {
	s.spareMu.Lock()
	wb := s.spare
	s.spare = nil
	s.spareMu.Unlock()
	if wb == nil {
		wb = grocksdb.NewWriteBatch()
	}
	return &rocksBatch{wb: wb, s: s}
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
		s.mu.RLock()
		return frozenSecondary{s}
	}
	snap := s.db.NewSnapshot()
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetSnapshot(snap)
	return &rocksSnapshot{s: s, snap: snap, ro: ro}
}

// catchUp brings a secondary in step with the writer. RocksDB 7.8's
// TryCatchUpWithPrimary alone is not enough: when the writer flushes a
// family whose keys the secondary had already read from the log, the
// secondary keeps serving those stale memtable values over the newer SST
// (TestReaderFollowsFlushes). So when the MANIFEST changed since the
// secondary was last in step, it is reopened from scratch (tens of ms; it
// happens once per flush or compaction of the writer, not per write).
func (s *rocksStore) catchUp() error {
	if s.secondary == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cerr := s.db.TryCatchUpWithPrimary()
	st, err := manifestState(s.dir)
	if err != nil {
		return err
	}
	if cerr == nil && st == s.manifest {
		return nil
	}
	// Open the new instance before closing the old one, so that a failed
	// reopen leaves a working (if stale) instance and a clear error.
	oldDB, oldHandles, oldExtra, oldManifest, oldInstance := s.db, s.handles, s.extra, s.manifest, s.instance
	s.handles, s.extra = [numFamilies]*grocksdb.ColumnFamilyHandle{}, nil
	if err := s.openDB(false); err != nil {
		s.db, s.handles, s.extra, s.manifest, s.instance = oldDB, oldHandles, oldExtra, oldManifest, oldInstance
		return fmt.Errorf("reopen the read-only instance to follow the writer (TryCatchUpWithPrimary: %v): %w", cerr, err)
	}
	closeDB(oldDB, oldHandles[:], oldExtra)
	if err := os.RemoveAll(oldInstance); err != nil { // its info log: ~100 KB per instance
		return fmt.Errorf("remove the replaced read-only instance's directory: %w", err)
	}
	return nil
}

func (s *rocksStore) familyStats(f Family) kvFamilyStats {
	if s.secondary != "" {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
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

// close closes the DB, then removes a secondary's directory; a writer
// whose logs were verified at open records them in the ledger.
func (s *rocksStore) close() error {
	var minLog uint64
	if s.secondary == "" {
		s.waitForCompactions()
		minLog = s.minLogToKeep()
	}
	s.closeDB()
	s.ro.Destroy()
	s.opts.Destroy()
	if s.spare != nil {
		s.spare.Destroy()
		s.spare = nil
	}
	if s.ledger {
		if err := writeWALLedger(s.dir, minLog, true); err != nil {
			return err
		}
	}
	if s.secondary != "" {
		// Removed before the owner lock is let go, so a sweep never takes
		// the lock of a folder still being removed.
		if err := os.RemoveAll(s.secondary); err != nil {
			return errors.Join(fmt.Errorf("remove the read-only instance's directory: %w", err), s.owner.Close())
		}
		if err := s.owner.Close(); err != nil {
			return fmt.Errorf("let go of the read-only instance's directory: %w", err)
		}
	}
	return nil
}

// markCorrupt makes a RocksDB error about damaged data (a block whose
// checksum does not match, a truncated table file) match record.ErrCorrupt,
// keeping its text (which names the table file and offset).
func markCorrupt(err error) error {
	if err == nil || !strings.HasPrefix(err.Error(), "Corruption:") {
		return err
	}
	return fmt.Errorf("%w: %w", rewriteRocks(err), record.ErrCorrupt)
}

// rocksBatch is a grocksdb.WriteBatch bound to its store's handles.
type rocksBatch struct {
	wb *grocksdb.WriteBatch
	s  *rocksStore
}

func (b *rocksBatch) put(f Family, k, v []byte) { b.wb.PutCF(b.s.handle(f), k, v) }
func (b *rocksBatch) del(f Family, k []byte)    { b.wb.DeleteCF(b.s.handle(f), k) }
func (b *rocksBatch) count() int                { return b.wb.Count() }

// maxSpareBatch bounds the batch a store keeps as its spare: a larger one
// (an import of thousands of memories a batch) is let go, not held by an
// idle store.
const maxSpareBatch = 64 << 20

// destroy clears the batch and keeps it as its store's spare (the one
// already kept, if any, is destroyed).
func (b *rocksBatch) destroy() {
	if len(b.wb.Data()) > maxSpareBatch { // a view of its buffer, not a copy
		b.wb.Destroy()
		return
	}
	b.wb.Clear()
	b.s.spareMu.Lock()
	old := b.s.spare
	b.s.spare = b.wb
	b.s.spareMu.Unlock()
	if old != nil {
		old.Destroy()
	}
}

// frozenSecondary is a secondary's view while catching up is held off.
type frozenSecondary struct{ s *rocksStore }

func (f frozenSecondary) get(fam Family, key []byte) ([]byte, bool, error) {
	return rocksGet(f.s.db, f.s.ro, f.s.handle(fam), key)
}

func (f frozenSecondary) view(fam Family, key []byte, fn func([]byte) error) (bool, error) {
	return rocksView(f.s.db, f.s.ro, f.s.handle(fam), key, fn)
}

func (f frozenSecondary) iter(fam Family, lower, upper []byte) kvIter {
	return newRocksIter(f.s.db, nil, f.s.handle(fam), lower, upper)
}

func (f frozenSecondary) release() { f.s.mu.RUnlock() }

// rocksSnapshot reads at one sequence number.
type rocksSnapshot struct {
	s    *rocksStore
	snap *grocksdb.Snapshot
	ro   *grocksdb.ReadOptions
}

func (r *rocksSnapshot) get(f Family, key []byte) ([]byte, bool, error) {
	return rocksGet(r.s.db, r.ro, r.s.handle(f), key)
}

func (r *rocksSnapshot) view(f Family, key []byte, fn func([]byte) error) (bool, error) {
	return rocksView(r.s.db, r.ro, r.s.handle(f), key, fn)
}

func (r *rocksSnapshot) iter(f Family, lower, upper []byte) kvIter {
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
	unlock       func() // releases a secondary's read lock, or nil
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
func (i *rocksIter) err() error           { return markCorrupt(i.it.Err()) }
func (i *rocksIter) close() {
	i.it.Close()
	i.ro.Destroy()
	if i.unlock != nil {
		i.unlock()
	}
}
