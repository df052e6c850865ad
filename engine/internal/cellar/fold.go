package cellar

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"

	"github.com/cgraph/cgraph/record"
)

// FoldedFromMeta is the metadata key a folded revision carries: the id of
// the memory whose record it was (Fold), so Unfold finds it again.
const FoldedFromMeta = "folded_from"

// Fold keeps folded's record as an earlier revision of the memory with id
// survivor, in this batch: the record, with the survivor's id and doc
// number and FoldedFromMeta naming folded, goes to the history family
// under the survivor's current revision, and the survivor moves to the
// next revision, every other field as it was. It neither deletes folded
// nor touches its relations (the caller does, in the same batch). It
// returns the survivor as written.
func (b *Batch) Fold(survivor record.ID, folded record.Memory) (record.Memory, error) {
	s, err := b.Memory(survivor)
	if err != nil {
		return record.Memory{}, err
	}
	if s.Revision == math.MaxUint32 {
		return record.Memory{}, &record.ValidationError{Field: "revision", Problem: fmt.Sprintf("memory %s has reached the last revision number", survivor),
			Fix: "leave the near-duplicates linked (maintain --near without --consolidate)"}
	}
	h := folded
	h.ID, h.DocNum, h.Revision = survivor, s.DocNum, s.Revision
	h.Meta = maps.Clone(folded.Meta)
	if h.Meta == nil {
		h.Meta = map[string]string{}
	}
	h.Meta[FoldedFromMeta] = folded.ID.String()
	s.Revision++
	b.edited = true
	b.put(FamHistory, historyKey(survivor, h.Revision), encodeRecord(nil, &h))
	b.put(FamMemories, survivor[:], encodeRecord(nil, &s))
	return s, nil
}

// Unfold takes back what Fold(survivor, folded) wrote: the survivor's
// history entry folded from that memory is deleted, and when that entry
// was the survivor's newest, the survivor's revision goes back to follow
// the newest entry left (1 when none is), so folds undone in any order
// leave no gap at the end of its history. A survivor deleted
// since, or with no such entry, is left as it is (found false).
func (b *Batch) Unfold(survivor, folded record.ID) (found bool, err error) {
	var rev, below uint32 // below: the newest other revision under rev
	var revs []uint32
	err = b.scan(FamHistory, survivor[:], func(k, v []byte) error {
		h, err := decodeRecord(v)
		if err != nil {
			return fmt.Errorf("history/%x: %w", k, err)
		}
		r := binary.BigEndian.Uint32(k[16:])
		if !found && h.Meta[FoldedFromMeta] == folded.String() {
			found, rev = true, r
			b.del(FamHistory, k)
		} else {
			revs = append(revs, r)
		}
		return nil
	})
	for _, r := range revs {
		if r < rev {
			below = max(below, r)
		}
	}
	if err != nil || !found {
		return false, err
	}
	b.edited = true
	s, err := b.Memory(survivor)
	if err != nil {
		return true, err
	}
	if s.Revision == rev+1 { // nothing newer: the revision goes back to follow the newest left
		s.Revision = below + 1
		b.put(FamMemories, survivor[:], encodeRecord(nil, &s))
	}
	return true, nil
}
