package engine

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Add stores one memory with its fingerprint; see AddBatch.
func (s *Engine) Add(ctx context.Context, m record.NewMemory) (record.Memory, error) {
	ms, err := s.AddBatch(ctx, []record.NewMemory{m})
	if err != nil {
		return record.Memory{}, err
	}
	return ms[0], nil
}

// AddBatch stores memories with their fingerprints. The path reads straight
// down: validate each memory once; compute every slot but E4 (batched,
// slots in parallel) before taking the write lock; then, in one cellar
// Batch, add the records (which assigns doc and sequence numbers), compute
// E4 from the assigned sequence numbers, write fingerprints, per-slot
// families and postings, and commit them as ONE WriteBatch; last, update the
// in-memory indexes. A bad memory is reported as "memory N of M: problem"
// and nothing is written. It is PrepareBatch followed by its store.
func (s *Engine) AddBatch(ctx context.Context, ns []record.NewMemory) ([]record.Memory, error) {
	store, err := s.PrepareBatch(ctx, ns)
	if err != nil {
		return nil, err
	}
	return store(ctx)
}

// PrepareBatch is the first half of AddBatch: it redacts and validates ns
// and computes every slot but E4, holding no lock and reading no stored
// memory, and returns the second half, store, which writes the batch as
// AddBatch does (duplicates and similar memories are looked up then,
// against what is stored by then). A bulk import fingerprints its next
// batch while store writes the last one; on a GPU the write's CPU work
// then runs beside the models' instead of after them.
//
// store may be called once; a second call is refused. A batch prepared and
// never stored leaves nothing behind. Between the two halves the store may
// change (another writer, a model swap): store checks again that the
// store is writable, and the producer checks of the write still apply.
func (s *Engine) PrepareBatch(ctx context.Context, ns []record.NewMemory) (store func(context.Context) ([]record.Memory, error), err error) {
	if err := s.needEmbedders("add memories"); err != nil {
		return nil, err
	}
	if s.ro {
		return nil, s.refuseReadOnly("change it")
	}
	if len(ns) == 0 {
		return func(context.Context) ([]record.Memory, error) { return nil, nil }, nil
	}
	if err := s.writable(); err != nil {
		return nil, err
	}
	ns = slices.Clone(ns)
	now := time.Now().UTC()
	inputs := make([]embedders.Input, len(ns))
	embedders.ForEach(len(ns), func(i int) { s.redactNew(&ns[i]) }) // the secret patterns: a regexp pass over every text
	for i := range ns {
		if err := ns[i].Validate(s.maxBytes); err != nil {
			return nil, cellar.BatchErr(len(ns), i, err)
		}
		if ns[i].CreatedAt.IsZero() {
			ns[i].CreatedAt = now // the store's default, fixed here so E2/E3 see it
		}
		inputs[i] = embedders.Input{Text: ns[i].Content, Created: ns[i].CreatedAt, Session: ns[i].Session, Seq: ns[i].Sequence}
	}
	fps := make([]fingerprint.Fingerprint, len(ns))
	computeNow := beforeLock
	if len(s.deferred) > 0 {
		computeNow = slices.DeleteFunc(slices.Clone(beforeLock), func(sl fingerprint.SlotID) bool { return slices.Contains(s.deferred, sl) })
	}
	if err := s.reg.EmbedSlots(ctx, inputs, computeNow, fps); err != nil {
		return nil, fmt.Errorf("fingerprint %d memories: %w", len(ns), err)
	}
	pre := s.presearchBatch(ctx, ns, fps)
	var stored atomic.Bool
	return func(ctx context.Context) ([]record.Memory, error) {
		if stored.Swap(true) {
			return nil, errors.New("store a prepared batch of memories twice: prepare it again")
		}
		if err := s.writable(); err != nil {
			return nil, err
		}
		return s.write(ctx, ns, inputs, fps, pre)
	}, nil
}

