package indexes

import (
	"container/heap"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/record"
)

// MaxDocNum bounds the numbers an index accepts; it keeps per-number tables from
// growing past 4 GiB by mistake.
const MaxDocNum record.DocNum = 1<<31 - 1

// Hit is one scored document. Score's scale depends on the index that produced it
// (cosine in [-1, 1] for dense and flat indexes, BM25 or SPLADE dot products for
// inverted indexes, summed cosines for MaxSim); never mix scales of different
// indexes in one ranking — fuse ranks instead.
type Hit struct {
	Doc   record.DocNum
	Score float32
}

// Hits is a ranked list of hits. Indexes return it best first (score descending,
// ties by ascending record.DocNum); combinators that need doc order say so.
type Hits []Hit

// better reports whether a ranks before b: higher score first, then lower record.DocNum.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc < b.Doc
}

// SortByScore sorts h best first (score descending, ties by ascending record.DocNum).
func (h Hits) SortByScore() {
	slices.SortFunc(h, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
}

// Docs returns the doc numbers of h in h's order.
func (h Hits) Docs() []record.DocNum {
	out := make([]record.DocNum, len(h))
	for i, x := range h {
		out[i] = x.Doc
	}
	return out
}

// Bitmap returns the doc numbers of h as a bitmap: the candidate set one stage
// hands to the next (for example S1's recall to the S2 flat scan).
func (h Hits) Bitmap() *roaring.Bitmap {
	b := roaring.New()
	for _, x := range h {
		b.Add(uint32(x.Doc))
	}
	return b
}

// topK keeps the k best hits seen so far in a min-heap whose root is the worst
// kept hit. It is not safe for concurrent use.
type topK struct {
	k int
	h []Hit
}

func newTopK(k int) *topK { return &topK{k: k, h: make([]Hit, 0, min(k, 1<<16))} }

func (t *topK) Len() int           { return len(t.h) }
func (t *topK) Less(i, j int) bool { return better(t.h[j], t.h[i]) }
func (t *topK) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *topK) Push(x any)         { t.h = append(t.h, x.(Hit)) }
func (t *topK) Pop() any {
	x := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return x
}

// full reports whether k hits are kept.
func (t *topK) full() bool { return len(t.h) >= t.k }

// worst is the kept hit that the next better hit would evict. REQUIRES: Len() > 0.
func (t *topK) worst() Hit { return t.h[0] }

// offer keeps x if it is among the k best so far.
func (t *topK) offer(x Hit) {
	if t.k <= 0 {
		return
	}
	if len(t.h) < t.k {
		heap.Push(t, x)
		return
	}
	if better(x, t.h[0]) {
		t.h[0] = x
		heap.Fix(t, 0)
	}
}

// sorted returns the kept hits best first; the heap is consumed.
func (t *topK) sorted() Hits {
	out := Hits(t.h)
	out.SortByScore()
	t.h = nil
	return out
}

// checkK rejects a negative result size.
func checkK(what string, k int) error {
	if k < 0 {
		return fmt.Errorf("%s: result size k = %d is negative; pass k ≥ 0", what, k)
	}
	return nil
}

// checkVector rejects vectors an index cannot score: wrong length, NaN or ±Inf
// values, or (when unit is true) a zero vector that has no direction.
func checkVector(what string, v []float32, dim int, unit bool) error {
	if len(v) != dim {
		return fmt.Errorf("%s: vector has %d dimensions, the index holds %d; pass a vector from the same embedder", what, len(v), dim)
	}
	var ss float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s: vector element %d is %v; embedders must produce finite values", what, i, x)
		}
		ss += float64(x) * float64(x)
	}
	if unit && ss == 0 {
		return fmt.Errorf("%s: vector is all zeros and has no direction for cosine similarity", what)
	}
	return nil
}

// normalized returns a unit-length copy of v. REQUIRES: v is not all zeros.
func normalized(v []float32) []float32 { return normalizedInto(make([]float32, len(v)), v) }

// normalizedInto writes the unit-length v into dst (len(v) long) and
// returns it. REQUIRES: v is not all zeros.
func normalizedInto(dst, v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		dst[i] = float32(float64(x) * inv)
	}
	return dst
}

// checkDoc rejects doc numbers above MaxDocNum.
func checkDoc(what string, d record.DocNum) error {
	if d > MaxDocNum {
		return fmt.Errorf("%s: doc number %d is above the limit %d", what, d, MaxDocNum)
	}
	return nil
}
