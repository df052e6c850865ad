package cellar

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/cgraph/cgraph/record"
)

// historyKey is the memory id + the revision (uint32 BE) the value was:
// the key of the history family.
func historyKey(id record.ID, rev uint32) []byte {
	return binary.BigEndian.AppendUint32(append(make([]byte, 0, 20), id[:]...), rev)
}

// Replace stores m as the new revision of the memory with m's id: the
// record as it was goes to the history family under its revision, and m
// is written with Revision one more and UpdatedAt now. The fields that
// place a memory in the record indexes (doc number, session, sequence,
// creation time) cannot change. It returns the memory as written and as
// it was.
func (b *Batch) Replace(m record.Memory) (updated, old record.Memory, err error) {
	old, err = b.Memory(m.ID)
	if err != nil {
		return record.Memory{}, record.Memory{}, err
	}
	if m.DocNum != old.DocNum || m.Session != old.Session || m.Sequence != old.Sequence || !m.CreatedAt.Equal(old.CreatedAt) {
		return record.Memory{}, record.Memory{}, fmt.Errorf("memory %s: an update cannot change the doc number, session, sequence or creation time", m.ID)
	}
	if old.Revision == math.MaxUint32 {
		return record.Memory{}, record.Memory{}, &record.ValidationError{Field: "revision", Problem: fmt.Sprintf("memory %s has reached the last revision number", m.ID),
			Fix: "store the new content as a new memory and link it with --type supersedes"}
	}
	m.Revision = old.Revision + 1
	m.UpdatedAt = time.Now().UTC()
	m.ValidUntil = old.ValidUntil // the supersedes relations own it
	m.Duplicate = false
	if len(m.Meta) == 0 {
		m.Meta = nil
	}
	b.edited = true
	b.put(FamHistory, historyKey(old.ID, old.Revision), encodeRecord(nil, &old))
	b.put(FamMemories, m.ID[:], encodeRecord(nil, &m))
	if was, is := contentHash(old.Project, old.Content), contentHash(m.Project, m.Content); was != is {
		b.del(FamContent, contentKey(was, m.ID))
		b.put(FamContent, contentKey(is, m.ID), nil)
	}
	return m, old, nil
}

// deleteHistory drops every earlier revision of id.
func (b *Batch) deleteHistory(id record.ID) error {
	return b.scan(FamHistory, id[:], func(k, _ []byte) error {
		b.del(FamHistory, k)
		return nil
	})
}

