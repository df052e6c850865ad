package cellar

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cgraph/cgraph/record"
)

// Add validates and stores one memory in one atomic batch and returns it as
// stored. Cost: one WAL append (an fsync too with Options.Sync).
func (e *Store) Add(ctx context.Context, m record.NewMemory) (record.Memory, error) {
	ms, err := e.AddBatch(ctx, []record.NewMemory{m})
	if err != nil {
		return record.Memory{}, err
	}
	return ms[0], nil
}

// AddBatch validates every memory first and then stores them all in one
// atomic batch: after a crash either all are stored or none. A bad memory is
// reported as "memory N: <problem>" and nothing is written.
func (e *Store) AddBatch(ctx context.Context, ns []record.NewMemory) ([]record.Memory, error) {
	return e.AddBatchWith(ctx, ns, nil)
}

// AddBatchWith is AddBatch handing payloads[i] to the hooks while they add
// ns[i] (Tx.Payload): derived data computed before the write lock, such as a
// fingerprint, reaches the memory it belongs to. payloads is nil or has one
// entry per memory.
func (e *Store) AddBatchWith(ctx context.Context, ns []record.NewMemory, payloads []any) ([]record.Memory, error) {
	if payloads != nil && len(payloads) != len(ns) {
		return nil, fmt.Errorf("add %d memories with %d payloads: give one payload per memory or none", len(ns), len(payloads))
	}
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
	out := make([]record.Memory, len(ns))
	next := e.nextDoc
	for i, n := range ns {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if next == math.MaxUint32 {
			return nil, fmt.Errorf("store %s has used all %d doc numbers: export its memories into a new store", e.dir, uint64(math.MaxUint32))
		}
		tx.payload = nil
		if payloads != nil {
			tx.payload = payloads[i]
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
func (e *Store) addLocked(tx *Tx, n record.NewMemory, doc record.DocNum, lastSeq map[string]uint64) (record.Memory, error) {
	now := time.Now().UTC()
	m := record.Memory{
		ID: record.NewID(), DocNum: doc, Content: n.Content, Type: n.Type,
		Tags: append([]string(nil), n.Tags...), Source: n.Source, Session: n.Session,
		Sequence: n.Sequence, CreatedAt: n.CreatedAt.UTC(), UpdatedAt: now, Importance: n.Importance,
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
		if err := e.assignSequence(tx, &m, lastSeq); err != nil {
			return record.Memory{}, err
		}
		tx.put(famSequence, sequenceKey(m.Session, m.Sequence), m.ID[:])
	}
	tx.put(famMemories, m.ID[:], encodeRecord(nil, &m))
	tx.put(famDocnums, docnumIDKey(m.ID), docKey(m.DocNum))
	tx.put(famDocnums, docnumDocKey(m.DocNum), m.ID[:])
	tx.put(famCreated, createdKey(m.CreatedAt, m.ID), nil)
	for _, h := range e.hooks {
		if err := h.AddMemory(tx, m); err != nil {
			return record.Memory{}, fmt.Errorf("add memory %s: hook: %w", m.ID, err)
		}
	}
	return m, nil
}

// assignSequence gives m the next sequence of its session when it has none,
// and refuses a sequence that is taken. lastSeq caches, per session, the
// highest sequence stored or given earlier in this batch, so a bulk import
// looks each session up on disk once.
func (e *Store) assignSequence(tx *Tx, m *record.Memory, lastSeq map[string]uint64) error {
	last, ok := lastSeq[m.Session]
	if !ok {
		var err error
		if last, err = e.lastSequence(m.Session); err != nil {
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
		v, taken, err := tx.get(famSequence, sequenceKey(m.Session, m.Sequence))
		if err != nil {
			return err
		}
		if taken {
			var other record.ID
			copy(other[:], v)
			return &record.ValidationError{Field: "sequence", Problem: fmt.Sprintf("%d is already used in session %q by memory %s", m.Sequence, m.Session, other),
				Fix: "leave the sequence out to get the next free one"}
		}
	}
	lastSeq[m.Session] = max(last, m.Sequence)
	return nil
}

// lastSequence returns the highest stored sequence of session, or 0.
func (e *Store) lastSequence(session string) (uint64, error) {
	p := sequencePrefix(session)
	it := e.kv.iter(famSequence, p, prefixEnd(p))
	defer it.close()
	it.last()
	if !it.valid() {
		return 0, it.err()
	}
	k := it.key()
	if len(k) != len(p)+8 {
		return 0, fmt.Errorf("sequence key %x: %w", k, record.ErrCorrupt)
	}
	return binary.BigEndian.Uint64(k[len(p):]), nil
}

// Delete removes the memory and every key it owns in every family, in one
// atomic batch. Its doc number is never reused.
func (e *Store) Delete(ctx context.Context, id record.ID) error {
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
