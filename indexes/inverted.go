package indexes

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/record"
)

// TermID is a term of an inverted index: a vocabulary index for SPLADE, an id
// from the BM25 index's own dictionary for E6.
type TermID uint32

// postingList is one term's documents, ascending, with a parallel impact per doc
// (the term frequency for BM25, the weight for SPLADE). maxImp and minLen bound
// the term's contribution for MaxScore; deletes never lower maxImp nor raise
// minLen, so the bound stays safe (only looser) until the next Build.
type postingList struct {
	docs   []record.DocNum
	imps   []float32
	maxImp float32
	minLen uint32
}

// insert adds or replaces (doc, imp). Appending in doc order is O(1); an
// out-of-order insert shifts the tail.
func (p *postingList) insert(doc record.DocNum, imp float32, dl uint32) {
	i, found := slices.BinarySearch(p.docs, doc)
	if found {
		p.imps[i] = imp
	} else {
		p.docs = slices.Insert(p.docs, i, doc)
		p.imps = slices.Insert(p.imps, i, imp)
	}
	if len(p.docs) == 1 || dl < p.minLen {
		p.minLen = dl
	}
	p.maxImp = max(p.maxImp, imp)
}

// remove drops doc; O(df).
func (p *postingList) remove(doc record.DocNum) {
	if i, found := slices.BinarySearch(p.docs, doc); found {
		p.docs = slices.Delete(p.docs, i, i+1)
		p.imps = slices.Delete(p.imps, i, i+1)
	}
}

// seek returns the first position ≥ from whose doc is ≥ d (galloping search).
func (p *postingList) seek(from int, d record.DocNum) int {
	if from >= len(p.docs) || p.docs[from] >= d {
		return from
	}
	step := 1
	lo, hi := from, from+1
	for hi < len(p.docs) && p.docs[hi] < d {
		lo = hi
		step *= 2
		hi = from + step
	}
	hi = min(hi, len(p.docs))
	i, _ := slices.BinarySearch(p.docs[lo:hi], d)
	return lo + i
}

// byDoc returns the positions of docs in ascending doc order, so a bulk build
// appends to posting lists instead of inserting into their middle (O(n²) for
// input in arbitrary order, such as a column family keyed by memory id).
func byDoc(docs []record.DocNum) []int {
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case docs[a] < docs[b]:
			return -1
		case docs[a] > docs[b]:
			return 1
		}
		return 0
	})
	return idx
}

// inverted is the core shared by BM25 and Splade: posting lists, per-doc term
// lists (for deletes) and lengths, and the top-k algorithms. It is not safe for
// concurrent use; the wrappers lock.
type inverted struct {
	terms map[TermID]*postingList
	fwd   [][]TermID // doc → its terms, nil when absent
	dl    []uint32   // doc → length (BM25) or number of terms
	n     int        // live docs
	total uint64     // Σ dl over live docs
}

func newInverted() *inverted { return &inverted{terms: map[TermID]*postingList{}} }

// bytes estimates the heap bytes: 8 per posting (doc + impact), 4 per forward
// term, 28 per doc-number slot (slice header + length), about 80 per term (map
// entry and list header). Slice over-allocation is not counted.
func (ix *inverted) bytes() int {
	n := 28*len(ix.fwd) + 80*len(ix.terms)
	for _, p := range ix.terms {
		n += 8 * len(p.docs)
	}
	for _, f := range ix.fwd {
		n += 4 * len(f)
	}
	return n
}

// has reports whether doc is indexed.
func (ix *inverted) has(doc record.DocNum) bool { return int(doc) < len(ix.fwd) && ix.fwd[doc] != nil }