// scan calls fn for the committed keys of f under prefix that this batch
// has not deleted, then for the keys this batch put there, in key order
// within each group. fn may write to the batch.
func (b *Batch) scan(f Family, prefix []byte, fn func(key, value []byte) error) error {
	it := b.e.kv.iter(f, prefix, prefixEnd(prefix))
	var keys, vals [][]byte
	for it.first(); it.valid(); it.next() {
		k := it.key()
		if !bytes.HasPrefix(k, prefix) {
			break
		}
		if _, pending := b.pending[f][string(k)]; pending {
			continue
		}
		keys, vals = append(keys, slices.Clone(k)), append(vals, slices.Clone(it.value()))
	}
	err := it.err()
	it.close()
	if err != nil {
		return fmt.Errorf("scan %s: %w", families[f].name, err)
	}
	var pend []string
	for k, v := range b.pending[f] {
		if !v.deleted && bytes.HasPrefix([]byte(k), prefix) {
			pend = append(pend, k)
		}
	}
	slices.Sort(pend)
	for _, k := range pend {
		keys, vals = append(keys, []byte(k)), append(vals, slices.Clone(b.pending[f][k].value))
	}
	for i := range keys {
		if err := fn(keys[i], vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// History returns the earlier revisions of the memory with id, oldest
// first (the current one is Get's). A memory never updated has none.
func (e *Store) History(ctx context.Context, id record.ID) ([]record.Memory, error) {
	var out []record.Memory
	err := e.Scan(ctx, FamHistory, id[:], func(k, v []byte) error {
		m, err := decodeRecord(v)
		if err != nil {
			return fmt.Errorf("history/%x: %w", k, err)
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

// Relation keys: 'o' + from + type code + to holds the edge as its source
// sees it, 'i' + to + type code + from the same edge seen from its target.
// Both are written and deleted together.
const (
	relOutPrefix = 'o'
	relInPrefix  = 'i'
	relKeyLen    = 1 + 16 + 1 + 16
)

func relationKey(dir byte, a record.ID, t record.RelationType, b record.ID) []byte {
	k := make([]byte, 0, relKeyLen)
	k = append(k, dir)
	k = append(k, a[:]...)
	k = append(k, byte(t))
	return append(k, b[:]...)
}

// relation value: weight (float64 BE) + creation time (Unix ns, int64 BE).
func encodeRelation(r record.Relation) []byte {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16), math.Float64bits(r.Weight))
	return appendTime(v, r.CreatedAt)
}

// decodeRelation reads one relations entry, as seen from the memory whose
// id follows the direction byte.
func decodeRelation(k, v []byte) (r record.Relation, outgoing bool, err error) {
	if len(k) != relKeyLen || (k[0] != relOutPrefix && k[0] != relInPrefix) || len(v) != 16 {
		return r, false, fmt.Errorf("relations entry %x = %x: %w", k, v, record.ErrCorrupt)
	}
	var a, b record.ID
	copy(a[:], k[1:17])
	copy(b[:], k[18:])
	r.Type = record.RelationType(k[17])
	if !r.Type.Known() {
		return r, false, fmt.Errorf("relations entry %x: unknown relation type code %d: %w", k, k[17], record.ErrCorrupt)
	}
	r.Weight = math.Float64frombits(binary.BigEndian.Uint64(v))
	if n := int64(binary.BigEndian.Uint64(v[8:])); n != 0 {
		r.CreatedAt = time.Unix(0, n).UTC()
	}
	outgoing = k[0] == relOutPrefix
	if outgoing {
		r.From, r.To = a, b
	} else {
		r.From, r.To = b, a
	}
	return r, outgoing, nil
}

// Link stores the relation r (both directions). Both memories must exist;
// linking the same pair with the same type again replaces the weight.
func (b *Batch) Link(r record.Relation) error {
	if r.From == r.To {
		return &record.ValidationError{Field: "to", Problem: "a memory cannot be related to itself", Fix: "give two different memories"}
	}
	if err := record.CheckRelationType("type", r.Type); err != nil {
		return err
	}
	for _, id := range []record.ID{r.From, r.To} {
		if _, err := b.Memory(id); err != nil {
			return err
		}
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now().UTC()
	}
	v := encodeRelation(r)
	b.edited = true
	b.put(FamRelations, relationKey(relOutPrefix, r.From, r.Type, r.To), v)
	b.put(FamRelations, relationKey(relInPrefix, r.To, r.Type, r.From), v)
	if r.Type == record.RelSupersedes {
		_, err := b.refreshValidity(r.To)
		return err
	}
	return nil
}

// Unlink removes the relation from → to of type t, and reports whether it
// existed.
func (b *Batch) Unlink(from, to record.ID, t record.RelationType) (bool, error) {
	out := relationKey(relOutPrefix, from, t, to)
	_, ok, err := b.Get(FamRelations, out)
	if err != nil || !ok {
		return false, err
	}
	b.edited = true
	b.del(FamRelations, out)
	b.del(FamRelations, relationKey(relInPrefix, to, t, from))
	if t == record.RelSupersedes {
		_, err := b.refreshValidity(to)
		return true, err
	}
	return true, nil
}

// unlinkAll removes every relation of id, both directions, and returns
// them.
func (b *Batch) unlinkAll(id record.ID) ([]record.Relation, error) {
	var gone []record.Relation
	for _, dir := range []byte{relOutPrefix, relInPrefix} {
		err := b.scan(FamRelations, append([]byte{dir}, id[:]...), func(k, v []byte) error {
			r, out, err := decodeRelation(k, v)
			if err != nil {
				return err
			}
			b.edited = true
			b.del(FamRelations, k)
			if out {
				b.del(FamRelations, relationKey(relInPrefix, r.To, r.Type, r.From))
			} else {
				b.del(FamRelations, relationKey(relOutPrefix, r.From, r.Type, r.To))
			}
			gone = append(gone, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, r := range gone { // what id superseded is valid again unless another supersedes it
		if r.Type == record.RelSupersedes && r.From == id {
			if _, err := b.refreshValidity(r.To); err != nil {
				return nil, err
			}
		}
	}
	return gone, nil
}

// validUntil is when id stopped being valid as the relations say (this
// batch's included): the creation time of the oldest supersedes relation
// that targets it, zero when none does (FORMAT.md, "valid_until").
func (b *Batch) validUntil(id record.ID) (time.Time, error) {
	var until time.Time
	prefix := append(append([]byte{relInPrefix}, id[:]...), byte(record.RelSupersedes))
	err := b.scan(FamRelations, prefix, func(k, v []byte) error {
		r, _, err := decodeRelation(k, v)
		if err != nil {
			return err
		}
		if until.IsZero() || r.CreatedAt.Before(until) {
			until = r.CreatedAt
		}
		return nil
	})
	return until, err
}

// refreshValidity rewrites id's record with the valid-until time its
// supersedes relations give, in this batch, when it changed, and says
// whether it did. A memory this batch deletes is left alone.
func (b *Batch) refreshValidity(id record.ID) (bool, error) {
	m, err := b.Memory(id)
	if errors.Is(err, record.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	until, err := b.validUntil(id)
	if err != nil {
		return false, fmt.Errorf("valid-until of memory %s: %w", id, err)
	}
	if until.Equal(m.ValidUntil) {
		return false, nil
	}
	m.ValidUntil = until
	b.put(FamMemories, id[:], encodeRecord(nil, &m))
	return true, nil
}

// Relations returns the relations of id: outgoing (id is From) then
// incoming (id is To), each in key order.
func (e *Store) Relations(ctx context.Context, id record.ID) ([]record.Relation, error) {
	var out []record.Relation
	for _, dir := range []byte{relOutPrefix, relInPrefix} {
		err := e.Scan(ctx, FamRelations, append([]byte{dir}, id[:]...), func(k, v []byte) error {
			r, _, err := decodeRelation(k, v)
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// EachRelation calls fn for every relation of the store once (from its
// outgoing key), for building the in-memory relation state on open.
func (e *Store) EachRelation(ctx context.Context, fn func(r record.Relation) error) error {
	return e.Scan(ctx, FamRelations, []byte{relOutPrefix}, func(k, v []byte) error {
		r, _, err := decodeRelation(k, v)
		if err != nil {
			return err
		}
		return fn(r)
	})
}

// LinkRepair is what RepairLinks did.
type LinkRepair struct {
	// DroppedHistory are history entries of memories that are not stored.
	DroppedHistory int `json:"dropped_history"`
	// DroppedRelations are relation keys naming a memory that is not
	// stored (both keys of such an edge count).
	DroppedRelations int `json:"dropped_relations"`
	// Mirrored are relation keys whose mirror was missing or differed,
	// rewritten from them (the outgoing key wins when both exist).
	Mirrored int `json:"mirrored"`
	// Validity are records whose valid-until time disagreed with their
	// supersedes relations, set from them.
	Validity int `json:"validity"`
}

// Changed reports whether the repair wrote anything.
func (r LinkRepair) Changed() bool {
	return r.DroppedHistory+r.DroppedRelations+r.Mirrored+r.Validity > 0
}

// RepairLinks makes the history and relations families agree with the
// records, in one batch: entries of memories that are not stored are
// dropped, and a relation key whose mirror is missing or differs gets it
// back. A second run changes nothing.
func (e *Store) RepairLinks(ctx context.Context) (LinkRepair, error) {
	var rep LinkRepair
	b, err := e.Begin(ctx)
	if err != nil {
		return rep, err
	}
	defer b.Abort()
	hist, err := e.entries(FamHistory)
	if err != nil {
		return rep, err
	}
	rels, err := e.entries(FamRelations)
	if err != nil {
		return rep, err
	}
	if rep.DroppedHistory, err = b.dropOrphanHistory(hist); err != nil {
		return rep, err
	}
	if rep.DroppedRelations, rep.Mirrored, err = b.repairRelations(rels); err != nil {
		return rep, err
	}
	if rep.Validity, err = b.refreshAllValidity(); err != nil {
		return rep, err
	}
	if !rep.Changed() {
		return rep, nil
	}
	b.edited = true
	if err := b.Commit(); err != nil {
		return rep, fmt.Errorf("repair history and relations: %w", err)
	}
	return rep, nil
}

// kvEntry is one committed key and value of a family.
type kvEntry struct{ k, v []byte }

// entries reads every committed key and value of f (copies).
func (e *Store) entries(f Family) ([]kvEntry, error) {
	var out []kvEntry
	it := e.kv.iter(f, nil, nil)
	for it.first(); it.valid(); it.next() {
		out = append(out, kvEntry{slices.Clone(it.key()), slices.Clone(it.value())})
	}
	err := it.err()
	it.close()
	if err != nil {
		return nil, fmt.Errorf("repair: scan %s: %w", families[f].name, err)
	}
	return out, nil
}

// stored reports whether the memory with id has a record.
func (b *Batch) stored(id record.ID) (bool, error) {
	_, ok, err := b.Get(FamMemories, id[:])
	return ok, err
}

// dropOrphanHistory deletes the history entries (of hist) whose key is
// malformed or whose memory is not stored, and counts them.
func (b *Batch) dropOrphanHistory(hist []kvEntry) (int, error) {
	dropped := 0
	for _, h := range hist {
		var id record.ID
		copy(id[:], h.k)
		ok, err := b.stored(id)
		if err != nil {
			return dropped, err
		}
		if !ok || len(h.k) != 20 {
			b.del(FamHistory, h.k)
			dropped++
		}
	}
	return dropped, nil
}

// repairRelations deletes the relation keys (of rels) that do not decode
// or name a memory that is not stored, and writes the mirror of a key
// whose mirror is missing, or differs from an outgoing key (the outgoing
// key wins a disagreement). It counts both.
func (b *Batch) repairRelations(rels []kvEntry) (dropped, mirrored int, err error) {
	for _, r := range rels {
		rel, outgoing, err := decodeRelation(r.k, r.v)
		okFrom, err1 := b.stored(rel.From)
		okTo, err2 := b.stored(rel.To)
		if err1 != nil || err2 != nil {
			return dropped, mirrored, errors.Join(err1, err2)
		}
		if err != nil || !okFrom || !okTo {
			b.del(FamRelations, r.k)
			dropped++
			continue
		}
		mirror := relationKey(relInPrefix, rel.To, rel.Type, rel.From)
		if !outgoing {
			mirror = relationKey(relOutPrefix, rel.From, rel.Type, rel.To)
		}
		mv, ok, err := b.Get(FamRelations, mirror)
		if err != nil {
			return dropped, mirrored, err
		}
		switch {
		case ok && bytes.Equal(mv, r.v):
		case !ok || outgoing: // the outgoing key wins a disagreement
			b.put(FamRelations, mirror, r.v)
			mirrored++
		}
	}
	return dropped, mirrored, nil
}

// refreshAllValidity sets every stored memory's valid-until time from its
// supersedes relations as the batch holds them, and counts the records
// it changed.
func (b *Batch) refreshAllValidity() (int, error) {
	var ids []record.ID
	it := b.e.kv.iter(FamMemories, nil, nil)
	for it.first(); it.valid(); it.next() {
		if k := it.key(); len(k) == 16 {
			ids = append(ids, record.ID(k))
		}
	}
	err := it.err()
	it.close()
	if err != nil {
		return 0, fmt.Errorf("repair: scan memories: %w", err)
	}
	n := 0
	for _, id := range ids {
		changed, err := b.refreshValidity(id)
		if err != nil {
			return n, fmt.Errorf("repair: %w", err)
		}
		if changed {
			n++
		}
	}
	return n, nil
}

// validityBatch bounds the records one batch of the valid-until migration
// rewrites.
const validityBatch = 4096

// setValidity (the migration to format 4, and check --repair) gives every
// memory the valid-until time its supersedes relations say (the oldest
// one's creation time; zero when none targets it), rewriting in batches
// only the records that differ; the others keep their encoding (a record
// older than version 3 reads as still valid). The result depends only on
// the relations, so an interrupted run is redone from the start on the
// next writer open (the caller sets meta/format_version afterwards). It
// returns how many records it rewrote. Cost: one scan of the relations'
// incoming keys and one of memories.
func setValidity(s *rocksStore) (int, error) {
	until := map[record.ID]time.Time{}
	it := s.iter(FamRelations, []byte{relInPrefix}, []byte{relInPrefix + 1})
	for it.first(); it.valid(); it.next() {
		r, _, err := decodeRelation(it.key(), it.value())
		if err != nil {
			it.close()
			return 0, err
		}
		if t, seen := until[r.To]; r.Type == record.RelSupersedes && (!seen || r.CreatedAt.Before(t)) {
			until[r.To] = r.CreatedAt
		}
	}
	err := it.err()
	it.close()
	if err != nil {
		return 0, fmt.Errorf("scan relations: %w", err)
	}
	b := s.newBatch()
	defer func() { b.destroy() }()
	fixed := 0
	it = s.iter(FamMemories, nil, nil)
	defer it.close()
	for it.first(); it.valid(); it.next() {
		m, err := decodeRecord(it.value())
		if err != nil {
			return fixed, fmt.Errorf("memories/%x: %w", it.key(), err)
		}
		if until[m.ID].Equal(m.ValidUntil) {
			continue
		}
		m.ValidUntil = until[m.ID]
		b.put(FamMemories, m.ID[:], encodeRecord(nil, &m))
		fixed++
		if b.count() >= validityBatch {
			if err := s.write(b, false); err != nil {
				return fixed, fmt.Errorf("write valid-until times: %w", err)
			}
			b.destroy()
			b = s.newBatch()
		}
	}
	if err := it.err(); err != nil {
		return fixed, fmt.Errorf("scan memories: %w", err)
	}
	if b.count() > 0 {
		if err := s.write(b, true); err != nil {
			return fixed, fmt.Errorf("write valid-until times: %w", err)
		}
	}
	return fixed, nil
}

// HasRelation reports whether the relation from → to of type t is stored
// (or written by this batch).
func (b *Batch) HasRelation(from, to record.ID, t record.RelationType) (bool, error) {
	_, ok, err := b.Get(FamRelations, relationKey(relOutPrefix, from, t, to))
	return ok, err
}
