package indexes

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/viterin/vek/vek32"

	"github.com/cgraph/cgraph/record"
)

func buildDense(t testing.TB, n, dim int, seed uint64) (*Dense, *mixture) {
	return buildDenseP(t, n, dim, seed, Float32)
}

func buildDenseP(t testing.TB, n, dim int, seed uint64, p Precision) (*Dense, *mixture) {
	t.Helper()
	m := newMixture(seed, dim, 64)
	x, err := NewDense(DenseConfig{Name: "test", Dim: dim, Precision: p})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]record.DocNum, n)
	for i := range docs {
		docs[i] = record.DocNum(i)
	}
	if err := x.Build(docs, m.many(n)); err != nil {
		t.Fatal(err)
	}
	return x, m
}

// meanRecall measures recall@k of Search against BruteForce over nq queries.
func meanRecall(t testing.TB, x *Dense, m *mixture, nq, k int, filter *roaring.Bitmap) float64 {
	t.Helper()
	var sum float64
	for range nq {
		q := m.next()
		got, err := x.Search(q, k, filter)
		if err != nil {
			t.Fatal(err)
		}
		want, err := x.BruteForce(q, k, filter)
		if err != nil {
			t.Fatal(err)
		}
		sum += recall(got, want)
	}
	return sum / float64(nq)
}

func TestDenseRecallWithDeletes(t *testing.T) {
	for _, p := range []Precision{Float32, Int8} {
		t.Run(p.String(), func(t *testing.T) { testDenseRecallWithDeletes(t, p) })
	}
}

