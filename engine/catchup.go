package engine

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// maxIncremental is the number of new memories a read-only store indexes one
// by one when catching up; beyond it a full rebuild is cheaper.
const maxIncremental = 5000

// catchUp brings a read-only store's indexes in line with the writer:
//
//   - slot/generation changed (the writer re-embedded): full rebuild, and
//     the slot records are read again;
//   - meta/edit_count changed (the writer updated memories or changed
//     relations in place): full rebuild too. Edits are rare next to
//     searches, and a reader beside a `cgraph serve` is rare (the CLI asks
//     the server); a per-memory edit log would make this incremental;
//   - meta/next_docnum moved past the last doc number seen: the memories
//     with the new numbers are read (record + fingerprint) and indexed, like
//     the writer does after its commit; a gap of more than maxIncremental
//     rebuilds instead;
//   - meta/memory_count differs from the number of indexed memories: some
//     were deleted, so the doc numbers still stored are scanned and every
//     indexed doc not among them is dropped.
//
// Each step reads the store through separate engine calls, so a write that
// lands between them is caught by the next Search. Cost when nothing
// changed: two engine calls (~0.1 ms each).
func (s *Engine) catchUp(ctx context.Context) error {
	s.catchMu.Lock()
	defer s.catchMu.Unlock()
	recs, have, gen, err := readSlotRecords(ctx, s.cellar)
	if err != nil {
		return err
	}
	c, err := s.cellar.Counters(ctx)
	if err != nil {
		return err
	}
	s.mu.RLock()
	seen, curGen, edits := s.seenNext, s.generation, s.edits
	s.mu.RUnlock()
	if gen != curGen || c.Edits != edits || c.NextDocNum-seen > maxIncremental {
		// The writer may have re-embedded slots: what is stale now follows
		// the new records.
		mism, _ := mismatches(&recs, have, c.Memories, s.reg.Statuses())
		stale := staleReasons(mism)
		s.mu.Lock()
		s.stale = stale
		s.mu.Unlock()
		s.views.clear() // the writer re-embedded: views of the old producers
		ix, err := rebuild(ctx, s.cellar, s.staleFlags(), s.wantDims())
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.ix, s.seenNext, s.generation, s.stored, s.edits = ix, c.NextDocNum, gen, recs, c.Edits
		s.mu.Unlock()
		return nil
	}
	if next := c.NextDocNum; next > seen {
		if err := s.indexNew(ctx, seen, next); err != nil {
			return err
		}
	}
	s.ix.mu.RLock()
	n := s.ix.live.GetCardinality()
	s.ix.mu.RUnlock()
	if n != c.Memories {
		return s.dropDeleted(ctx)
	}
	return nil
}

// indexNew indexes the memories with doc numbers in [from, to).
func (s *Engine) indexNew(ctx context.Context, from, to record.DocNum) error {
	docs := make([]record.DocNum, 0, to-from)
	for d := from; d < to; d++ {
		docs = append(docs, d)
	}
	ms, found, err := s.cellar.PeekDocs(ctx, docs)
	if err != nil {
		return err
	}
	var ids []record.ID
	var live []record.Memory
	for i, m := range ms {
		if found[i] {
			ids = append(ids, m.ID)
			live = append(live, m)
		}
	}
	_, fps, err := s.readMemories(ctx, ids)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range live {
		if fps[i] == nil {
			continue // deleted meanwhile
		}
		if err := s.ix.apply(m, fps[i], nil); err != nil {
			return fmt.Errorf("index memory %s: %w", m.ID, err)
		}
	}
	s.seenNext = to
	return nil
}

// dropDeleted removes from the indexes every doc no longer stored.
func (s *Engine) dropDeleted(ctx context.Context) error {
	stored := make(map[record.DocNum]bool)
	if err := s.cellar.ScanDocs(ctx, func(d record.DocNum, _ record.ID) error {
		stored[d] = true
		return nil
	}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ix.mu.RLock()
	var gone []record.DocNum
	it := s.ix.live.Iterator()
	for it.HasNext() {
		if d := record.DocNum(it.Next()); !stored[d] {
			gone = append(gone, d)
		}
	}
	s.ix.mu.RUnlock()
	for _, d := range gone {
		s.ix.remove(d)
	}
	return nil
}
