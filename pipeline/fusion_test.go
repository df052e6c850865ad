package pipeline

import (
	"math"
	"testing"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

func TestMinMaxHandComputed(t *testing.T) {
	lists := []RankedList{
		// E1: doc 1 far ahead, docs 2 and 3 close together.
		{Slot: fp.E1, Weight: .5, Hits: []Hit{{1, .9}, {2, .6}, {3, .5}}},
		// E6 (BM25, another scale): doc 3 first, doc 1 barely above the floor.
		{Slot: fp.E6, Weight: .25, Hits: []Hit{{3, 12}, {1, 4}, {2, 2}}},
		{Slot: fp.E13, Weight: 0, Hits: []Hit{{4, 40}}},
	}
	got := Fuse(lists, FusionMinMax)
	want := []struct {
		doc   record.DocNum
		score float64
	}{
		{1, .5*1 + .25*(4-2)/10.0},      // 0.55
		{3, .5*0 + .25*1},               // 0.25
		{2, .5 * (.6 - .5) / (.9 - .5)}, // 0.125
		{4, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d fused, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Doc != w.doc || math.Abs(got[i].Score-w.score) > 1e-12 {
			t.Errorf("#%d = doc %d score %.6f, want doc %d %.6f", i, got[i].Doc, got[i].Score, w.doc, w.score)
		}
	}
	// Explain carries rank, raw score and the min-max contribution.
	if p := got[1].Parts; len(p) != 2 || p[0] != (Part{fp.E1, 2, .5, 0}) || p[1] != (Part{fp.E6, 0, 12, .25}) {
		t.Errorf("doc 3 parts %+v", p)
	}
}

// TestMinMaxReadsScoresNotRanks: the same ranks with a list that is flat
// below its leader and one that is not give different fused orders, which
// WRRF cannot tell apart.
func TestMinMaxReadsScoresNotRanks(t *testing.T) {
	mk := func(second float64) []RankedList {
		return []RankedList{
			{Slot: fp.E1, Weight: .5, Hits: []Hit{{1, .9}, {2, second}, {3, .1}}},
			{Slot: fp.E6, Weight: .5, Hits: []Hit{{2, 9}, {1, 5}, {3, 1}}},
		}
	}
	close, far := Fuse(mk(.89), FusionMinMax), Fuse(mk(.2), FusionMinMax)
	if close[0].Doc != 2 || far[0].Doc != 1 {
		t.Errorf("min-max leaders %d and %d, want 2 (E1 barely prefers 1) and 1 (E1 strongly prefers 1)", close[0].Doc, far[0].Doc)
	}
	if a, b := WRRF(mk(.89)), WRRF(mk(.2)); a[0].Doc != b[0].Doc {
		t.Errorf("WRRF must not see the scores: leaders %d and %d", a[0].Doc, b[0].Doc)
	}
}

func TestContributions(t *testing.T) {
	long := make([]Hit, NormDepth+20)
	for i := range long {
		long[i] = Hit{record.DocNum(i), float64(len(long) - i)}
	}
	for _, tc := range []struct {
		name string
		hits []Hit
		w    float64
		want []float64
	}{
		{"empty", nil, 1, []float64{}},
		{"one hit", []Hit{{1, .3}}, .5, []float64{.5}},
		{"flat", []Hit{{1, 2}, {2, 2}, {3, 2}}, .4, []float64{.4, .4, .4}},
		{"ties share", []Hit{{1, 3}, {2, 2}, {3, 2}, {4, 1}}, 1, []float64{1, .5, .5, 0}},
		{"negative cosines", []Hit{{1, .2}, {2, -.2}, {3, -.6}}, 1, []float64{1, .5, 0}},
		{"weight 0", []Hit{{1, 3}, {2, 1}}, 0, []float64{0, 0}},
	} {
		got := Contributions(FusionMinMax, tc.hits, tc.w)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d contributions, want %d", tc.name, len(got), len(tc.want))
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s: contribution %d = %g, want %g", tc.name, i, got[i], tc.want[i])
			}
		}
	}
	// A list longer than the window: rank NormDepth-1 is the floor, and
	// everything below it contributes nothing.
	got := Contributions(FusionMinMax, long, 1)
	if got[0] != 1 || got[NormDepth-1] != 0 || got[NormDepth] != 0 || got[len(got)-1] != 0 || got[NormDepth-2] <= 0 {
		t.Errorf("window: top %g, last in window %g (before it %g), first below %g, last %g",
			got[0], got[NormDepth-1], got[NormDepth-2], got[NormDepth], got[len(got)-1])
	}
	// RRF contributions are WRRF's.
	rrf := Contributions(FusionRRF, []Hit{{1, 3}, {2, 2}, {3, 2}}, .6)
	w := .6
	if rrf[0] != w/float64(RRFK) || rrf[1] != w/float64(RRFK+1) || rrf[2] != rrf[1] {
		t.Errorf("rrf contributions %v", rrf)
	}
	// The default resolves to DefaultFusion.
	if d, r := Contributions(FusionDefault, long[:3], 1), Contributions(DefaultFusion, long[:3], 1); d[1] != r[1] {
		t.Errorf("default %v, %s %v", d, DefaultFusion, r)
	}
}

func TestParseFusion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Fusion
		ok   bool
	}{
		{"", FusionDefault, true}, {"default", FusionDefault, true}, {"rrf", FusionRRF, true},
		{"minmax", FusionMinMax, true}, {" MinMax ", FusionMinMax, true}, {"zscore", 0, false}, {"min max", 0, false},
	} {
		got, err := ParseFusion(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseFusion(%q) = %v, %v", tc.in, got, err)
		}
	}
	var f Fusion
	if err := f.UnmarshalText([]byte("minmax")); err != nil || f != FusionMinMax {
		t.Errorf("UnmarshalText: %v %v", f, err)
	}
	if b, _ := FusionMinMax.MarshalText(); string(b) != "minmax" {
		t.Errorf("MarshalText %q", b)
	}
	if _, err := (Request{Profile: mustLookup(t, "semantic_search"), Mode: ModeMultiSpace, Fusion: Fusion(9)}).withDefaults(); err == nil {
		t.Error("an invalid fusion must be refused")
	}
}
