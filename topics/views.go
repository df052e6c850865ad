package topics

import (
	"math"
	"math/bits"
	"slices"

	"github.com/viterin/vek/vek32"

	"github.com/cgraph/cgraph/fingerprint"
)

// space is one slot's view of a set of fingerprints, prepared for
// similarities: which items hold a value and the cosine-like similarity of
// two of them.
//
// The view of each slot kind (the "dense view" clustered):
//
//	dense (E1, E7)             the unit vector
//	pair (E5, E8, E10)         both sides, each unit, concatenated and scaled by 1/√2,
//	                           so the similarity is the mean of the two sides' cosines
//	hypervector (E9)           the dense projection (Hamming similarity of the bits when
//	                           the projection is empty)
//	entities (E11)             the entity vector; the Jaccard overlap of the entity sets
//	                           when any memory of the set has no vector
//	tokens (E12)               the mean of the token vectors, unit
//	term frequencies (E6)      TF-IDF over the set (idf = ln((N+1)/(df+1)) + 1), unit
//	learned sparse (E13)       the sparse weights, unit
//
// An item holds a value when its entry is present or a documented fallback,
// and the view is not empty (a zero vector, an empty entity set). The temporal
// slots have no view here: their topic weight is 0.
type space struct {
	slot  fingerprint.SlotID
	has   []bool // per input item
	items []int  // input indexes holding a value, ascending
	sim   func(a, b int) float64
}

// distance is 1 − similarity, floored at 0, between input items a and b.
func (s *space) distance(a, b int) float64 { return max(0, 1-s.sim(a, b)) }

// newSpace builds slot s's view of fps. It returns nil for temporal slots.
func newSpace(s fingerprint.SlotID, fps []*fingerprint.Fingerprint) *space {
	if s.Category() == fingerprint.Temporal {
		return nil
	}
	sp := &space{slot: s, has: make([]bool, len(fps))}
	values := make([]fingerprint.Value, len(fps))
	for i, fp := range fps {
		if fp == nil {
			continue
		}
		e := fp.Get(s)
		if (e.Status == fingerprint.StatusPresent || e.Status == fingerprint.StatusFallback) && e.Value != nil {
			values[i] = e.Value
		}
	}
	switch s.Kind() {
	case fingerprint.KindTermFreqs:
		sp.sim = sparseSim(sp, tfidf(values))
	case fingerprint.KindSparse:
		vs := make([]sparseVec, len(values))
		for i, v := range values {
			if x, ok := v.(fingerprint.Sparse); ok {
				vs[i] = newSparse(x.Indices, x.Weights)
			}
		}
		sp.sim = sparseSim(sp, vs)
	case fingerprint.KindEntities:
		sp.sim = entitySim(sp, values)
	case fingerprint.KindHyper:
		sp.sim = hyperSim(sp, values)
	default:
		vs := make([][]float32, len(values))
		for i, v := range values {
			vs[i] = denseView(v)
		}
		sp.sim = denseSim(sp, vs)
	}
	for i, h := range sp.has {
		if h {
			sp.items = append(sp.items, i)
		}
	}
	return sp
}

// denseView returns the unit dense view of a dense, pair or token value, or
// nil when it has none.
func denseView(v fingerprint.Value) []float32 {
	switch x := v.(type) {
	case fingerprint.Dense:
		return unit(x)
	case fingerprint.Pair:
		a, b := unit(x.A), unit(x.B)
		if a == nil || b == nil || len(a) != len(b) {
			return nil
		}
		out := make([]float32, 0, 2*len(a))
		for _, f := range append(a, b...) {
			out = append(out, f/float32(math.Sqrt2))
		}
		return out
	case fingerprint.Tokens:
		rows := x.Rows()
		if rows == 0 {
			return nil
		}
		mean := make([]float32, x.Dim)
		for r := range rows {
			for d, f := range x.Row(r) {
				mean[d] += f
			}
		}
		return unit(mean)
	}
	return nil
}

// unit returns v scaled to length 1 in a new slice, or nil for an empty or
// zero vector.
func unit(v []float32) []float32 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return nil
	}
	n := float32(1 / math.Sqrt(s))
	out := make([]float32, len(v))
	for i, f := range v {
		out[i] = f * n
	}
	return out
}

// dot is the SIMD dot product (vek32): BenchmarkClusterSlot (1000 × 384-d)
// takes a median 70 ms with it and 440 ms with a plain loop.
func dot(a, b []float32) float64 { return float64(vek32.Dot(a, b)) }

