package engine

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/record"
)

// densePrecision is how every dense ANN space keeps its vectors. Int8: ten
// 384-d spaces cost 4.4 KB per memory instead of 15.9 KB in float32, which
// the 6 KB-per-memory RAM goal (issue 5) requires; cosines move by ≤ 0.004
// and recall@10 on real embeddings stays ≥ 0.98 at the default rerank depth
// (indexes package doc).
const densePrecision = indexes.Int8

// e1Rerank is the rerank depth of the E1 space, the foundation and the most
// weighted. Measured with indexes TestRealEmbeddingsRecall (CGRAPH_VECTORS_DIR
// from `go run ./indexes/testdata/embedgen -e1`: 60,176 Go standard-library
// comment blocks, grown to 100k with noisy near-duplicate copies, 1/10
// deleted; and a near-duplicate-heavy 100k of 3,000 of them with 33 copies
// each), int8 recall@10 against exact float32 cosine at 512 / 1024 / 2048 is
// 0.926 / 0.950 / 0.962 on the first corpus and 0.860 / 0.920 / 0.952 on the
// near-duplicate one; a search takes about 1.5 ms at 2048 (BenchmarkRealDense).
// 2048 is the first depth at or above 0.95 on both.
const e1Rerank = 2048

// spaceRerank is each dense space's rerank depth where the default (512)
// does not keep recall@10 ≥ 0.95 at 100k on real vectors of its model (same
// test, `embedgen -e1 -slot E5` for bge-small-en-v1.5 side A queried as side
// B): E5 reaches 0.975 at 1024 on the first corpus but 0.940 / 0.952 at 1024 /
// 2048 on the near-duplicate one, so it gets 2048. all-MiniLM-L6-v2 (E7, E10,
// E11) reaches 0.994 and 0.976 at 512 (CGRAPH_VECTORS_DEPTH=512) and keeps
// the default.
var spaceRerank = map[fingerprint.SlotID]int{fingerprint.E1: e1Rerank, fingerprint.E5: 2048}

// indexSet is the in-memory search state of a store: one index per space,
// rebuilt from the families on open and updated with every write (beside
// its commit; a failed commit takes its docs out again).
// Its own indexes are safe for concurrent use; the set's fields (maps, the
// temporal table, entity sets) are guarded by mu.
type indexSet struct {
	mu sync.RWMutex
	// dense ANN spaces, created at the first vector (its length fixes Dim).
	dense map[spaceKey]*indexes.Dense
	// m128 is the E1-Matryoshka-128 flat scan (float32: int8 does not pay
	// for a 128-d scan, indexes doc).
	m128   *indexes.Flat
	bm25   *indexes.BM25
	splade *indexes.Splade
	// has[slot] holds the docs with a value of the slot (any status that
	// carries one): what "has a representation" means per space.
	has [fingerprint.NumSlots]*roaring.Bitmap
	// live holds every stored doc.
	live *roaring.Bitmap
	// hyper holds the E9 hypervectors for Hamming scoring.
	hyper indexes.Hypervectors
	// e12Dim is the token width of the stored E12 matrices (0: none yet).
	e12Dim int
	// names holds each doc's E11 entity names for exact-name Jaccard.
	names *indexes.NameSets
	// speller corrects query words against the surface vocabulary of the
	// stored text (every word as written, stop words included).
	speller *indexes.Speller
	// times is what the temporal slots score from after retrieval.
	times *indexes.DocTimes
	// attrs is what search filters select from.
	attrs *attrs

	// next is one past the highest doc number applyNew has added, and
	// changes counts every other change (a re-indexed, removed or
	// re-attributed doc, a doc added below next): a search made when they
	// were (next, changes) is still right for the docs below next while
	// changes has not moved (Engine.presearch).
	next    record.DocNum
	changes uint64
	// committed is one past the highest doc number of a committed write
	// (applyNew runs beside the commit, so next may run ahead of it).
	committed record.DocNum
}

func newIndexSet() (*indexSet, error) {
	m128, err := indexes.NewFlat("E1-Matryoshka-128", 128)
	if err != nil {
		return nil, err
	}
	bm25, err := indexes.NewBM25("E6 keywords", indexes.BM25Params{K1: 1.2, B: 0.75})
	if err != nil {
		return nil, err
	}
	x := &indexSet{dense: map[spaceKey]*indexes.Dense{}, m128: m128, bm25: bm25,
		splade: indexes.NewSplade("E13 SPLADE"), live: roaring.New(),
		names: indexes.NewNameSets(), times: indexes.NewDocTimes(), speller: indexes.NewSpeller(), attrs: newAttrs()}
	for i := range x.has {
		x.has[i] = roaring.New()
	}
	return x, nil
}

