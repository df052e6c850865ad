package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/record"
)

// spacesFor encodes every view a probe may need and returns the adapter.
func spacesFor(t *testing.T, s *Engine, query string, dir pipeline.Direction) *spaces {
	t.Helper()
	req := SearchRequest{Query: query, Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Session: "s1", Seq: 3, Direction: dir}
	var keys []viewKey
	for _, sl := range fingerprint.Slots() {
		if !sl.Info().Asymmetric() {
			keys = append(keys, viewKey{slot: sl})
			continue
		}
		// E10 is searched both ways here; E5 and E8 follow the direction.
		if sl == fingerprint.E10 || dir != pipeline.DirectionEffects {
			keys = append(keys, viewKey{slot: sl, against: fingerprint.SideA})
		}
		if sl == fingerprint.E10 || dir != pipeline.DirectionCauses {
			keys = append(keys, viewKey{slot: sl, against: fingerprint.SideB})
		}
	}
	q, err := s.encode(context.Background(), req, keys)
	if err != nil {
		t.Fatal(err)
	}
	return &spaces{s: s, ix: s.ix, q: q}
}

var contractProbes = []pipeline.Probe{
	{Slot: fingerprint.E1}, {Slot: fingerprint.E1, View: pipeline.ViewMatryoshka128},
	{Slot: fingerprint.E2}, {Slot: fingerprint.E3}, {Slot: fingerprint.E4},
	{Slot: fingerprint.E5, View: pipeline.ViewForward}, {Slot: fingerprint.E5, View: pipeline.ViewBackward},
	{Slot: fingerprint.E6}, {Slot: fingerprint.E7},
	{Slot: fingerprint.E8, View: pipeline.ViewForward}, {Slot: fingerprint.E8, View: pipeline.ViewBackward},
	{Slot: fingerprint.E9}, {Slot: fingerprint.E10, View: pipeline.ViewForward}, {Slot: fingerprint.E10, View: pipeline.ViewBackward},
	{Slot: fingerprint.E11, View: pipeline.ViewEntitySet}, {Slot: fingerprint.E12}, {Slot: fingerprint.E13},
}

// representable lists the docs of within a probe must score when k ≥
// |within|: those with a value of the slot, for E4 only the query's
// session, for the inverted slots only docs sharing a query term.
func representable(t *testing.T, sp *spaces, p pipeline.Probe, within *roaring.Bitmap) []record.DocNum {
	t.Helper()
	sp.ix.mu.RLock()
	defer sp.ix.mu.RUnlock()
	var out []record.DocNum
	it := roaring.And(within, sp.ix.has[p.Slot.Index()]).Iterator()
	for it.HasNext() {
		d := it.Next()
		switch p.Slot {
		case fingerprint.E4:
			if _, _, in, _ := sp.ix.times.Get(record.DocNum(d), "s1"); !in {
				continue
			}
		case fingerprint.E6, fingerprint.E13:
			continue // checked against the exhaustive index search below
		}
		out = append(out, record.DocNum(d))
	}
	return out
}

