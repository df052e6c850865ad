package indexes

import (
	"math"
	"math/rand/v2"

	"github.com/cgraph/cgraph/record"
)

// mixture generates vectors from a clustered Gaussian mixture that imitates
// sentence embeddings better than uniform noise: a shared offset direction (real
// embeddings are anisotropic, their mean is far from zero), nClusters topic
// centres with 16 sub-topics each, and per-point noise so that same-cluster cosines are about 0.5–0.7
// and cross-cluster ones about 0.2–0.3. It is deterministic for a seed.
type mixture struct {
	dim     int
	offset  []float32
	centers [][]float32
	noise   float64
	rng     *rand.Rand
}

func newMixture(seed uint64, dim, nClusters int) *mixture {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	unit := func(scale float64) []float32 {
		v := make([]float32, dim)
		var ss float64
		for i := range v {
			g := rng.NormFloat64()
			v[i] = float32(g)
			ss += g * g
		}
		f := scale / math.Sqrt(ss)
		for i := range v {
			v[i] = float32(float64(v[i]) * f)
		}
		return v
	}
	m := &mixture{dim: dim, offset: unit(0.6), noise: 0.8, rng: rng}
	for range nClusters {
		topic := unit(1)
		for range 16 { // sub-topics make neighbourhoods graded, not flat
			sub := unit(0.7)
			for i := range sub {
				sub[i] += topic[i]
			}
			m.centers = append(m.centers, sub)
		}
	}
	return m
}

// next returns one vector of a random cluster.
func (m *mixture) next() []float32 {
	c := m.centers[m.rng.IntN(len(m.centers))]
	v := make([]float32, m.dim)
	s := m.noise / math.Sqrt(float64(m.dim))
	for i := range v {
		v[i] = m.offset[i] + c[i] + float32(m.rng.NormFloat64()*s)
	}
	return v
}

func (m *mixture) many(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = m.next()
	}
	return out
}

// recall is |got ∩ want| / |want| over doc numbers.
func recall(got, want Hits) float64 {
	if len(want) == 0 {
		return 1
	}
	in := make(map[record.DocNum]bool, len(want))
	for _, h := range want {
		in[h.Doc] = true
	}
	n := 0
	for _, h := range got {
		if in[h.Doc] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}
