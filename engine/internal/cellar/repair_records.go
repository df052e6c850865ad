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
	mems := map[record.ID]record.Memory{}
	var maxDoc int64 = -1
	err = e.scanAll(FamMemories, func(k, v []byte) {
		m, err := decodeRecord(v)
		if err != nil || len(k) != 16 || !bytes.Equal(k, m.ID[:]) {
			return // Check names it
		}
		mems[m.ID] = m
		maxDoc = max(maxDoc, int64(m.DocNum))
	})
	if err != nil {
		return rep, err
	}
	// want holds every key the record indexes must have, with its value.
	want := map[Family]map[string][]byte{FamDocnums: {}, FamCreated: {}, FamSequence: {}, FamContent: {}}
	owned := make([]map[string]bool, numFamilies)
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
	for f, info := range families {
		if info.keys == nil || Family(f) == FamMemories {
			continue
		}
		w, isIndex := want[Family(f)]
		seen := map[string]bool{}
		err := e.scanAll(Family(f), func(k, v []byte) {
			switch {
			case isIndex:
				wv, ok := w[string(k)]
				if !ok {
					b.del(Family(f), k)
					rep.IndexKeys++
					return
				}
				seen[string(k)] = true
				if !bytes.Equal(v, wv) {
					b.put(Family(f), k, wv)
					rep.IndexKeys++
				}
			case !owned[f][string(k)]:
				b.del(Family(f), k)
				rep.Orphans++
			}
		})
		if err != nil {
			return rep, err
		}
		for k, v := range w {
			if !seen[k] {
				b.put(Family(f), []byte(k), v)
				rep.IndexKeys++
			}
		}
	}
	count, err := readMetaUint(e.kv, metaMemoryCountKey, 8)
	if err != nil {
		count = ^uint64(0) // unreadable: set it anew
	}
	next, err := readMetaUint(e.kv, metaNextDocNumKey, 4)
	if err != nil {
		next = 0
	}
	if count != uint64(len(mems)) || int64(next) <= maxDoc {
		rep.Counters = true
		b.count = uint64(len(mems))
		b.next = record.DocNum(max(int64(next), maxDoc+1))
	}
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
