package cellar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/record"
)

// Salvaging a family whose table file has a damaged block (FORMAT.md,
// "Salvage"). Reads that do not touch the block still answer, but the
// block cannot be mended in place, and a compaction that reads it fails
// and stops every later write of the store (RocksDB's background error).
// So the family is written anew without its files: every value of a stored
// memory that still reads is copied into the scratch family salvage, the
// default family's meta/salvage names the family (fsynced), the family is
// dropped (RocksDB deletes all its table files) and created again, the
// values are copied back, and meta/salvage is deleted and salvage dropped.
// A writer that finds meta/salvage at open finishes the copy first; a
// reader refuses the store until then.

const salvageFamilyName = "salvage"

var metaSalvageKey = []byte("meta/salvage")

// SalvageReport is what Salvage did to one family.
type SalvageReport struct {
	Family string `json:"family"`
	// Kept is how many values were copied into the new family.
	Kept int `json:"kept"`
	// Lost are the memories whose value did not read; the new family has
	// no key of theirs.
	Lost []record.ID `json:"lost"`
}

// Salvage rewrites family f, which must be keyed per memory, without its
// table files, keeping the value of every stored memory that still reads
// and reporting the memories whose value did not. It needs the writer; an
// interruption is finished by the next writer open. Cost: one point read
// and one write per stored memory, twice.
func (e *Store) Salvage(ctx context.Context, f Family) (SalvageReport, error) {
	rep := SalvageReport{Family: families[f].name}
	if families[f].keys == nil || f == FamMemories {
		return rep, fmt.Errorf("salvage %s: only a family keyed per memory can be rewritten from the records", families[f].name)
	}
	rs, ok := e.kv.(*rocksStore)
	if !ok {
		return rep, fmt.Errorf("salvage %s: the store's backend cannot drop a family", families[f].name)
	}
	if err := e.begin(ctx, true); err != nil {
		return rep, err
	}
	defer e.end()
	e.mu.Lock()
	defer e.mu.Unlock()
	owned := map[string]record.ID{}
	err := e.scanAll(FamMemories, func(k, v []byte) {
		m, err := decodeRecord(v)
		if err != nil || !bytes.Equal(k, m.ID[:]) {
			return
		}
		for _, key := range families[f].keys(refOf(&m)) {
			owned[string(key)] = m.ID
		}
	})
	if err != nil {
		return rep, fmt.Errorf("salvage %s: %w", families[f].name, err)
	}
	if err := rs.dropScratch(); err != nil {
		return rep, err
	}
	scratch, err := rs.db.CreateColumnFamily(rs.opts, salvageFamilyName)
	if err != nil {
		return rep, fmt.Errorf("salvage %s: create the scratch family: %w", families[f].name, err)
	}
	rs.extra = append(rs.extra, scratch)
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	for _, k := range slices.Sorted(maps.Keys(owned)) {
		v, found, err := rocksGet(rs.db, rs.ro, rs.handle(f), []byte(k))
		switch {
		case errors.Is(err, record.ErrCorrupt):
			rep.Lost = append(rep.Lost, owned[k])
			continue
		case err != nil:
			return rep, fmt.Errorf("salvage %s: %w", families[f].name, err)
		case !found:
			continue
		}
		wb.PutCF(scratch, []byte(k), v)
		rep.Kept++
		if wb.Count() >= 256 {
			if err := rs.writeRaw(wb, false); err != nil {
				return rep, fmt.Errorf("salvage %s: copy into the scratch family: %w", families[f].name, err)
			}
			wb.Clear()
		}
	}
	wb.PutCF(rs.handle(FamDefault), metaSalvageKey, []byte(families[f].name))
	if err := rs.writeRaw(wb, true); err != nil {
		return rep, fmt.Errorf("salvage %s: %w", families[f].name, err)
	}
	if err := rs.finishSalvage(); err != nil {
		return rep, err
	}
	return rep, nil
}

// writeRaw writes a grocksdb batch.
func (s *rocksStore) writeRaw(wb *grocksdb.WriteBatch, sync bool) error {
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	wo.SetSync(sync)
	return s.db.Write(wo, wb)
}

// scratchHandle is the open scratch family, or nil.
func (s *rocksStore) scratchHandle() (int, *grocksdb.ColumnFamilyHandle) {
	for i, h := range s.extra {
		if h.Name() == salvageFamilyName {
			return i, h
		}
	}
	return -1, nil
}

// dropScratch drops the scratch family if the store has one.
func (s *rocksStore) dropScratch() error {
	i, h := s.scratchHandle()
	if h == nil {
		return nil
	}
	if err := s.db.DropColumnFamily(h); err != nil {
		return fmt.Errorf("drop the scratch family %s: %w", salvageFamilyName, err)
	}
	h.Destroy()
	s.extra = slices.Delete(s.extra, i, i+1)
	return nil
}

// finishSalvage finishes the salvage meta/salvage names, if any: the
// family is dropped and created again, the scratch family's values copied
// into it, meta/salvage deleted (fsynced) and the scratch family dropped.
// A scratch family without meta/salvage is what an interrupted copy into it
// leaves: it is dropped. Writer only; run at open and by Salvage.
func (s *rocksStore) finishSalvage() error {
	name, ok, err := s.get(FamDefault, metaSalvageKey)
	if err != nil {
		return err
	}
	_, scratch := s.scratchHandle()
	if !ok {
		return s.dropScratch()
	}
	f, known := familyByName(string(name))
	if !known || scratch == nil {
		return fmt.Errorf("default/%s names family %q, and the store has no %s family to finish it from: %w", metaSalvageKey, name, salvageFamilyName, record.ErrCorrupt)
	}
	if h := s.handles[f]; h != nil {
		if err := s.db.DropColumnFamily(h); err != nil {
			return fmt.Errorf("salvage %s: drop it: %w", name, err)
		}
		h.Destroy()
		s.handles[f] = nil
	}
	h, err := s.db.CreateColumnFamily(s.opts, families[f].name)
	if err != nil {
		return fmt.Errorf("salvage %s: create it again: %w", name, err)
	}
	s.handles[f] = h
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	it := newRocksIter(s.db, nil, scratch, nil, nil)
	for it.first(); it.valid(); it.next() {
		wb.PutCF(h, it.key(), it.value())
		if wb.Count() >= 256 {
			if err := s.writeRaw(wb, false); err != nil {
				it.close()
				return fmt.Errorf("salvage %s: copy back: %w", name, err)
			}
			wb.Clear()
		}
	}
	err = it.err()
	it.close()
	if err != nil {
		return fmt.Errorf("salvage %s: read the scratch family: %w", name, err)
	}
	wb.DeleteCF(s.handle(FamDefault), metaSalvageKey)
	if err := s.writeRaw(wb, true); err != nil {
		return fmt.Errorf("salvage %s: copy back: %w", name, err)
	}
	return s.dropScratch()
}

// TableFiles lists the paths of f's live table files (for tests and
// diagnostics).
func (e *Store) TableFiles(f Family) []string {
	rs, ok := e.kv.(*rocksStore)
	if !ok {
		return nil
	}
	var out []string
	for _, t := range rs.db.GetLiveFilesMetaData() {
		if t.ColumnFamilyName == families[f].name {
			out = append(out, filepath.Join(rs.dir, strings.TrimPrefix(t.Name, "/")))
		}
	}
	return out
}
