package cellar

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"time"

	"github.com/cgraph/cgraph/record"
)

// Batch is one atomic write: every Add, Delete, Put and Del of it reaches
// the store in one WriteBatch at Commit, or not at all. It holds the
// store's write lock from Begin until Commit or Abort, so the doc numbers
// and sequence numbers it assigns are final. Get sees the store as
// committed plus the batch's own writes, so a caller may read-modify-write
// a key (a posting statistic) that an earlier memory of the batch changed.
//
// Records and their indexes (memories, docnums, created_index, sequence)
// and the store counters are written only by Add and Delete; Put and Del
// refuse them, and the metadata keys of the default family, at Commit.
// A Batch is not safe for concurrent use.
type Batch struct {
	e       *Store
	b       kvBatch
	pending map[Family]map[string]pendingValue
	lastSeq map[string]uint64 // per session: the highest sequence stored or given in this batch
	next    record.DocNum
	count   uint64
	bad     error // a refused Put or Del, reported by Commit
	done    bool
	edited  bool // an update or relation change: Commit bumps meta/edit_count
}

type pendingValue struct {
	value   []byte
	deleted bool
}

// Begin starts a Batch. It needs the writer lock (record.ErrReadOnly on a
// read-only store) and blocks other writes until Commit or Abort; the
// caller must call one of them.
func (e *Store) Begin(ctx context.Context) (*Batch, error) {
	if err := e.begin(ctx, true); err != nil {
		return nil, err
	}
	e.mu.Lock()
	return &Batch{e: e, b: e.kv.newBatch(), pending: map[Family]map[string]pendingValue{}, lastSeq: map[string]uint64{},
		next: e.nextDoc, count: e.count}, nil
}

// Abort drops the batch and releases the write lock; after Commit it does
// nothing, so `defer b.Abort()` is always right.
func (b *Batch) Abort() {
	if b.done {
		return
	}
	b.done = true
	b.b.destroy()
	b.e.mu.Unlock()
	b.e.end()
}

// Commit writes the batch and the new counters as one WriteBatch (fsynced
// with Options.Sync) and releases the write lock. A batch with nothing in
// it writes nothing.
func (b *Batch) Commit() error {
	defer b.Abort()
	if b.bad != nil {
		return b.bad
	}
	if b.b.count() == 0 {
		return nil
	}
	b.b.put(FamDefault, metaNextDocNumKey, binary.BigEndian.AppendUint32(nil, uint32(b.next)))
	b.b.put(FamDefault, metaMemoryCountKey, binary.BigEndian.AppendUint64(nil, b.count))
	if b.edited {
		n, err := readEdits(b.e.kv)
		if err != nil {
			return err
		}
		b.b.put(FamDefault, metaEditCountKey, binary.BigEndian.AppendUint64(nil, n+1))
	}
	if err := b.e.kv.write(b.b, b.e.opts.Sync); err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	b.e.nextDoc, b.e.count = b.next, b.count
	return nil
}

// Add gives n an id, the next doc number and (in a session, when n has
// none) the next sequence number, and writes its record and record
// indexes. n must have passed record.NewMemory.Validate; zero fields get
// their defaults (type note, created now, importance 0.5).
func (b *Batch) Add(n record.NewMemory) (record.Memory, error) {
	if b.next == math.MaxUint32 {
		return record.Memory{}, fmt.Errorf("store %s has used all %d doc numbers: export its memories into a new store", b.e.dir, uint64(math.MaxUint32))
	}
	now := time.Now().UTC()
	id := record.NewID()
	if !n.ID.IsZero() { // an import keeps its ids
		_, found, err := b.Get(FamMemories, n.ID[:])
		if err != nil {
			return record.Memory{}, err
		}
		if found {
			return record.Memory{}, &record.ValidationError{Field: "id", Problem: fmt.Sprintf("%s is already stored", n.ID),
				Fix: "import into a store that does not hold it, or drop the id to store a new memory"}
		}
		id = n.ID
	}
	m := record.Memory{
		ID: id, DocNum: b.next, Content: n.Content, Type: n.Type,
		Tags: append([]string(nil), n.Tags...), Source: n.Source, Session: n.Session,
		Sequence: n.Sequence, CreatedAt: n.CreatedAt.UTC(), UpdatedAt: now, Importance: n.Importance,
		Project: n.Project, Meta: maps.Clone(n.Meta), Revision: 1,
	}
	if len(m.Meta) == 0 {
		m.Meta = nil
	}
	if m.Type == "" {
		m.Type = record.TypeNote
	}
	if n.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	if m.Importance == 0 {
		m.Importance = 0.5
	}
	if m.Session != "" {
		if err := b.assignSequence(&m); err != nil {
			return record.Memory{}, err
		}
	}
	b.insert(&m)
	return m, nil
}

// insert writes m's record and its record indexes and counts it; m has its
// doc number (b.next) and, in a session, a free sequence number.
func (b *Batch) insert(m *record.Memory) {
	if m.Session != "" {
		b.put(FamSequence, sequenceKey(m.Session, m.Sequence), m.ID[:])
	}
	b.put(FamMemories, m.ID[:], encodeRecord(nil, m))
	b.put(FamDocnums, docnumIDKey(m.ID), docKey(m.DocNum))
	b.put(FamDocnums, docnumDocKey(m.DocNum), m.ID[:])
	b.put(FamCreated, createdKey(m.CreatedAt, m.ID), nil)
	b.put(FamContent, contentKey(contentHash(m.Project, m.Content), m.ID), nil)
	b.next++
	b.count++
}