func denseSim(sp *space, vs [][]float32) func(a, b int) float64 {
	dim := -1
	for i, v := range vs {
		if v == nil {
			continue
		}
		if dim < 0 {
			dim = len(v)
		}
		// A vector of another dimension cannot be compared: a store mixes
		// producers only through a bug, which Open refuses.
		sp.has[i] = len(v) == dim
	}
	return func(a, b int) float64 { return dot(vs[a], vs[b]) }
}

// sparseVec is a unit sparse vector with ascending keys.
type sparseVec struct {
	keys []uint32
	vals []float64
}

func newSparse(idx []uint32, w []float32) sparseVec {
	var s float64
	for _, f := range w {
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return sparseVec{}
	}
	n := 1 / math.Sqrt(s)
	v := sparseVec{keys: idx, vals: make([]float64, len(w))}
	for i, f := range w {
		v.vals[i] = float64(f) * n
	}
	return v
}

func sparseDot(a, b sparseVec) float64 {
	var s float64
	for i, j := 0, 0; i < len(a.keys) && j < len(b.keys); {
		switch {
		case a.keys[i] < b.keys[j]:
			i++
		case a.keys[i] > b.keys[j]:
			j++
		default:
			s += a.vals[i] * b.vals[j]
			i++
			j++
		}
	}
	return s
}

func sparseSim(sp *space, vs []sparseVec) func(a, b int) float64 {
	for i, v := range vs {
		sp.has[i] = len(v.keys) > 0
	}
	return func(a, b int) float64 { return sparseDot(vs[a], vs[b]) }
}

// tfidf turns E6 term frequencies into unit TF-IDF vectors keyed by term
// number (terms numbered in byte order, so keys stay ascending).
func tfidf(values []fingerprint.Value) []sparseVec {
	df := map[string]int{}
	var docs int
	for _, v := range values {
		if tf, ok := v.(fingerprint.TermFreqs); ok && len(tf.Terms) > 0 {
			docs++
			for _, t := range tf.Terms {
				df[t]++
			}
		}
	}
	terms := make([]string, 0, len(df))
	for t := range df {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	num := make(map[string]uint32, len(terms))
	for i, t := range terms {
		num[t] = uint32(i)
	}
	out := make([]sparseVec, len(values))
	for i, v := range values {
		tf, ok := v.(fingerprint.TermFreqs)
		if !ok || len(tf.Terms) == 0 {
			continue
		}
		idx := make([]uint32, len(tf.Terms))
		w := make([]float32, len(tf.Terms))
		for k, t := range tf.Terms {
			idx[k] = num[t]
			w[k] = float32(float64(tf.Counts[k]) * logIDF(docs, df[t]))
		}
		out[i] = newSparse(idx, w)
	}
	return out
}

func entitySim(sp *space, values []fingerprint.Value) func(a, b int) float64 {
	ents := make([]fingerprint.Entities, len(values))
	vecs := make([][]float32, len(values))
	useVectors := true
	found := false
	for i, v := range values {
		e, ok := v.(fingerprint.Entities)
		if !ok {
			continue
		}
		ents[i] = e
		vecs[i] = unit(e.Vector)
		if len(e.Names) == 0 && vecs[i] == nil {
			continue
		}
		found = true
		if vecs[i] == nil {
			useVectors = false
		}
	}
	if useVectors && found {
		return denseSim(sp, vecs)
	}
	for i, e := range ents {
		sp.has[i] = len(e.Names) > 0
	}
	return func(a, b int) float64 { return jaccard(ents[a].Names, ents[b].Names) }
}

// jaccard of two strictly ascending string sets.
func jaccard(a, b []string) float64 {
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

func hyperSim(sp *space, values []fingerprint.Value) func(a, b int) float64 {
	hs := make([]fingerprint.Hyper, len(values))
	vecs := make([][]float32, len(values))
	useVectors := true
	found := false
	for i, v := range values {
		h, ok := v.(fingerprint.Hyper)
		if !ok {
			continue
		}
		hs[i] = h
		vecs[i] = unit(h.Projection)
		found = true
		if vecs[i] == nil {
			useVectors = false
		}
	}
	if useVectors && found {
		return denseSim(sp, vecs)
	}
	for i, h := range hs {
		sp.has[i] = len(h.Bits) == fingerprint.HyperWords
	}
	// Hamming similarity 1 − 2·hamming/bits maps identical to 1 and
	// independent random vectors to about 0, like a cosine.
	return func(a, b int) float64 {
		d := 0
		for w := range hs[a].Bits {
			d += bits.OnesCount64(hs[a].Bits[w] ^ hs[b].Bits[w])
		}
		return 1 - 2*float64(d)/fingerprint.HyperBits
	}
}

// logIDF is the smoothed inverse document frequency ln((N+1)/(df+1)) + 1.
func logIDF(docs, df int) float64 { return math.Log(float64(docs+1)/float64(df+1)) + 1 }