// presearch is a batch's similar-memory search made before the write lock
// (PrepareBatch), for its write to keep. It is right for the docs below
// below — indexed and committed when it ran — for as long as the indexes
// have changed only by adding docs (indexSet.changes); the write then
// searches just the docs added since (a bulk import's earlier batches in
// flight) and merges (mergeNear). After any other change, or for a memory
// it did not search, the write searches again. On the GPU machine the
// similar search inside the write lock was 0.09–0.18 ms of a document's
// 0.39–0.50 there (runs 24–25), the prepare half having cores to spare.
type presearch struct {
	ix      *indexSet
	below   record.DocNum
	changes uint64
	cands   [][]nearCandidate // per memory of the batch
	done    []bool            // cands[i] holds memory i's search
}

// presearchBatch searches every memory of ns that a write would search
// (not AllowDuplicate), on all cores; nil when there is nothing to search
// or the search failed (the write then searches, and reports the error).
func (s *Engine) presearchBatch(ctx context.Context, ns []record.NewMemory, fps []fingerprint.Fingerprint) *presearch {
	if s.ix == nil || s.nearDup.E1 < 0 {
		return nil
	}
	s.ix.mu.RLock()
	p := &presearch{ix: s.ix, below: min(s.ix.next, s.ix.committed), changes: s.ix.changes,
		cands: make([][]nearCandidate, len(ns)), done: make([]bool, len(ns))}
	s.ix.mu.RUnlock()
	var failed atomic.Bool
	embedders.ForEach(len(ns), func(i int) {
		if ns[i].AllowDuplicate || failed.Load() {
			return
		}
		c, err := s.nearSearch(ctx, ns[i].Project, &fps[i], ns[i].Content, 0)
		if err != nil {
			failed.Store(true)
			return
		}
		p.cands[i], p.done[i] = c, true
	})
	if failed.Load() {
		return nil
	}
	return p
}

// valid reports whether p still holds for s's indexes.
// REQUIRES: s.writeMu held.
func (p *presearch) valid(s *Engine) bool {
	if p == nil || p.ix != s.ix {
		return false
	}
	s.ix.mu.RLock()
	defer s.ix.mu.RUnlock()
	return s.ix.changes == p.changes
}

// mergeNear is the candidates of a search over every doc, from those of a
// search made when the docs below below were all there was (pre: those of
// them kept) and a search of the docs from below on (since): the best
// NearCandidates of both, best first. Any doc below below that the first
// search left out was beaten by all of its kept candidates, so it cannot
// be among the best of both.
func mergeNear(pre []nearCandidate, below record.DocNum, since []nearCandidate) []nearCandidate {
	out := make([]nearCandidate, 0, len(pre)+len(since))
	for _, c := range pre {
		if c.doc < below {
			out = append(out, c)
		}
	}
	out = append(out, since...)
	slices.SortStableFunc(out, func(a, b nearCandidate) int { return cmp.Compare(b.cos, a.cos) })
	return out[:min(len(out), NearCandidates)]
}

// beforeLock are the slots AddBatch computes before the write lock: all but
// E4, whose sequence number the store assigns.
var beforeLock = slices.DeleteFunc(fingerprint.Slots(), func(s fingerprint.SlotID) bool { return s == fingerprint.E4 })

