package indexes

import (
	"fmt"
	"math"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// BM25Params are the Okapi BM25 constants.
type BM25Params struct {
	K1 float64 // term-frequency saturation, usually 0.9–1.5
	B  float64 // length normalisation in [0, 1]
}

// DefaultBM25 are the usual constants (Lucene's defaults).
var DefaultBM25 = BM25Params{K1: 1.2, B: 0.75}

// BM25 is the E6 keyword index: term → posting list of (doc, term frequency),
// per-doc lengths, and the corpus statistics N, df and avgdl kept current on
// every add and delete. A doc's score for a query is
//
//	Σ_t qtf(t) · idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)),
//	idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))
//
// (the always-positive idf of Lucene). Search uses MaxScore and returns exactly
// the exhaustive top k.
//
// BM25 is safe for concurrent use: searches share a read lock, Add, Delete and
// Build take the write lock.
type BM25 struct {
	name   string
	params BM25Params

	mu    sync.RWMutex
	dict  map[string]TermID // term → id; ids of terms with no docs are dropped
	free  []TermID          // ids released by dropped terms, reused first
	names []string          // id → term
	ix    *inverted
}

// NewBM25 returns an empty index with params p.
func NewBM25(name string, p BM25Params) (*BM25, error) {
	if p.K1 < 0 || math.IsNaN(p.K1) || math.IsInf(p.K1, 0) {
		return nil, fmt.Errorf("BM25 index %q: k1 = %v must be finite and ≥ 0 (typical 1.2)", name, p.K1)
	}
	if !(p.B >= 0 && p.B <= 1) {
		return nil, fmt.Errorf("BM25 index %q: b = %v must be in [0, 1] (typical 0.75)", name, p.B)
	}
	return &BM25{name: name, params: p, dict: map[string]TermID{}, ix: newInverted()}, nil
}

// Stats are the corpus statistics BM25 scores with.
type Stats struct {
	Docs      int     // N, live documents
	Terms     int     // distinct terms with at least one document
	AvgDocLen float64 // avgdl
}

// Stats returns the current corpus statistics.
func (x *BM25) Stats() Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return Stats{Docs: x.ix.n, Terms: len(x.ix.terms), AvgDocLen: x.avgdlLocked()}
}

// Bytes estimates the heap bytes of the postings, the per-doc tables and the
// dictionary.
func (x *BM25) Bytes() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := x.ix.bytes() + 4*len(x.free)
	for _, t := range x.names {
		n += 16 + len(t) + 40 // names slice entry, bytes, dictionary entry
	}
	return n
}

// DocFreq returns the number of live docs containing term.
func (x *BM25) DocFreq(term string) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if id, ok := x.dict[term]; ok {
		return len(x.ix.terms[id].docs)
	}
	return 0
}

func (x *BM25) avgdlLocked() float64 {
	if x.ix.n == 0 {
		return 0
	}
	return float64(x.ix.total) / float64(x.ix.n)
}

// checkTF validates a bag of terms.
func checkTF(what string, tf fingerprint.TermFreqs) error {
	if len(tf.Terms) != len(tf.Counts) {
		return fmt.Errorf("%s: %d terms but %d counts", what, len(tf.Terms), len(tf.Counts))
	}
	for i, t := range tf.Terms {
		if i > 0 && t <= tf.Terms[i-1] {
			return fmt.Errorf("%s: terms must be strictly ascending (%q after %q)", what, t, tf.Terms[i-1])
		}
		if tf.Counts[i] == 0 {
			return fmt.Errorf("%s: term %q has count 0; drop it instead", what, t)
		}
	}
	return nil
}

