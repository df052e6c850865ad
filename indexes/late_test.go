package indexes

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// floatMaxSim is the reference MaxSim in float64 over unquantized matrices.
func floatMaxSim(q, d []float32, dim int) float64 {
	var sum float64
	for i := 0; i < len(q); i += dim {
		best := math.Inf(-1)
		for j := 0; j < len(d); j += dim {
			var dot float64
			for k := range dim {
				dot += float64(q[i+k]) * float64(d[j+k])
			}
			best = max(best, dot)
		}
		sum += best
	}
	return sum
}

func randMatrix(rng *rand.Rand, rows, dim int) []float32 {
	m := make([]float32, rows*dim)
	for r := range rows { // unit rows, like ColBERT-style token vectors
		var ss float64
		for k := range dim {
			v := rng.NormFloat64()
			m[r*dim+k] = float32(v)
			ss += v * v
		}
		for k := range dim {
			m[r*dim+k] /= float32(math.Sqrt(ss))
		}
	}
	return m
}

func TestMaxSimInt8MatchesFloat(t *testing.T) {
	const dim = 128
	rng := rand.New(rand.NewPCG(1, 2))
	x, err := NewLate("E12", dim)
	must(t, err)
	docs := map[record.DocNum][]float32{}
	for d := range record.DocNum(200) {
		m := randMatrix(rng, 5+rng.IntN(60), dim)
		docs[d] = m
		must(t, x.Add(d, m))
	}
	var cands []record.DocNum
	for d := range record.DocNum(200) {
		cands = append(cands, d)
	}
	cands = append(cands, 500, 3) // one unknown doc and a duplicate
	q := randMatrix(rng, 16, dim)
	hits, missing, err := x.MaxSim(q, cands)
	must(t, err)
	if len(missing) != 1 || missing[0] != 500 {
		t.Errorf("missing = %v, want [500]", missing)
	}
	if len(hits) != 200 {
		t.Fatalf("%d hits, want 200 (duplicates scored once)", len(hits))
	}
	// int8 with a per-row scale: each value is off by at most scale/2 ≤ 1/254 of
	// the row's max, so a unit-row dot moves by at most ~‖q‖₁/254 per query token.
	var maxErr float64
	for _, h := range hits {
		want := floatMaxSim(q, docs[h.Doc], dim)
		e := math.Abs(float64(h.Score) - want)
		maxErr = max(maxErr, e)
		if e > 0.02 {
			t.Fatalf("doc %d: int8 MaxSim %.5f, float %.5f", h.Doc, h.Score, want)
		}
	}
	t.Logf("max |int8 − float| MaxSim error over 200 docs, 16 query tokens: %.5f", maxErr)
	for i := 1; i < len(hits); i++ {
		if better(hits[i], hits[i-1]) {
			t.Fatal("hits not best first")
		}
	}
	if !x.Delete(3) || x.Delete(3) || x.Len() != 199 {
		t.Error("Delete(3) twice did not report present then absent")
	}
	if _, missing, _ := x.MaxSim(q, []record.DocNum{3}); len(missing) != 1 {
		t.Error("deleted doc scored")
	}
}

func TestMaxSimRanksLikeFloat(t *testing.T) {
	// The quantized ranking of the top candidates agrees with the float ranking
	// wherever the float scores differ by more than the quantization error.
	const dim = 64
	rng := rand.New(rand.NewPCG(3, 4))
	x, _ := NewLate("E12", dim)
	docs := map[record.DocNum][]float32{}
	for d := range record.DocNum(100) {
		m := randMatrix(rng, 30, dim)
		docs[d] = m
		must(t, x.Add(d, m))
	}
	q := randMatrix(rng, 8, dim)
	hits, _, err := x.MaxSim(q, x.Docs())
	must(t, err)
	for i := 1; i < len(hits); i++ {
		a, b := floatMaxSim(q, docs[hits[i-1].Doc], dim), floatMaxSim(q, docs[hits[i].Doc], dim)
		if b > a+0.05 {
			t.Errorf("rank %d: doc %d (float %.4f) ranked above doc %d (float %.4f)", i, hits[i-1].Doc, a, hits[i].Doc, b)
		}
	}
}

func TestLateBadInput(t *testing.T) {
	x, _ := NewLate("E12", 4)
	for _, c := range []struct {
		err  error
		want string
	}{
		{x.Add(1, []float32{1, 2, 3}), "not a positive multiple of the token width 4"},
		{x.Add(1, nil), "0 values"},
		{x.Add(1, []float32{1, 2, 3, float32(math.Inf(1))}), "+Inf"},
		{func() error { _, _, err := x.MaxSim([]float32{1}, nil); return err }(), "query matrix has 1 values"},
		{x.Build([]record.DocNum{1, 1}, [][]float32{{1, 0, 0, 0}, {1, 0, 0, 0}}), "doc 1 twice"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
	if x.Len() != 0 {
		t.Errorf("failed calls stored %d matrices", x.Len())
	}
	must(t, x.Build([]record.DocNum{2, 7}, [][]float32{{1, 0, 0, 0}, {0, 0, 0, 0, 0, 1, 0, 0}}))
	if got := x.Docs(); len(got) != 2 || got[0] != 2 || got[1] != 7 {
		t.Errorf("Docs after Build = %v", got)
	}
	if x.Bytes() <= 0 {
		t.Error("Bytes = 0 with two matrices")
	}
}