// assignSequence gives m the next sequence of its session when it has none,
// and refuses a sequence that is taken.
func (b *Batch) assignSequence(m *record.Memory) error {
	last, ok := b.lastSeq[m.Session]
	if !ok {
		var err error
		if last, err = b.e.lastSequence(m.Session); err != nil {
			return err
		}
	}
	if m.Sequence == 0 {
		if last == math.MaxUint64 {
			return &record.ValidationError{Field: "sequence", Problem: fmt.Sprintf("session %q has used the largest sequence number", m.Session),
				Fix: "give the memory an explicit free sequence number or a new session"}
		}
		m.Sequence = last + 1
	} else {
		v, taken, err := b.Get(FamSequence, sequenceKey(m.Session, m.Sequence))
		if err != nil {
			return err
		}
		if taken {
			return &record.ValidationError{Field: "sequence", Problem: fmt.Sprintf("%d is already used in session %q by memory %s", m.Sequence, m.Session, record.ID(v)),
				Fix: "leave the sequence out to get the next free one"}
		}
	}
	b.lastSeq[m.Session] = max(last, m.Sequence)
	return nil
}

// Delete removes the memory and every key it owns in every family keyed
// per memory (FORMAT.md), and returns it as it was stored. Keys shared
// between memories (postings and their statistics) are the caller's to
// update in the same batch. Its doc number is never reused.
func (b *Batch) Delete(id record.ID) (record.Memory, error) {
	m, _, err := b.remove(id)
	return m, err
}

// remove is Delete, returning the relations it dropped too.
func (b *Batch) remove(id record.ID) (record.Memory, []record.Relation, error) {
	m, err := b.Memory(id)
	if err != nil {
		return record.Memory{}, nil, err
	}
	ref := refOf(&m)
	for f, info := range families {
		if info.keys == nil {
			continue
		}
		for _, k := range info.keys(ref) {
			b.del(Family(f), k)
		}
	}
	if err := b.deleteHistory(id); err != nil {
		return record.Memory{}, nil, err
	}
	rels, err := b.unlinkAll(id)
	if err != nil {
		return record.Memory{}, nil, err
	}
	b.count--
	return m, rels, nil
}

// Memory reads a stored memory (as committed, or as added in this batch)
// without recording an access.
func (b *Batch) Memory(id record.ID) (record.Memory, error) {
	v, ok, err := b.Get(FamMemories, id[:])
	if err != nil {
		return record.Memory{}, err
	}
	if !ok {
		return record.Memory{}, b.e.notFound(id)
	}
	m, err := decodeRecord(v)
	if err != nil {
		return record.Memory{}, fmt.Errorf("memories/%s: %w", id, err)
	}
	return m, nil
}

// Put sets key to value in family f. Families of records and the store
// metadata are refused (at Commit): see Batch.
func (b *Batch) Put(f Family, key, value []byte) {
	if b.check(f, key) {
		b.put(f, key, value)
	}
}

// PutOwned is Put for a value the caller hands over: the batch keeps it
// as it is, without the copy Put makes, so the caller must never change
// it afterwards. A write's encoded fingerprints and token matrices (tens
// of kilobytes a memory) go in this way.
func (b *Batch) PutOwned(f Family, key, value []byte) {
	if b.check(f, key) {
		b.b.put(f, key, value)
		b.note(f, key, pendingValue{value: value})
	}
}

// Del removes key from family f, with the same limits as Put.
func (b *Batch) Del(f Family, key []byte) {
	if b.check(f, key) {
		b.del(f, key)
	}
}

// check reports whether a caller may write key of f, and records the
// refusal otherwise.
func (b *Batch) check(f Family, key []byte) bool {
	switch {
	case f.known() != nil:
		b.bad = errors.Join(b.bad, f.known())
	case f == FamMemories || f == FamDocnums || f == FamCreated || f == FamSequence || f == FamContent:
		b.bad = errors.Join(b.bad, fmt.Errorf("family %s holds records and their indexes: write them with Batch.Add and Batch.Delete", families[f].name))
	case f == FamDefault && !isSlotKey(key):
		b.bad = errors.Join(b.bad, fmt.Errorf("default/%q is store metadata: only keys under %q may be written", key, SlotKeyPrefix))
	default:
		return true
	}
	return false
}

// Get returns a copy of the value of key in f, seeing this batch's writes.
func (b *Batch) Get(f Family, key []byte) ([]byte, bool, error) {
	if v, ok := b.pending[f][string(key)]; ok {
		if v.deleted {
			return nil, false, nil
		}
		return append([]byte{}, v.value...), true, nil
	}
	return b.e.kv.get(f, key)
}

func (b *Batch) put(f Family, key, value []byte) {
	b.b.put(f, key, value)
	b.note(f, key, pendingValue{value: append([]byte{}, value...)})
}

func (b *Batch) del(f Family, key []byte) {
	b.b.del(f, key)
	b.note(f, key, pendingValue{deleted: true})
}

func (b *Batch) note(f Family, key []byte, v pendingValue) {
	m := b.pending[f]
	if m == nil {
		m = make(map[string]pendingValue)
		b.pending[f] = m
	}
	m[string(key)] = v
}
