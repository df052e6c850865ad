package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// DeferredSlots returns the slots worth leaving to the background filler
// with reg: every ready slot computed by a model that is not E1's (its
// producer names a model, not a cgraph/… algorithm). E1 (and E12, which
// shares E1's model run) and the model-free slots stay on the write path,
// so a memory is searchable by meaning and keywords at once.
func DeferredSlots(reg *embedders.Registry) []fingerprint.SlotID {
	e1 := reg.Get(fingerprint.E1).Status().Producer.Model
	var out []fingerprint.SlotID
	for _, s := range fingerprint.Slots() {
		st := reg.Get(s).Status()
		m := st.Producer.Model
		if s == fingerprint.E4 || st.State == fingerprint.StatusUnavailable || m == "" || m == e1 || strings.HasPrefix(m, "cgraph/") {
			continue
		}
		out = append(out, s)
	}
	return out
}

// AllModelSlots are the slots DeferredSlots gives plus E1's model (E1 and
// the slots that share it): a write then stores only the model-free slots
// (keywords, typo n-grams, entity names, time) and the filler computes
// every model slot later. A memory written so is found by keyword search
// at once and by meaning once filled; transcript ingest uses it, where a
// turn costs ~60 ms of E1 on two cores and the keywords ~1 ms.
func AllModelSlots(reg *embedders.Registry) []fingerprint.SlotID {
	out := DeferredSlots(reg)
	e1 := reg.Get(fingerprint.E1).Status().Producer.Model
	if e1 == "" || strings.HasPrefix(e1, "cgraph/") {
		return out
	}
	for _, s := range fingerprint.Slots() {
		st := reg.Get(s).Status()
		if s != fingerprint.E4 && st.State != fingerprint.StatusUnavailable && st.Producer.Model == e1 {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// pendingMask is the value of a pending key: the deferred slots as bits.
func pendingMask(slots []fingerprint.SlotID) []byte {
	var m uint16
	for _, s := range slots {
		m |= 1 << s.Index()
	}
	return binary.BigEndian.AppendUint16(nil, m)
}

func slotsOfMask(v []byte) ([]fingerprint.SlotID, error) {
	if len(v) != 2 {
		return nil, fmt.Errorf("pending value %x, want 2 bytes: %w", v, record.ErrCorrupt)
	}
	m := binary.BigEndian.Uint16(v)
	var out []fingerprint.SlotID
	for _, s := range fingerprint.Slots() {
		if m&(1<<s.Index()) != 0 {
			out = append(out, s)
		}
	}
	return out, nil
}

// Pending returns how many memories still wait for deferred slots.
func (s *Engine) Pending(ctx context.Context) (int, error) {
	n := 0
	err := s.cellar.Scan(ctx, cellar.FamPending, nil, func(_, _ []byte) error { n++; return nil })
	return n, err
}

// PendingBySlot counts, per slot, the memories whose value of it a
// deferred write left to the filler.
func (s *Engine) PendingBySlot(ctx context.Context) ([fingerprint.NumSlots]int, error) {
	var out [fingerprint.NumSlots]int
	err := s.cellar.Scan(ctx, cellar.FamPending, nil, func(_, v []byte) error {
		slots, err := slotsOfMask(v)
		for _, sl := range slots {
			out[sl.Index()]++
		}
		return err
	})
	return out, err
}

// FillPending computes the deferred slots of up to max pending memories
// (oldest doc numbers first) and writes them in one batch, then indexes
// them. It returns how many memories it completed. A memory deleted or
// updated meanwhile is skipped (an update computes every slot itself).
func (s *Engine) FillPending(ctx context.Context, max int) (int, error) {
	if s.ro || s.ix == nil {
		return 0, nil
	}
	docs, masks, err := s.pendingDocs(ctx, max)
	if err != nil || len(docs) == 0 {
		return 0, err
	}
	f, err := s.computeFill(ctx, docs, masks)
	if err != nil {
		return 0, err
	}
	done, err := s.writeFill(ctx, f)
	if err != nil {
		return 0, err
	}
	for _, i := range done {
		if err := s.ix.apply(f.recs[i], &f.vals[i], f.slots); err != nil {
			return len(done), fmt.Errorf("memory %s was filled but not indexed (reopen the store): %w", f.recs[i].ID, err)
		}
	}
	return len(done), nil
}

// pendingDocs reads up to max pending marks, oldest doc numbers first:
// each memory's doc number and the slots it waits for.
func (s *Engine) pendingDocs(ctx context.Context, max int) ([]record.DocNum, [][]fingerprint.SlotID, error) {
	var docs []record.DocNum
	var masks [][]fingerprint.SlotID
	errStop := fmt.Errorf("enough")
	err := s.cellar.Scan(ctx, cellar.FamPending, nil, func(k, v []byte) error {
		if len(docs) == max {
			return errStop
		}
		doc, err := parseDocKey(cellar.FamPending, k)
		if err != nil {
			return err
		}
		slots, err := slotsOfMask(v)
		if err != nil {
			return err
		}
		docs, masks = append(docs, record.DocNum(doc)), append(masks, slots)
		return nil
	})
	if err != nil && err != errStop {
		return nil, nil, fmt.Errorf("fill pending slots: %w", err)
	}
	return docs, masks, nil
}

// fill is one FillPending batch: the memories read (recs[i], its stored
// fingerprint fps[i], nil when deleted meanwhile), their fingerprints with
// the pending slots computed (vals[i]) and those slots.
type fill struct {
	recs  []record.Memory
	fps   []*fingerprint.Fingerprint
	vals  []fingerprint.Fingerprint
	slots []fingerprint.SlotID
}

// computeFill reads the pending memories and computes every slot any of
// them waits for, before the write lock.
func (s *Engine) computeFill(ctx context.Context, docs []record.DocNum, masks [][]fingerprint.SlotID) (fill, error) {
	ms, found, err := s.cellar.PeekDocs(ctx, docs)
	if err != nil {
		return fill{}, fmt.Errorf("fill pending slots: %w", err)
	}
	var f fill
	var ids []record.ID
	for i := range ms {
		if found[i] {
			ids = append(ids, ms[i].ID)
		}
		for _, sl := range masks[i] {
			if !slices.Contains(f.slots, sl) {
				f.slots = append(f.slots, sl)
			}
		}
	}
	slices.Sort(f.slots)
	if f.recs, f.fps, err = s.readMemories(ctx, ids); err != nil {
		return fill{}, fmt.Errorf("fill pending slots: %w", err)
	}
	inputs := make([]embedders.Input, len(f.recs))
	f.vals = make([]fingerprint.Fingerprint, len(f.recs))
	for i, m := range f.recs {
		inputs[i] = embedders.Input{Text: m.Content, Created: m.CreatedAt, Session: m.Session, Seq: m.Sequence}
		if f.fps[i] != nil {
			f.vals[i] = *f.fps[i]
		}
	}
	if err := s.reg.EmbedSlots(ctx, inputs, f.slots, f.vals); err != nil {
		return fill{}, fmt.Errorf("fill pending slots %v: %w", f.slots, err)
	}
	return f, nil
}

// writeFill writes the computed slots of the memories still pending and
// unchanged in one batch, under the write lock, and returns which of
// f.recs it completed.
func (s *Engine) writeFill(ctx context.Context, f fill) ([]int, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Abort()
	var done []int
	for i, m := range f.recs {
		key := docKey(m.DocNum)
		if f.fps[i] == nil {
			continue // deleted meanwhile
		}
		if _, ok, err := b.Get(cellar.FamPending, key); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue // an update computed every slot meanwhile
		}
		cur, err := b.Memory(m.ID)
		if err != nil || cur.Content != m.Content {
			continue
		}
		if err := s.writeFilled(b, m, &f.vals[i], f.slots); err != nil {
			return nil, err
		}
		b.Del(cellar.FamPending, key)
		done = append(done, i)
	}
	if err := s.commitWithFirsts(b, f.vals, "fill pending slots"); err != nil {
		return nil, err
	}
	return done, nil
}

// writeFilled puts m's completed fingerprint and its filled slots' derived
// values into b.
func (s *Engine) writeFilled(b *cellar.Batch, m record.Memory, fp *fingerprint.Fingerprint, slots []fingerprint.SlotID) error {
	if err := s.ix.check(fp); err != nil {
		return fmt.Errorf("memory %s: %w", m.ID, err)
	}
	enc, err := encodeStored(fp)
	if err != nil {
		return fmt.Errorf("memory %s: encode fingerprint: %w", m.ID, err)
	}
	b.Put(cellar.FamFingerprints, m.ID[:], enc)
	for _, sl := range slots {
		if err := writeSlot(b, m.DocNum, sl, nil, fp.Get(sl).Value); err != nil {
			return fmt.Errorf("memory %s %s: %w", m.ID, sl, err)
		}
	}
	return nil
}

// filler runs FillPending in the background of a writable engine: after
// every write that left work (wake) and every fillerIdle, until Close. It
// yields to writes: while they keep arriving it waits for fillerQuiet
// without one, at most fillerMaxWait per busy period, and after that fills
// fillerBusyBatch memories at a time until writes pause, so a write shares
// the cores with at most one small batch. A write's own encoding is what an
// agent waits for; the deferred slots can wait a few seconds.
type filler struct {
	wake chan struct{}
	stop chan struct{}
	done chan struct{}
	// lastWrite is when the latest write left work (UnixNano).
	lastWrite atomic.Int64
	mu        sync.Mutex
	err       error // the last failure, for Err
}

const (
	fillerBatch     = 32
	fillerBusyBatch = 4
	fillerIdle      = 2 * time.Second
	fillerQuiet     = 200 * time.Millisecond
	fillerMaxWait   = 5 * time.Second
)

// waitQuiet waits until no write has left work for fillerQuiet, or until
// deadline, or stop; busy reports that writes were still arriving when it
// returned.
func (f *filler) waitQuiet(deadline time.Time) (busy, stopped bool) {
	for {
		now := time.Now()
		since := now.Sub(time.Unix(0, f.lastWrite.Load()))
		if since >= fillerQuiet {
			return false, false
		}
		if !now.Before(deadline) {
			return true, false
		}
		t := time.NewTimer(min(fillerQuiet-since, deadline.Sub(now)))
		select {
		case <-f.stop:
			t.Stop()
			return false, true
		case <-t.C:
		}
	}
}

// StartFiller starts the background filler of a writable engine if it is
// not running: it completes pending deferred slots, including those an
// earlier process left, until Close. Open starts it when the engine defers
// slots; a long-running writer (cgraph serve) starts it in any case, so a
// restart without deferral still completes what was left.
func (s *Engine) StartFiller() {
	if s.ro || s.ix == nil || s.filler != nil {
		return
	}
	f := &filler{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.filler = f
	go func() {
		defer close(f.done)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-f.stop; cancel() }()
		t := time.NewTicker(fillerIdle)
		defer t.Stop()
		var deadline time.Time // when the filler stops waiting for writes to pause; zero when not waiting
		for {
			if deadline.IsZero() {
				deadline = time.Now().Add(fillerMaxWait)
			}
			busy, stopped := f.waitQuiet(deadline)
			if stopped {
				return
			}
			batch := fillerBatch
			if busy {
				batch = fillerBusyBatch // writes go on: small batches, back to back
			} else {
				deadline = time.Time{}
			}
			n, err := s.FillPending(ctx, batch)
			f.mu.Lock()
			f.err = err
			f.mu.Unlock()
			if n > 0 && err == nil {
				continue
			}
			deadline = time.Time{}
			select {
			case <-f.stop:
				return
			case <-f.wake:
			case <-t.C:
			}
		}
	}()
}

// poke wakes the filler after a write left deferred slots.
func (f *filler) poke() {
	if f == nil {
		return
	}
	f.lastWrite.Store(time.Now().UnixNano())
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// close stops the filler and waits for its current batch.
func (f *filler) close() {
	if f == nil {
		return
	}
	close(f.stop)
	<-f.done
}

// FillerErr is the background filler's last failure (nil when it is
// keeping up, or not running).
func (s *Engine) FillerErr() error {
	if s.filler == nil {
		return nil
	}
	s.filler.mu.Lock()
	defer s.filler.mu.Unlock()
	return s.filler.err
}