// denseSpace returns the space k, creating it with dim when create is set.
// REQUIRES: x.mu held (write when create).
func (x *indexSet) denseSpaceLocked(k spaceKey, dim int, create bool) (*indexes.Dense, error) {
	if d := x.dense[k]; d != nil {
		if dim != 0 && d.Dim() != dim {
			return nil, fmt.Errorf("%s vector has %d dims, the store's %s index %d: the slot's producer changed; run `cgraph reembed --slot %s`", k, dim, k, d.Dim(), k.slot)
		}
		return d, nil
	}
	if !create {
		return nil, nil
	}
	rerank := spaceRerank[k.slot] // 0: indexes.DefaultRerank (512)
	d, err := indexes.NewDense(indexes.DenseConfig{Name: k.String(), Dim: dim, Precision: densePrecision, Rerank: rerank})
	if err != nil {
		return nil, err
	}
	x.dense[k] = d
	return d, nil
}

// check reports whether fp fits the indexes (dims of existing spaces, E12
// token width), before its memory is written, so that a committed memory
// never fails to index.
func (x *indexSet) check(fp *fingerprint.Fingerprint) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for _, c := range denseColumns() {
		v := fp.Get(c.slot).Value
		if v == nil {
			continue
		}
		if vec := c.vector(v); len(vec) > 0 {
			if _, err := x.denseSpaceLocked(c.space(), len(vec), false); err != nil {
				return err
			}
		}
	}
	if t, ok := fp.Get(fingerprint.E12).Value.(fingerprint.Tokens); ok && x.e12Dim != 0 && int(t.Dim) != x.e12Dim {
		return fmt.Errorf("E12 tokens are %d wide, the store's %d: run `cgraph reembed --slot E12`", t.Dim, x.e12Dim)
	}
	return nil
}

// apply indexes one committed memory (or replaces the slots of a re-embedded
// one: only slots in only, all when only is nil).
func (x *indexSet) apply(m record.Memory, fp *fingerprint.Fingerprint, only []fingerprint.SlotID) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.changes++
	return x.applyLocked(m, fp, only, func(d *indexes.Dense, doc record.DocNum, vec []float32) error { return d.Add(doc, vec) })
}

// denseAdd is one vector for one dense space.
type denseAdd struct {
	doc record.DocNum
	vec []float32
}

