package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// FormatVersion is the on-disk format this build writes (FORMAT.md). A store
// with a higher version is refused with ErrNewerFormat.
const FormatVersion uint32 = 1

// Version names the build that created a store; it is kept in meta/created_by.
var Version = "cgraph-dev"

// Engine is one open store. It is safe for concurrent use: writes are
// serialised by one mutex (one writer process, one write at a time); reads
// run in parallel. A read-only Engine is a RocksDB secondary instance that
// catches up with the writer before every call, so it sees every write the
// writer acknowledged before the call began.
type Engine struct {
	dir   string
	opts  Options
	kv    kvStore
	lock  *writerLock // nil when read-only
	hooks []MemoryHook

	closeMu sync.RWMutex // held shared by every call, exclusively by Close
	closed  bool

	mu      sync.Mutex // serialises writes and guards the fields below
	nextDoc DocNum
	count   uint64
}

// Open opens the store in dir. With opts.Create a missing directory and
// store are created. A writer takes the store's lock: a second writer, in
// any process, gets *StoreInUseError. Open never writes to a store with a
// newer format version (ErrNewerFormat).
func Open(dir string, opts Options) (*Engine, error) {
	if opts.MaxContentBytes <= 0 {
		opts.MaxContentBytes = DefaultMaxContentBytes
	}
	exists, err := checkDir(dir, opts)
	if err != nil {
		return nil, err
	}
	e := &Engine{dir: dir, opts: opts, hooks: opts.Hooks}
	if opts.ReadOnly {
		if !exists {
			return nil, noStore(dir)
		}
		if e.kv, err = openReader(dir); err != nil {
			return nil, err
		}
		return e, nil
	}
	if e.lock, err = acquireWriterLock(dir); err != nil {
		return nil, err
	}
	if !exists && !opts.Create {
		return nil, errors.Join(noStore(dir), e.lock.release())
	}
	if e.kv, err = openWriter(dir, exists); err != nil {
		return nil, errors.Join(err, e.lock.release())
	}
	if err := e.loadCounters(); err != nil {
		return nil, errors.Join(err, e.kv.close(), e.lock.release())
	}
	return e, nil
}

func noStore(dir string) error {
	return fmt.Errorf("%w %s: create one with `cgraph init` or pass --db to an existing store", ErrNoStore, dir)
}