// write stores ns with their fingerprints (E4 still to compute) in one
// batch, then updates the indexes and slot records.
//
// The in-memory indexes take the batch while its keys are encoded, put and
// written (on a 16-core GPU machine the writer's three serial steps — the
// index update, the puts, RocksDB's write — were most of a bulk import's
// store half, run 22): a search in that window may find a new memory whose
// record is not committed yet, and drops it as it drops one deleted while
// it searched (resolve). A failed commit takes the batch out of the
// indexes again before the write lock is released, so no doc number of it
// stays indexed.
func (s *Engine) write(ctx context.Context, ns []record.NewMemory, inputs []embedders.Input, fps []fingerprint.Fingerprint, pre *presearch) ([]record.Memory, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Abort()
	t0 := time.Now()
	w, err := s.stageMemories(ctx, b, ns, inputs, fps, pre)
	if err != nil {
		return nil, err
	}
	if err := s.reg.EmbedSlots(ctx, inputs, []fingerprint.SlotID{fingerprint.E4}, fps); err != nil {
		return nil, fmt.Errorf("fingerprint %d memories: %w", len(ns), err)
	}
	if err := s.checkIndexable(w, fps); err != nil {
		return nil, err
	}
	t1 := time.Now()
	indexed := make(chan []error, 1)
	go func() { indexed <- s.ix.applyNew(w.ms, fps, w.dup) }()
	err = s.putMemories(b, w, fps)
	t2 := time.Now()
	if err == nil {
		err, s.failCommit = s.failCommit, nil
	}
	if err == nil {
		err = s.commitWithFirsts(b, fps, fmt.Sprintf("store %d memories", len(w.ms)))
	}
	t3 := time.Now()
	ixErrs := <-indexed
	if err != nil {
		s.unindex(w)
		return nil, err
	}
	var top record.DocNum
	for i := range w.ms {
		if !w.dup[i] {
			top = max(top, w.ms[i].DocNum+1)
		}
	}
	s.ix.markCommitted(top)
	defer s.filler.poke()
	err = s.indexWritten(ctx, w, ixErrs)
	s.statsMu.Lock()
	s.writeSteps.add(writeSteps{batches: 1, memories: len(ns), presearched: w.presearched, stage: t1.Sub(t0), commit: t2.Sub(t1), write: t3.Sub(t2), index: time.Since(t3), total: time.Since(t0)})
	s.statsMu.Unlock()
	return w.ms, err
}

// checkIndexable refuses a batch whose fingerprints the indexes cannot
// take (a vector of another width than its space's), before either the
// indexes or the batch get any of it.
func (s *Engine) checkIndexable(w writeBatch, fps []fingerprint.Fingerprint) error {
	for i := range fps {
		if w.dup[i] {
			continue
		}
		if err := s.ix.check(&fps[i]); err != nil {
			return cellar.BatchErr(len(w.ms), i, fmt.Errorf("memory %s: %w", w.ms[i].ID, err))
		}
	}
	return nil
}

// unindex takes a batch whose commit failed out of the indexes: its doc
// numbers are the next batch's.
func (s *Engine) unindex(w writeBatch) {
	for i := range w.ms {
		if !w.dup[i] {
			s.ix.remove(w.ms[i].DocNum)
		}
	}
}

// writeSteps is where writes spent their time: staging (duplicate lookup,
// similar search, records, E4), the commit's encoding and puts, RocksDB's
// write of the batch, and what the in-memory indexes took past those two
// (they run beside them) with the marks. Every write adds its own (five
// clock reads); WriteStats reports the sums.
type writeSteps struct {
	batches, memories, presearched     int
	stage, commit, write, index, total time.Duration
}

// WriteStats is where an engine's writes (Add, AddBatch, a bulk import's
// store half) spent their time since it opened, summed over its batches:
// what a throughput figure is made of. Each step runs under the write lock,
// so Total is the time the writes held it; the fingerprints' time before
// the lock is not in it.
type WriteStats struct {
	Batches  int `json:"batches"`
	Memories int `json:"memories"` // asked to store, duplicates included
	// Presearched counts the memories whose similar-memory search was made
	// before the write lock, when the batch was prepared, and kept: the
	// write searched only the memories stored since.
	Presearched int `json:"presearched"`
	// Stage: the duplicate look-ups, the similar-memory search (on all
	// cores) and its judge, the records; Commit: the values and keys
	// encoded (on all cores) and put into the batch; Write: RocksDB's
	// write of the batch; Index: the wait for the in-memory indexes past
	// those two (they are updated beside them), and the marks.
	Stage  time.Duration `json:"stage_ns"`
	Commit time.Duration `json:"commit_ns"`
	Write  time.Duration `json:"write_ns"`
	Index  time.Duration `json:"index_ns"`
	Total  time.Duration `json:"total_ns"`
}