func testDenseRecallWithDeletes(t *testing.T, p Precision) {
	const n, dim, k = 10000, 384, 10
	x, m := buildDenseP(t, n, dim, 1, p)
	exact, _ := buildDenseP(t, n, dim, 1, Float32) // the float32 reference
	if r := meanRecall(t, x, m, 100, k, nil); r < 0.95 {
		t.Errorf("recall@10 before deletes = %.3f, want ≥ 0.95", r)
	}
	deleted := roaring.New()
	for d := record.DocNum(0); d < n; d += 7 { // delete every 7th doc
		if !x.Delete(d) {
			t.Fatalf("Delete(%d) = false for a live doc", d)
		}
		exact.Delete(d)
		deleted.Add(uint32(d))
	}
	if x.Delete(0) {
		t.Error("second Delete(0) = true, want false")
	}
	// Re-add some vectors incrementally (sketched on the build's centre).
	for i := range 500 {
		v := m.next()
		if err := x.Add(record.DocNum(n+i), v); err != nil {
			t.Fatal(err)
		}
		must(t, exact.Add(record.DocNum(n+i), v))
	}
	if got, want := x.Len(), n-int(deleted.GetCardinality())+500; got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	var sum float64
	for range 100 {
		q := m.next()
		got, err := x.Search(q, k, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range got {
			if deleted.Contains(uint32(h.Doc)) {
				t.Fatalf("deleted doc %d returned", h.Doc)
			}
		}
		want, _ := exact.BruteForce(q, k, nil) // exact float32 cosine, not the index's own
		sum += recall(got, want)
		for i, h := range got {
			if e := math.Abs(float64(h.Score) - float64(vek32.Dot(normalized(q), exact.Vector(h.Doc)))); e > 0.005 {
				t.Fatalf("rank %d doc %d: score %v is %v from the float32 cosine", i, h.Doc, h.Score, e)
			}
		}
	}
	if r := sum / 100; r < 0.95 {
		t.Errorf("recall@10 after deletes = %.3f, want ≥ 0.95", r)
	} else {
		t.Logf("recall@10 after deleting 1/7 and adding 500: %.3f", r)
	}
}

func TestDenseFilter(t *testing.T) {
	x, m := buildDense(t, 3000, 64, 2)
	filter := roaring.New()
	for d := uint32(0); d < 3000; d += 3 {
		filter.Add(d)
	}
	filter.Add(999999) // unknown docs in a filter are ignored
	q := m.next()
	got, err := x.Search(q, 20, filter)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 {
		t.Fatalf("got %d hits, want 20", len(got))
	}
	for _, h := range got {
		if h.Doc%3 != 0 {
			t.Errorf("doc %d is outside the filter", h.Doc)
		}
	}
	if r := meanRecall(t, x, m, 50, 10, filter); r < 0.95 {
		t.Errorf("filtered recall = %.3f, want ≥ 0.95", r)
	}
	empty, err := x.Search(q, 5, roaring.New())
	if err != nil || len(empty) != 0 {
		t.Errorf("empty filter: %v, %v; want no hits", empty, err)
	}
}

func TestDenseExactWhenSmall(t *testing.T) {
	// With fewer docs than Rerank every doc is rescored: results equal brute force.
	x, m := buildDense(t, 500, 32, 3)
	for range 20 {
		q := m.next()
		got, _ := x.Search(q, 10, nil)
		want, _ := x.BruteForce(q, 10, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Search = %v, BruteForce = %v", got, want)
		}
		for i := 1; i < len(got); i++ {
			if better(got[i], got[i-1]) {
				t.Fatalf("hits not best first: %v", got)
			}
		}
	}
}

func TestDenseScoresAreCosine(t *testing.T) {
	x, _ := NewDense(DenseConfig{Name: "cos", Dim: 3})
	must(t, x.Add(1, []float32{2, 0, 0}))
	must(t, x.Add(2, []float32{0, 5, 0}))
	must(t, x.Add(3, []float32{1, 1, 0}))
	got, err := x.Search([]float32{3, 0, 0}, 3, nil)
	must(t, err)
	want := []Hit{{1, 1}, {3, float32(1 / math.Sqrt2)}, {2, 0}}
	for i, h := range got {
		if h.Doc != want[i].Doc || math.Abs(float64(h.Score-want[i].Score)) > 1e-6 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// Replacing a vector changes its score.
	must(t, x.Add(2, []float32{1, 0, 0}))
	got, _ = x.Search([]float32{1, 0, 0}, 1, nil)
	if got[0].Doc != 1 || got[0].Score < 0.999 {
		t.Fatalf("after replace got %v", got)
	}
	if x.Len() != 3 {
		t.Fatalf("Len after replace = %d, want 3", x.Len())
	}
}

func TestDenseBadInput(t *testing.T) {
	x, _ := NewDense(DenseConfig{Name: "E1", Dim: 4})
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"short vector", x.Add(1, []float32{1, 2}), "has 2 dimensions, the index holds 4"},
		{"NaN", x.Add(1, []float32{1, float32(math.NaN()), 0, 0}), "element 1 is NaN"},
		{"zero", x.Add(1, []float32{0, 0, 0, 0}), "all zeros"},
		{"doc too large", x.Add(MaxDocNum+1, []float32{1, 0, 0, 0}), "above the limit"},
		{"negative k", func() error { _, err := x.Search([]float32{1, 0, 0, 0}, -1, nil); return err }(), "negative"},
		{"build mismatch", x.Build([]record.DocNum{1}, nil), "1 doc numbers and 0 vectors"},
		{"build duplicate", x.Build([]record.DocNum{1, 1}, [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}}), "doc 1 twice"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, c.err, c.want)
		}
	}
	if x.Len() != 0 {
		t.Errorf("failed calls left %d vectors", x.Len())
	}
	if err := x.SetRerank(-1); err == nil {
		t.Error("SetRerank(-1) accepted")
	}
	if _, err := NewDense(DenseConfig{Dim: 0}); err == nil {
		t.Error("NewDense with Dim 0 succeeded")
	}
}

func TestDenseExportDeterministic(t *testing.T) {
	m := newMixture(4, 16, 4)
	a, _ := NewDense(DenseConfig{Name: "a", Dim: 16})
	vecs := m.many(50)
	for i := 49; i >= 0; i-- { // reverse insertion order
		must(t, a.Add(record.DocNum(i*2), vecs[i]))
	}
	a.Delete(10)
	docs, out := a.Export()
	for i := 1; i < len(docs); i++ {
		if docs[i] <= docs[i-1] {
			t.Fatalf("Export docs not ascending: %v", docs)
		}
	}
	if len(docs) != 49 {
		t.Fatalf("Export returned %d docs, want 49", len(docs))
	}
	b, _ := NewDense(DenseConfig{Name: "b", Dim: 16})
	must(t, b.Build(docs, out))
	d2, o2 := b.Export()
	if fmt.Sprint(d2, o2) != fmt.Sprint(docs, out) {
		t.Fatal("Build(Export()) does not round-trip")
	}
	if v := a.Vector(4); math.Abs(float64(vek32.Norm(v))-1) > 1e-5 {
		t.Errorf("stored vector norm %v, want 1", vek32.Norm(v))
	}
}

