package cellar

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cgraph/cgraph/record"
)

// Check verifies the store's cross-family invariants on one snapshot: every
// record decodes; the memory count and doc-number counter match the
// records; docnums, created_index and sequence hold exactly the keys of the
// stored memories; and every family keyed per memory holds no key of a
// memory that is not stored (no fragment of a half-written or half-deleted
// memory). It returns all problems found, joined. Cost: a full scan of every
// per-memory family.
func (e *Store) Check(ctx context.Context) error {
	if err := e.begin(ctx, false); err != nil {
		return err
	}
	defer e.end()
	snap := e.kv.snapshot()
	defer snap.release()
	return checkStore(ctx, snap)
}

func checkStore(ctx context.Context, r kvReader) error {
	var c checker
	mems, err := c.records(r)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	next, err := c.counters(r, mems)
	if err != nil {
		return err
	}
	owned := c.ownedKeys(mems, next)
	for f, info := range families {
		if info.keys == nil {
			continue
		}
		if err := c.family(r, Family(f), info, owned[f], mems); err != nil {
			return err
		}
	}
	for _, p := range append(checkPrefixFamilies(r, mems), checkAudit(r, mems)...) {
		c.bad("%s", p)
	}
	return errors.Join(c.errs...)
}

// checker collects what checkStore finds (the first 20 problems).
type checker struct{ errs []error }

func (c *checker) bad(format string, args ...any) {
	if len(c.errs) < 20 {
		c.errs = append(c.errs, fmt.Errorf(format, args...))
	}
}

// records reads every memory record that decodes under its own id.
func (c *checker) records(r kvReader) (map[record.ID]record.Memory, error) {
	mems := make(map[record.ID]record.Memory)
	it := r.iter(FamMemories, nil, nil)
	for it.first(); it.valid(); it.next() {
		k := it.key()
		m, err := decodeRecord(it.value())
		switch {
		case err != nil:
			c.bad("memories/%x: %w", k, err)
		case len(k) != 16 || !bytes.Equal(k, m.ID[:]):
			c.bad("memories/%x holds the record of %s", k, m.ID)
		default:
			mems[m.ID] = m
		}
	}
	err := it.err()
	it.close()
	if err != nil {
		return nil, fmt.Errorf("scan memories: %w", err)
	}
	return mems, nil
}

// counters checks the memory count against the records and returns the
// next doc number.
func (c *checker) counters(r kvReader, mems map[record.ID]record.Memory) (next uint64, err error) {
	count, err := readMetaUint(r, metaMemoryCountKey, 8)
	if err != nil {
		return 0, err
	}
	if count != uint64(len(mems)) {
		c.bad("meta/memory_count is %d, memories holds %d records", count, len(mems))
	}
	return readMetaUint(r, metaNextDocNumKey, 4)
}

// ownedKeys maps, per family keyed per memory, every key the stored
// memories need to its memory; a doc number at or past next is a problem.
func (c *checker) ownedKeys(mems map[record.ID]record.Memory, next uint64) []map[string]record.ID {
	owned := make([]map[string]record.ID, numFamilies)
	for f := range owned {
		owned[f] = make(map[string]record.ID)
	}
	for _, m := range mems {
		if uint64(m.DocNum) >= next {
			c.bad("memory %s has docnum %d, not below meta/next_docnum %d", m.ID, m.DocNum, next)
		}
		ref := refOf(&m)
		for f, info := range families {
			if info.keys != nil {
				for _, k := range info.keys(ref) {
					owned[f][string(k)] = m.ID
				}
			}
		}
	}
	return owned
}

// exactFamilies must hold exactly the keys of stored memories; the other
// families keyed per memory (slot families, filled by hooks) at most.
var exactFamilies = map[Family]bool{FamMemories: true, FamDocnums: true, FamCreated: true, FamSequence: true, FamContent: true}