// WriteStats returns the sums of where this engine's writes spent their
// time.
func (s *Engine) WriteStats() WriteStats {
	s.statsMu.Lock()
	w := s.writeSteps
	s.statsMu.Unlock()
	return WriteStats{Batches: w.batches, Memories: w.memories, Presearched: w.presearched, Stage: w.stage, Commit: w.commit, Write: w.write, Index: w.index, Total: w.total}
}

func (w *writeSteps) add(o writeSteps) {
	w.batches += o.batches
	w.memories += o.memories
	w.presearched += o.presearched
	w.stage += o.stage
	w.commit += o.commit
	w.write += o.write
	w.index += o.index
	w.total += o.total
}

// writeBatch is the memories of one write as they go into its batch.
type writeBatch struct {
	// presearched counts the memories whose similar search was kept from
	// PrepareBatch (presearch).
	presearched int
	ms          []record.Memory
	dup         []bool // ms[i] is an earlier memory: nothing to write
	stored      []bool // … one stored before this batch (its access is recorded)
}

// stageMemories adds each new memory's record to b — or names the earlier
// memory it duplicates — with its supersede links and conflict relations,
// and gives each input its sequence number (for E4). The similar-memory
// search of every new memory (the costliest step of a write once the
// fingerprints exist: an E1 search, the candidates' fingerprints, the
// contradiction judge) was made when the batch was prepared (presearch)
// and is completed here with the memories stored since, or runs here on
// all cores; either way its answers are those a memory-by-memory loop
// would get from the committed state.
func (s *Engine) stageMemories(ctx context.Context, b *cellar.Batch, ns []record.NewMemory, inputs []embedders.Input, fps []fingerprint.Fingerprint, pre *presearch) (writeBatch, error) {
	w := writeBatch{ms: make([]record.Memory, len(ns)), dup: make([]bool, len(ns)), stored: make([]bool, len(ns))}
	inBatch := map[string]int{} // normalized content → first new memory of this batch
	copyOf := map[int]int{}     // a copy within the batch → the memory it copies
	var fresh []int             // the new memories to store
	for i, n := range ns {
		key := n.Project + "\x00" + record.NormalizeContent(n.Content)
		if n.AllowDuplicate {
			if _, ok := inBatch[key]; !ok {
				inBatch[key] = i // a later memory that allows no copy is this one's copy
			}
		} else {
			if j, ok := inBatch[key]; ok {
				w.dup[i], copyOf[i] = true, j
				continue
			}
			old, found, err := s.findDuplicate(b, n.Project, n.Content)
			if err != nil {
				return w, cellar.BatchErr(len(ns), i, err)
			}
			if found {
				w.ms[i], w.dup[i], w.stored[i] = old, true, true
				w.ms[i].Duplicate = true
				continue
			}
			inBatch[key] = i
		}
		fresh = append(fresh, i)
	}
	near, presearched, err := s.similarAll(ctx, ns, fps, fresh, pre)
	w.presearched = presearched
	if err != nil {
		return w, err
	}
	for k, i := range fresh {
		m, err := s.stageNew(b, ns[i], near[k])
		if err != nil {
			return w, cellar.BatchErr(len(ns), i, err)
		}
		w.ms[i], inputs[i].Seq = m, m.Sequence
	}
	for i, j := range copyOf { // a copy within the batch names the memory stored
		w.ms[i] = w.ms[j]
		w.ms[i].Duplicate = true
	}
	return w, nil
}

// nearby is what a new memory's similar-memory search found (findSimilar).
type nearby struct {
	similar   []record.Similar
	conflicts []record.Contradiction
}

