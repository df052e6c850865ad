package neural

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// shiftHead is E5's learned head: an affine map of a sentence vector x to
// its cause and effect views,
//
//	view(x, s) = normalize(x − Mu + s·(Beta/2)·D),  s = +1 effect-view / query, −1 cause-view
//
// where Mu is the mean of the training vectors and D the difference between
// the mean cause and the mean effect (normalised). A memory's as-cause vector
// is view(x, −1) and its as-effect vector view(x, +1); a query looking for
// causes (an effect) is view(q, +1) against as-cause vectors, one looking for
// effects is view(q, −1) against as-effect vectors. The shifts move a query
// towards the other role's region and a stored text towards its partner's,
// so the right direction scores higher than the swapped one.
type shiftHead struct {
	// FittedOn says which model and pairs the head was fitted on.
	FittedOn string    `json:"fitted_on"`
	Beta     float32   `json:"beta"`
	Mu       []float32 `json:"mu"`
	D        []float32 `json:"d"`
}

// fitShiftHead fits Mu and D on training causes and effects (row i of each is
// one pair) for a given Beta.
func fitShiftHead(causes, effects [][]float32, beta float32) shiftHead {
	dim := len(causes[0])
	mc, me := make([]float64, dim), make([]float64, dim)
	for i := range causes {
		for k := range dim {
			mc[k] += float64(causes[i][k])
			me[k] += float64(effects[i][k])
		}
	}
	n := float64(len(causes))
	h := shiftHead{Beta: beta, Mu: make([]float32, dim), D: make([]float32, dim)}
	var norm float64
	for k := range dim {
		mc[k], me[k] = mc[k]/n, me[k]/n
		h.Mu[k] = float32((mc[k] + me[k]) / 2)
		norm += (mc[k] - me[k]) * (mc[k] - me[k])
	}
	norm = math.Sqrt(norm)
	for k := range dim {
		h.D[k] = float32((mc[k] - me[k]) / norm)
	}
	return h
}

// apply returns view(x, sign) in a new slice.
func (h shiftHead) apply(x []float32, sign float32) []float32 {
	out := make([]float32, len(x))
	var ss float64
	for k := range x {
		out[k] = x[k] - h.Mu[k] + sign*h.Beta/2*h.D[k]
		ss += float64(out[k]) * float64(out[k])
	}
	if ss > 0 {
		inv := float32(1 / math.Sqrt(ss))
		for k := range out {
			out[k] *= inv
		}
	}
	return out
}

func (h shiftHead) mapAll(xs [][]float32, sign float32) [][]float32 {
	out := make([][]float32, len(xs))
	for i, x := range xs {
		out[i] = h.apply(x, sign)
	}
	return out
}

// fitLDAHead is fitShiftHead with D the regularised linear discriminant
// (Σ + λ·tr(Σ)/dim·I)⁻¹(mean cause − mean effect), Σ the pooled within-role
// covariance: the direction that best separates causes from effects.
func fitLDAHead(causes, effects [][]float32, beta float32, lambda float64) shiftHead {
	h := fitShiftHead(causes, effects, beta)
	dim := len(causes[0])
	mc, me := mean(causes), mean(effects)
	cov := mat.NewSymDense(dim, nil)
	for _, set := range []struct {
		xs [][]float32
		m  []float64
	}{{causes, mc}, {effects, me}} {
		for _, x := range set.xs {
			v := make([]float64, dim)
			for k := range dim {
				v[k] = float64(x[k]) - set.m[k]
			}
			cov.SymRankOne(cov, 1, mat.NewVecDense(dim, v))
		}
	}
	var tr float64
	for k := range dim {
		tr += cov.At(k, k)
	}
	for k := range dim {
		cov.SetSym(k, k, cov.At(k, k)+lambda*tr/float64(dim))
	}
	diff := make([]float64, dim)
	for k := range dim {
		diff[k] = mc[k] - me[k]
	}
	var w mat.VecDense
	if err := w.SolveVec(cov, mat.NewVecDense(dim, diff)); err != nil {
		return h // singular: keep the mean difference
	}
	norm := mat.Norm(&w, 2)
	for k := range dim {
		h.D[k] = float32(w.AtVec(k) / norm)
	}
	return h
}

func mean(xs [][]float32) []float64 {
	m := make([]float64, len(xs[0]))
	for _, x := range xs {
		for k, v := range x {
			m[k] += float64(v)
		}
	}
	for k := range m {
		m[k] /= float64(len(xs))
	}
	return m
}
