package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// reembedBatch is how many memories one Reembed batch (one WriteBatch)
// recomputes.
const reembedBatch = 64

// ReembedReport says what Reembed did.
type ReembedReport struct {
	// Slots are the slots it recomputed (in slot order).
	Slots []fingerprint.SlotID
	// Memories is how many memories had at least one of them recomputed.
	Memories int
	// Unreadable are memories skipped because their stored fingerprint is
	// in a damaged block of a table file (`cgraph check --repair` rewrites
	// the family without it, naming them).
	Unreadable []record.ID
}

// Reembed recomputes the given slots (nil: every slot whose stored producer
// differs from the current one) for every memory, in batches, each batch one
// WriteBatch, and records the new producers when done. progress may be nil.
//
// It refuses, before writing anything, when a slot it would recompute has no
// embedder now (its model missing or corrupt): re-embedding would replace the
// slot's stored values by "unavailable". The fix is the model, named in the
// error.
//
// A memory whose stored entry of a slot already has the current producer (and
// status) is skipped for that slot, so a Reembed interrupted by a crash is
// finished by running it again: the store still opens with Options.Reembed
// (its slot records name the old producers until the last step), and the
// second run only recomputes the memories the first did not reach.
func (s *Engine) Reembed(ctx context.Context, slots []fingerprint.SlotID, progress func(done, total int)) (ReembedReport, error) {
	if err := s.needEmbedders("re-embed"); err != nil {
		return ReembedReport{}, err
	}
	if s.ro {
		return ReembedReport{}, s.refuseReadOnly("re-embed")
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	defer s.tokens.clear() // E12 values may change: no matrix cached before is trusted after
	s.tokens.clear()
	cur := s.reg.Statuses()
	slots, err := s.reembedSlots(slots, cur)
	if err != nil {
		return ReembedReport{}, err
	}
	rep := ReembedReport{Slots: slices.Sorted(slices.Values(slots))}
	if len(slots) == 0 {
		return rep, nil
	}
	var ids []record.ID
	if err := s.cellar.ScanDocs(ctx, func(_ record.DocNum, id record.ID) error {
		ids = append(ids, id)
		return nil
	}); err != nil {
		return rep, err
	}
	for lo := 0; lo < len(ids); lo += reembedBatch {
		batch := ids[lo:min(lo+reembedBatch, len(ids))]
		n, err := s.reembedBatch(ctx, batch, slots, cur)
		if errors.Is(err, record.ErrCorrupt) {
			n, err = s.reembedEach(ctx, batch, slots, cur, &rep)
		}
		if err != nil {
			return rep, fmt.Errorf("reembed %v: %w", slots, err)
		}
		rep.Memories += n
		if progress != nil {
			progress(min(lo+reembedBatch, len(ids)), len(ids))
		}
	}
	// Last: the store now holds the current producers' values.
	if err := s.recordReembedded(ctx, slots, cur); err != nil {
		return rep, fmt.Errorf("reembed: record producers: %w", err)
	}
	s.mu.Lock()
	for _, sl := range slots {
		s.stored[sl.Index()] = recordOf(cur[sl.Index()])
		s.stale[sl.Index()] = ""
	}
	s.generation++
	s.mu.Unlock()
	s.views.clear() // views of the old producers
	return rep, nil
}

// reembedSlots checks the slots Reembed was asked for (nil: every slot
// whose stored producer differs from the current one, or that is stale)
// and refuses, before anything is written, when one of them has no working
// embedder now. cur are the registry's statuses.
func (s *Engine) reembedSlots(slots []fingerprint.SlotID, cur []embedders.SlotStatus) ([]fingerprint.SlotID, error) {
	if slots == nil {
		s.mu.RLock()
		for i, sl := range fingerprint.Slots() {
			if s.stale[i] != "" || s.stored[i].Producer != cur[i].Producer {
				slots = append(slots, sl)
			}
		}
		s.mu.RUnlock()
	}
	var broken []string
	for _, sl := range slots {
		if !sl.Valid() {
			return nil, fmt.Errorf("reembed: invalid slot %d: use E1 … E13", uint8(sl))
		}
		if st := cur[sl.Index()]; st.Producer == (fingerprint.Producer{}) {
			broken = append(broken, fmt.Sprintf("%s: %s", sl, st.Reason))
		}
	}
	if len(broken) > 0 {
		return nil, fmt.Errorf("reembed refused, nothing was changed: %d slot(s) to recompute have no working embedder, and re-embedding would drop their values: %s",
			len(broken), strings.Join(broken, "; "))
	}
	return slots, nil
}

// reembedEach recomputes a batch that did not read one memory at a time,
// to skip only the memories that do not read (listed in rep.Unreadable),
// and returns how many needed it. REQUIRES: s.writeMu held.
func (s *Engine) reembedEach(ctx context.Context, batch []record.ID, slots []fingerprint.SlotID, cur []embedders.SlotStatus, rep *ReembedReport) (int, error) {
	n := 0
	for _, id := range batch {
		k, err := s.reembedBatch(ctx, []record.ID{id}, slots, cur)
		if errors.Is(err, record.ErrCorrupt) {
			rep.Unreadable = append(rep.Unreadable, id)
			continue
		}
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// reembedBatch recomputes slots of one batch of memories and returns how many
// needed it. REQUIRES: s.writeMu held.
func (s *Engine) reembedBatch(ctx context.Context, ids []record.ID, slots []fingerprint.SlotID, cur []embedders.SlotStatus) (int, error) {
	ms, fps, err := s.readMemories(ctx, ids)
	if err != nil {
		return 0, err
	}
	olds := make([]*fingerprint.Fingerprint, len(fps))
	var todo []int // positions with at least one slot to recompute
	for i, fp := range fps {
		if fp == nil {
			continue
		}
		old := *fp
		olds[i] = &old
		for _, sl := range slots {
			e := fp.Get(sl)
			if e.Producer != cur[sl.Index()].Producer || e.Status == fingerprint.StatusMissing {
				todo = append(todo, i)
				break
			}
		}
	}
	if len(todo) == 0 {
		return 0, nil
	}
	inputs := make([]embedders.Input, len(todo))
	for j, i := range todo {
		m := ms[i]
		inputs[j] = embedders.Input{Text: m.Content, Created: m.CreatedAt, Session: m.Session, Seq: m.Sequence}
	}
	for _, sl := range slots {
		entries, err := s.reg.Get(sl).EmbedDocuments(ctx, inputs)
		if err != nil {
			return 0, fmt.Errorf("embed %s: %w", sl, err)
		}
		if len(entries) != len(inputs) {
			return 0, fmt.Errorf("embed %s: %d entries for %d memories", sl, len(entries), len(inputs))
		}
		for j, i := range todo {
			if err := fps[i].Set(sl, entries[j]); err != nil {
				return 0, fmt.Errorf("memory %s %s: %w", ms[i].ID, sl, err)
			}
		}
	}
	todoIDs := make([]record.ID, len(todo))
	for j, i := range todo {
		todoIDs[j] = ids[i]
	}
	if err := s.rewrite(ctx, todoIDs, func(b *cellar.Batch, stored []record.Memory) error {
		for j, i := range todo {
			doc := stored[j].DocNum
			enc, err := encodeStored(fps[i])
			if err != nil {
				return fmt.Errorf("memory %s: encode fingerprint: %w", ms[i].ID, err)
			}
			b.Put(cellar.FamFingerprints, ms[i].ID[:], enc)
			for _, sl := range slots {
				if err := writeSlot(b, doc, sl, olds[i].Get(sl).Value, fps[i].Get(sl).Value); err != nil {
					return fmt.Errorf("memory %s %s: %w", ms[i].ID, sl, err)
				}
			}
		}
		return bumpGeneration(b)
	}); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, i := range todo {
		if err := s.ix.apply(ms[i], fps[i], slots); err != nil {
			return 0, fmt.Errorf("memory %s was re-embedded but not indexed (reopen the store): %w", ms[i].ID, err)
		}
	}
	s.generation++
	return len(todo), nil
}

// rewrite runs fn on one batch with the stored records of ids (an id that
// is not stored fails it with record.ErrNotFound) and commits it.
func (s *Engine) rewrite(ctx context.Context, ids []record.ID, fn func(b *cellar.Batch, stored []record.Memory) error) error {
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return err
	}
	defer b.Abort()
	stored := make([]record.Memory, len(ids))
	for i, id := range ids {
		if stored[i], err = b.Memory(id); err != nil {
			return err
		}
	}
	if err := fn(b, stored); err != nil {
		return err
	}
	return b.Commit()
}

// recordReembedded records the current producers of slots and bumps the
// generation, in one batch: the last step of a Reembed.
func (s *Engine) recordReembedded(ctx context.Context, slots []fingerprint.SlotID, cur []embedders.SlotStatus) error {
	return s.rewrite(ctx, nil, func(b *cellar.Batch, _ []record.Memory) error {
		for _, sl := range slots {
			b.Put(cellar.FamDefault, slotKey(sl), encodeSlotRecord(recordOf(cur[sl.Index()])))
		}
		return bumpGeneration(b)
	})
}