// similarAll runs findSimilar for ns[i], i in which, on all cores — or,
// where pre still holds, completes pre's search with the docs stored since
// it ran (and counts those kept); a memory stored with AllowDuplicate is
// not searched (a corpus loaded with duplicates allowed is not a memory to
// tidy). The first error (by position) names its memory.
// REQUIRES: s.writeMu held.
func (s *Engine) similarAll(ctx context.Context, ns []record.NewMemory, fps []fingerprint.Fingerprint, which []int, pre *presearch) ([]nearby, int, error) {
	out := make([]nearby, len(which))
	errs := make([]error, len(which))
	if !pre.valid(s) {
		pre = nil
	}
	var kept atomic.Int64
	embedders.ForEach(len(which), func(k int) {
		i := which[k]
		if ns[i].AllowDuplicate {
			return
		}
		if pre == nil || !pre.done[i] {
			out[k].similar, out[k].conflicts, errs[k] = s.findSimilar(ctx, ns[i].Project, &fps[i], ns[i].Content)
			return
		}
		since, err := s.nearSearch(ctx, ns[i].Project, &fps[i], ns[i].Content, pre.below)
		if err != nil {
			errs[k] = err
			return
		}
		out[k].similar, out[k].conflicts = emitNear(mergeNear(pre.cands[i], pre.below, since))
		kept.Add(1)
	})
	for k, err := range errs {
		if err != nil {
			return nil, 0, cellar.BatchErr(len(ns), which[k], err)
		}
	}
	return out, int(kept.Load()), nil
}

// stageNew adds n's record to b with what its similar-memory search found:
// the similar memories (linked as superseded when n asks and they are
// near) and the contradictions, handled as n.OnConflict says.
func (s *Engine) stageNew(b *cellar.Batch, n record.NewMemory, near nearby) (record.Memory, error) {
	similar, conflicts := near.similar, near.conflicts
	m, err := b.Add(n)
	if err != nil {
		return record.Memory{}, err
	}
	for j := range similar {
		if !n.Supersede || !similar[j].Near {
			continue
		}
		if err := b.Link(record.Relation{From: m.ID, To: similar[j].ID, Type: record.RelSupersedes, Weight: similar[j].E1}); err != nil {
			return record.Memory{}, err
		}
		similar[j].Superseded = true
		similar[j].Decision += "; marked superseded by this memory"
	}
	m.Similar = similar
	if err := s.applyConflicts(b, m.ID, n.OnConflict, conflicts); err != nil {
		return record.Memory{}, err
	}
	m.Contradicts = conflicts
	return m, nil
}

// putMemories puts the new memories' fingerprints, derived values,
// postings with their statistics, and pending marks into b.
//
// The values and keys are made on all cores first (E12's quantised token
// matrices are most of a write's encoding time); they go into the batch
// on this goroutine sorted by family and key, and each posting family's
// statistics once for the whole batch. Sorted, RocksDB inserts them into
// its memtables in order, which costs less than half of inserting the
// same keys memory by memory (each memory's ~50 posting keys land all
// over the skip list; BenchmarkAddBatch's write-ms/doc).
func (s *Engine) putMemories(b *cellar.Batch, w writeBatch, fps []fingerprint.Fingerprint) error {
	enc := make([]encodedMemory, len(w.ms))
	errs := make([]error, len(w.ms))
	embedders.ForEach(len(w.ms), func(i int) {
		if !w.dup[i] {
			enc[i], errs[i] = s.encodeMemory(w.ms[i], &fps[i])
		}
	})
	n := 0
	for i := range w.ms {
		if w.dup[i] {
			continue
		}
		if err := errs[i]; err != nil {
			return cellar.BatchErr(len(w.ms), i, fmt.Errorf("memory %s: %w", w.ms[i].ID, err))
		}
		n += len(enc[i].puts)
	}
	puts := make([]keyedValue, 0, n)
	docs := make([]uint64, len(postingFamilies))
	lengths := make([]uint64, len(postingFamilies))
	for i := range w.ms {
		if w.dup[i] {
			continue
		}
		puts = append(puts, enc[i].puts...)
		for k, l := range enc[i].lengths {
			if l.ok {
				docs[k]++
				lengths[k] += l.n
			}
		}
	}
	// Every key is the batch's once: ids and doc numbers are distinct.
	slices.SortFunc(puts, func(a, b keyedValue) int {
		if a.family != b.family {
			return cmp.Compare(a.family, b.family)
		}
		return bytes.Compare(a.key, b.key)
	})
	for _, p := range puts {
		b.PutOwned(p.family, p.key, p.value) // made for this write alone
	}
	for k, pf := range postingFamilies {
		if docs[k] > 0 {
			if err := pf.adjustStats(b, docs[k], lengths[k], +1, false); err != nil {
				return fmt.Errorf("%s: %w", pf.slot, err)
			}
		}
	}
	if len(s.deferred) > 0 {
		mask := pendingMask(s.deferred)
		for i := range w.ms {
			if !w.dup[i] {
				b.Put(cellar.FamPending, docKey(w.ms[i].DocNum), mask)
			}
		}
	}
	return nil
}

