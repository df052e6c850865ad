package indexes

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// sameFloat is bit equality, any NaN equal to any NaN.
func sameFloat(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// TestDotF32I8MatchesGo: the SSE4.1 kernel gives dotF32I8Go's bits for
// every length from 0 to 1,030 (tails of 0–3 included), on Gaussian
// queries, extreme rows and a mix of magnitudes that makes the order of
// the sums matter.
func TestDotF32I8MatchesGo(t *testing.T) {
	if !useDotSSE41 {
		t.Skip("no SSE4.1 here: dotF32I8 is dotF32I8Go")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for n := range 1031 {
		q, v := make([]float32, n), make([]int8, n)
		for i := range q {
			q[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
			v[i] = int8(rng.IntN(256) - 128)
		}
		if n > 0 {
			v[0], v[n-1] = -128, 127
		}
		if got, want := dotF32I8(q, v), dotF32I8Go(q, v); !sameFloat(got, want) {
			t.Fatalf("n=%d: kernel %v (%08x), Go %v (%08x)", n, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
}

// FuzzDotF32I8: any float32 bit patterns and int8 values, any length: the
// kernel's bits are dotF32I8Go's.
func FuzzDotF32I8(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 1, 0, 0, 128, 191, 255, 0, 0, 0, 64, 127})
	f.Add(make([]byte, 5*37))
	f.Fuzz(func(t *testing.T, raw []byte) {
		n := len(raw) / 5
		q, v := make([]float32, n), make([]int8, n)
		for i := range n {
			q[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[5*i:]))
			v[i] = int8(raw[5*i+4])
		}
		if got, want := dotF32I8(q, v), dotF32I8Go(q, v); !sameFloat(got, want) {
			t.Fatalf("n=%d: kernel %v, Go %v", n, got, want)
		}
	})
}

func BenchmarkDotF32I8(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	q, v := make([]float32, 384), make([]int8, 384)
	for i := range q {
		q[i], v[i] = float32(rng.NormFloat64()), int8(rng.IntN(256)-128)
	}
	var sink float32
	for _, c := range []struct {
		name string
		fn   func([]float32, []int8) float32
	}{{"go", dotF32I8Go}, {"kernel", dotF32I8}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sink += c.fn(q, v)
			}
		})
	}
	_ = sink
}
