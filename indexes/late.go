package indexes

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Late is the E12 late-interaction store: one token matrix per doc, each token
// row quantized to int8 with its own float32 scale (Dim+4 bytes per token instead
// of 4·Dim), and MaxSim scoring of a query token matrix against candidates.
// E12 reranks only (AP-73): Late has no search over all docs.
//
// Late is safe for concurrent use: MaxSim shares a read lock, Add, Delete and
// Build take the write lock.
type Late struct {
	name string
	dim  int

	mu   sync.RWMutex
	mats []*tokenMatrix // doc → matrix, nil when absent
	n    int            // docs present
	size int            // bytes of all matrices
}

// tokenMatrix is a quantized rows×dim token matrix: row r is q[r*dim:(r+1)*dim]·scale[r].
type tokenMatrix struct {
	q     []int8
	scale []float32
}

func (m *tokenMatrix) bytes() int { return len(m.q) + 4*len(m.scale) }

// NewLate returns an empty store of dim-wide token vectors.
func NewLate(name string, dim int) (*Late, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("late-interaction store %q: dimension %d must be positive", name, dim)
	}
	return &Late{name: name, dim: dim}, nil
}

// Len returns the number of docs with a token matrix.
func (x *Late) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n
}

// Bytes estimates the heap bytes of the matrices and the doc table.
func (x *Late) Bytes() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.size + 8*len(x.mats)
}

// quantizeRow maps v to int8 with scale max|v|/127 (round to nearest); an
// all-zero row gets scale 0. The error per value is at most scale/2.
func quantizeRow(v []float32) ([]int8, float32) {
	var mx float32
	for _, e := range v {
		mx = max(mx, float32(math.Abs(float64(e))))
	}
	q := make([]int8, len(v))
	if mx == 0 {
		return q, 0
	}
	s := mx / 127
	for i, e := range v {
		q[i] = int8(math.Round(float64(e / s)))
	}
	return q, s
}

// quantize checks a row-major token matrix and quantizes it.
func (x *Late) quantize(what string, data []float32) (*tokenMatrix, error) {
	if len(data) == 0 || len(data)%x.dim != 0 {
		return nil, fmt.Errorf("%s: token matrix has %d values, not a positive multiple of the token width %d", what, len(data), x.dim)
	}
	if err := checkVector(what, data, len(data), false); err != nil {
		return nil, err
	}
	rows := len(data) / x.dim
	m := &tokenMatrix{q: make([]int8, 0, len(data)), scale: make([]float32, rows)}
	for r := range rows {
		q, s := quantizeRow(data[r*x.dim : (r+1)*x.dim])
		m.q = append(m.q, q...)
		m.scale[r] = s
	}
	return m, nil
}

// Add stores (or replaces) doc's token matrix, row-major, len(data) = rows·Dim.
func (x *Late) Add(doc DocNum, data []float32) error {
	what := fmt.Sprintf("late-interaction store %q: add doc %d", x.name, doc)
	if err := checkDoc(what, doc); err != nil {
		return err
	}
	m, err := x.quantize(what, data)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.putLocked(doc, m)
	return nil
}

// putLocked stores m for doc. REQUIRES: x.mu held for writing.
func (x *Late) putLocked(doc DocNum, m *tokenMatrix) {
	if int(doc) >= len(x.mats) {
		x.mats = append(x.mats, make([]*tokenMatrix, int(doc)+1-len(x.mats))...)
	}
	if old := x.mats[doc]; old != nil {
		x.size -= old.bytes()
	} else {
		x.n++
	}
	x.mats[doc] = m
	x.size += m.bytes()
}

// Build replaces the contents with docs[i] → mats[i]; on error nothing changes.
func (x *Late) Build(docs []DocNum, mats [][]float32) error {
	if len(docs) != len(mats) {
		return fmt.Errorf("late-interaction store %q: build got %d doc numbers and %d matrices", x.name, len(docs), len(mats))
	}
	y := &Late{name: x.name, dim: x.dim}
	for i, d := range docs {
		what := fmt.Sprintf("late-interaction store %q: build doc %d", x.name, d)
		if err := checkDoc(what, d); err != nil {
			return err
		}
		m, err := x.quantize(what, mats[i])
		if err != nil {
			return err
		}
		if int(d) < len(y.mats) && y.mats[d] != nil {
			return fmt.Errorf("late-interaction store %q: build got doc %d twice", x.name, d)
		}
		y.putLocked(d, m)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.mats, x.n, x.size = y.mats, y.n, y.size
	return nil
}

// Delete removes doc's matrix and reports whether it was present.
func (x *Late) Delete(doc DocNum) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if int(doc) >= len(x.mats) || x.mats[doc] == nil {
		return false
	}
	x.size -= x.mats[doc].bytes()
	x.mats[doc] = nil
	x.n--
	return true
}

// Docs returns the doc numbers held, ascending.
func (x *Late) Docs() []DocNum {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []DocNum
	for d, m := range x.mats {
		if m != nil {
			out = append(out, DocNum(d))
		}
	}
	return out
}

// MaxSim scores each candidate by Σ over query tokens of the maximum dot product
// with the candidate's (dequantized) tokens, and returns the scored candidates
// best first. Candidates without a token matrix are not scored; they come back in
// missing (ascending, deduplicated) so the caller can report them — never
// silently dropped. query is row-major with len(query) a multiple of Dim.
// Cost: O(Σ tokens·Dim·query rows) over the candidates.
func (x *Late) MaxSim(query []float32, candidates []DocNum) (hits Hits, missing []DocNum, err error) {
	what := fmt.Sprintf("late-interaction store %q: MaxSim", x.name)
	if len(query) == 0 || len(query)%x.dim != 0 {
		return nil, nil, fmt.Errorf("%s: query matrix has %d values, not a positive multiple of the token width %d", what, len(query), x.dim)
	}
	if err := checkVector(what, query, len(query), false); err != nil {
		return nil, nil, err
	}
	nq := len(query) / x.dim
	var buf []float32
	best := make([]float32, nq)
	cands := slices.Clone(candidates)
	slices.Sort(cands)
	cands = slices.Compact(cands)
	x.mu.RLock()
	defer x.mu.RUnlock()
	hits = make(Hits, 0, len(cands))
	for _, d := range cands {
		if int(d) >= len(x.mats) || x.mats[d] == nil {
			missing = append(missing, d)
			continue
		}
		m := x.mats[d]
		if cap(buf) < len(m.q) {
			buf = make([]float32, len(m.q))
		}
		dq := buf[:len(m.q)]
		for i, v := range m.q { // one tight conversion pass; scales apply after the dot
			dq[i] = float32(v)
		}
		for i := range nq {
			qi := query[i*x.dim : (i+1)*x.dim]
			b := float32(math.Inf(-1))
			for r, s := range m.scale {
				if dot := s * vek32.Dot(qi, dq[r*x.dim:(r+1)*x.dim]); dot > b {
					b = dot
				}
			}
			best[i] = b
		}
		var sum float32
		for _, b := range best {
			sum += b
		}
		hits = append(hits, Hit{Doc: d, Score: sum})
	}
	hits.SortByScore()
	return hits, missing, nil
}