// commitWithFirsts puts the records of the slots that get their first
// value in this store from fps into b, commits b, and then takes those
// records as the store's; what names the write in the commit's error.
func (s *Engine) commitWithFirsts(b *cellar.Batch, fps []fingerprint.Fingerprint, what string) error {
	s.mu.RLock()
	firsts := s.firstProducers(fps)
	s.mu.RUnlock()
	for slot, rec := range firsts {
		b.Put(cellar.FamDefault, slotKey(slot), encodeSlotRecord(rec))
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	s.mu.Lock()
	for slot, rec := range firsts {
		s.stored[slot.Index()] = rec
	}
	s.mu.Unlock()
	return nil
}

// indexWritten finishes a committed batch whose memories the indexes took
// (ixErrs: applyNew's answer): the memories each new one superseded are
// marked; a duplicate of a stored memory records that memory's access, as
// a get would. A memory stored but not indexed is an error naming it.
func (s *Engine) indexWritten(ctx context.Context, w writeBatch, ixErrs []error) error {
	var errs []error
	for i := range w.ms {
		if w.dup[i] {
			if w.stored[i] { // record the access, as a get would
				if m, err := s.cellar.Get(ctx, w.ms[i].ID); err == nil {
					m.Duplicate = true
					w.ms[i] = m
				}
			}
			continue
		}
		if err := ixErrs[i]; err != nil {
			errs = append(errs, fmt.Errorf("memory %s was stored but not indexed (reopen the store to rebuild its indexes): %w", w.ms[i].ID, err))
		}
		for _, sim := range w.ms[i].Similar {
			if sim.Superseded {
				s.setMark(ctx, record.RelSupersedes, w.ms[i].ID, sim.ID, true)
			}
		}
		for _, c := range w.ms[i].Contradicts {
			t := record.RelContradicts
			if c.Superseded {
				t = record.RelSupersedes
			}
			s.setMark(ctx, t, w.ms[i].ID, c.ID, true)
		}
	}
	return errors.Join(errs...)
}

// firstProducers returns the slot records of slots that get their first
// value in this store from fps.
// REQUIRES: s.mu held.
func (s *Engine) firstProducers(fps []fingerprint.Fingerprint) map[fingerprint.SlotID]slotRecord {
	out := map[fingerprint.SlotID]slotRecord{}
	for _, slot := range fingerprint.Slots() {
		if s.stored[slot.Index()].Producer != (fingerprint.Producer{}) {
			continue
		}
		for i := range fps {
			if e := fps[i].Get(slot); e.Value != nil {
				out[slot] = slotRecord{Status: e.Status, Producer: e.Producer, Dims: s.reg.Get(slot).Status().Dims}
				break
			}
		}
	}
	return out
}

// writeMemory puts one new memory's fingerprint, per-slot families and
// postings into b, with its postings' statistics.
func (s *Engine) writeMemory(b *cellar.Batch, m record.Memory, fp *fingerprint.Fingerprint) error {
	if s.ix != nil { // nil when opened for records only (an undo)
		if err := s.ix.check(fp); err != nil {
			return err
		}
	}
	enc, err := s.encodeMemory(m, fp)
	if err != nil {
		return err
	}
	for _, p := range enc.puts {
		b.PutOwned(p.family, p.key, p.value) // made for this write alone
	}
	for k, pf := range postingFamilies {
		if l := enc.lengths[k]; l.ok {
			if err := pf.adjustStats(b, 1, l.n, +1, false); err != nil {
				return fmt.Errorf("%s: %w", pf.slot, err)
			}
		}
	}
	return nil
}

// keyedValue is one put of a write, made on any goroutine and put into
// the batch later.
type keyedValue struct {
	family     cellar.Family
	key, value []byte
}

// encodedMemory is what a new memory adds to the store, encoded and not
// yet in a batch: its fingerprint, each per-slot family value and each
// posting, and per posting family (postingFamilies' order) the length
// its statistics count, if it has postings there. encodeMemory is safe
// to run for many memories at once.
type encodedMemory struct {
	puts    []keyedValue
	lengths []postingLength
}

// postingLength is one memory's length in a posting family's statistics;
// ok is false when it has no postings there.
type postingLength struct {
	n  uint64
	ok bool
}

// encodeMemory encodes what m (its id and doc number assigned) stores of
// fp; its caller has checked fp against the indexes (checkIndexable,
// writeMemory).
func (s *Engine) encodeMemory(m record.Memory, fp *fingerprint.Fingerprint) (encodedMemory, error) {
	fpv, err := encodeStored(fp)
	if err != nil {
		return encodedMemory{}, fmt.Errorf("encode fingerprint: %w", err)
	}
	e := encodedMemory{puts: []keyedValue{{cellar.FamFingerprints, m.ID[:], fpv}}, lengths: make([]postingLength, len(postingFamilies))}
	for _, c := range columns {
		if v := fp.Get(c.slot).Value; v != nil {
			cv, err := c.encode(v)
			if err != nil {
				return encodedMemory{}, fmt.Errorf("%s: %w", c.slot, err)
			}
			e.puts = append(e.puts, keyedValue{c.family, docKey(m.DocNum), cv})
		}
	}
	for k, pf := range postingFamilies {
		v := fp.Get(pf.slot).Value
		if v == nil {
			continue
		}
		terms, vals, length, ok := pf.postings(v)
		if !ok {
			continue
		}
		e.puts = slices.Grow(e.puts, len(terms))
		for j, t := range terms {
			e.puts = append(e.puts, keyedValue{pf.family, postingKey(t, m.DocNum), vals[j]})
		}
		e.lengths[k] = postingLength{n: length, ok: true}
	}
	return e, nil
}

// writable refuses writes while a slot awaits re-embedding.
func (s *Engine) writable() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, why := range s.stale {
		if why != "" {
			return fmt.Errorf("store %s: %s; finish that before adding memories", s.dir, why)
		}
	}
	return nil
}

