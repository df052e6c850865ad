package indexes

import (
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/viterin/vek/vek32"

	"github.com/cgraph/cgraph/record"
)

// Flat is an exact, contiguous scan index for short vectors: the stage-2 filter
// over E1-Matryoshka-128 (the first 128 dims of E1, renormalised). Vectors are kept
// as unit-length float32 rows in one slice; a search scores the candidates (or
// every doc) with a SIMD dot product and keeps the top n. float32 beats int8 here:
// see the package doc for the measurement.
//
// Flat is safe for concurrent use: searches share a read lock, Add, Delete and
// Build take the write lock.
type Flat struct {
	name string
	dim  int

	mu   sync.RWMutex
	docs []record.DocNum // row → doc
	vecs []float32       // row-major unit vectors
	pos  []int32         // doc → row, -1 when absent
}

// NewFlat returns an empty flat index over the first dim dimensions of the vectors
// it is given (Matryoshka truncation).
func NewFlat(name string, dim int) (*Flat, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("flat index %q: dimension %d must be positive", name, dim)
	}
	return &Flat{name: name, dim: dim}, nil
}

// Dim returns the number of leading dimensions the index keeps.
func (x *Flat) Dim() int { return x.dim }

// Len returns the number of live vectors.
func (x *Flat) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.docs)
}

// Bytes estimates the heap bytes of the layout.
func (x *Flat) Bytes() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.vecs)*4 + len(x.docs)*4 + len(x.pos)*4
}

// prefix checks v and returns its unit-length Matryoshka prefix.
func (x *Flat) prefix(what string, v []float32) ([]float32, error) {
	if len(v) < x.dim {
		return nil, fmt.Errorf("%s: vector has %d dimensions, the index needs at least %d", what, len(v), x.dim)
	}
	p := v[:x.dim]
	if err := checkVector(what, p, x.dim, true); err != nil {
		return nil, err
	}
	return normalized(p), nil
}

// Build replaces the contents with docs[i] → vecs[i]; on error nothing changes.
func (x *Flat) Build(docs []record.DocNum, vecs [][]float32) error {
	if len(docs) != len(vecs) {
		return fmt.Errorf("flat index %q: build got %d doc numbers and %d vectors", x.name, len(docs), len(vecs))
	}
	var maxDoc record.DocNum
	rows := make([]float32, 0, len(docs)*x.dim)
	for i, d := range docs {
		if err := checkDoc("flat index "+x.name, d); err != nil {
			return err
		}
		p, err := x.prefix(fmt.Sprintf("flat index %q: doc %d", x.name, d), vecs[i])
		if err != nil {
			return err
		}
		rows = append(rows, p...)
		maxDoc = max(maxDoc, d)
	}
	pos := []int32{}
	if len(docs) > 0 {
		pos = make([]int32, int(maxDoc)+1)
	}
	for i := range pos {
		pos[i] = -1
	}
	for i, d := range docs {
		if pos[d] >= 0 {
			return fmt.Errorf("flat index %q: build got doc %d twice", x.name, d)
		}
		pos[d] = int32(i)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.docs, x.vecs, x.pos = slices.Clone(docs), rows, pos
	return nil
}

// Add inserts or replaces doc's vector (its first Dim values are used).
func (x *Flat) Add(doc record.DocNum, vec []float32) error {
	what := fmt.Sprintf("flat index %q: add doc %d", x.name, doc)
	if err := checkDoc(what, doc); err != nil {
		return err
	}
	p, err := x.prefix(what, vec)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for int(doc) >= len(x.pos) {
		x.pos = append(x.pos, -1)
	}
	if r := x.pos[doc]; r >= 0 {
		copy(x.vecs[int(r)*x.dim:], p)
		return nil
	}
	x.pos[doc] = int32(len(x.docs))
	x.docs = append(x.docs, doc)
	x.vecs = append(x.vecs, p...)
	return nil
}

// Delete removes doc and reports whether it was present. Cost O(Dim).
func (x *Flat) Delete(doc record.DocNum) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if int(doc) >= len(x.pos) || x.pos[doc] < 0 {
		return false
	}
	r, last := int(x.pos[doc]), len(x.docs)-1
	if r != last {
		moved := x.docs[last]
		x.docs[r] = moved
		copy(x.vecs[r*x.dim:(r+1)*x.dim], x.vecs[last*x.dim:])
		x.pos[moved] = int32(r)
	}
	x.docs = x.docs[:last]
	x.vecs = x.vecs[:last*x.dim]
	x.pos[doc] = -1
	return true
}

// Export returns the doc numbers in ascending order with copies of their vectors.
func (x *Flat) Export() ([]record.DocNum, [][]float32) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	docs := slices.Clone(x.docs)
	slices.Sort(docs)
	vecs := make([][]float32, len(docs))
	for i, d := range docs {
		r := int(x.pos[d])
		vecs[i] = slices.Clone(x.vecs[r*x.dim : (r+1)*x.dim])
	}
	return docs, vecs
}

// Search returns the n docs whose prefix is most cosine-similar to the query's
// prefix, best first. With candidates non-nil only those docs are scored (docs
// the index does not hold are skipped); with nil every doc is. The result is
// exact. Cost: O(m·Dim) for m scored docs; about 10 ns per doc at Dim 128.
func (x *Flat) Search(query []float32, n int, candidates *roaring.Bitmap) (Hits, error) {
	what := fmt.Sprintf("flat index %q: search", x.name)
	if err := checkK(what, n); err != nil {
		return nil, err
	}
	q, err := x.prefix(what, query)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	top := newTopK(n)
	if n == 0 {
		return Hits{}, nil
	}
	if candidates == nil {
		for r, d := range x.docs {
			top.offer(Hit{Doc: d, Score: vek32.Dot(q, x.vecs[r*x.dim:(r+1)*x.dim])})
		}
		return top.sorted(), nil
	}
	it := candidates.Iterator()
	for it.HasNext() {
		d := it.Next()
		if int(d) >= len(x.pos) {
			break
		}
		if r := int(x.pos[d]); r >= 0 {
			top.offer(Hit{Doc: record.DocNum(d), Score: vek32.Dot(q, x.vecs[r*x.dim:(r+1)*x.dim])})
		}
	}
	return top.sorted(), nil
}
