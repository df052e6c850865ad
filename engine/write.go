package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Add stores one memory with its fingerprint; see AddBatch.
func (s *Engine) Add(ctx context.Context, m record.NewMemory) (record.Memory, error) {
	ms, err := s.AddBatch(ctx, []record.NewMemory{m})
	if err != nil {
		return record.Memory{}, err
	}
	return ms[0], nil
}

// AddBatch validates the memories, computes their full fingerprints (batched,
// slots in parallel) before taking the write lock, then writes records,
// fingerprints and per-slot families in ONE WriteBatch and updates the
// in-memory indexes. A bad memory is reported as "memory N of M: problem" and
// nothing is written.
func (s *Engine) AddBatch(ctx context.Context, ns []record.NewMemory) ([]record.Memory, error) {
	if err := s.needEmbedders("add memories"); err != nil {
		return nil, err
	}
	if s.ro {
		return nil, fmt.Errorf("store %s: %w: open it without --read-only to change it", s.dir, record.ErrReadOnly)
	}
	if len(ns) == 0 {
		return nil, nil
	}
	if err := s.writable(); err != nil {
		return nil, err
	}
	ns = append([]record.NewMemory(nil), ns...)
	now := time.Now().UTC()
	inputs := make([]embedders.Input, len(ns))
	for i := range ns {
		if err := ns[i].Validate(s.maxBytes); err != nil {
			return nil, batchErr(len(ns), i, err)
		}
		if ns[i].CreatedAt.IsZero() {
			ns[i].CreatedAt = now // the engine's default, fixed here so E2/E3 see it
		}
		inputs[i] = embedders.Input{Text: ns[i].Content, Created: ns[i].CreatedAt, Session: ns[i].Session, Seq: ns[i].Sequence}
	}
	fps, err := s.reg.EmbedDocuments(ctx, inputs)
	if err != nil {
		return nil, fmt.Errorf("fingerprint %d memories: %w", len(ns), err)
	}
	return s.write(ctx, ns, fps)
}

// write stores ns with their fingerprints: one engine batch whose hook
// writes the derived data, then the index update.
func (s *Engine) write(ctx context.Context, ns []record.NewMemory, fps []fingerprint.Fingerprint) ([]record.Memory, error) {
	payloads := make([]any, len(ns))
	for i := range fps {
		payloads[i] = &fps[i]
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.pending = s.pending[:0]
	out, err := s.eng.AddBatchWith(ctx, ns, payloads)
	if err != nil {
		s.pending = nil
		return nil, err
	}
	return out, s.applyPending()
}

func batchErr(n, i int, err error) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("memory %d of %d: %w", i+1, n, err)
}

// writable refuses writes while a slot awaits re-embedding.
func (s *Engine) writable() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, why := range s.stale {
		if why != "" {
			return fmt.Errorf("store %s: %s; finish that before adding memories", s.dir, why)
		}
	}
	return nil
}

// Delete removes the memory from every family (postings included) and from
// the indexes.
func (s *Engine) Delete(ctx context.Context, id record.ID) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.pending = s.pending[:0]
	if err := s.eng.Delete(ctx, id); err != nil {
		s.pending = nil
		return err
	}
	return s.applyPending()
}

// applyPending brings the indexes and slot records in line with the write
// just committed. An error here means the indexes no longer match the store
// (a broken invariant: reopening rebuilds them).
// REQUIRES: s.writeMu held.
func (s *Engine) applyPending() error {
	if s.ix == nil { // records only: no index to keep up
		s.pending = nil
		return nil
	}
	var errs []error
	for _, p := range s.pending {
		if p.fp == nil {
			s.ix.remove(uint32(p.m.DocNum))
			continue
		}
		if err := s.ix.apply(p.m, p.fp, nil); err != nil {
			errs = append(errs, fmt.Errorf("memory %s was stored but not indexed (reopen the store to rebuild its indexes): %w", p.m.ID, err))
		}
		if len(p.records) > 0 {
			s.mu.Lock()
			for _, u := range p.records {
				s.stored[u.slot.Index()] = u.rec
			}
			s.mu.Unlock()
		}
	}
	s.pending = nil
	return errors.Join(errs...)
}

// hook writes a memory's derived data into its batch. Its methods run under
// the engine's write lock, called from Engine writes that hold s.writeMu.
type hook Engine

var _ cellar.MemoryHook = (*hook)(nil)