// Delete removes the memory from every family (its postings included) in
// one batch, then from the indexes.
func (s *Engine) Delete(ctx context.Context, id record.ID) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return err
	}
	defer b.Abort()
	m, rels, err := s.deleteIn(ctx, b, id, nil)
	if err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("delete memory %s: %w", id, err)
	}
	s.afterDelete(ctx, m, rels)
	return nil
}

// deleteIn deletes id in b: every key it owns (its history and relations
// among them) and its postings. With a non-nil action it keeps what it
// deletes under that action (cellar.Batch.DeleteKeeping), the fingerprint
// with its E12 rows, so that Undo needs no model.
// REQUIRES: s.writeMu held.
func (s *Engine) deleteIn(ctx context.Context, b *cellar.Batch, id record.ID, action *ActionID) (record.Memory, []record.Relation, error) {
	v, found, err := b.Get(cellar.FamFingerprints, id[:])
	if errors.Is(err, record.ErrCorrupt) {
		// A damaged block must not make its memory undeletable: its
		// postings are found by scanning below instead.
		v, found, err = nil, false, nil
	}
	if err != nil {
		return record.Memory{}, nil, err
	}
	var m record.Memory
	var rels []record.Relation
	if action == nil {
		if rels, err = s.cellar.Relations(ctx, id); err != nil { // writeMu held: they stay as read
			return record.Memory{}, nil, err
		}
		m, err = b.Delete(id) // every key keyed per memory, its history and relations among them
	} else {
		var full []byte
		if full, err = s.fullFingerprint(ctx, id); err != nil {
			return record.Memory{}, nil, fmt.Errorf("keep memory %s for undo: %w", id, err)
		}
		var k cellar.Kept
		k, err = b.DeleteKeeping(id, *action, full)
		m, rels = k.Memory, k.Relations
	}
	if err != nil {
		return record.Memory{}, nil, err
	}
	var fp *fingerprint.Fingerprint
	if found {
		// An unreadable fingerprint must not make its memory undeletable.
		fp, _ = fingerprint.Decode(v)
	}
	// Postings are shared between memories: the batch's writer keeps them.
	for _, pf := range postingFamilies {
		if fp == nil {
			if err := dropDocPostings(ctx, s.cellar, b, pf, m.DocNum); err != nil {
				return record.Memory{}, nil, err
			}
			continue
		}
		if old := fp.Get(pf.slot).Value; old != nil {
			if err := pf.write(b, m.DocNum, old, -1); err != nil {
				return record.Memory{}, nil, err
			}
		}
	}
	return m, rels, nil
}

