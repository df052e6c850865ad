package cellar

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cgraph/cgraph/internal/decbuf"
	"github.com/cgraph/cgraph/record"
)

// The audit log lives in the default family under AuditPrefix, with no
// family and no format-version bump of its own (FORMAT.md, "The audit
// log"): older builds of format 3 never read these keys. An action id is 16
// bytes, a UUIDv7, so the keys sort by time.
//
//	audit/e/ + action id (24 bytes) → the entry, encoded by package engine
//	audit/k/ + action id (24 bytes) → what an undoable delete kept (Kept)
var (
	AuditPrefix      = []byte("audit/")
	AuditEntryPrefix = []byte("audit/e/")
	auditKeptPrefix  = []byte("audit/k/")
)

// AuditEntryKey is the key of action's entry.
func AuditEntryKey(action [16]byte) []byte {
	return append(bytes.Clone(AuditEntryPrefix), action[:]...)
}

func auditKeptKey(action [16]byte) []byte { return append(bytes.Clone(auditKeptPrefix), action[:]...) }

// keptMagic and keptVersion start every kept value.
const (
	keptMagic   = "CGKP"
	keptVersion = 1
)

// Kept is what an undoable delete kept of a memory: the record as it was
// stored, its earlier revisions (oldest first), its relations (both
// directions) and the engine's fingerprint bytes, so that an undo puts it
// all back without recomputing anything.
type Kept struct {
	Memory      record.Memory
	History     []record.Memory
	Relations   []record.Relation
	Fingerprint []byte
}

// encodeKept is "CGKP", version 1, str(record), uvarint n + n × str(record)
// (history), uvarint n + n × (34-byte outgoing relation key + 16-byte
// relation value), str(fingerprint).
func encodeKept(k *Kept) []byte {
	dst := append([]byte(keptMagic), keptVersion)
	dst = appendBytes(dst, encodeRecord(nil, &k.Memory))
	dst = binary.AppendUvarint(dst, uint64(len(k.History)))
	for i := range k.History {
		dst = appendBytes(dst, encodeRecord(nil, &k.History[i]))
	}
	dst = binary.AppendUvarint(dst, uint64(len(k.Relations)))
	for _, r := range k.Relations {
		dst = append(dst, relationKey(relOutPrefix, r.From, r.Type, r.To)...)
		dst = append(dst, encodeRelation(r)...)
	}
	return appendBytes(dst, k.Fingerprint)
}

func appendBytes(dst, b []byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(b))), b...)
}

// DecodeKept decodes a kept value. It never panics and returns an error
// wrapping record.ErrCorrupt for anything that is not one, trailing bytes
// included.
func DecodeKept(b []byte) (Kept, error) {
	var k Kept
	d := decbuf.New(b)
	if magic := string(d.Bytes(len(keptMagic))); d.Err() == nil && magic != keptMagic {
		return k, fmt.Errorf("kept memory: magic %q, want %q: %w", magic, keptMagic, record.ErrCorrupt)
	}
	if v := d.Byte(); d.Err() == nil && v != keptVersion {
		return k, fmt.Errorf("kept memory: version %d, this cgraph reads version %d (upgrade cgraph): %w", v, keptVersion, record.ErrCorrupt)
	}
	rec := func() (record.Memory, error) {
		raw := d.Bytes(int(d.UvarintMax(uint64(d.Len()))))
		if d.Err() != nil {
			return record.Memory{}, d.Err()
		}
		return decodeRecord(raw)
	}
	var err error
	if k.Memory, err = rec(); err != nil {
		return Kept{}, fmt.Errorf("kept memory: %w", err)
	}
	n := d.UvarintMax(uint64(d.Len()))
	for range n {
		h, err := rec()
		if err != nil {
			return Kept{}, fmt.Errorf("kept memory: a revision: %w", err)
		}
		k.History = append(k.History, h)
	}
	n = d.UvarintMax(uint64(d.Len()) / (relKeyLen + 16))
	for range n {
		key, val := d.Bytes(relKeyLen), d.Bytes(16)
		if d.Err() != nil {
			break
		}
		r, out, err := decodeRelation(key, val)
		if err != nil || !out {
			return Kept{}, fmt.Errorf("kept memory: relation %x is not an outgoing relation key (%v): %w", key, err, record.ErrCorrupt)
		}
		k.Relations = append(k.Relations, r)
	}
	k.Fingerprint = bytes.Clone(d.Bytes(int(d.UvarintMax(uint64(d.Len())))))
	if err := d.Done(); err != nil {
		return Kept{}, fmt.Errorf("kept memory: %w: %w", err, record.ErrCorrupt)
	}
	return k, nil
}

// PutAuditEntry writes action's entry (bytes the engine encodes) in the
// batch, beside the writes it describes.
func (b *Batch) PutAuditEntry(action [16]byte, entry []byte) {
	b.put(FamDefault, AuditEntryKey(action), entry)
}