// checkDir makes sure dir can hold a store and says whether it holds one.
func checkDir(dir string, opts Options) (exists bool, err error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if !opts.Create || opts.ReadOnly {
			return false, noStore(dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create store directory: %w", err)
		}
		return false, nil
	case err != nil:
		return false, fmt.Errorf("open store: %w", err)
	case !fi.IsDir():
		return false, &ValidationError{Field: "db", Problem: fmt.Sprintf("%s is a file, not a directory", dir),
			Fix: "give a directory for the store (a new one is created by `cgraph init`)"}
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err == nil {
		return true, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("read store directory: %w", err)
	}
	for _, en := range entries {
		// RocksDB's own files without CURRENT are what a creation killed
		// early leaves: creating again over them is safe.
		if en.Name() != lockFileName && !isRocksFile(en.Name()) {
			return false, &ValidationError{Field: "db", Problem: fmt.Sprintf("%s is not empty and holds no cgraph store (found %s)", dir, en.Name()),
				Fix: "give an empty or new directory, or the directory of an existing store"}
		}
	}
	return false, nil
}

// openWriter opens (or creates) the store read-write, checks its identity
// and format version, and creates the families a store of an older build
// lacks.
func openWriter(dir string, exists bool) (*rocksStore, error) {
	if !exists {
		s, err := openRocks(dir, rocksCreate)
		if err != nil {
			return nil, err
		}
		if err := writeMeta(s); err != nil {
			return nil, errors.Join(err, s.close())
		}
		return s, nil
	}
	s, err := openRocks(dir, rocksWrite)
	if err != nil {
		return nil, err
	}
	err = checkIdentity(s, dir)
	unfinished := errors.Is(err, errUnfinished)
	if err != nil && !unfinished {
		return nil, errors.Join(err, s.close())
	}
	if err := s.createMissing(); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if unfinished { // finish a creation that was killed before its metadata
		if err := writeMeta(s); err != nil {
			return nil, errors.Join(err, s.close())
		}
	}
	return s, nil
}

// writeMeta writes the metadata of a new store, fsynced, in one batch: a
// store without meta/magic is one whose creation did not finish.
func writeMeta(s *rocksStore) error {
	b := s.newBatch()
	defer b.destroy()
	b.put(famDefault, metaMagicKey, []byte(storeMagic))
	b.put(famDefault, metaFormatKey, binary.BigEndian.AppendUint32(nil, FormatVersion))
	b.put(famDefault, metaCreatedByKey, []byte(Version))
	b.put(famDefault, metaNextDocNumKey, binary.BigEndian.AppendUint32(nil, 0))
	b.put(famDefault, metaMemoryCountKey, binary.BigEndian.AppendUint64(nil, 0))
	if err := s.write(b, true); err != nil {
		return fmt.Errorf("write store metadata: %w", err)
	}
	return nil
}

// isRocksFile reports whether name is one of the files RocksDB keeps in a
// database directory.
func isRocksFile(name string) bool {
	switch {
	case name == "LOCK", name == "IDENTITY", name == "CURRENT",
		strings.HasPrefix(name, "LOG"), strings.HasPrefix(name, "MANIFEST-"), strings.HasPrefix(name, "OPTIONS-"),
		strings.HasSuffix(name, ".log"), strings.HasSuffix(name, ".sst"), strings.HasSuffix(name, ".dbtmp"):
		return true
	}
	return false
}

// errUnfinished marks a RocksDB directory without metadata and without any
// data: a store whose creation was killed before it wrote its metadata.
var errUnfinished = errors.New("the store's creation was interrupted")

// isEmpty reports whether no open family of s holds a key.
func isEmpty(s *rocksStore) (bool, error) {
	for f, h := range s.handles {
		if h == nil {
			continue
		}
		it := s.iter(family(f), nil, nil)
		it.first()
		valid, err := it.valid(), it.err()
		it.close()
		if err != nil || valid {
			return false, err
		}
	}
	return true, nil
}

func openReader(dir string) (*rocksStore, error) {
	s, err := openRocks(dir, rocksSecondary)
	if err != nil {
		return nil, err
	}
	if err := checkIdentity(s, dir); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if miss := s.missing(); len(miss) > 0 {
		return nil, errors.Join(fmt.Errorf("store %s lacks column family %s: open it once for writing to upgrade it",
			dir, families[miss[0]].name), s.close())
	}
	return s, nil
}

// checkIdentity refuses a directory that is not a cgraph store or has a
// newer format version.
func checkIdentity(s *rocksStore, dir string) error {
	if s.handles[famDefault] == nil {
		return fmt.Errorf("%s has no default column family: %w", dir, ErrCorrupt)
	}
	magic, ok, err := s.get(famDefault, metaMagicKey)
	if err != nil {
		return err
	}
	if !ok {
		empty, err := isEmpty(s)
		if err != nil {
			return err
		}
		if empty {
			return fmt.Errorf("%w: open %s for writing (e.g. `cgraph init`) to finish it", errUnfinished, dir)
		}
	}
	if !ok || string(magic) != storeMagic {
		return fmt.Errorf("%s is a RocksDB directory but not a cgraph store (meta/magic is %q): give the directory of a cgraph store", dir, magic)
	}
	v, ok, err := s.get(famDefault, metaFormatKey)
	if err != nil {
		return err
	}
	if !ok || len(v) != 4 {
		return fmt.Errorf("store %s: meta/format_version is %x, want 4 bytes: %w", dir, v, ErrCorrupt)
	}
	if got := binary.BigEndian.Uint32(v); got > FormatVersion {
		by, _, _ := s.get(famDefault, metaCreatedByKey) // only decorates the message
		return fmt.Errorf("%w: store %s has format version %d (written by %s), this cgraph reads versions up to %d: upgrade cgraph",
			ErrNewerFormat, dir, got, by, FormatVersion)
	}
	return nil
}

// loadCounters reads the doc-number counter and the memory count.
func (e *Engine) loadCounters() error {
	next, err := readMetaUint(e.kv, metaNextDocNumKey, 4)
	if err != nil {
		return err
	}
	count, err := readMetaUint(e.kv, metaMemoryCountKey, 8)
	if err != nil {
		return err
	}
	e.nextDoc, e.count = DocNum(next), count
	return nil
}

func readMetaUint(r kvReader, key []byte, size int) (uint64, error) {
	v, ok, err := r.get(famDefault, key)
	if err != nil {
		return 0, err
	}
	if !ok || len(v) != size {
		return 0, fmt.Errorf("default/%s is %x, want %d bytes: %w", key, v, size, ErrCorrupt)
	}
	if size == 4 {
		return uint64(binary.BigEndian.Uint32(v)), nil
	}
	return binary.BigEndian.Uint64(v), nil
}

// Dir returns the store directory.
func (e *Engine) Dir() string { return e.dir }

// Close releases the store and its lock. Calls after Close return ErrClosed;
// Close waits for calls in progress.
func (e *Engine) Close() error {
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
func (e *Engine) begin(ctx context.Context, write bool) error {
	e.closeMu.RLock()
	if e.closed {
		e.closeMu.RUnlock()
		return fmt.Errorf("store %s: %w", e.dir, ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		e.closeMu.RUnlock()
		return err
	}
	if write && e.lock == nil {
		e.closeMu.RUnlock()
		return fmt.Errorf("store %s: %w: open it without --read-only to change it", e.dir, ErrReadOnly)
	}
	if err := e.kv.catchUp(); err != nil {
		e.closeMu.RUnlock()
		return err
	}
	return nil
}

func (e *Engine) end() { e.closeMu.RUnlock() }

func (e *Engine) notFound(id MemoryID) error {
	return fmt.Errorf("%w: no memory with id %s in store %s", ErrNotFound, id, e.dir)
}

// Add validates and stores one memory in one atomic batch and returns it as
// stored. Cost: one WAL append (an fsync too with Options.Sync).
func (e *Engine) Add(ctx context.Context, m NewMemory) (Memory, error) {
	ms, err := e.AddBatch(ctx, []NewMemory{m})
	if err != nil {
		return Memory{}, err
	}
	return ms[0], nil
}

// AddBatch validates every memory first and then stores them all in one
// atomic batch: after a crash either all are stored or none. A bad memory is
// reported as "memory N: <problem>" and nothing is written.
func (e *Engine) AddBatch(ctx context.Context, ns []NewMemory) ([]Memory, error) {
	if err := e.begin(ctx, true); err != nil {
		return nil, err
	}
	defer e.end()
	for i, n := range ns {
		if err := n.Validate(e.opts.MaxContentBytes); err != nil {
			return nil, batchErr(len(ns), i, err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.kv.newBatch()
	defer b.destroy()
	tx := newTx(e.kv, b)
	lastSeq := make(map[string]uint64)
	out := make([]Memory, len(ns))
	next := e.nextDoc
	for i, n := range ns {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if next == math.MaxUint32 {
			return nil, fmt.Errorf("store %s has used all %d doc numbers: export its memories into a new store", e.dir, uint64(math.MaxUint32))
		}
		m, err := e.addLocked(tx, n, next, lastSeq)
		if err != nil {
			return nil, batchErr(len(ns), i, err)
		}
		out[i] = m
		next++
	}
	count := e.count + uint64(len(ns))
	b.put(famDefault, metaNextDocNumKey, binary.BigEndian.AppendUint32(nil, uint32(next)))
	b.put(famDefault, metaMemoryCountKey, binary.BigEndian.AppendUint64(nil, count))
	if err := e.kv.write(b, e.opts.Sync); err != nil {
		return nil, fmt.Errorf("store %d memories: %w", len(ns), err)
	}
	e.nextDoc, e.count = next, count
	return out, nil
}

func batchErr(n, i int, err error) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("memory %d of %d: %w", i+1, n, err)
}

// addLocked puts one memory's keys into tx. lastSeq holds the highest
// sequence this batch gave each session.
// REQUIRES: e.mu held.
func (e *Engine) addLocked(tx *Tx, n NewMemory, doc DocNum, lastSeq map[string]uint64) (Memory, error) {
	now := time.Now().UTC()
	m := Memory{
		ID: NewMemoryID(), DocNum: doc, Content: n.Content, Type: n.Type,
		Tags: append([]string(nil), n.Tags...), Source: n.Source, Session: n.Session,
		Sequence: n.Sequence, CreatedAt: n.CreatedAt.UTC(), UpdatedAt: now, Importance: n.Importance,
	}
	if m.Type == "" {
		m.Type = TypeNote
	}
	if n.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	if m.Importance == 0 {
		m.Importance = 0.5
	}
	if m.Session != "" {
		if err := e.assignSequence(tx, &m, lastSeq); err != nil {
			return Memory{}, err
		}
		tx.put(famSequence, sequenceKey(m.Session, m.Sequence), m.ID[:])
	}
	tx.put(famMemories, m.ID[:], encodeRecord(nil, &m))
	tx.put(famDocnums, docnumIDKey(m.ID), docKey(m.DocNum))
	tx.put(famDocnums, docnumDocKey(m.DocNum), m.ID[:])
	tx.put(famCreated, createdKey(m.CreatedAt, m.ID), nil)
	for _, h := range e.hooks {
		if err := h.AddMemory(tx, m); err != nil {
			return Memory{}, fmt.Errorf("add memory %s: hook: %w", m.ID, err)
		}
	}
	return m, nil
}

// assignSequence gives m the next sequence of its session when it has none,
// and refuses a sequence that is taken. lastSeq caches, per session, the
// highest sequence stored or given earlier in this batch, so a bulk import
// looks each session up on disk once.
func (e *Engine) assignSequence(tx *Tx, m *Memory, lastSeq map[string]uint64) error {
	last, ok := lastSeq[m.Session]
	if !ok {
		var err error
		if last, err = e.lastSequence(m.Session); err != nil {
			return err
		}
	}
	if m.Sequence == 0 {
		if last == math.MaxUint64 {
			return &ValidationError{Field: "sequence", Problem: fmt.Sprintf("session %q has used the largest sequence number", m.Session),
				Fix: "give the memory an explicit free sequence number or a new session"}
		}
		m.Sequence = last + 1
	} else {
		v, taken, err := tx.get(famSequence, sequenceKey(m.Session, m.Sequence))
		if err != nil {
			return err
		}
		if taken {
			var other MemoryID
			copy(other[:], v)
			return &ValidationError{Field: "sequence", Problem: fmt.Sprintf("%d is already used in session %q by memory %s", m.Sequence, m.Session, other),
				Fix: "leave the sequence out to get the next free one"}
		}
	}
	lastSeq[m.Session] = max(last, m.Sequence)
	return nil
}

// lastSequence returns the highest stored sequence of session, or 0.
func (e *Engine) lastSequence(session string) (uint64, error) {
	p := sequencePrefix(session)
	it := e.kv.iter(famSequence, p, prefixEnd(p))
	defer it.close()
	it.last()
	if !it.valid() {
		return 0, it.err()
	}
	k := it.key()
	if len(k) != len(p)+8 {
		return 0, fmt.Errorf("sequence key %x: %w", k, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(k[len(p):]), nil
}

// Get returns the memory with id. On a writable store it also records the
// access (AccessedAt = now, AccessCount+1) in the store and in the returned
// memory; this costs a write per Get. A read-only store records nothing.
func (e *Engine) Get(ctx context.Context, id MemoryID) (Memory, error) {
	if err := e.begin(ctx, false); err != nil {
		return Memory{}, err
	}
	defer e.end()
	if e.lock == nil {
		return e.readMemory(e.kv, id)
	}
	e.mu.Lock() // a concurrent Delete must not be undone by the access update
	defer e.mu.Unlock()
	m, err := e.readMemory(e.kv, id)
	if err != nil {
		return Memory{}, err
	}
	m.AccessedAt = time.Now().UTC()
	m.AccessCount++
	b := e.kv.newBatch()
	defer b.destroy()
	b.put(famMemories, id[:], encodeRecord(nil, &m))
	if err := e.kv.write(b, false); err != nil {
		return Memory{}, fmt.Errorf("record access of memory %s: %w", id, err)
	}
	return m, nil
}

func (e *Engine) readMemory(r kvReader, id MemoryID) (Memory, error) {
	v, ok, err := r.get(famMemories, id[:])
	if err != nil {
		return Memory{}, err
	}
	if !ok {
		return Memory{}, e.notFound(id)
	}
	m, err := decodeRecord(v)
	if err != nil {
		return Memory{}, fmt.Errorf("memories/%s: %w", id, err)
	}
	return m, nil
}

// Delete removes the memory and every key it owns in every family, in one
// atomic batch. Its doc number is never reused.
func (e *Engine) Delete(ctx context.Context, id MemoryID) error {
	if err := e.begin(ctx, true); err != nil {
		return err
	}
	defer e.end()
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.readMemory(e.kv, id)
	if err != nil {
		return err
	}
	b := e.kv.newBatch()
	defer b.destroy()
	tx := newTx(e.kv, b)
	ref := memoryRef{id: m.ID, doc: m.DocNum, session: m.Session, seq: m.Sequence, createdAt: m.CreatedAt}
	for f, info := range families {
		if info.keys == nil {
			continue
		}
		for _, k := range info.keys(ref) {
			b.del(family(f), k) // straight to the batch: hooks have no use for these in Tx.Get
		}
	}
	for _, h := range e.hooks {
		if err := h.DeleteMemory(tx, m); err != nil {
			return fmt.Errorf("delete memory %s: hook: %w", id, err)
		}
	}
	count := e.count - 1
	b.put(famDefault, metaMemoryCountKey, binary.BigEndian.AppendUint64(nil, count))
	if err := e.kv.write(b, e.opts.Sync); err != nil {
		return fmt.Errorf("delete memory %s: %w", id, err)
	}
	e.count = count
	return nil
}

// DefaultListLimit is the page size List uses when ListOptions.Limit is 0.
const DefaultListLimit = 100

// List returns one page of memories ordered by creation time, newest first
// unless o.Oldest; o.After is the last id of the previous page. Memories
// created at the same nanosecond are ordered by id. It reads one snapshot.
// Cost: one index step and one point lookup per memory returned.
func (e *Engine) List(ctx context.Context, o ListOptions) ([]Memory, error) {
	if err := e.begin(ctx, false); err != nil {
		return nil, err
	}
	defer e.end()
	if o.Limit < 0 {
		return nil, &ValidationError{Field: "limit", Problem: fmt.Sprintf("%d is negative", o.Limit), Fix: "give a page size of 1 or more"}
	}
	if o.Limit == 0 {
		o.Limit = DefaultListLimit
	}
	snap := e.kv.snapshot()
	defer snap.release()
	var start []byte
	if !o.After.IsZero() {
		after, err := e.readMemory(snap, o.After)
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("list after %s: that memory was deleted, start again from the first page: %w", o.After, err)
		}
		if err != nil {
			return nil, err
		}
		start = createdKey(after.CreatedAt, after.ID)
	}
	it := snap.iter(famCreated, nil, nil)
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
	var out []Memory
	for ; it.valid() && len(out) < o.Limit; step() {
		id, err := parseCreatedKey(it.key())
		if err != nil {
			return nil, err
		}
		m, err := e.readMemory(snap, id)
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("created_index names memory %s that is not in memories: %w", id, ErrCorrupt)
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

// Stats returns the memory count, doc-number counter, format version and
// per-family estimates (RocksDB's estimate-num-keys and sizes of SST files
// plus memtables). Cost: a few property reads per family.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	if err := e.begin(ctx, false); err != nil {
		return Stats{}, err
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
		return Stats{}, err
	}
	st := Stats{Memories: count, NextDocNum: DocNum(next), FormatVersion: uint32(version), Families: make(map[string]FamilyStats, numFamilies)}
	for f, info := range families {
		fs := e.kv.familyStats(family(f))
		st.Families[info.name] = FamilyStats{Keys: fs.keys, Bytes: fs.bytes}
	}
	return st, nil
}