// add indexes doc with terms[i] → imps[i] and length dl, replacing any earlier
// version. REQUIRES: terms unique.
func (ix *inverted) add(doc record.DocNum, terms []TermID, imps []float32, dl uint32) {
	ix.remove(doc)
	if int(doc) >= len(ix.fwd) {
		ix.fwd = append(ix.fwd, make([][]TermID, int(doc)+1-len(ix.fwd))...)
		ix.dl = append(ix.dl, make([]uint32, int(doc)+1-len(ix.dl))...)
	}
	for i, t := range terms {
		p := ix.terms[t]
		if p == nil {
			p = &postingList{}
			ix.terms[t] = p
		}
		p.insert(doc, imps[i], dl)
	}
	ix.fwd[doc] = append(make([]TermID, 0, len(terms)), terms...)
	ix.dl[doc] = dl
	ix.n++
	ix.total += uint64(dl)
}

// remove unindexes doc and returns its terms (nil if absent). Terms left with no
// documents are dropped.
func (ix *inverted) remove(doc record.DocNum) []TermID {
	if !ix.has(doc) {
		return nil
	}
	terms := ix.fwd[doc]
	for _, t := range terms {
		p := ix.terms[t]
		p.remove(doc)
		if len(p.docs) == 0 {
			delete(ix.terms, t)
		}
	}
	ix.fwd[doc] = nil
	ix.n--
	ix.total -= uint64(ix.dl[doc])
	ix.dl[doc] = 0
	return terms
}

// qterm is one query term resolved against the index.
type qterm struct {
	id TermID
	p  *postingList
	w  float64 // query weight (qtf for BM25, query impact for SPLADE)
	// idf is the BM25 idf (1 for SPLADE).
	idf float64
	ub  float64 // upper bound of this term's contribution to any doc
}

// scoreFn is a term's contribution to a doc with impact imp.
type scoreFn func(t *qterm, d record.DocNum, imp float32) float64

// slack inflates upper bounds so float rounding never prunes a doc whose exact
// float32 score would tie or beat the threshold.
const slack = 1 + 1e-6