// family checks one family keyed per memory against owned (its keys of
// stored memories): no key of another, values that check, and, for the
// exact families, every key there.
func (c *checker) family(r kvReader, f Family, info familyInfo, owned map[string]record.ID, mems map[record.ID]record.Memory) error {
	seen := 0
	it := r.iter(f, nil, nil)
	for it.first(); it.valid(); it.next() {
		k := it.key()
		if _, ok := owned[string(k)]; !ok {
			c.bad("%s/%x belongs to no stored memory", info.name, k)
			continue
		}
		seen++
		if err := checkValue(f, k, it.value(), mems); err != nil {
			c.bad("%s/%x: %w", info.name, k, err)
		}
	}
	err := it.err()
	it.close()
	if errors.Is(err, record.ErrCorrupt) {
		// A damaged block stops the scan: name the memories whose
		// values no longer read, one point read each.
		c.bad("%s: the scan stopped at damaged data: %v", info.name, err)
		for _, p := range unreadable(r, f, owned) {
			c.bad("%s", p)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("scan %s: %w", info.name, err)
	}
	if exactFamilies[f] && seen != len(owned) {
		c.bad("%s holds %d of the %d keys its memories need", info.name, seen, len(owned))
	}
	return nil
}

// unreadable reads every key of owned (key → its memory) in f and says,
// per key whose read fails as corrupt, which memory lost what, and the way
// out. Cost: one point read per key.
func unreadable(r kvReader, f Family, owned map[string]record.ID) []string {
	keys := slices.Sorted(maps.Keys(owned))
	var out []string
	for _, k := range keys {
		if _, _, err := r.get(f, []byte(k)); errors.Is(err, record.ErrCorrupt) {
			out = append(out, fmt.Sprintf("%s/%x: memory %s: its value is in a damaged block of a table file, so it cannot be read: "+
				"`cgraph check --repair` rewrites the family without the damaged file and drops what it cannot re-derive, naming each memory; "+
				"or `cgraph export` the store and `cgraph import` it into a new one (which computes every fingerprint again)", families[f].name, k, owned[k]))
		}
	}
	return out
}

// checkPrefixFamilies checks the families keyed by a memory's prefix
// (version 2): every history entry is an earlier revision of a stored
// memory, and every relation names two stored memories and has its mirror
// key with the same value. It returns the problems found, as text.
func checkPrefixFamilies(r kvReader, mems map[record.ID]record.Memory) []string {
	var out []string
	it := r.iter(FamHistory, nil, nil)
	for it.first(); it.valid(); it.next() {
		k := it.key()
		var id record.ID
		copy(id[:], k)
		m, ok := mems[id]
		if len(k) != 20 || !ok {
			out = append(out, fmt.Sprintf("history/%x belongs to no stored memory", k))
			continue
		}
		h, err := decodeRecord(it.value())
		if rev := binary.BigEndian.Uint32(k[16:]); err != nil || h.ID != id || h.Revision != rev || rev >= m.Revision {
			out = append(out, fmt.Sprintf("history/%x is not an earlier revision of memory %s (%v)", k, id, err))
		}
	}
	if err := it.err(); err != nil {
		out = append(out, fmt.Sprintf("scan history: %v", err))
	}
	it.close()
	until := map[record.ID]time.Time{} // valid-until as the supersedes relations say
	it = r.iter(FamRelations, nil, nil)
	for it.first(); it.valid(); it.next() {
		k, v := it.key(), it.value()
		rel, outgoing, err := decodeRelation(k, v)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		if outgoing && rel.Type == record.RelSupersedes {
			if t, ok := until[rel.To]; !ok || rel.CreatedAt.Before(t) {
				until[rel.To] = rel.CreatedAt
			}
		}
		_, fromOK := mems[rel.From]
		_, toOK := mems[rel.To]
		if !fromOK || !toOK {
			out = append(out, fmt.Sprintf("relations/%x: %s %s %s names a memory that is not stored", k, rel.From, rel.Type, rel.To))
			continue
		}
		mirror := relationKey(relInPrefix, rel.To, rel.Type, rel.From)
		if !outgoing {
			mirror = relationKey(relOutPrefix, rel.From, rel.Type, rel.To)
		}
		if mv, ok, err := r.get(FamRelations, mirror); err != nil || !ok || !bytes.Equal(mv, v) {
			out = append(out, fmt.Sprintf("relations/%x: its mirror key %x is missing or differs", k, mirror))
		}
	}
	if err := it.err(); err != nil {
		out = append(out, fmt.Sprintf("scan relations: %v", err))
	}
	it.close()
	for _, id := range slices.SortedFunc(maps.Keys(mems), func(a, b record.ID) int { return bytes.Compare(a[:], b[:]) }) {
		if want, got := until[id], mems[id].ValidUntil; !want.Equal(got) {
			out = append(out, fmt.Sprintf("memories/%s: valid until %s, its supersedes relations say %s (check --repair sets it from them)", id, fmtValid(got), fmtValid(want)))
		}
	}
	return out
}

// fmtValid writes a valid-until time for a check problem.
func fmtValid(t time.Time) string {
	if t.IsZero() {
		return "never ended"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// checkValue checks the value of an engine-written index key.
func checkValue(f Family, k, v []byte, mems map[record.ID]record.Memory) error {
	switch f {
	case FamDocnums:
		switch k[0] {
		case docnumByIDPrefix:
			var id record.ID
			copy(id[:], k[1:])
			if len(v) != 4 || record.DocNum(binary.BigEndian.Uint32(v)) != mems[id].DocNum {
				return fmt.Errorf("doc number %x, record says %d", v, mems[id].DocNum)
			}
		case docnumByDocPrefix:
			var id record.ID
			copy(id[:], v)
			m, ok := mems[id]
			if len(v) != 16 || !ok || !bytes.Equal(docnumDocKey(m.DocNum), k) {
				return fmt.Errorf("names memory %x whose record has another doc number", v)
			}
		}
	case FamSequence:
		var id record.ID
		copy(id[:], v)
		m, ok := mems[id]
		if len(v) != 16 || !ok || !bytes.Equal(sequenceKey(m.Session, m.Sequence), k) {
			return fmt.Errorf("names memory %x whose record has another session or sequence", v)
		}
	}
	return nil
}