// DeleteKeeping is Delete that keeps what it deletes: the record, its
// history and relations, and fp (the engine's fingerprint bytes) go under
// action's kept key in the same batch, so the delete and what undoes it
// reach the store together or not at all. It returns what was kept.
func (b *Batch) DeleteKeeping(id record.ID, action [16]byte, fp []byte) (Kept, error) {
	k := Kept{Fingerprint: fp}
	err := b.scan(FamHistory, id[:], func(key, v []byte) error {
		h, err := decodeRecord(v)
		if err != nil {
			return fmt.Errorf("history/%x: %w", key, err)
		}
		k.History = append(k.History, h)
		return nil
	})
	if err != nil {
		return Kept{}, err
	}
	m, rels, err := b.remove(id)
	if err != nil {
		return Kept{}, err
	}
	k.Memory, k.Relations = m, rels
	b.put(FamDefault, auditKeptKey(action), encodeKept(&k))
	return k, nil
}

// Restore puts back the memory action's delete kept, with the same id,
// record, history and the relations whose other memory is still stored
// (those are returned in Kept.Relations; the others are dropped), and
// deletes the kept value, all in this batch. The memory gets a new doc
// number (doc numbers are never reused); every other field of its record
// is as it was. The derived families are the caller's to write from
// Kept.Fingerprint.
func (b *Batch) Restore(action [16]byte) (Kept, error) {
	v, ok, err := b.Get(FamDefault, auditKeptKey(action))
	if err != nil {
		return Kept{}, err
	}
	if !ok {
		return Kept{}, fmt.Errorf("action %x kept no memory (it deleted nothing, or it was undone): %w", action, record.ErrNotFound)
	}
	k, err := DecodeKept(v)
	if err != nil {
		return Kept{}, fmt.Errorf("default/%s%x: %w", auditKeptPrefix, action, err)
	}
	m := k.Memory
	if _, found, err := b.Get(FamMemories, m.ID[:]); err != nil || found {
		if err == nil {
			err = &record.ValidationError{Field: "action", Problem: fmt.Sprintf("memory %s is stored again", m.ID),
				Fix: "delete the memory stored under that id first, or leave the action as it is"}
		}
		return Kept{}, err
	}
	m.DocNum = b.next
	if m.Session != "" {
		if v, taken, err := b.Get(FamSequence, sequenceKey(m.Session, m.Sequence)); err != nil || taken {
			if err == nil {
				err = &record.ValidationError{Field: "action", Problem: fmt.Sprintf("sequence %d of session %q is now used by memory %s", m.Sequence, m.Session, record.ID(v)),
					Fix: "delete that memory first, or leave the action as it is"}
			}
			return Kept{}, err
		}
	}
	b.insert(&m)
	for i := range k.History {
		b.put(FamHistory, historyKey(m.ID, k.History[i].Revision), encodeRecord(nil, &k.History[i]))
	}
	var back []record.Relation
	for _, r := range k.Relations {
		other := r.From
		if other == m.ID {
			other = r.To
		}
		if _, found, err := b.Get(FamMemories, other[:]); err != nil {
			return Kept{}, err
		} else if !found {
			continue
		}
		v := encodeRelation(r)
		b.edited = true
		b.put(FamRelations, relationKey(relOutPrefix, r.From, r.Type, r.To), v)
		b.put(FamRelations, relationKey(relInPrefix, r.To, r.Type, r.From), v)
		back = append(back, r)
	}
	k.Memory, k.Relations = m, back
	b.del(FamDefault, auditKeptKey(action))
	return k, nil
}

// checkAudit checks the audit keys of the default family: every key has
// the length of its prefix + 16; every kept value decodes, has its entry,
// and names a memory that is not stored (an undo deletes the kept value in
// the batch that stores the memory again).
func checkAudit(r kvReader, mems map[record.ID]record.Memory) []string {
	var out []string
	it := r.iter(FamDefault, AuditPrefix, prefixEnd(AuditPrefix))
	defer it.close()
	for it.first(); it.valid(); it.next() {
		k, v := it.key(), it.value()
		switch {
		case len(k) != len(AuditEntryPrefix)+16:
			out = append(out, fmt.Sprintf("default/%q is not an audit key (%s + 16 bytes)", k, k[:min(len(k), len(AuditEntryPrefix))]))
		case bytes.HasPrefix(k, AuditEntryPrefix):
			if !bytes.HasPrefix(v, []byte(AuditEntryMagic)) {
				out = append(out, fmt.Sprintf("default/%s%x: the audit entry does not start with %q", AuditEntryPrefix, k[len(AuditEntryPrefix):], AuditEntryMagic))
			}
		case bytes.HasPrefix(k, auditKeptPrefix):
			var action [16]byte
			copy(action[:], k[len(auditKeptPrefix):])
			kept, err := DecodeKept(v)
			if err != nil {
				out = append(out, fmt.Sprintf("default/%s%x: %v", auditKeptPrefix, action, err))
				continue
			}
			if _, ok, err := r.get(FamDefault, AuditEntryKey(action)); err != nil || !ok {
				out = append(out, fmt.Sprintf("default/%s%x: kept memory %s has no audit entry", auditKeptPrefix, action, kept.Memory.ID))
			}
			if _, stored := mems[kept.Memory.ID]; stored {
				out = append(out, fmt.Sprintf("default/%s%x: kept memory %s is stored too (an undo half-done?)", auditKeptPrefix, action, kept.Memory.ID))
			}
		default:
			out = append(out, fmt.Sprintf("default/%q is not an audit key", k))
		}
	}
	if err := it.err(); err != nil {
		out = append(out, fmt.Sprintf("scan audit log: %v", err))
	}
	return out
}

// AuditEntryMagic starts every audit entry value (the engine writes the
// rest: a version byte and JSON).
const AuditEntryMagic = "CGAU"
