package indexes

import (
	"fmt"
	"sync"

	"github.com/cgraph/cgraph/record"
)

// Late is an in-memory E12 late-interaction store: one quantized TokenMatrix per
// doc and MaxSim over candidates. E12 reranks only (AP-73): there is no search
// over all docs. At about (Dim+4)·tokens bytes per doc (8.4 KB for 64 tokens ×
// 128) it alone exceeds the 6 KB-per-memory RAM budget, so a large store should
// keep matrices in its column family and call MaxSim with a loader instead;
// Late serves small stores, tests and hot caches.
//
// Late is safe for concurrent use: MaxSim shares a read lock, Add, Delete and
// Build take the write lock.
type Late struct {
	name string
	dim  int

	mu   sync.RWMutex
	mats []*TokenMatrix // doc → matrix, nil when absent
	n    int            // docs present
	size int            // bytes of all matrices
}

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

// Add stores (or replaces) doc's token matrix, row-major, len(data) = rows·Dim.
func (x *Late) Add(doc record.DocNum, data []float32) error {
	what := fmt.Sprintf("late-interaction store %q: add doc %d", x.name, doc)
	if err := checkDoc(what, doc); err != nil {
		return err
	}
	m, err := QuantizeTokens(x.dim, data)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.putLocked(doc, &m)
	return nil
}

// putLocked stores m for doc. REQUIRES: x.mu held for writing.
func (x *Late) putLocked(doc record.DocNum, m *TokenMatrix) {
	if int(doc) >= len(x.mats) {
		x.mats = append(x.mats, make([]*TokenMatrix, int(doc)+1-len(x.mats))...)
	}
	if old := x.mats[doc]; old != nil {
		x.size -= old.Bytes()
	} else {
		x.n++
	}
	x.mats[doc] = m
	x.size += m.Bytes()
}

// Build replaces the contents with docs[i] → mats[i]; on error nothing changes.
func (x *Late) Build(docs []record.DocNum, mats [][]float32) error {
	if len(docs) != len(mats) {
		return fmt.Errorf("late-interaction store %q: build got %d doc numbers and %d matrices", x.name, len(docs), len(mats))
	}
	y := &Late{name: x.name, dim: x.dim}
	for i, d := range docs {
		what := fmt.Sprintf("late-interaction store %q: build doc %d", x.name, d)
		if err := checkDoc(what, d); err != nil {
			return err
		}
		m, err := QuantizeTokens(x.dim, mats[i])
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if int(d) < len(y.mats) && y.mats[d] != nil {
			return fmt.Errorf("late-interaction store %q: build got doc %d twice", x.name, d)
		}
		y.putLocked(d, &m)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.mats, x.n, x.size = y.mats, y.n, y.size
	return nil
}

// Delete removes doc's matrix and reports whether it was present.
func (x *Late) Delete(doc record.DocNum) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if int(doc) >= len(x.mats) || x.mats[doc] == nil {
		return false
	}
	x.size -= x.mats[doc].Bytes()
	x.mats[doc] = nil
	x.n--
	return true
}

// Docs returns the doc numbers held, ascending.
func (x *Late) Docs() []record.DocNum {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []record.DocNum
	for d, m := range x.mats {
		if m != nil {
			out = append(out, record.DocNum(d))
		}
	}
	return out
}

// MaxSim is the package-level MaxSim over the matrices held (see there).
func (x *Late) MaxSim(query []float32, candidates []record.DocNum) (hits Hits, missing []record.DocNum, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	hits, missing, err = MaxSim(query, x.dim, candidates, func(d record.DocNum) (TokenMatrix, bool, error) {
		if int(d) >= len(x.mats) || x.mats[d] == nil {
			return TokenMatrix{}, false, nil
		}
		return *x.mats[d], true, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("late-interaction store %q: %w", x.name, err)
	}
	return hits, missing, nil
}
