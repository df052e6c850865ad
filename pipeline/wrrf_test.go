package pipeline

import (
	"math"
	"math/rand/v2"
	"testing"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

func TestWRRFHandComputed(t *testing.T) {
	lists := []RankedList{
		{Slot: fp.E1, Weight: .5, Hits: []Hit{{1, .9}, {2, .8}, {3, .7}}},
		{Slot: fp.E6, Weight: .25, Hits: []Hit{{3, 12.5}, {1, 3.0}}},
		{Slot: fp.E13, Weight: 0, Hits: []Hit{{4, 40}}},
	}
	got := WRRF(lists)
	want := []struct {
		doc   record.DocNum
		score float64
	}{
		{1, .5/60 + .25/61}, // 0.0083333 + 0.0040984 = 0.0124317
		{3, .5/62 + .25/60}, // 0.0080645 + 0.0041667 = 0.0122312
		{2, .5 / 61},        // 0.0081967
		{4, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d fused, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Doc != w.doc || math.Abs(got[i].Score-w.score) > 1e-15 {
			t.Errorf("#%d = doc %d score %.7f, want doc %d %.7f", i, got[i].Doc, got[i].Score, w.doc, w.score)
		}
	}
	// Explain: doc 3 is rank 2 in E1 and rank 0 in E6 with its raw BM25.
	d3 := got[1].Parts
	if len(d3) != 2 || d3[0] != (Part{fp.E1, 2, .7, .5 / 62}) || d3[1] != (Part{fp.E6, 0, 12.5, .25 / 60}) {
		t.Errorf("doc 3 parts %+v", d3)
	}
	if p := got[3].Parts; len(p) != 1 || p[0].Slot != fp.E13 || p[0].Contribution != 0 {
		t.Errorf("weight-0 list must record its rank with contribution 0: %+v", p)
	}
}

// TestWRRFIgnoresRawScores: changing raw scores without changing ranks does
// not change the fused scores (no weighted sum of raw scores).
func TestWRRFIgnoresRawScores(t *testing.T) {
	a := []RankedList{
		{Slot: fp.E1, Weight: .6, Hits: []Hit{{1, .99}, {2, .98}, {3, -.5}}},
		{Slot: fp.E6, Weight: .4, Hits: []Hit{{3, 900}, {2, 800}, {1, 1}}},
	}
	b := []RankedList{
		{Slot: fp.E1, Weight: .6, Hits: []Hit{{1, .2}, {2, .1}, {3, .05}}},
		{Slot: fp.E6, Weight: .4, Hits: []Hit{{3, 2}, {2, 1.5}, {1, 1.4}}},
	}
	fa, fb := WRRF(a), WRRF(b)
	for i := range fa {
		if fa[i].Doc != fb[i].Doc || fa[i].Score != fb[i].Score {
			t.Fatalf("#%d: %v/%v vs %v/%v", i, fa[i].Doc, fa[i].Score, fb[i].Doc, fb[i].Score)
		}
	}
}

func TestWRRFTiesAndDuplicates(t *testing.T) {
	got := WRRF([]RankedList{
		{Slot: fp.E1, Weight: .5, Hits: []Hit{{7, .9}, {5, .8}, {7, .1}}},
		{Slot: fp.E7, Weight: .5, Hits: []Hit{{5, .9}, {7, .8}}},
	})
	if len(got) != 2 || got[0].Doc != 5 || got[1].Doc != 7 || got[0].Score != got[1].Score {
		t.Fatalf("equal scores must order by doc: %+v", got)
	}
	if len(got[1].Parts) != 2 || got[1].Parts[0].Rank != 0 {
		t.Errorf("a duplicate keeps its best rank once: %+v", got[1].Parts)
	}
}

// TestWRRFTiedScoresShareRank: documents a slot scores alike share a rank,
// so a slot that cannot tell them apart (a temporal slot over memories created
// at the same time) adds the same contribution to each and cannot turn the
// order an index lists ties in into a ranking signal.
func TestWRRFTiedScoresShareRank(t *testing.T) {
	got := WRRF([]RankedList{
		{Slot: fp.E1, Weight: .4, Hits: []Hit{{9, .9}, {3, .8}, {6, .7}}},
		{Slot: fp.E2, Weight: .6, Hits: []Hit{{3, .5}, {6, .5}, {9, .5}, {1, .2}}},
	})
	want := []struct {
		doc  record.DocNum
		rank int // rank in E2
	}{{9, 0}, {3, 0}, {6, 0}, {1, 3}}
	if len(got) != len(want) {
		t.Fatalf("got %d fused, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Doc != w.doc {
			t.Fatalf("#%d = doc %d, want %d: equal E2 scores must keep E1's order (%+v)", i, got[i].Doc, w.doc, got)
		}
		p := got[i].Parts[len(got[i].Parts)-1]
		if p.Slot != fp.E2 || p.Rank != w.rank || p.Contribution != .6/float64(RRFK+w.rank) {
			t.Errorf("doc %d E2 part %+v, want rank %d", w.doc, p, w.rank)
		}
	}
}

func randomLists(rng *rand.Rand, nLists, n, universe int) []RankedList {
	lists := make([]RankedList, nLists)
	for i := range lists {
		perm := rng.Perm(universe)[:n]
		hs := make([]Hit, n)
		for r, d := range perm {
			hs[r] = Hit{Doc: record.DocNum(d), Score: 1 - float64(r)/float64(n)}
		}
		lists[i] = RankedList{Slot: fp.SlotID(i%fp.NumSlots + 1), Weight: 1 / float64(nLists), Hits: hs}
	}
	return lists
}

// TestWRRFAgainstNaive compares with a direct map-based computation.
func TestWRRFAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lists := randomLists(rng, 13, 200, 600)
	want := map[record.DocNum]float64{}
	for _, l := range lists {
		for r, h := range l.Hits {
			want[h.Doc] += l.Weight / float64(RRFK+r)
		}
	}
	got := WRRF(lists)
	if len(got) != len(want) {
		t.Fatalf("%d docs, want %d", len(got), len(want))
	}
	for i, f := range got {
		if math.Abs(f.Score-want[f.Doc]) > 1e-12 {
			t.Errorf("doc %d: %v want %v", f.Doc, f.Score, want[f.Doc])
		}
		var sum float64
		for _, p := range f.Parts {
			sum += p.Contribution
		}
		if math.Abs(sum-f.Score) > 1e-12 {
			t.Errorf("doc %d: contributions sum %v, score %v", f.Doc, sum, f.Score)
		}
		if i > 0 && got[i-1].Score < f.Score {
			t.Fatalf("not sorted at %d", i)
		}
	}
}

// FuzzWRRF builds lists from bytes: fusion (WRRF and min-max) never panics,
// scores equal the sum of contributions and the output is sorted.
func FuzzWRRF(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0, 3, 2, 1})
	f.Add([]byte{9, 9, 9, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var lists []RankedList
		cur := RankedList{Slot: fp.E1, Weight: .5}
		for _, b := range data {
			if b == 0 {
				lists = append(lists, cur)
				cur = RankedList{Slot: cur.Slot%fp.NumSlots + 1, Weight: .25}
				continue
			}
			cur.Hits = append(cur.Hits, Hit{Doc: record.DocNum(b % 16), Score: float64(b)})
		}
		lists = append(lists, cur)
		for _, f := range []Fusion{FusionRRF, FusionMinMax} {
			checkFused(t, lists, Fuse(lists, f))
		}
	})
}

