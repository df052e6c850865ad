package indexes

import (
	"fmt"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Splade is the E13 learned-sparse index: vocabulary index → posting list of
// (doc, weight). A doc's score is the dot product Σ_t q(t)·w(t, doc); weights are
// ≥ 0 (SPLADE's log(1+ReLU)), which MaxScore's bounds rely on. Search returns
// exactly the exhaustive top k. E13 recalls only (AP-74/75): it is the S1 stage.
//
// Splade is safe for concurrent use: searches share a read lock, Add, Delete and
// Build take the write lock.
type Splade struct {
	name string

	mu sync.RWMutex
	ix *inverted
}

// NewSplade returns an empty index.
func NewSplade(name string) *Splade { return &Splade{name: name, ix: newInverted()} }

// Len returns the number of live docs.
func (x *Splade) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.ix.n
}

// Bytes estimates the heap bytes of the postings and per-doc tables.
func (x *Splade) Bytes() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.ix.bytes()
}

func checkSparse(what string, v fingerprint.Sparse) error {
	if len(v.Indices) != len(v.Weights) {
		return fmt.Errorf("%s: %d indices but %d weights", what, len(v.Indices), len(v.Weights))
	}
	for i := 1; i < len(v.Indices); i++ {
		if v.Indices[i] <= v.Indices[i-1] {
			return fmt.Errorf("%s: indices must be strictly ascending (%d after %d)", what, v.Indices[i], v.Indices[i-1])
		}
	}
	return checkImpacts(what, v.Weights)
}

func termIDs(idx []uint32) []TermID {
	out := make([]TermID, len(idx))
	for i, t := range idx {
		out[i] = TermID(t)
	}
	return out
}

// Add indexes (or re-indexes) doc's sparse vector. Zero weights are not indexed.
func (x *Splade) Add(doc record.DocNum, v fingerprint.Sparse) error {
	what := fmt.Sprintf("SPLADE index %q: add doc %d", x.name, doc)
	if err := checkDoc(what, doc); err != nil {
		return err
	}
	if err := checkSparse(what, v); err != nil {
		return err
	}
	v = dropZeros(v)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ix.add(doc, termIDs(v.Indices), v.Weights, uint32(len(v.Indices)))
	return nil
}

// dropZeros returns v without its zero weights.
func dropZeros(v fingerprint.Sparse) fingerprint.Sparse {
	var out fingerprint.Sparse
	for i, w := range v.Weights {
		if w > 0 {
			out.Indices = append(out.Indices, v.Indices[i])
			out.Weights = append(out.Weights, w)
		}
	}
	return out
}

// Build replaces the contents with docs[i] → vecs[i]; on error nothing changes.
func (x *Splade) Build(docs []record.DocNum, vecs []fingerprint.Sparse) error {
	if len(docs) != len(vecs) {
		return fmt.Errorf("SPLADE index %q: build got %d doc numbers and %d vectors", x.name, len(docs), len(vecs))
	}
	ix := newInverted()
	for _, i := range byDoc(docs) { // ascending docs append to posting lists
		d := docs[i]
		what := fmt.Sprintf("SPLADE index %q: build doc %d", x.name, d)
		if err := checkDoc(what, d); err != nil {
			return err
		}
		if err := checkSparse(what, vecs[i]); err != nil {
			return err
		}
		if ix.has(d) {
			return fmt.Errorf("SPLADE index %q: build got doc %d twice", x.name, d)
		}
		v := dropZeros(vecs[i])
		ix.add(d, termIDs(v.Indices), v.Weights, uint32(len(v.Indices)))
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ix = ix
	return nil
}

// Delete unindexes doc and reports whether it was present.
func (x *Splade) Delete(doc record.DocNum) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.ix.remove(doc) != nil
}

func (x *Splade) resolveLocked(q fingerprint.Sparse) []qterm {
	qs := make([]qterm, 0, len(q.Indices))
	for i, t := range q.Indices {
		p := x.ix.terms[TermID(t)]
		if p == nil || q.Weights[i] == 0 {
			continue
		}
		w := float64(q.Weights[i])
		qs = append(qs, qterm{id: TermID(t), p: p, w: w, idf: 1, ub: w * float64(p.maxImp)})
	}
	order(qs)
	return qs
}

func spladeScore(t *qterm, _ record.DocNum, imp float32) float64 { return t.w * float64(imp) }

func (x *Splade) search(q fingerprint.Sparse, k int, filter *roaring.Bitmap, a algo) (Hits, error) {
	what := fmt.Sprintf("SPLADE index %q: search", x.name)
	if err := checkK(what, k); err != nil {
		return nil, err
	}
	if err := checkSparse(what, q); err != nil {
		return nil, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	qs := x.resolveLocked(q)
	return x.ix.topK(qs, k, filter, spladeScore, a, maxScoreTermsSparse), nil
}

// Search returns the top k docs by sparse dot product with q (best first), among
// filter's docs when filter is non-nil. The result is exact; short queries with
// small k use MaxScore, the rest a dense term-at-a-time accumulator.
func (x *Splade) Search(q fingerprint.Sparse, k int, filter *roaring.Bitmap) (Hits, error) {
	return x.search(q, k, filter, algoAuto)
}

// SearchExhaustive is Search scoring every posting: the reference and baseline.
func (x *Splade) SearchExhaustive(q fingerprint.Sparse, k int, filter *roaring.Bitmap) (Hits, error) {
	return x.search(q, k, filter, algoExhaustive)
}
