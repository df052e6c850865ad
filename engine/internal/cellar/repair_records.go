package cellar

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// RecordRepair is what RepairRecords did.
type RecordRepair struct {
	// Counters says meta/memory_count or meta/next_docnum was set anew.
	Counters bool `json:"counters"`
	// IndexKeys are keys of docnums, created_index and sequence written
	// back or deleted so that they hold exactly the stored memories' keys.
	IndexKeys int `json:"index_keys"`
	// Orphans are keys of per-memory families (fingerprints, per-doc
	// vectors, pending) that belonged to no stored memory, deleted.
	Orphans int `json:"orphans"`
}

// Changed reports whether the repair wrote anything.
func (r RecordRepair) Changed() bool { return r.Counters || r.IndexKeys+r.Orphans > 0 }

// RepairRecords rebuilds everything the cellar derives from the records,
// from the records that are stored, in one batch: meta/memory_count (the
// number of records), meta/next_docnum (kept, or raised above the highest
// doc number stored: doc numbers are never reused), the docnums,
// created_index, sequence and content_hash families (exactly the keys
// Check expects),
// and it deletes the keys of every family keyed per memory that belong to
// no stored memory. It is what is left to do after writes were lost
// (a deleted log file: the later writes of a memory can outlive its
// earlier ones). A record that does not decode is left for Check to name.
// A second run changes nothing. Cost: a scan of every per-memory family.
func (e *Store) RepairRecords(ctx context.Context) (RecordRepair, error) {
	var rep RecordRepair
	b, err := e.Begin(ctx)
	if err != nil {
		return rep, err
	}
	defer b.Abort()
	mems, maxDoc, err := e.storedRecords()
	if err != nil {
		return rep, err
	}
	want, owned := recordKeys(mems)
	for f, info := range families {
		if info.keys == nil || Family(f) == FamMemories {
			continue
		}
		if err := e.repairFamily(b, Family(f), want, owned[f], &rep); err != nil {
			return rep, err
		}
	}
	e.repairCounters(b, len(mems), maxDoc, &rep)
	if !rep.Changed() {
		return rep, nil
	}
	if rep.Counters && b.b.count() == 0 {
		// Commit writes the counters only beside other writes.
		b.put(FamDefault, metaMemoryCountKey, binary.BigEndian.AppendUint64(nil, b.count))
	}
	if err := b.Commit(); err != nil {
		return rep, fmt.Errorf("repair record indexes: %w", err)
	}
	return rep, nil
}

// storedRecords reads every record that decodes under its own id (Check
// names the others) and the highest doc number among them (-1: none).
func (e *Store) storedRecords() (map[record.ID]record.Memory, int64, error) {
	mems := map[record.ID]record.Memory{}
	var maxDoc int64 = -1
	err := e.scanAll(FamMemories, func(k, v []byte) {
		m, err := decodeRecord(v)
		if err != nil || len(k) != 16 || !bytes.Equal(k, m.ID[:]) {
			return // Check names it
		}
		mems[m.ID] = m
		maxDoc = max(maxDoc, int64(m.DocNum))
	})
	return mems, maxDoc, err
}

// recordKeys is what the records imply: want, every key the record
// indexes (docnums, created_index, sequence, content_hash) must have with
// its value, and owned, per family keyed per memory, the keys of stored
// memories.
func recordKeys(mems map[record.ID]record.Memory) (want map[Family]map[string][]byte, owned []map[string]bool) {
	want = map[Family]map[string][]byte{FamDocnums: {}, FamCreated: {}, FamSequence: {}, FamContent: {}}
	owned = make([]map[string]bool, numFamilies)
	for f := range owned {
		owned[f] = map[string]bool{}
	}
	for _, m := range mems {
		want[FamDocnums][string(docnumIDKey(m.ID))] = binary.BigEndian.AppendUint32(nil, uint32(m.DocNum))
		want[FamDocnums][string(docnumDocKey(m.DocNum))] = m.ID[:]
		want[FamCreated][string(createdKey(m.CreatedAt, m.ID))] = []byte{}
		if m.Session != "" {
			want[FamSequence][string(sequenceKey(m.Session, m.Sequence))] = m.ID[:]
		}
		ref := refOf(&m)
		want[FamContent][string(contentKey(ref.content, m.ID))] = []byte{}
		for f, info := range families {
			if info.keys != nil {
				for _, k := range info.keys(ref) {
					owned[f][string(k)] = true
				}
			}
		}
	}
	return want, owned
}

// repairFamily makes one family keyed per memory what the records imply:
// a record index holds exactly want's keys and values; another family
// loses the keys of no stored memory.
func (e *Store) repairFamily(b *Batch, f Family, want map[Family]map[string][]byte, owned map[string]bool, rep *RecordRepair) error {
	w, isIndex := want[f]
	seen := map[string]bool{}
	err := e.scanAll(f, func(k, v []byte) {
		switch {
		case isIndex:
			wv, ok := w[string(k)]
			if !ok {
				b.del(f, k)
				rep.IndexKeys++
				return
			}
			seen[string(k)] = true
			if !bytes.Equal(v, wv) {
				b.put(f, k, wv)
				rep.IndexKeys++
			}
		case !owned[string(k)]:
			b.del(f, k)
			rep.Orphans++
		}
	})
	if err != nil {
		return err
	}
	for k, v := range w {
		if !seen[k] {
			b.put(f, []byte(k), v)
			rep.IndexKeys++
		}
	}
	return nil
}

// repairCounters sets meta/memory_count to the records stored and raises
// meta/next_docnum above the highest doc number stored (doc numbers are
// never reused), when either is wrong or unreadable.
func (e *Store) repairCounters(b *Batch, stored int, maxDoc int64, rep *RecordRepair) {
	count, err := readMetaUint(e.kv, metaMemoryCountKey, 8)
	if err != nil {
		count = ^uint64(0) // unreadable: set it anew
	}
	next, err := readMetaUint(e.kv, metaNextDocNumKey, 4)
	if err != nil {
		next = 0
	}
	if count != uint64(stored) || int64(next) <= maxDoc {
		rep.Counters = true
		b.count = uint64(stored)
		b.next = record.DocNum(max(int64(next), maxDoc+1))
	}
}

// scanAll calls fn with every key and value of f.
// REQUIRES: the caller holds e's write lock (a Batch), so nothing changes.
func (e *Store) scanAll(f Family, fn func(k, v []byte)) error {
	it := e.kv.iter(f, nil, nil)
	defer it.close()
	for it.first(); it.valid(); it.next() {
		fn(it.key(), it.value())
	}
	if err := it.err(); err != nil {
		return fmt.Errorf("scan %s: %w", families[f].name, err)
	}
	return nil
}