// order sorts query terms by ascending upper bound, ties by TermID: the
// canonical order in which both algorithms sum a doc's contributions, so their
// scores are bit-identical.
func order(qs []qterm) {
	slices.SortFunc(qs, func(a, b qterm) int {
		switch {
		case a.ub < b.ub:
			return -1
		case a.ub > b.ub:
			return 1
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
}

// exhaustive scores every doc of every query term (term at a time) and returns
// the top k. It is the reference MaxScore is tested against. REQUIRES: order(qs).
func (ix *inverted) exhaustive(qs []qterm, k int, filter *roaring.Bitmap, score scoreFn) Hits {
	ap := accPool.Get().(*accumulator)
	defer accPool.Put(ap)
	acc, seen := ap.get(len(ix.fwd))
	var touched []record.DocNum
	for i := range qs {
		t := &qs[i]
		for j, d := range t.p.docs {
			if filter != nil && !filter.Contains(uint32(d)) {
				continue
			}
			if !seen[d] {
				seen[d] = true
				touched = append(touched, d)
			}
			acc[d] += score(t, d, t.p.imps[j])
		}
	}
	top := newTopK(k)
	for _, d := range touched {
		top.offer(Hit{Doc: d, Score: float32(acc[d])})
		acc[d], seen[d] = 0, false // leave the pooled buffers clean
	}
	return top.sorted()
}

// accumulator holds the dense per-doc buffers of exhaustive, pooled so a query
// does not allocate 9 bytes per doc number.
type accumulator struct {
	acc  []float64
	seen []bool
}

// get returns zeroed buffers of length n.
func (a *accumulator) get(n int) ([]float64, []bool) {
	if len(a.acc) < n {
		a.acc, a.seen = make([]float64, n), make([]bool, n)
	}
	return a.acc[:n], a.seen[:n]
}

var accPool = sync.Pool{New: func() any { return new(accumulator) }}

// algo selects a top-k algorithm; both are exact.
type algo uint8

const (
	algoAuto       algo = iota // MaxScore where it measured faster, else exhaustive
	algoMaxScore               // always MaxScore (tests)
	algoExhaustive             // always term at a time (baseline, tests)
)

// maxScoreK bounds where MaxScore pays: measured at 10k–100k docs (see the
// package doc), it wins for small k and loses to the dense term-at-a-time
// accumulator for k in the thousands, where the threshold rises late. For SPLADE
// it also needs few query terms (maxScoreTermsSparse): long SPLADE queries have
// bounds of similar size that prune little. BM25 bounds differ by idf, so
// MaxScore paid even for 20-term natural-language queries on real text.
const (
	maxScoreK           = 100
	maxScoreTermsSparse = 8
)

// topK runs the algorithm a chooses; under algoAuto MaxScore runs when k ≤
// maxScoreK and len(qs) ≤ maxTerms. REQUIRES: order(qs).
func (ix *inverted) topK(qs []qterm, k int, filter *roaring.Bitmap, score scoreFn, a algo, maxTerms int) Hits {
	if a == algoMaxScore || (a == algoAuto && len(qs) <= maxTerms && k <= maxScoreK) {
		return ix.maxScore(qs, k, filter, score)
	}
	return ix.exhaustive(qs, k, filter, score)
}

// maxScore returns the same top k as exhaustive, document at a time, skipping
// documents that only non-essential terms could score (Turtle & Flood's MaxScore):
// terms are sorted by upper bound; once the k-th best score θ exceeds the sum of
// the smallest bounds, those terms only refine docs found through the others,
// and a doc is abandoned as soon as its partial score plus the remaining bounds
// falls strictly below θ. REQUIRES: order(qs).
func (ix *inverted) maxScore(qs []qterm, k int, filter *roaring.Bitmap, score scoreFn) Hits {
	n := len(qs)
	top := newTopK(k)
	if n == 0 || k == 0 {
		return top.sorted()
	}
	cum := make([]float64, n) // cum[i] = Σ ub[0..i]
	for i := range qs {
		cum[i] = qs[i].ub
		if i > 0 {
			cum[i] += cum[i-1]
		}
	}
	below := func(bound float64, theta float32) bool { return float32(bound*slack) < theta }
	cur := make([]int, n)
	contrib := make([]float64, n)
	p := 0 // terms [0, p) are non-essential
	for {
		// The next doc is the smallest among essential cursors.
		found := false
		var d record.DocNum
		for i := p; i < n; i++ {
			if c := cur[i]; c < len(qs[i].p.docs) && (!found || qs[i].p.docs[c] < d) {
				d, found = qs[i].p.docs[c], true
			}
		}
		if !found {
			break
		}
		skip := filter != nil && !filter.Contains(uint32(d))
		clear(contrib)
		var partial float64
		for i := p; i < n; i++ {
			if c := cur[i]; c < len(qs[i].p.docs) && qs[i].p.docs[c] == d {
				if !skip {
					contrib[i] = score(&qs[i], d, qs[i].p.imps[c])
					partial += contrib[i]
				}
				cur[i]++
			}
		}
		if skip {
			continue
		}
		pruned := false
		for i := p - 1; i >= 0; i-- {
			if top.full() && below(partial+cum[i], top.worst().Score) {
				pruned = true
				break
			}
			cur[i] = qs[i].p.seek(cur[i], d)
			if c := cur[i]; c < len(qs[i].p.docs) && qs[i].p.docs[c] == d {
				contrib[i] = score(&qs[i], d, qs[i].p.imps[c])
				partial += contrib[i]
			}
		}
		if pruned {
			continue
		}
		var s float64
		for _, c := range contrib {
			s += c
		}
		top.offer(Hit{Doc: d, Score: float32(s)})
		if top.full() {
			for p < n && below(cum[p], top.worst().Score) {
				p++
			}
		}
	}
	return top.sorted()
}

// checkImpacts rejects negative or non-finite impacts: MaxScore's bounds assume
// every contribution is ≥ 0.
func checkImpacts(what string, imps []float32) error {
	for i, w := range imps {
		if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) || w < 0 {
			return fmt.Errorf("%s: weight %d is %v; sparse weights must be finite and ≥ 0", what, i, w)
		}
	}
	return nil
}
