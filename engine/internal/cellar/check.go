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
	var errs []error
	bad := func(format string, args ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	mems := make(map[record.ID]record.Memory)
	it := r.iter(FamMemories, nil, nil)
	for it.first(); it.valid(); it.next() {
		k := it.key()
		m, err := decodeRecord(it.value())
		switch {
		case err != nil:
			bad("memories/%x: %w", k, err)
		case len(k) != 16 || !bytes.Equal(k, m.ID[:]):
			bad("memories/%x holds the record of %s", k, m.ID)
		default:
			mems[m.ID] = m
		}
	}
	err := it.err()
	it.close()
	if err != nil {
		return fmt.Errorf("scan memories: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	count, err := readMetaUint(r, metaMemoryCountKey, 8)
	if err != nil {
		return err
	}
	if count != uint64(len(mems)) {
		bad("meta/memory_count is %d, memories holds %d records", count, len(mems))
	}
	next, err := readMetaUint(r, metaNextDocNumKey, 4)
	if err != nil {
		return err
	}
	// Every family keyed per memory must hold exactly (engine families) or
	// at most (slot families, filled by hooks) the keys of stored memories.
	owned := make([]map[string]record.ID, numFamilies)
	for f := range owned {
		owned[f] = make(map[string]record.ID)
	}
	for _, m := range mems {
		if uint64(m.DocNum) >= next {
			bad("memory %s has docnum %d, not below meta/next_docnum %d", m.ID, m.DocNum, next)
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
	exact := map[Family]bool{FamMemories: true, FamDocnums: true, FamCreated: true, FamSequence: true, FamContent: true}
	for f, info := range families {
		if info.keys == nil {
			continue
		}
		seen := 0
		it := r.iter(Family(f), nil, nil)
		for it.first(); it.valid(); it.next() {
			k := it.key()
			if _, ok := owned[f][string(k)]; !ok {
				bad("%s/%x belongs to no stored memory", info.name, k)
				continue
			}
			seen++
			if err := checkValue(Family(f), k, it.value(), mems); err != nil {
				bad("%s/%x: %w", info.name, k, err)
			}
		}
		err := it.err()
		it.close()
		if errors.Is(err, record.ErrCorrupt) {
			// A damaged block stops the scan: name the memories whose
			// values no longer read, one point read each.
			bad("%s: the scan stopped at damaged data: %v", info.name, err)
			for _, p := range unreadable(r, Family(f), owned[f]) {
				bad("%s", p)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("scan %s: %w", info.name, err)
		}
		if exact[Family(f)] && seen != len(owned[f]) {
			bad("%s holds %d of the %d keys its memories need", info.name, seen, len(owned[f]))
		}
	}
	for _, p := range append(checkPrefixFamilies(r, mems), checkAudit(r, mems)...) {
		bad("%s", p)
	}
	return errors.Join(errs...)
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