// applyNew indexes newly committed memories (ms[i] with fps[i], skipping
// those skip marks) under one lock: everything but the dense spaces in
// order, then each dense space's vectors on its own goroutine (a Dense
// takes one writer at a time; the spaces are independent). errs[i] is
// memory i's error, if any.
func (x *indexSet) applyNew(ms []record.Memory, fps []fingerprint.Fingerprint, skip []bool) []error {
	x.mu.Lock()
	defer x.mu.Unlock()
	errs := make([]error, len(ms))
	jobs := map[*indexes.Dense][]denseAdd{}
	owner := map[record.DocNum]int{}
	for i := range ms {
		if skip[i] {
			continue
		}
		owner[ms[i].DocNum] = i
		if ms[i].DocNum >= x.next {
			x.next = ms[i].DocNum + 1
		} else {
			x.changes++
		}
		errs[i] = x.applyLocked(ms[i], &fps[i], nil, func(d *indexes.Dense, doc record.DocNum, vec []float32) error {
			jobs[d] = append(jobs[d], denseAdd{doc, vec})
			return nil
		})
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for d, adds := range jobs {
		wg.Go(func() {
			for _, a := range adds {
				if err := d.Add(a.doc, a.vec); err != nil {
					mu.Lock()
					i := owner[a.doc]
					errs[i] = errors.Join(errs[i], fmt.Errorf("index %s of doc %d: %w", d.Name(), a.doc, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// applyLocked is apply with x.mu held; add puts one vector into a dense
// space (now, or later: applyNew).
func (x *indexSet) applyLocked(m record.Memory, fp *fingerprint.Fingerprint, only []fingerprint.SlotID, add func(d *indexes.Dense, doc record.DocNum, vec []float32) error) error {
	doc := m.DocNum
	want := func(s fingerprint.SlotID) bool { return only == nil || slices.Contains(only, s) }
	if only == nil {
		x.live.Add(uint32(doc))
		x.setMetaLocked(m)
		x.speller.AddText(m.Content)
	}
	for _, s := range fingerprint.Slots() {
		if !want(s) {
			continue
		}
		x.dropSlotLocked(doc, s)
		if fp.Get(s).Value != nil {
			x.has[s.Index()].Add(uint32(doc))
		}
	}
	for _, c := range denseColumns() {
		if !want(c.slot) {
			continue
		}
		v := fp.Get(c.slot).Value
		if v == nil {
			continue
		}
		if c.keep != nil {
			c.keep(x, doc, v)
		}
		vec := c.vector(v)
		if len(vec) == 0 {
			continue
		}
		d, err := x.denseSpaceLocked(c.space(), len(vec), true)
		if err != nil && only != nil {
			// Re-embedding with a producer of other dims: the space starts
			// over; every memory of the slot is being recomputed.
			delete(x.dense, c.space())
			d, err = x.denseSpaceLocked(c.space(), len(vec), true)
		}
		if err != nil {
			return err
		}
		if err := add(d, doc, vec); err != nil {
			return fmt.Errorf("index %s of doc %d: %w", c.space(), doc, err)
		}
	}
	e1 := fp.Get(fingerprint.E1).Value
	if want(fingerprint.E1) && e1 != nil {
		if v := denseOf(e1); len(v) >= 128 {
			if err := x.m128.Add(doc, v); err != nil {
				return fmt.Errorf("index E1-Matryoshka-128 of doc %d: %w", doc, err)
			}
		}
	}
	if tf, ok := fp.Get(fingerprint.E6).Value.(fingerprint.TermFreqs); ok && want(fingerprint.E6) && len(tf.Terms) > 0 {
		if err := x.bm25.Add(doc, tf); err != nil {
			return fmt.Errorf("index E6 of doc %d: %w", doc, err)
		}
	}
	if sp, ok := fp.Get(fingerprint.E13).Value.(fingerprint.Sparse); ok && want(fingerprint.E13) && len(sp.Indices) > 0 {
		if err := x.splade.Add(doc, sp); err != nil {
			return fmt.Errorf("index E13 of doc %d: %w", doc, err)
		}
	}
	if t, ok := fp.Get(fingerprint.E12).Value.(fingerprint.Tokens); ok && want(fingerprint.E12) && (x.e12Dim == 0 || only != nil) {
		x.e12Dim = int(t.Dim)
	}
	return nil
}

// dropSlotLocked removes doc from every index of slot s.
// REQUIRES: x.mu held for writing.
func (x *indexSet) dropSlotLocked(doc record.DocNum, s fingerprint.SlotID) {
	x.has[s.Index()].Remove(uint32(doc))
	for k, d := range x.dense {
		if k.slot == s {
			d.Delete(doc)
		}
	}
	switch s { // the non-dense indexes of a slot
	case fingerprint.E1:
		x.m128.Delete(doc)
	case fingerprint.E6:
		x.bm25.Delete(doc)
	case fingerprint.E13:
		x.splade.Delete(doc)
	case fingerprint.E11:
		x.names.Remove(doc)
	case fingerprint.E9:
		x.hyper.Remove(doc)
	}
}

// markCommitted records that the docs below next are committed.
func (x *indexSet) markCommitted(next record.DocNum) {
	x.mu.Lock()
	x.committed = max(x.committed, next)
	x.mu.Unlock()
}

// remove drops a deleted memory from every index.
func (x *indexSet) remove(doc record.DocNum) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.changes++
	for _, s := range fingerprint.Slots() {
		x.dropSlotLocked(doc, s)
	}
	x.live.Remove(uint32(doc))
	x.times.Remove(doc)
	x.attrs.remove(doc)
}

// setMetaLocked records m's record fields (times, filterable attributes).
// REQUIRES: x.mu held for writing.
func (x *indexSet) setMetaLocked(m record.Memory) {
	x.times.Set(m.DocNum, m.CreatedAt, m.Session, m.Sequence)
	x.attrs.set(m)
}

// setMeta is setMetaLocked for a memory whose record alone changed.
func (x *indexSet) setMeta(m record.Memory) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.changes++
	x.setMetaLocked(m)
}

// codeDocs returns a copy of the memories that read as code (attrs'
// code bitmap), for the auto profile's routing.
func (x *indexSet) codeDocs() *roaring.Bitmap {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.attrs.code.Clone()
}

// allow returns the docs that pass f (nil: every live doc does).
func (x *indexSet) allow(f record.Filter) *roaring.Bitmap {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.attrs.allow(f, x.live)
}

// ramBytes estimates the heap bytes of the in-memory indexes per slot.
func (x *indexSet) ramBytes() [fingerprint.NumSlots]int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out [fingerprint.NumSlots]int64
	for k, d := range x.dense {
		out[k.slot.Index()] += int64(d.Bytes())
	}
	out[fingerprint.E1.Index()] += int64(x.m128.Bytes())
	out[fingerprint.E6.Index()] += int64(x.bm25.Bytes()) + x.speller.Bytes()
	out[fingerprint.E13.Index()] += int64(x.splade.Bytes())
	out[fingerprint.E9.Index()] += x.hyper.Bytes()
	for i := range x.has {
		out[i] += int64(x.has[i].GetSizeInBytes())
	}
	out[fingerprint.E11.Index()] += x.names.Bytes()
	// The temporal table serves E2, E3 and E4; it is counted once, under E2,
	// with the record attributes filters use.
	out[fingerprint.E2.Index()] += x.times.Bytes() + int64(x.live.GetSizeInBytes()) + x.attrs.bytes()
	return out
}