// Add indexes (or re-indexes) doc's term counts. The doc length is tf.DocLen().
// Cost: O(terms · log df), plus shifting tails when doc is not the largest number
// in a posting list.
func (x *BM25) Add(doc record.DocNum, tf fingerprint.TermFreqs) error {
	what := fmt.Sprintf("BM25 index %q: add doc %d", x.name, doc)
	if err := checkDoc(what, doc); err != nil {
		return err
	}
	if err := checkTF(what, tf); err != nil {
		return err
	}
	dl := tf.DocLen()
	if dl > math.MaxUint32 {
		return fmt.Errorf("%s: document length %d exceeds %d tokens", what, dl, uint32(math.MaxUint32))
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.addLocked(doc, tf, uint32(dl))
	return nil
}

// addLocked indexes a validated doc. REQUIRES: x.mu held for writing.
func (x *BM25) addLocked(doc record.DocNum, tf fingerprint.TermFreqs, dl uint32) {
	x.releaseLocked(x.ix.remove(doc))
	ids := make([]TermID, len(tf.Terms))
	imps := make([]float32, len(tf.Terms))
	for i, t := range tf.Terms {
		id, ok := x.dict[t]
		if !ok {
			if n := len(x.free); n > 0 {
				id, x.free = x.free[n-1], x.free[:n-1]
				x.names[id] = t
			} else {
				id = TermID(len(x.names))
				x.names = append(x.names, t)
			}
			x.dict[t] = id
		}
		ids[i], imps[i] = id, float32(tf.Counts[i])
	}
	x.ix.add(doc, ids, imps, dl)
}

// releaseLocked forgets the names of removed terms that no doc uses any more.
func (x *BM25) releaseLocked(terms []TermID) {
	for _, id := range terms {
		if _, live := x.ix.terms[id]; !live {
			delete(x.dict, x.names[id])
			x.names[id] = ""
			x.free = append(x.free, id)
		}
	}
}

// Build replaces the contents with docs[i] → tfs[i]; on error nothing changes.
func (x *BM25) Build(docs []record.DocNum, tfs []fingerprint.TermFreqs) error {
	if len(docs) != len(tfs) {
		return fmt.Errorf("BM25 index %q: build got %d doc numbers and %d term bags", x.name, len(docs), len(tfs))
	}
	y, err := NewBM25(x.name, x.params)
	if err != nil {
		return err
	}
	for _, i := range byDoc(docs) { // ascending docs append to posting lists
		d := docs[i]
		what := fmt.Sprintf("BM25 index %q: build doc %d", x.name, d)
		if err := checkDoc(what, d); err != nil {
			return err
		}
		if err := checkTF(what, tfs[i]); err != nil {
			return err
		}
		if y.ix.has(d) {
			return fmt.Errorf("BM25 index %q: build got doc %d twice", x.name, d)
		}
		dl := tfs[i].DocLen()
		if dl > math.MaxUint32 {
			return fmt.Errorf("%s: document length %d exceeds %d tokens", what, dl, uint32(math.MaxUint32))
		}
		y.addLocked(d, tfs[i], uint32(dl))
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.dict, x.free, x.names, x.ix = y.dict, y.free, y.names, y.ix
	return nil
}

// Delete unindexes doc and reports whether it was present.
func (x *BM25) Delete(doc record.DocNum) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.ix.has(doc) {
		return false
	}
	x.releaseLocked(x.ix.remove(doc))
	return true
}

// resolveLocked turns query terms into scored query terms; unknown terms are
// dropped (they match nothing). Repeated terms count as query term frequency.
func (x *BM25) resolveLocked(query []string, weights []float64) ([]qterm, scoreFn) {
	qtf := map[TermID]float64{}
	for i, t := range query {
		if id, ok := x.dict[t]; ok {
			if weights == nil {
				qtf[id]++
			} else {
				qtf[id] += weights[i]
			}
		}
	}
	k1, b, avgdl, n := x.params.K1, x.params.B, x.avgdlLocked(), float64(x.ix.n)
	dl := x.ix.dl
	norm := func(l uint32) float64 {
		if avgdl == 0 {
			return k1
		}
		return k1 * (1 - b + b*float64(l)/avgdl)
	}
	qs := make([]qterm, 0, len(qtf))
	for id, w := range qtf {
		p := x.ix.terms[id]
		df := float64(len(p.docs))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		tf := float64(p.maxImp)
		ub := w * idf * tf * (k1 + 1) / (tf + norm(p.minLen))
		qs = append(qs, qterm{id: id, p: p, w: w, idf: idf, ub: ub})
	}
	order(qs)
	score := func(t *qterm, d record.DocNum, imp float32) float64 {
		tf := float64(imp)
		return t.w * t.idf * tf * (k1 + 1) / (tf + norm(dl[d]))
	}
	return qs, score
}

// Search returns the top k docs for the query terms (best first), among filter's
// docs when filter is non-nil. Terms not in the index match nothing; an empty
// result is not an error. The result is exact; k ≤ 100 uses MaxScore, larger k a
// dense term-at-a-time accumulator (whichever measured faster). Cost: at most one
// pass over the query terms' posting lists.
func (x *BM25) Search(query []string, k int, filter *roaring.Bitmap) (Hits, error) {
	return x.search(query, nil, k, filter, algoAuto)
}

// SearchWeighted is Search with a query weight per term in place of the
// counted repeats (weights[i] for query[i]; a repeated term sums its
// weights): the expanded queries of pseudo-relevance feedback, whose added
// terms weigh a fraction of a typed one. Weights must be finite and ≥ 0.
// exhaustive scores every posting (SearchExhaustive's baseline).
func (x *BM25) SearchWeighted(query []string, weights []float64, k int, filter *roaring.Bitmap, exhaustive bool) (Hits, error) {
	if len(weights) != len(query) {
		return nil, fmt.Errorf("BM25 index %q: search: %d terms but %d weights", x.name, len(query), len(weights))
	}
	for i, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("BM25 index %q: search: term %q has weight %v: give a finite weight ≥ 0", x.name, query[i], w)
		}
	}
	a := algoAuto
	if exhaustive {
		a = algoExhaustive
	}
	return x.search(query, weights, k, filter, a)
}

// SearchExhaustive is Search scoring every posting (term at a time): the
// reference and the baseline for Search's early termination.
func (x *BM25) SearchExhaustive(query []string, k int, filter *roaring.Bitmap) (Hits, error) {
	return x.search(query, nil, k, filter, algoExhaustive)
}

func (x *BM25) search(query []string, weights []float64, k int, filter *roaring.Bitmap, a algo) (Hits, error) {
	if err := checkK(fmt.Sprintf("BM25 index %q: search", x.name), k); err != nil {
		return nil, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	qs, score := x.resolveLocked(query, weights)
	return x.ix.topK(qs, k, filter, score, a, math.MaxInt), nil
}
