package indexes

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// TestConcurrentReadersOneWriter runs searches on every index while one writer
// adds and deletes; run with -race. Each reader checks an invariant that holds
// at every instant: docs 0–99 are never deleted, so a query equal to one of
// them finds it first.
func TestConcurrentReadersOneWriter(t *testing.T) {
	const dim = 16
	m := newMixture(31, dim, 4)
	rng := rand.New(rand.NewPCG(1, 2))
	flat, _ := NewFlat("m", dim)
	bm, _ := NewBM25("E6", DefaultBM25)
	sp := NewSplade("E13")
	late, _ := NewLate("E12", dim)
	stable := m.many(100)
	for i, v := range stable {
		d := record.DocNum(i)
		must(t, flat.Add(d, v))
		must(t, bm.Add(d, tfOf(fmt.Sprintf("stable%d", i), "common")))
		must(t, sp.Add(d, fingerprint.Sparse{Indices: []uint32{1, uint32(1000 + i)}, Weights: []float32{1, 5}}))
		must(t, late.Add(d, v))
	}
	churn := m.many(300)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the one writer
		defer wg.Done()
		for i, v := range churn {
			d := record.DocNum(100 + i)
			if err := flat.Add(d, v); err != nil {
				t.Error(err)
				return
			}
			if err := bm.Add(d, tfOf("common", fmt.Sprintf("w%d", rng.IntN(10)))); err != nil {
				t.Error(err)
				return
			}
			if err := sp.Add(d, fingerprint.Sparse{Indices: []uint32{1, uint32(2 + rng.IntN(10))}, Weights: []float32{1, 1}}); err != nil {
				t.Error(err)
				return
			}
			if err := late.Add(d, v); err != nil {
				t.Error(err)
				return
			}
			if i%2 == 1 {
				flat.Delete(d - 1)
				bm.Delete(d - 1)
				sp.Delete(d - 1)
				late.Delete(d - 1)
			}
		}
	}()
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				d := (i*7 + g) % 100
				check := func(name string, h Hits, err error) {
					if err != nil || len(h) == 0 || h[0].Doc != record.DocNum(d) {
						t.Errorf("%s: query for stable doc %d got %v, %v", name, d, h, err)
					}
				}
				h, err := flat.Search(stable[d], 3, nil)
				check("flat", h, err)
				h, err = bm.Search([]string{fmt.Sprintf("stable%d", d), "common"}, 3, nil)
				check("bm25", h, err)
				h, err = sp.Search(fingerprint.Sparse{Indices: []uint32{1, uint32(1000 + d)}, Weights: []float32{1, 1}}, 3, nil)
				check("splade", h, err)
				h, _, err = late.MaxSim(stable[d], []record.DocNum{record.DocNum(d), record.DocNum(d + 1), 150})
				if err != nil || len(h) == 0 {
					t.Errorf("late: %v, %v", h, err)
				}
			}
		}()
	}
	wg.Wait()
	if n := bm.Stats().Docs; n != 100+150 {
		t.Errorf("BM25 docs after churn = %d, want 250", n)
	}
}
