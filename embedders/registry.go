package embedders

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cgraph/cgraph/fingerprint"
)

// Registry holds one Embedder per slot, keyed by SlotID. It is immutable after
// NewRegistry and safe for concurrent use.
type Registry struct {
	slots [fingerprint.NumSlots]Embedder
}

// NewRegistry builds a registry from es. A slot given twice is an error; a
// slot not given gets an Unavailable embedder saying no embedder is registered,
// so every slot always answers.
func NewRegistry(es ...Embedder) (*Registry, error) {
	r := &Registry{}
	for _, e := range es {
		s := e.Slot()
		if !s.Valid() {
			return nil, fmt.Errorf("embedder %T reports invalid slot %d", e, uint8(s))
		}
		if r.slots[s.Index()] != nil {
			return nil, fmt.Errorf("two embedders for %s (%T and %T): register one per slot", s, r.slots[s.Index()], e)
		}
		r.slots[s.Index()] = e
	}
	for _, s := range fingerprint.Slots() {
		if r.slots[s.Index()] == nil {
			r.slots[s.Index()] = NewUnavailable(s, "no embedder registered for this slot")
		}
	}
	return r, nil
}

// Get returns the embedder of slot s. It panics on an invalid slot.
func (r *Registry) Get(s fingerprint.SlotID) Embedder {
	if !s.Valid() {
		panic(fmt.Sprintf("embedders: invalid slot %d", uint8(s)))
	}
	return r.slots[s.Index()]
}

// Statuses returns every slot's status in slot order E1…E13.
func (r *Registry) Statuses() []SlotStatus {
	out := make([]SlotStatus, fingerprint.NumSlots)
	for i, e := range r.slots {
		out[i] = e.Status()
	}
	return out
}

// EmbedDocuments computes full fingerprints for docs: every slot runs its
// batch, slots concurrently (one goroutine per slot). Each returned entry is
// checked against its slot; the first failures of all slots are joined into
// the error and no fingerprint is returned then (nothing half-made).
func (r *Registry) EmbedDocuments(ctx context.Context, docs []Input) ([]fingerprint.Fingerprint, error) {
	out := make([]fingerprint.Fingerprint, len(docs))
	if err := r.EmbedSlots(ctx, docs, fingerprint.Slots(), out); err != nil {
		return nil, err
	}
	return out, nil
}

// EmbedSlots fills the given slots of out[i] for docs[i] (len(out) ==
// len(docs)), slots concurrently, leaving the other slots as they are. It
// is how a caller computes a slot that depends on what only the store
// assigns (E4's sequence number) after the rest. On error out is partly
// written and must be discarded.
func (r *Registry) EmbedSlots(ctx context.Context, docs []Input, slots []fingerprint.SlotID, out []fingerprint.Fingerprint) error {
	if len(out) != len(docs) {
		return fmt.Errorf("embed %d documents into %d fingerprints", len(docs), len(out))
	}
	errs := make([]error, len(slots))
	var wg sync.WaitGroup
	for i, s := range slots {
		e := r.Get(s)
		wg.Go(func() {
			errs[i] = r.embedSlot(ctx, e, docs, out)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// embedSlot fills one slot of every fingerprint in out. Each goroutine writes
// only its own slot's entries, so no lock is needed.
func (r *Registry) embedSlot(ctx context.Context, e Embedder, docs []Input, out []fingerprint.Fingerprint) error {
	s := e.Slot()
	entries, err := e.EmbedDocuments(ctx, docs)
	if err != nil {
		return fmt.Errorf("embed %s: %w", s, err)
	}
	if len(entries) != len(docs) {
		return fmt.Errorf("embed %s: %d entries for %d documents (broken embedder %T)", s, len(entries), len(docs), e)
	}
	for i, en := range entries {
		if err := out[i].Set(s, en); err != nil {
			return fmt.Errorf("embed %s document %d: %w", s, i, err)
		}
	}
	return nil
}

// Unavailable is the embedder of a slot that cannot produce values, e.g. a
// model-backed slot whose model is not installed. It says why, everywhere.
type Unavailable struct {
	slot   fingerprint.SlotID
	reason string
}

var _ Embedder = (*Unavailable)(nil)

// NewUnavailable returns an embedder for s that marks every document
// unavailable with reason and refuses queries. reason should say how to fix it
// ("no model installed; run cgraph models pull e5-small-v2").
func NewUnavailable(s fingerprint.SlotID, reason string) *Unavailable {
	return &Unavailable{slot: s, reason: reason}
}

// Slot returns the slot.
func (u *Unavailable) Slot() fingerprint.SlotID { return u.slot }

// Status reports StatusUnavailable with the reason.
func (u *Unavailable) Status() SlotStatus {
	return SlotStatus{State: fingerprint.StatusUnavailable, Reason: u.reason}
}

// EmbedDocuments returns an unavailable entry per document.
func (u *Unavailable) EmbedDocuments(_ context.Context, docs []Input) ([]fingerprint.Entry, error) {
	out := make([]fingerprint.Entry, len(docs))
	for i := range out {
		out[i] = fingerprint.Entry{Status: fingerprint.StatusUnavailable, Note: u.reason}
	}
	return out, nil
}

// EmbedQuery fails with ErrUnavailable.
func (u *Unavailable) EmbedQuery(context.Context, Query) (QueryView, error) {
	return QueryView{}, fmt.Errorf("%s: %w: %s", u.slot, ErrUnavailable, u.reason)
}
