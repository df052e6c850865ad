package indexes

import (
	"math"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/record"
)

// naiveFlat scores docs by the float64 cosine of their first dim values.
func naiveFlat(q []float32, vecs map[record.DocNum][]float32, dim int, keep func(record.DocNum) bool) Hits {
	var out Hits
	for d, v := range vecs {
		if !keep(d) {
			continue
		}
		var dot, nq, nv float64
		for i := range dim {
			dot += float64(q[i]) * float64(v[i])
			nq += float64(q[i]) * float64(q[i])
			nv += float64(v[i]) * float64(v[i])
		}
		out = append(out, Hit{Doc: d, Score: float32(dot / math.Sqrt(nq*nv))})
	}
	out.SortByScore()
	return out
}

func TestFlatMatchesNaive(t *testing.T) {
	m := newMixture(11, 384, 8)
	x, err := NewFlat("E1-M128", 128)
	must(t, err)
	vecs := map[record.DocNum][]float32{}
	for i := range 2000 {
		v := m.next()
		vecs[record.DocNum(i)] = v
		must(t, x.Add(record.DocNum(i), v))
	}
	for d := record.DocNum(0); d < 2000; d += 5 {
		if !x.Delete(d) {
			t.Fatalf("Delete(%d) = false", d)
		}
		delete(vecs, d)
	}
	cands := roaring.New()
	for d := uint32(0); d < 2500; d += 2 {
		cands.Add(d)
	}
	for range 10 {
		q := m.next()
		for _, tc := range []struct {
			name  string
			cands *roaring.Bitmap
			keep  func(record.DocNum) bool
		}{
			{"all", nil, func(record.DocNum) bool { return true }},
			{"candidates", cands, func(d record.DocNum) bool { return d%2 == 0 }},
		} {
			got, err := x.Search(q, 50, tc.cands)
			must(t, err)
			want := naiveFlat(q, vecs, 128, tc.keep)[:50]
			if len(got) != 50 {
				t.Fatalf("%s: %d hits, want 50", tc.name, len(got))
			}
			for i := range got {
				// float32 SIMD vs float64: allow rounding, but the same docs in order
				// unless two scores are within rounding of each other.
				if math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
					t.Fatalf("%s rank %d: got %v, want %v", tc.name, i, got[i], want[i])
				}
			}
		}
	}
}

func TestFlatBadInput(t *testing.T) {
	x, _ := NewFlat("m", 4)
	if err := x.Add(1, []float32{1, 2}); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("short vector: %v", err)
	}
	// A longer vector is truncated: only its prefix counts.
	must(t, x.Add(1, []float32{1, 0, 0, 0, 99, 99}))
	must(t, x.Add(2, []float32{0, 1, 0, 0, 0, 0}))
	got, err := x.Search([]float32{1, 0, 0, 0, -5}, 2, nil)
	must(t, err)
	if got[0].Doc != 1 || math.Abs(float64(got[0].Score)-1) > 1e-6 {
		t.Errorf("prefix search got %v, want doc 1 with score 1", got)
	}
	if _, err := x.Search([]float32{0, 0, 0, 0}, 2, nil); err == nil {
		t.Error("zero query accepted")
	}
	docs, vecs := x.Export()
	y, _ := NewFlat("m2", 4)
	must(t, y.Build(docs, vecs))
	if y.Len() != 2 {
		t.Errorf("rebuilt Len = %d", y.Len())
	}
}