func (h *hook) AddMemory(tx *cellar.Tx, m record.Memory) error {
	s := (*Engine)(h)
	fp, ok := tx.Payload().(*fingerprint.Fingerprint)
	if !ok || fp == nil {
		return errors.New("memory has no fingerprint: add memories through engine.Engine, not its Engine")
	}
	// E4 encodes the session position, which the engine assigns in this
	// batch (next in the session): compute it from the stored record.
	if m.Session != "" {
		if err := s.embedSequence(m, fp); err != nil {
			return err
		}
	}
	if err := s.ix.check(fp); err != nil {
		return err
	}
	enc, err := encodeStored(fp)
	if err != nil {
		return fmt.Errorf("encode fingerprint: %w", err)
	}
	if err := tx.Put("fingerprints", m.ID[:], enc); err != nil {
		return err
	}
	doc := uint32(m.DocNum)
	for _, slot := range fingerprint.Slots() {
		if err := writeSlot(tx, doc, slot, nil, fp.Get(slot).Value); err != nil {
			return fmt.Errorf("%s: %w", slot, err)
		}
	}
	op := pendingOp{m: m, fp: fp}
	s.mu.RLock()
	for _, slot := range fingerprint.Slots() {
		e := fp.Get(slot)
		if e.Value == nil || s.stored[slot.Index()].Producer != (fingerprint.Producer{}) {
			continue
		}
		// The slot's first value in this store: record its producer.
		rec := slotRecord{Status: e.Status, Producer: e.Producer, Dims: s.reg.Get(slot).Status().Dims}
		if err := tx.Put("default", slotKey(slot), encodeSlotRecord(rec)); err != nil {
			s.mu.RUnlock()
			return err
		}
		op.records = append(op.records, slotUpdate{slot, rec})
	}
	s.mu.RUnlock()
	s.pending = append(s.pending, op)
	return nil
}

func (h *hook) DeleteMemory(tx *cellar.Tx, m record.Memory) error {
	s := (*Engine)(h)
	v, found, err := tx.Get("fingerprints", m.ID[:])
	if err != nil {
		return err
	}
	if found {
		fp, err := fingerprint.Decode(v)
		if err != nil {
			return fmt.Errorf("fingerprints/%s: %w", m.ID, err)
		}
		// Per-doc families are deleted by the engine; postings are shared
		// families and go here, statistics with them.
		for _, pf := range postingFamilies {
			if old := fp.Get(pf.slot).Value; old != nil {
				if err := pf.write(tx, uint32(m.DocNum), old, -1); err != nil {
					return err
				}
			}
		}
	}
	s.pending = append(s.pending, pendingOp{m: m})
	return nil
}

// embedSequence recomputes fp's E4 entry from m's assigned sequence.
func (s *Engine) embedSequence(m record.Memory, fp *fingerprint.Fingerprint) error {
	es, err := s.reg.Get(fingerprint.E4).EmbedDocuments(context.Background(),
		[]embedders.Input{{Text: m.Content, Created: m.CreatedAt, Session: m.Session, Seq: m.Sequence}})
	if err != nil {
		return fmt.Errorf("embed E4: %w", err)
	}
	if len(es) != 1 {
		return fmt.Errorf("embed E4: %d entries for 1 document", len(es))
	}
	return fp.Set(fingerprint.E4, es[0])
}

// writeSlot moves one doc's stored data of slot from old to new (either may
// be nil): the per-doc families and the postings with their statistics.
func writeSlot(tx *cellar.Tx, doc uint32, slot fingerprint.SlotID, old, new fingerprint.Value) error {
	for _, c := range columns {
		if c.slot != slot {
			continue
		}
		var b []byte
		if new != nil {
			var err error
			if b, err = c.encode(new); err != nil {
				return err
			}
		}
		var err error
		switch {
		case b != nil:
			err = tx.Put(c.family, docKey(doc), b)
		case old != nil:
			err = tx.Delete(c.family, docKey(doc))
		}
		if err != nil {
			return err
		}
	}
	for _, pf := range postingFamilies {
		if pf.slot != slot {
			continue
		}
		if old != nil {
			if err := pf.write(tx, doc, old, -1); err != nil {
				return err
			}
		}
		if new != nil {
			if err := pf.write(tx, doc, new, +1); err != nil {
				return err
			}
		}
	}
	return nil
}