// fullFingerprint is the stored fingerprint of id with its E12 rows, in
// the fingerprint codec; nil when the memory has none.
func (s *Engine) fullFingerprint(ctx context.Context, id record.ID) ([]byte, error) {
	_, fps, err := s.readMemories(ctx, []record.ID{id})
	if err != nil || fps[0] == nil {
		return nil, err
	}
	return fingerprint.Encode(fps[0])
}

// afterDelete drops a deleted memory from the in-memory indexes.
func (s *Engine) afterDelete(ctx context.Context, m record.Memory, rels []record.Relation) {
	if s.ix == nil { // nil when opened for records only
		return
	}
	s.ix.remove(m.DocNum)
	s.tokens.remove(m.DocNum)
	for _, r := range rels { // what it superseded or contradicted is no longer so by it
		if r.From == m.ID {
			s.setMark(ctx, r.Type, r.From, r.To, false)
		}
	}
}

// writeSlot moves one doc's stored data of slot from old to new (either may
// be nil): the per-doc families and the postings with their statistics.
func writeSlot(b *cellar.Batch, doc record.DocNum, slot fingerprint.SlotID, old, new fingerprint.Value) error {
	for _, c := range columns {
		if c.slot != slot {
			continue
		}
		var v []byte
		if new != nil {
			var err error
			if v, err = c.encode(new); err != nil {
				return err
			}
		}
		switch {
		case v != nil:
			b.Put(c.family, docKey(doc), v)
		case old != nil:
			b.Del(c.family, docKey(doc))
		}
	}
	for _, pf := range postingFamilies {
		if pf.slot != slot {
			continue
		}
		if old != nil {
			if err := pf.write(b, doc, old, -1); err != nil {
				return err
			}
		}
		if new != nil {
			if err := pf.write(b, doc, new, +1); err != nil {
				return err
			}
		}
	}
	return nil
}