func TestSpacesContract(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), hashRegistry(t, ""))
	ms := addAll(t, s, append(append([]string{}, texts...), texts...))
	if err := s.Delete(ctx, ms[2].ID); err != nil {
		t.Fatal(err)
	}
	sp := spacesFor(t, s, "rocksdb build failed authentication fmt.Errorf", pipeline.DirectionAny)
	withins := map[string]*roaring.Bitmap{"odd docs": roaring.New(), "first five + deleted": roaring.BitmapOf(0, 1, 2, 3, 4), "unknown docs": roaring.BitmapOf(1000, 1001)}
	for _, m := range ms {
		if m.DocNum%2 == 1 {
			withins["odd docs"].Add(uint32(m.DocNum))
		}
	}
	for _, p := range contractProbes {
		for name, within := range withins {
			t.Run(fmt.Sprintf("%s/%s", p, name), func(t *testing.T) {
				n := int(within.GetCardinality())
				all, err := sp.Search(ctx, p, n+5, within)
				if err != nil {
					t.Fatal(err)
				}
				checkHits(t, all, within)
				got := make([]record.DocNum, len(all))
				for i, h := range all {
					got[i] = h.Doc
				}
				slices.Sort(got)
				if want := representable(t, sp, p, within); p.Slot != fingerprint.E6 && p.Slot != fingerprint.E13 && !slices.Equal(got, want) {
					t.Fatalf("k ≥ |within| scored %v, want every representable doc %v", got, want)
				}
				if name == "odd docs" && len(all) == 0 && p.Slot != fingerprint.E4 { // odd memories have no session
					t.Fatal("no hits")
				}
				// A smaller k returns the best of the same list.
				if len(all) > 2 {
					top, err := sp.Search(ctx, p, 2, within)
					if err != nil {
						t.Fatal(err)
					}
					if len(top) != 2 || top[0].Score != all[0].Score || top[1].Score != all[1].Score {
						t.Fatalf("k=2 gave %v, k=all starts %v", top, all[:2])
					}
				}
			})
		}
	}
	// Inverted spaces score exactly the docs sharing a term.
	for _, p := range []pipeline.Probe{{Slot: fingerprint.E6}, {Slot: fingerprint.E13}} {
		within := withins["odd docs"]
		hs, _ := sp.Search(ctx, p, 100, within)
		var want int
		switch p.Slot {
		case fingerprint.E6:
			ex, _ := sp.ix.bm25.SearchExhaustive(termsOf(sp.q.views[viewKey{slot: fingerprint.E6}].(fingerprint.TermFreqs)), 100, within)
			want = len(ex)
		case fingerprint.E13:
			ex, _ := sp.ix.splade.SearchExhaustive(sp.q.views[viewKey{slot: fingerprint.E13}].(fingerprint.Sparse), 100, within)
			want = len(ex)
		}
		if len(hs) != want || want == 0 {
			t.Errorf("%s: %d hits, exhaustive %d", p, len(hs), want)
		}
	}
	// Unrestricted searches: at most k, best first.
	for _, p := range contractProbes {
		hs, err := sp.Search(ctx, p, 3, nil)
		switch p.Slot {
		case fingerprint.E2, fingerprint.E3, fingerprint.E4, fingerprint.E12:
			if err == nil {
				t.Errorf("%s without candidates: no error (it scores candidates only)", p)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(hs) > 3 {
			t.Errorf("%s: %d hits for k=3", p, len(hs))
		}
		checkHits(t, hs, nil)
	}
}

func termsOf(tf fingerprint.TermFreqs) []string {
	var out []string
	for i, t := range tf.Terms {
		for range tf.Counts[i] {
			out = append(out, t)
		}
	}
	return out
}

func checkHits(t *testing.T, hs []pipeline.Hit, within *roaring.Bitmap) {
	t.Helper()
	for i, h := range hs {
		if within != nil && !within.Contains(uint32(h.Doc)) {
			t.Fatalf("hit %d outside within", h.Doc)
		}
		if i > 0 && (hs[i-1].Score < h.Score || (hs[i-1].Score == h.Score && hs[i-1].Doc > h.Doc)) {
			t.Fatalf("hits not best first: %v", hs)
		}
	}
}

func TestSpacesUnavailable(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), modelFreeRegistry(t))
	addAll(t, s, texts)
	sp := spacesFor(t, s, "rocksdb", pipeline.DirectionAny)
	for _, p := range []pipeline.Probe{{Slot: fingerprint.E1}, {Slot: fingerprint.E1, View: pipeline.ViewMatryoshka128},
		{Slot: fingerprint.E5, View: pipeline.ViewBackward}, {Slot: fingerprint.E7}, {Slot: fingerprint.E12}, {Slot: fingerprint.E13},
		{Slot: fingerprint.E11} /* entity vectors: set-only fallback */} {
		_, err := sp.Search(ctx, p, 10, roaring.BitmapOf(0, 1))
		if !errors.Is(err, pipeline.ErrUnavailable) {
			t.Errorf("%s: %v, want ErrUnavailable", p, err)
		}
	}
	// E11's set view works without a model.
	sp = spacesFor(t, s, "grocksdb librocksdb-dev", pipeline.DirectionAny)
	hs, err := sp.Search(ctx, pipeline.Probe{Slot: fingerprint.E11, View: pipeline.ViewEntitySet}, 3, nil)
	if err != nil || len(hs) == 0 || hs[0].Doc != 0 || hs[0].Score <= 0 {
		t.Fatalf("E11 entity set: %v %v", hs, err)
	}
}

func TestDirectionsSearchTheRightSide(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), hashRegistry(t, ""))
	addAll(t, s, texts)
	for _, c := range []struct {
		dir   pipeline.Direction
		view  pipeline.View
		query fingerprint.Side // the side the query is embedded as
		docs  fingerprint.Side // the stored side searched
	}{
		{pipeline.DirectionCauses, pipeline.ViewBackward, fingerprint.SideB, fingerprint.SideA},
		{pipeline.DirectionEffects, pipeline.ViewForward, fingerprint.SideA, fingerprint.SideB},
	} {
		const query = "why did the build fail with librocksdb"
		sp := spacesFor(t, s, query, c.dir)
		hs, err := sp.Search(ctx, pipeline.Probe{Slot: fingerprint.E5, View: c.view}, 1, roaring.BitmapOf(5))
		if err != nil || len(hs) != 1 || hs[0].Doc != 5 {
			t.Fatalf("%s: %v %v", c.dir, hs, err)
		}
		// The top score must be the cosine of the query's side with doc 5's
		// searched side — computed here from the embedder directly.
		h := hashEmbedder{slot: fingerprint.E5, dim: 16}
		q := h.vec(query, map[fingerprint.Side]string{fingerprint.SideA: "a", fingerprint.SideB: "b"}[c.query])
		d := h.vec(texts[5], map[fingerprint.Side]string{fingerprint.SideA: "a", fingerprint.SideB: "b"}[c.docs])
		var cos float64
		for i := range q {
			cos += float64(q[i]) * float64(d[i])
		}
		swapped := 0.0 // the reverse pairing, which a side mix-up would give
		qs := h.vec(query, map[fingerprint.Side]string{fingerprint.SideA: "a", fingerprint.SideB: "b"}[c.docs])
		ds := h.vec(texts[5], map[fingerprint.Side]string{fingerprint.SideA: "a", fingerprint.SideB: "b"}[c.query])
		for i := range qs {
			swapped += float64(qs[i]) * float64(ds[i])
		}
		if d := cos - swapped; d < 0.02 && d > -0.02 {
			t.Fatalf("cosine %v and swapped %v too close: the test cannot tell the sides apart", cos, swapped)
		}
		if hs[0].Score-cos > 0.01 || cos-hs[0].Score > 0.01 {
			t.Errorf("%s: doc 5 scored %v, cosine of query side %d with doc side %d is %v", c.dir, hs[0].Score, c.query, c.docs, cos)
		}
	}
}