// checkFused checks a fusion's output: every score is the sum of its
// parts' contributions, each contribution within [0, its list's weight],
// and the output sorted by score, ties by document.
func checkFused(t *testing.T, lists []RankedList, got []Fused) {
	t.Helper()
	weight := map[fp.SlotID]float64{}
	for _, l := range lists {
		weight[l.Slot] = max(weight[l.Slot], l.Weight)
	}
	for i, fu := range got {
		var sum float64
		for _, p := range fu.Parts {
			if p.Contribution < 0 || p.Contribution > weight[p.Slot]+1e-12 {
				t.Fatalf("doc %d: %s contribution %v outside [0, %v]", fu.Doc, p.Slot, p.Contribution, weight[p.Slot])
			}
			sum += p.Contribution
		}
		if math.Abs(sum-fu.Score) > 1e-12 {
			t.Fatalf("doc %d: sum %v score %v", fu.Doc, sum, fu.Score)
		}
		if i > 0 && (got[i-1].Score < fu.Score || got[i-1].Score == fu.Score && got[i-1].Doc > fu.Doc) {
			t.Fatalf("not sorted at %d", i)
		}
	}
}

// BenchmarkWRRF fuses 13 lists of 1,000 candidates drawn from 5,000 docs.
func BenchmarkWRRF(b *testing.B) {
	lists := randomLists(rand.New(rand.NewPCG(3, 4)), 13, 1000, 5000)
	b.ReportAllocs()
	for b.Loop() {
		WRRF(lists)
	}
}

// TestWRRFSparseDocNums exercises the map index (huge DocNums).
func TestWRRFSparseDocNums(t *testing.T) {
	got := WRRF([]RankedList{
		{Slot: fp.E1, Weight: .5, Hits: []Hit{{4_000_000_000, .9}, {7, .8}}},
		{Slot: fp.E7, Weight: .5, Hits: []Hit{{7, .9}, {4_000_000_000, .1}, {7, .05}}},
	})
	if len(got) != 2 || got[0].Doc != 7 || got[1].Doc != 4_000_000_000 || got[0].Score != got[1].Score || len(got[0].Parts) != 2 {
		t.Fatalf("%+v", got)
	}
}
