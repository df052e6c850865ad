package runtime

import (
	"math"
	"slices"

	"github.com/cgraph/cgraph/models/tokenizer"
)

// meanPool averages the rows of hidden ([T, D] row-major) whose mask is non-zero.
// Cost O(T·D).
func meanPool(hidden []float32, T, D int, mask []int64) []float32 {
	sum := make([]float64, D)
	n := 0
	for t := range T {
		if mask[t] == 0 {
			continue
		}
		n++
		row := hidden[t*D : (t+1)*D]
		for d, v := range row {
			sum[d] += float64(v)
		}
	}
	out := make([]float32, D)
	if n == 0 {
		return out
	}
	for d := range out {
		out[d] = float32(sum[d] / float64(n))
	}
	return out
}

// clsPool copies the first row of hidden.
func clsPool(hidden []float32, D int) []float32 {
	return slices.Clone(hidden[:D])
}

// l2Normalize scales v to unit length in place; a zero vector stays zero.
func l2Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

// spladePool computes SPLADE term weights from masked-LM logits ([T, V] row-major):
// w_v = max over unmasked t of log(1 + ReLU(logits[t, v])), keeping w_v > 0, in
// ascending term order. Cost O(T·V); allocates one []float32 of V.
func spladePool(logits []float32, T, V int, mask []int64) ([]tokenizer.TokenID, []float32) {
	best := make([]float32, V)
	for t := range T {
		if mask[t] == 0 {
			continue
		}
		row := logits[t*V : (t+1)*V]
		for v, x := range row {
			if x > best[v] {
				best[v] = x
			}
		}
	}
	// log1p(relu(.)) is monotonic, so max over t commutes with it.
	var terms []tokenizer.TokenID
	var weights []float32
	for v, x := range best {
		if x > 0 {
			terms = append(terms, tokenizer.TokenID(v))
			weights = append(weights, float32(math.Log1p(float64(x))))
		}
	}
	return terms, weights
}
