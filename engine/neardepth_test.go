package engine

import (
	"testing"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/record"
)

// TestNearSearchDepth measures what a write's near-duplicate search keeps
// at each rerank depth: each memory of a corpus, added in order, searches
// the ones before it for its NearCandidates closest E1 vectors, as
// findSimilar does; the candidates at or above the contradiction floor
// found at each depth are compared with the exact ones (BruteForce). It
// fails when the depth writes use (indexes.DefaultRerank) keeps less than
// 99% of them. On code nearly every one of the five closest is above the
// floor (e5's cosines between Go functions), so the search must rank among
// many close ones: shallower depths lose candidates (issue 33 asked whether
// the write could rescore fewer; on the GPU corpus 64 kept 0.92).
//
//	CGRAPH_MEMORY_BENCH=1 CGRAPH_WRITE_CORPUS=corpus.jsonl go test ./engine -run NearSearchDepth -v
func TestNearSearchDepth(t *testing.T) {
	_, _, fps := writeCorpusFingerprints(t)
	floor := min(DefaultNearDuplicate.E1, conflictRules.MinE1())
	depths := []int{16, 32, 64, 128, indexes.DefaultRerank} // the last is the writes' own
	dim := len(denseOf(fps[0].Get(fingerprint.E1).Value))
	for _, near := range []bool{false, true} {
		xs := make([]*indexes.Dense, len(depths))
		for d, depth := range depths {
			var err error
			if xs[d], err = indexes.NewDense(indexes.DenseConfig{Name: "E1", Dim: dim, Rerank: depth, Precision: indexes.Int8}); err != nil {
				t.Fatal(err)
			}
		}
		x := xs[len(xs)-1]
		want, kept := 0, make([]int, len(depths))
		for i := range fps {
			v := denseOf(fps[i].Get(fingerprint.E1).Value)
			if near && i%3 == 2 { // a third of the memories: the one before, perturbed
				v = append([]float32(nil), denseOf(fps[i-1].Get(fingerprint.E1).Value)...)
				for j := range v {
					v[j] += 0.01 * float32((i*31+j*17)%7-3)
				}
			}
			if i > 0 {
				exact, err := x.BruteForce(v, NearCandidates, nil)
				if err != nil {
					t.Fatal(err)
				}
				above := map[record.DocNum]bool{}
				for _, h := range exact {
					if float64(h.Score) >= floor {
						above[h.Doc] = true
					}
				}
				want += len(above)
				for d := range depths {
					got, err := xs[d].Search(v, NearCandidates, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, h := range got {
						if above[h.Doc] {
							kept[d]++
						}
					}
				}
			}
			for _, x := range xs {
				if err := x.Add(record.DocNum(i), v); err != nil {
					t.Fatal(err)
				}
			}
		}
		for d, depth := range depths {
			share := float64(kept[d]) / float64(max(want, 1))
			t.Logf("near copies %v: rerank %d keeps %d of %d exact candidates at cosine ≥ %.2f (%.4f)", near, depth, kept[d], want, floor, share)
			if depth == indexes.DefaultRerank && share < 0.99 {
				t.Errorf("near copies %v: the writes' depth %d keeps %.4f of the exact candidates, want ≥ 0.99", near, depth, share)
			}
		}
	}
}