func TestDenseConcurrent(t *testing.T) {
	x, m := buildDense(t, 2000, 32, 5)
	extra := m.many(400)
	queries := m.many(50)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // one writer
		defer wg.Done()
		for i, v := range extra {
			if err := x.Add(record.DocNum(2000+i), v); err != nil {
				t.Error(err)
				return
			}
			x.Delete(record.DocNum(i))
		}
	}()
	for g := range 4 { // concurrent readers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				hits, err := x.Search(queries[(i+g)%len(queries)], 10, nil)
				if err != nil || len(hits) != 10 {
					t.Errorf("search: %d hits, %v", len(hits), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if x.Len() != 2000 {
		t.Errorf("Len = %d after 400 adds and 400 deletes, want 2000", x.Len())
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestDenseAddOnlyRecenters(t *testing.T) {
	// An index filled by Add alone (a new store) must reach the recall of a
	// built one: the sketch centre follows the data as it grows.
	m := newMixture(12, 384, 64)
	x, _ := NewDense(DenseConfig{Name: "add-only", Dim: 384})
	for i := range 5000 {
		must(t, x.Add(record.DocNum(i), m.next()))
	}
	if x.centered < 4096 {
		t.Fatalf("centre computed from %d vectors after 5000 adds, want ≥ 4096", x.centered)
	}
	var c float64
	for _, v := range x.center {
		c += float64(v) * float64(v)
	}
	if c < 0.1 { // the mixture's shared offset has norm 0.6 before normalisation
		t.Errorf("centre norm² %.3f: the shared offset was not found", c)
	}
	if r := meanRecall(t, x, m, 100, 10, nil); r < 0.95 {
		t.Errorf("add-only recall@10 = %.3f, want ≥ 0.95", r)
	}
}

// TestBestAsymmetric: the asymmetric stage keeps the r candidates of highest
// Σ_j q_j·(±1 by the sketch bit), up to its histogram's bin width at the
// cut-off, for a dimension that leaves sketch bits unused (100 of 128).
func TestBestAsymmetric(t *testing.T) {
	const dim, n, r = 100, 3000, 200
	m := newMixture(5, dim, 8)
	x, err := NewDense(DenseConfig{Name: "asym", Dim: dim})
	must(t, err)
	docs := make([]record.DocNum, n)
	for i := range docs {
		docs[i] = record.DocNum(i)
	}
	must(t, x.Build(docs, m.many(n)))
	q := normalized(m.next())
	cand := x.allRows(nil, n)
	score := make([]float64, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for row := range n {
		for j := range dim {
			if x.codes[row*x.words+j/64]>>(j%64)&1 == 1 {
				score[row] += float64(q[j])
			} else {
				score[row] -= float64(q[j])
			}
		}
		lo, hi = min(lo, score[row]), max(hi, score[row])
	}
	got := x.bestAsymmetricLocked(q, cand, r)
	if len(got) != r {
		t.Fatalf("kept %d candidates, want %d", len(got), r)
	}
	sorted := slices.Sorted(slices.Values(score))
	cut := sorted[n-r] // the r-th best
	slack := 2 * (hi - lo) / 4096
	kept := map[int32]bool{}
	for _, row := range got {
		kept[row] = true
		if score[row] < cut-slack {
			t.Errorf("kept row %d of score %.4f below the cut-off %.4f", row, score[row], cut)
		}
	}
	for row := range n {
		if !kept[int32(row)] && score[row] > cut+slack {
			t.Errorf("dropped row %d of score %.4f above the cut-off %.4f", row, score[row], cut)
		}
	}
}

// TestDenseReopenMatchesAdds: a store's dense space is filled by Add as memories
// arrive and rebuilt by Build from the column family when the store opens. The
// two must answer alike, or a store ranks differently after a restart: Build
// takes the centre Add's recentring schedule had reached for the same docs.
// TestDenseReopenMatchesWrites: after deletes, new vectors for old docs and
// docs added below others, an index ranks every query as one built from its
// live vectors (what a restart opens) does, at every size the centre passes.
func TestDenseReopenMatchesWrites(t *testing.T) {
	for _, n := range []int{300, 600, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := newMixture(uint64(n)+7, 64, 16)
			live, _ := NewDense(DenseConfig{Name: "live", Dim: 64, Rerank: 64, Precision: Int8})
			stored := map[record.DocNum][]float32{} // what the store holds: the vectors as written
			add := func(d record.DocNum) {
				v := m.next()
				must(t, live.Add(d, v))
				stored[d] = v
			}
			for i := range n {
				add(record.DocNum(i))
			}
			rng := rand.New(rand.NewPCG(uint64(n), 2))
			for i := range n / 3 {
				d := record.DocNum(rng.IntN(n))
				switch i % 3 {
				case 0:
					live.Delete(d)
					delete(stored, d)
				case 1: // a new vector for a doc, maybe one the centre was made of
					add(d)
				default: // a doc number below others (after a delete), or past the end
					add(d)
					add(record.DocNum(n + i))
				}
				if i%50 == 0 { // searches between the writes recentre as they go
					_, err := live.Search(m.next(), 10, nil)
					must(t, err)
				}
			}
			docs, vecs := make([]record.DocNum, 0, len(stored)), [][]float32{}
			for d := range stored {
				docs = append(docs, d)
			}
			slices.Sort(docs) // the column family's key order
			for _, d := range docs {
				vecs = append(vecs, stored[d])
			}
			if len(docs) != live.Len() {
				t.Fatalf("the store holds %d docs, the index %d", len(docs), live.Len())
			}
			opened, _ := NewDense(DenseConfig{Name: "opened", Dim: 64, Rerank: 64, Precision: Int8})
			must(t, opened.Build(docs, vecs))
			if differ := rankDiffs(t, live, opened, m); differ > 0 {
				t.Errorf("%d of 200 queries rank differently in the written index than in one built from its %d vectors", differ, len(docs))
			}
		})
	}
}

// rankDiffs counts how many of 200 queries from m two indexes rank
// differently at depth 50.
func rankDiffs(t *testing.T, x, y *Dense, m *mixture) int {
	t.Helper()
	differ := 0
	for range 200 {
		q := m.next()
		a, err := x.Search(q, 50, nil)
		must(t, err)
		b, err := y.Search(q, 50, nil)
		must(t, err)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			differ++
		}
	}
	return differ
}

func TestDenseReopenMatchesAdds(t *testing.T) {
	for _, n := range []int{200, 300, 2000, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := newMixture(uint64(n), 64, 16)
			added, _ := NewDense(DenseConfig{Name: "added", Dim: 64, Rerank: 64, Precision: Int8})
			docs, vecs := make([]record.DocNum, n), m.many(n)
			for i := range n {
				docs[i] = record.DocNum(i)
				must(t, added.Add(docs[i], vecs[i]))
			}
			opened, _ := NewDense(DenseConfig{Name: "opened", Dim: 64, Rerank: 64, Precision: Int8})
			must(t, opened.Build(docs, vecs))
			if differ := rankDiffs(t, added, opened, m); differ > 0 {
				t.Errorf("%d of 200 queries rank differently after Build than after the Adds of the same vectors", differ)
			}
			// The next Adds recentre at the same sizes in both.
			for i := n; i < 2*n+10; i++ {
				v := m.next()
				must(t, added.Add(record.DocNum(i), v))
				must(t, opened.Add(record.DocNum(i), v))
			}
			if added.centered != opened.centered {
				t.Errorf("after more Adds the centres come from %d and %d vectors", added.centered, opened.centered)
			}
		})
	}
}
