package cellar

import (
	"context"
	"fmt"
)

// UpdateAux applies fn's puts and deletes to one store-wide family — a family
// that holds no key of any single memory (topic_profiles, synergy_matrix) —
// in one atomic batch. It is how derived, store-level data such as topic
// snapshots is saved (package topics). fn sees the family as committed plus
// its own pending writes through tx.Get; an error from fn writes nothing.
//
// UpdateAux refuses the default family (store metadata) and every family
// keyed per memory: those are written only with their memory. It needs the
// writer lock (record.ErrReadOnly on a read-only store). fn runs while the engine's
// write lock is held and must not call Store methods. Cost: one WAL append.
func (e *Store) UpdateAux(ctx context.Context, familyName string, fn func(tx *Tx) error) error {
	f, err := lookupFamily(familyName)
	if err != nil {
		return err
	}
	if f == famDefault || families[f].keys != nil || !auxFamily(f) {
		return fmt.Errorf("column family %s is not a store-wide family: UpdateAux writes only topic_profiles and synergy_matrix", familyName)
	}
	if err := e.begin(ctx, true); err != nil {
		return err
	}
	defer e.end()
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.kv.newBatch()
	defer b.destroy()
	tx := newTx(e.kv, b)
	if err := fn(tx); err != nil {
		return fmt.Errorf("update %s: %w", familyName, err)
	}
	for pf := range tx.pending {
		if pf != f {
			return fmt.Errorf("update %s: the update also wrote family %s: UpdateAux writes one store-wide family", familyName, families[pf].name)
		}
	}
	if b.count() == 0 {
		return nil
	}
	if err := e.kv.write(b, e.opts.Sync); err != nil {
		return fmt.Errorf("update %s: %w", familyName, err)
	}
	return nil
}

// auxFamily reports whether f holds store-wide derived data.
func auxFamily(f family) bool { return f == famTopicProfiles || f == famSynergyMatrix }
