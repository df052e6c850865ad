package indexes

import (
	"math/rand/v2"
	"testing"
)

// sketchDefinition is what sketch computes: bit j of the code is set when
// v[j] > c[j].
func sketchDefinition(dst []uint64, v, c []float32) {
	clear(dst)
	for j, e := range v {
		if e > c[j] {
			dst[j>>6] |= 1 << (j & 63)
		}
	}
}

// TestSketchMatchesDefinition: the branch-free sketch gives the
// definition's words for every width up to 300 (partial last words
// included), equal values (no bit) and signed zeros included.
func TestSketchMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for dim := 1; dim <= 300; dim++ {
		v, c := make([]float32, dim), make([]float32, dim)
		for j := range v {
			v[j], c[j] = float32(rng.NormFloat64()), float32(rng.NormFloat64()*0.2)
			switch rng.IntN(8) {
			case 0:
				v[j] = c[j]
			case 1:
				v[j], c[j] = 0, -0.0*c[j]
			}
		}
		words := (dim + 63) / 64
		got, want := make([]uint64, words), make([]uint64, words)
		for i := range got {
			got[i] = ^uint64(0) // sketch overwrites every word
		}
		sketch(got, v, c)
		sketchDefinition(want, v, c)
		for w := range want {
			if got[w] != want[w] {
				t.Fatalf("dim %d word %d: %064b, want %064b", dim, w, got[w], want[w])
			}
		}
	}
}

// BenchmarkSketch: one 384-d sign sketch, a new vector each time (a
// vector sketched again and again teaches the branch predictor its signs).
func BenchmarkSketch(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	vs, c := make([][]float32, 1024), make([]float32, 384)
	for i := range c {
		c[i] = float32(rng.NormFloat64() * 0.1)
	}
	for k := range vs {
		vs[k] = make([]float32, 384)
		for i := range vs[k] {
			vs[k][i] = float32(rng.NormFloat64())
		}
	}
	dst := make([]uint64, 6)
	for _, f := range []struct {
		name string
		fn   func([]uint64, []float32, []float32)
	}{{"definition", sketchDefinition}, {"sketch", sketch}} {
		b.Run(f.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				f.fn(dst, vs[i&1023], c)
			}
		})
	}
}
