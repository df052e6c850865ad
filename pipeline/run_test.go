package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

var ctx = context.Background()

func sym(s fp.SlotID) Probe { return Probe{Slot: s} }

func TestModeStageLists(t *testing.T) {
	f := newFake().
		set(sym(fp.E13), 1, 5, 2, 4, 3, 3).
		set(Probe{fp.E1, ViewMatryoshka128}, 1, .9, 2, .8, 3, .7).
		set(sym(fp.E1), 1, .9, 2, .8, 3, .7).
		set(sym(fp.E7), 2, .9, 1, .8).
		set(sym(fp.E12), 2, .9, 1, .5)
	p := profile("two", false, false, fp.E1, .5, fp.E7, .5)
	for _, m := range []Mode{ModePipeline, ModeE1Only, ModeMultiSpace, ModeEmbedderFirst} {
		res, err := Run(ctx, f, Request{Profile: p, Mode: m, Primary: fp.E7})
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if got := stages(res); !slices.Equal(got, m.Stages()) {
			t.Errorf("%s: stages %v, want %v", m, got, m.Stages())
		}
		if len(res.Hits) == 0 {
			t.Errorf("%s: no results", m)
		}
	}
	want := map[Mode][]Stage{
		ModePipeline:      {StageRecall, StageFilter, StageFusion, StageRerank, StageValidate},
		ModeMultiSpace:    {StageFusion, StageValidate},
		ModeE1Only:        {StagePrimary, StageValidate},
		ModeEmbedderFirst: {StagePrimary, StageValidate},
	}
	for m, w := range want {
		if !slices.Equal(m.Stages(), w) {
			t.Errorf("%s.Stages() = %v", m, m.Stages())
		}
	}
}

// TestMultiSpaceWRRF checks a full multi_space run against a hand computation.
func TestMultiSpaceWRRF(t *testing.T) {
	f := newFake().
		set(sym(fp.E1), 10, .9, 11, .6, 12, .5).
		set(sym(fp.E6), 12, 30, 10, 2)
	p := profile("kw", false, false, fp.E1, .6, fp.E6, .4)
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace})
	if err != nil {
		t.Fatal(err)
	}
	// 10: .6/60 + .4/61 = .016557; 12: .6/62 + .4/60 = .016344; 11: .6/61 = .009836
	if got := docs(res); !slices.Equal(got, []record.DocNum{10, 12, 11}) {
		t.Fatalf("order %v", got)
	}
	h := res.Hits[1]
	if math.Abs(h.Score-(.6/62+.4/60)) > 1e-15 {
		t.Errorf("doc 12 score %v", h.Score)
	}
	if e6 := h.Slots[fp.E6]; e6.Rank != 0 || e6.Score != 30 || math.Abs(e6.Contribution-.4/60) > 1e-15 || e6.Level != "" {
		t.Errorf("doc 12 E6 explain %+v", e6)
	}
	if e1 := h.Slots[fp.E1]; e1.Rank != 2 || e1.Level != "mid" {
		t.Errorf("doc 12 E1 explain %+v", e1)
	}
	if _, ok := res.Hits[2].Slots[fp.E6]; ok {
		t.Error("doc 11 was not in E6's list and must not have an E6 part")
	}
}

// TestSearchCausesDirection: the query is an effect; search_causes must search
// the documents' CAUSE vectors with the query's EFFECT view, scored ×0.8.
func TestSearchCausesDirection(t *testing.T) {
	back := Probe{fp.E5, ViewBackward}
	fwd := Probe{fp.E5, ViewForward}
	if back.View.QueryRole(fp.E5) != "effect" || back.View.DocRole(fp.E5) != "cause" {
		t.Fatalf("backward E5 = query %s vs doc %s", back.View.QueryRole(fp.E5), back.View.DocRole(fp.E5))
	}
	if fwd.View.QueryRole(fp.E5) != "cause" || fwd.View.DocRole(fp.E5) != "effect" {
		t.Fatal("forward E5 roles wrong")
	}
	if q, a, ok := back.View.Sides(); !ok || q != fp.SideB || a != fp.SideA {
		t.Fatalf("backward sides: query as %v against %v", q, a) // search_causes: effect view vs stored causes (SideA)
	}
	// Doc 1 is a cause of the query (matches on the backward view); doc 2 is
	// an effect of it (matches on the forward view).
	f := newFake().set(back, 1, .7, 2, .1).set(fwd, 2, .7, 1, .1)
	p := profile("causal", false, false, fp.E1, .5, fp.E5, .5)
	cases := []struct {
		dir    Direction
		views  []View
		first  record.DocNum
		factor float64
	}{
		{DirectionCauses, []View{ViewBackward}, 1, BackwardBoost},
		{DirectionEffects, []View{ViewForward}, 2, ForwardBoost},
	}
	for _, c := range cases {
		f.calls = nil
		res, err := Run(ctx, f, Request{Profile: p, Mode: ModeEmbedderFirst, Primary: fp.E5, Direction: c.dir})
		if err != nil {
			t.Fatal(err)
		}
		var views []View
		for _, cl := range f.callsOf(fp.E5) {
			views = append(views, cl.probe.View)
		}
		if !slices.Equal(views, c.views) {
			t.Errorf("%s: searched views %v, want %v", c.dir, views, c.views)
		}
		if res.Hits[0].Doc != c.first || math.Abs(res.Hits[0].Score-.7*c.factor) > 1e-12 {
			t.Errorf("%s: top %d score %v, want %d %v", c.dir, res.Hits[0].Doc, res.Hits[0].Score, c.first, .7*c.factor)
		}
	}
	// No direction: both views; each doc keeps its better boosted score:
	// doc 2 forward .7×1.2 = .84 beats doc 1 backward .7×.8 = .56.
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeEmbedderFirst, Primary: fp.E5})
	if err != nil {
		t.Fatal(err)
	}
	if got := docs(res); !slices.Equal(got, []record.DocNum{2, 1}) || math.Abs(res.Hits[1].Score-.56) > 1e-12 {
		t.Errorf("any direction: %v %v", got, res.Hits[1].Score)
	}
	if r, ok := report(res, StagePrimary, fp.E5); !ok || !strings.Contains(r.Note, "×") {
		t.Errorf("direction factor not reported: %+v", res.Spaces)
	}
}

func TestMergeDirections(t *testing.T) {
	got := MergeDirections(2, map[View][]Hit{
		ViewForward:  {{1, .5}, {2, .4}},
		ViewBackward: {{2, .9}, {3, .2}},
	}, fp.E8)
	// 1: .6; 2: max(.48, .72) = .72; 3: .16 — keep 2.
	if len(got) != 2 || got[0].Doc != 2 || math.Abs(got[0].Score-.72) > 1e-12 || got[1].Doc != 1 {
		t.Errorf("%+v", got)
	}
	if DirectionFactor(Probe{fp.E10, ViewForward}) != 1 || DirectionFactor(Probe{fp.E1, ViewBackward}) != 1 {
		t.Error("direction factors apply to E5/E8 only")
	}
}

func TestE10Multiplier(t *testing.T) {
	cases := []struct {
		e1, e10, strength, want float64
	}{
		{.9, 1, 1, 1.05},   // E1 > .8: 5 %
		{.8, 1, 1, 1.10},   // .4–.8: 10 %
		{.4, 1, 1, 1.10},   // boundary is in the middle band
		{.39, 1, 1, 1.15},  // < .4: 15 %
		{.3, .5, 1, 1.075}, // scaled by E10 agreement
		{.3, -1, 1, .85},   // disagreement lowers
		{.3, 1, 2, 1.2},    // 1.30 clamped to 1.2
		{.3, -1, 2, .8},    // .70 clamped to .8
		{.3, 5, 1, 1.15},   // E10 clamped to 1
		{0, 1, 2, 1},       // E1 = 0: E10 adds 0
		{-.2, 1, 2, 1},     // negative E1 never boosted
		{.5, 1, 0, 1},      // no boost in the profile
	}
	for _, c := range cases {
		if got := E10Multiplier(c.e1, c.e10, c.strength); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("E10Multiplier(%v, %v, %v) = %v, want %v", c.e1, c.e10, c.strength, got, c.want)
		}
	}
}

// TestE10BoostInRun: intent_search re-orders E1 by the boost; intent_enhanced
// hits the clamp; a document with E1 = 0 gains nothing.
func TestE10BoostInRun(t *testing.T) {
	f := newFake().
		set(sym(fp.E1), 1, .50, 2, .48, 3, 0).
		set(Probe{fp.E10, ViewForward}, 2, 1, 3, 1, 1, 0)
	for _, name := range []string{"intent_search", "intent_enhanced"} {
		p, _ := profiles.Lookup(name)
		res, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace, NoThresholds: true})
		if err != nil {
			t.Fatal(err)
		}
		byDoc := map[record.DocNum]ResultHit{}
		for _, h := range res.Hits {
			byDoc[h.Doc] = h
		}
		// doc 2: .48 × 1.10 = .528 (intent_search) or × 1.2 = .576 > doc 1's .50.
		wantF := map[string]float64{"intent_search": 1.10, "intent_enhanced": 1.2}[name]
		if e1 := byDoc[2].Slots[fp.E1]; e1.Rank != 0 || math.Abs(e1.Score-.48*wantF) > 1e-12 {
			t.Errorf("%s: doc 2 E1 %+v, want rank 0 score %v", name, e1, .48*wantF)
		}
		if b := byDoc[2].Boosts; len(b) != 1 || math.Abs(b[0].Factor-wantF) > 1e-12 {
			t.Errorf("%s: doc 2 boosts %+v", name, b)
		}
		if e1 := byDoc[3].Slots[fp.E1]; e1.Score != 0 || byDoc[3].Boosts[0].Factor != 1 {
			t.Errorf("%s: E1 = 0 must stay 0 with factor 1: %+v %+v", name, e1, byDoc[3].Boosts)
		}
	}
	// semantic_search has no E10 boost: E1 order unchanged.
	p, _ := profiles.Lookup("semantic_search")
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace, NoThresholds: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Doc == 1 && h.Slots[fp.E1].Rank != 0 {
			t.Errorf("semantic_search boosted E1: %+v", h.Slots[fp.E1])
		}
	}
}

// TestBadgesBreakTiesOnly: equal fused scores are ordered by badges; a badge
// never lifts a lower score; badge slots are searched only within results.
func TestBadgesBreakTiesOnly(t *testing.T) {
	f := newFake().
		set(sym(fp.E1), 1, .9, 2, .8, 3, .7).
		set(sym(fp.E7), 2, .9, 1, .8, 3, .7).
		set(sym(fp.E2), 3, .99, 2, .95, 1, .1, 99, 1).
		set(sym(fp.E3), 99, 1)
	p := profile("tie", false, false, fp.E1, .5, fp.E7, .5)
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace})
	if err != nil {
		t.Fatal(err)
	}
	// docs 1 and 2 tie at .5/60 + .5/61; doc 2 is recent and goes first (doc
	// number alone would put 1 first). Doc 3 is the most recent but scores
	// lower and stays last.
	if got := docs(res); !slices.Equal(got, []record.DocNum{2, 1, 3}) {
		t.Fatalf("order %v, want [2 1 3]", got)
	}
	if res.Hits[0].Score != res.Hits[1].Score || !slices.Equal(res.Hits[0].Badges, []string{"recent"}) || len(res.Hits[1].Badges) != 0 {
		t.Errorf("hits %+v", res.Hits[:2])
	}
	if !slices.Equal(res.Hits[2].Badges, []string{"recent"}) {
		t.Errorf("doc 3 badges %v", res.Hits[2].Badges)
	}
	for _, s := range []fp.SlotID{fp.E2, fp.E3, fp.E4} {
		for _, c := range f.callsOf(s) {
			if c.within == nil || slices.Contains(c.within, 99) || len(c.within) != 3 {
				t.Errorf("%s searched outside the retrieved results: %v", s, c.within)
			}
		}
		if e := res.Hits[0].Slots[s]; s == fp.E2 && e.Contribution != 0 {
			t.Errorf("badge slot contributed in a semantic profile: %+v", e)
		}
	}

	// In a temporal profile E2 weighs in after retrieval and re-orders.
	tp := profile("when", true, false, fp.E1, .25, fp.E7, .25, fp.E2, .5)
	res, err = Run(ctx, f, Request{Profile: tp, Mode: ModeMultiSpace})
	if err != nil {
		t.Fatal(err)
	}
	// 3: .25/62+.25/62+.5/60 = .016398; 2: .25/61+.25/60+.5/61 = .016462;
	// 1: .25/60+.25/61+.5/62 = .016363.
	if got := docs(res); !slices.Equal(got, []record.DocNum{2, 3, 1}) {
		t.Errorf("temporal profile order %v, want [2 3 1]", got)
	}
	if slices.Contains(docs(res), 99) {
		t.Error("a temporal slot retrieved a document")
	}
}

// TestHybridRecall: S1 is the union of sparse recall (E13, E6) and dense
// recall (E1): a document that shares no keyword with the query comes back
// through E1; an unavailable or empty source is reported, never an error,
// even when every source is unavailable.
func TestHybridRecall(t *testing.T) {
	f := newFake().
		set(sym(fp.E6), 1, 9, 2, 8).
		set(sym(fp.E1), 1, .9, 2, .8, 3, .95).
		set(Probe{fp.E1, ViewMatryoshka128}, 1, .9, 2, .8, 3, .95)
	f.unavailable[fp.E13] = true
	f.unavailable[fp.E12] = true
	p, _ := profiles.Lookup("pipeline_full")
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModePipeline, Partial: false})
	if err != nil {
		t.Fatal(err)
	}
	if n := traceOf(res, StageRecall).Note; !strings.Contains(n, "E13 k=10000 0 (unavailable)") || !strings.Contains(n, "E6 k=10000 2 (ok)") || !strings.Contains(n, "E1 k=1000 3 (ok)") {
		t.Errorf("recall note %q", n)
	}
	if r, ok := report(res, StageRecall, fp.E13); !ok || r.Status != StatusUnavailable {
		t.Errorf("E13 report %+v", r)
	}
	if n := traceOf(res, StageRerank).Note; !strings.Contains(n, "E12 unavailable") {
		t.Errorf("rerank note %q", n)
	}
	// Doc 3 shares no keyword with the query (not in E6) but is E1's best:
	// dense recall brings it back.
	if got := docs(res); !slices.Contains(got, 3) || len(got) != 3 {
		t.Errorf("results %v, want 1, 2 and 3", got)
	}
	// E13 available but empty for this query: reported as empty.
	f.unavailable[fp.E13] = false
	res, err = Run(ctx, f, Request{Profile: p, Mode: ModePipeline})
	if err != nil || len(docs(res)) != 3 || !strings.Contains(traceOf(res, StageRecall).Note, "E13 k=10000 0 (empty)") {
		t.Errorf("empty E13: %v %v %q", docs(res), err, traceOf(res, StageRecall).Note)
	}
	// No source at all: an empty answer that says why, not an error.
	f.unavailable[fp.E13], f.unavailable[fp.E6], f.unavailable[fp.E1] = true, true, true
	res, err = Run(ctx, f, Request{Profile: p, Mode: ModePipeline})
	if err != nil || len(res.Hits) != 0 || !strings.Contains(traceOf(res, StageFilter).Note, "no recall source returned any") {
		t.Errorf("no recall source: %v hits, %v, trace %+v", len(res.Hits), err, res.Trace)
	}
}

// TestPipelineStages follows candidates through S1–S5 with stage sizes small
// enough to see each cut.
func TestPipelineStages(t *testing.T) {
	f := newFake().
		set(sym(fp.E13), 1, 9, 2, 8, 3, 7, 4, 6, 5, 5).
		set(Probe{fp.E1, ViewMatryoshka128}, 1, .9, 2, .8, 3, .7, 4, .6, 5, .5, 6, .99).
		set(sym(fp.E1), 1, .9, 2, .8, 3, .7, 4, .6, 6, .99).
		set(sym(fp.E7), 3, .9, 2, .8, 1, .7).
		set(sym(fp.E12), 3, .9, 2, .8)
	p := profile("p", false, true, fp.E1, .5, fp.E7, .4, fp.E13, .1)
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModePipeline, RecallK: 4, FilterK: 3, FusionK: 2, TopK: 2})
	if err != nil {
		t.Fatal(err)
	}
	// S1: E13's top 4 {1,2,3,4} ∪ E1's dense recall {6,1,2,3,4} = 5.
	wantN := map[Stage]int{StageRecall: 5, StageFilter: 3, StageFusion: 2, StageRerank: 2, StageValidate: 2}
	for st, n := range wantN {
		if got := traceOf(res, st).Candidates; got != n {
			t.Errorf("%s: %d candidates, want %d", st, got, n)
		}
	}
	// S2: M128 top 3 of S1 {6,1,2} plus each source's top 2 ({1,2}, {6,1}).
	// S3 over {1,2,6}: E1 6,1,2; E7 2,1. 1: .5/61+.4/61 = .014754;
	// 2: .5/62+.4/60 = .014731; 6: .5/60 = .008333 → keep 1, 2.
	// S4 E12 within {1,2}: 2 rank 0: 2: .014731 + .15/60 = .017231 → 2 first.
	if got := docs(res); !slices.Equal(got, []record.DocNum{2, 1}) {
		t.Fatalf("results %v, want [2 1]", got)
	}
	h := res.Hits[0]
	if e12 := h.Slots[fp.E12]; e12.Rank != 0 || math.Abs(e12.Contribution-DefaultRerankWeight/60) > 1e-15 {
		t.Errorf("E12 explain %+v", e12)
	}
	if e13 := h.Slots[fp.E13]; e13.Rank != 1 || e13.Score != 8 || e13.Contribution != 0 {
		t.Errorf("E13 recall explain %+v", e13)
	}
	var sum float64
	for _, s := range h.Slots {
		sum += s.Contribution
	}
	if math.Abs(sum-h.Score) > 1e-15 {
		t.Errorf("contributions %v != score %v", sum, h.Score)
	}
	// E1 and E7 were searched within the S2 set in S3 (E1 also over all
	// documents in S1, its dense recall).
	for _, s := range []fp.SlotID{fp.E1, fp.E7} {
		for _, c := range f.callsOf(s) {
			if c.probe.View == ViewSymmetric && c.within != nil && !slices.Equal(c.within, []uint32{1, 2, 6}) {
				t.Errorf("%s within %v", s, c.within)
			}
		}
	}
}

func TestTypoTolerantE9Recall(t *testing.T) {
	f := newFake().
		set(sym(fp.E13), 1, 9, 2, 8).
		set(sym(fp.E9), 7, .95, 1, .4).
		set(Probe{fp.E1, ViewMatryoshka128}, 1, .9, 2, .8, 7, .1).
		set(sym(fp.E1), 1, .9, 2, .8, 7, .1).
		set(sym(fp.E7), 7, .9)
	p, _ := profiles.Lookup("typo_tolerant")
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModePipeline, FilterK: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(docs(res), 7) {
		t.Fatalf("E9 candidate 7 lost: %v (trace %+v)", docs(res), res.Trace)
	}
	if n := traceOf(res, StageFilter).Note; !strings.Contains(n, "1 more kept past the filter") {
		t.Errorf("filter note %q", n)
	}
	if e9 := res.Hits[slices.Index(docs(res), 7)].Slots[fp.E9]; e9.Rank != 0 {
		t.Errorf("E9 explain %+v", e9)
	}
}

func TestThresholds(t *testing.T) {
	f := newFake().set(sym(fp.E1), 1, .9, 2, .5, 3, .1)
	p, _ := profiles.Lookup("semantic_search")
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeE1Only})
	if err != nil {
		t.Fatal(err)
	}
	if got := docs(res); !slices.Equal(got, []record.DocNum{1, 2}) {
		t.Errorf("results %v, want doc 3 (E1 .1 < Low .30) dropped", got)
	}
	if res.Hits[0].Slots[fp.E1].Level != "high" || res.Hits[1].Slots[fp.E1].Level != "mid" {
		t.Errorf("levels %+v", res.Hits)
	}
	if n := traceOf(res, StageValidate).Note; !strings.Contains(n, "dropped 1") {
		t.Errorf("validate note %q", n)
	}
	res, _ = Run(ctx, f, Request{Profile: p, Mode: ModeE1Only, NoThresholds: true})
	if len(res.Hits) != 3 || res.Hits[2].Slots[fp.E1].Level != "low" {
		t.Errorf("NoThresholds: %+v", res.Hits)
	}
	// A doc found only by an unbounded slot (E6) is not dropped; one weak in
	// every thresholded slot it has is.
	g := newFake().set(sym(fp.E1), 1, .1).set(sym(fp.E6), 2, 3.5, 1, 1)
	kw := profile("kw", false, false, fp.E1, .5, fp.E6, .5)
	res, err = Run(ctx, g, Request{Profile: kw, Mode: ModeMultiSpace})
	if err != nil {
		t.Fatal(err)
	}
	if got := docs(res); !slices.Equal(got, []record.DocNum{2}) {
		t.Errorf("results %v, want [2]", got)
	}
}

func TestExactNameBoost(t *testing.T) {
	f := newFake().
		set(sym(fp.E1), 1, .9, 2, .85).
		set(sym(fp.E11), 1, .8, 2, .79).
		set(Probe{fp.E11, ViewEntitySet}, 2, 1)
	p := profile("names", false, false, fp.E1, .5, fp.E11, .5)
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace})
	if err != nil {
		t.Fatal(err)
	}
	// 1: .5/60+.5/60 = .016667; 2: (.5/61+.5/61) × 1.1 = .018033.
	if got := docs(res); !slices.Equal(got, []record.DocNum{2, 1}) {
		t.Fatalf("order %v", got)
	}
	if math.Abs(res.Hits[0].Score-(1/61.0)*1.1) > 1e-15 || res.Hits[0].Boosts[0].Name != "E11 exact names" {
		t.Errorf("boosted %+v", res.Hits[0])
	}
	if ExactNameMultiplier(0, .1) != 1 || ExactNameMultiplier(2, .1) != 1.1 || ExactNameMultiplier(math.NaN(), .1) != 1 {
		t.Error("ExactNameMultiplier clamps")
	}
}

func TestFailuresSurface(t *testing.T) {
	boom := errors.New("disk on fire")
	f := newFake().set(sym(fp.E1), 1, .9)
	f.fail[sym(fp.E7)] = boom
	p := profile("two", false, false, fp.E1, .5, fp.E7, .3, fp.E6, .2)
	_, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "E7") {
		t.Fatalf("index error not surfaced: %v", err)
	}
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace, Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[fp.SlotID]string{}
	for _, r := range res.Spaces {
		if r.Stage == StageFusion {
			statuses[r.Slot] = r.Status
		}
	}
	want := map[fp.SlotID]string{fp.E1: StatusOK, fp.E7: StatusFailed, fp.E6: StatusEmpty}
	for s, st := range want {
		if statuses[s] != st {
			t.Errorf("%s status %q, want %q (all: %v)", s, statuses[s], st, statuses)
		}
	}
}

func TestSkippedStageSlotsReported(t *testing.T) {
	f := newFake().set(sym(fp.E1), 1, .9)
	p, _ := profiles.Lookup("pipeline_stage1_recall")
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := report(res, StageFusion, fp.E13); !ok || r.Status != StatusSkipped || r.Weight != .25 {
		t.Errorf("E13 in multi_space: %+v %v", r, ok)
	}
	if len(f.callsOf(fp.E13)) != 0 || len(f.callsOf(fp.E12)) != 0 {
		t.Error("E12/E13 searched in multi_space")
	}
}

func TestRequestErrors(t *testing.T) {
	p, _ := profiles.Lookup("semantic_search")
	bad := []struct {
		req  Request
		want string
	}{
		{Request{Profile: profiles.Profile{Name: "x"}}, "sum to 0"},
		{Request{Profile: p, Mode: ModeEmbedderFirst}, "needs a primary slot"},
		{Request{Profile: p, Mode: ModeEmbedderFirst, Primary: fp.E3}, "cannot be the primary"},
		{Request{Profile: p, Mode: ModeEmbedderFirst, Primary: fp.E12}, "cannot be the primary"},
		{Request{Profile: p, TopK: -1}, "top-k is -1"},
		{Request{Profile: p, Mode: Mode(9)}, "invalid mode"},
	}
	for _, c := range bad {
		if _, err := Run(ctx, newFake(), c.req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.req.Mode, err, c.want)
		}
	}
	if _, err := ParseMode("fast"); err == nil || !strings.Contains(err.Error(), "e1_only, multi_space, embedder_first") {
		t.Errorf("ParseMode: %v", err)
	}
	if m, err := ParseMode("Multi_Space"); err != nil || m != ModeMultiSpace {
		t.Errorf("ParseMode: %v %v", m, err)
	}
	if _, err := ParseDirection("sideways"); err == nil || !strings.Contains(err.Error(), "causes") {
		t.Errorf("ParseDirection: %v", err)
	}
	if d, err := ParseDirection("causes"); err != nil || d != DirectionCauses {
		t.Errorf("ParseDirection: %v %v", d, err)
	}
}

func TestResultJSON(t *testing.T) {
	f := newFake().set(sym(fp.E1), 4, .9).set(sym(fp.E2), 4, .8)
	p, _ := profiles.Lookup("semantic_search")
	res, err := Run(ctx, f, Request{Query: "q", Profile: p, Mode: ModeE1Only})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Query, Profile, Mode string
		Results              []struct {
			Doc    int
			Score  float64
			Slots  map[string]map[string]any
			Badges []string
		}
		Trace []map[string]any
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Query != "q" || got.Profile != "semantic_search" || got.Mode != "e1_only" || len(got.Results) != 1 {
		t.Fatalf("%s", b)
	}
	r := got.Results[0]
	if r.Doc != 4 || r.Slots["E1"]["rank"] != 1.0 || r.Slots["E1"]["score"] != .9 || r.Slots["E2"] == nil || !slices.Equal(r.Badges, []string{"recent"}) {
		t.Errorf("result %s", b)
	}
	for _, tr := range got.Trace {
		for _, k := range []string{"stage", "candidates", "ms"} {
			if _, ok := tr[k]; !ok {
				t.Errorf("trace entry lacks %q: %v", k, tr)
			}
		}
	}
}

func TestFusionKNotBelowTopK(t *testing.T) {
	f := newFake()
	var pairs []float64
	for d := 1; d <= 30; d++ {
		pairs = append(pairs, float64(d), 1-float64(d)/100)
	}
	f.set(sym(fp.E1), pairs...)
	p := profile("one", false, false, fp.E1, 1.0)
	res, err := Run(ctx, f, Request{Profile: p, Mode: ModeMultiSpace, FusionK: 5, TopK: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 20 {
		t.Errorf("got %d results, want 20", len(res.Hits))
	}
}

// TestEveryWeightedSlotReported runs every built-in profile in both fusion
// modes: each slot the profile weighs must appear in Result.Spaces (never
// silently dropped), results must be sorted and explained.
func TestEveryWeightedSlotReported(t *testing.T) {
	sp := newBenchSpaces(300)
	for _, p := range profiles.Builtin() {
		for _, m := range []Mode{ModeMultiSpace, ModePipeline} {
			res, err := Run(ctx, sp, Request{Profile: p, Mode: m, RecallK: 200, FilterK: 100, FusionK: 30})
			if err != nil {
				t.Fatalf("%s/%s: %v", p.Name, m, err)
			}
			for _, s := range p.Weights.Active() {
				if !slices.ContainsFunc(res.Spaces, func(r SpaceReport) bool { return r.Slot == s }) {
					t.Errorf("%s/%s: weighted slot %s not reported", p.Name, m, s)
				}
			}
			if len(res.Hits) != DefaultTopK {
				t.Errorf("%s/%s: %d results", p.Name, m, len(res.Hits))
			}
			for i, h := range res.Hits {
				if i > 0 && res.Hits[i-1].Score < h.Score {
					t.Errorf("%s/%s: unsorted at %d", p.Name, m, i)
				}
				if len(h.Slots) == 0 {
					t.Errorf("%s/%s: result %d unexplained", p.Name, m, h.Doc)
				}
			}
		}
	}
}

// TestRunProbesOnlyPlanned: for every mode, built-in profile, direction and
// primary slot, each probe Run makes is in Plan(req) — the views the engine
// encodes — and the plan holds no probe of a slot the request never uses.
func TestRunProbesOnlyPlanned(t *testing.T) {
	ctx := context.Background()
	for _, name := range profiles.Names() {
		prof, err := profiles.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []Mode{ModeE1Only, ModeEmbedderFirst, ModeMultiSpace, ModePipeline} {
			for _, dir := range []Direction{DirectionAny, DirectionEffects, DirectionCauses} {
				primaries := []fp.SlotID{0}
				if mode == ModeEmbedderFirst {
					primaries = nil
					for _, s := range fp.Slots() {
						if s.CanLead() {
							primaries = append(primaries, s)
						}
					}
				}
				for _, primary := range primaries {
					skip := ""
					if dir == DirectionEffects { // and once with S4 skipped
						skip = "test skip"
					}
					req := Request{Profile: prof, Mode: mode, Direction: dir, Primary: primary, NoThresholds: true, RerankSkip: skip}
					plan, err := Plan(req)
					if err != nil {
						t.Fatal(err)
					}
					f := newFake()
					for _, p := range plan {
						f.set(p, 1, 0.9, 2, 0.8, 3, 0.7) // every planned probe finds something: every stage runs
					}
					if _, err := Run(ctx, f, req); err != nil {
						t.Fatalf("%s %s %s %s: %v", name, mode, dir, primary, err)
					}
					for _, c := range f.calls {
						if !slices.Contains(plan, c.probe) {
							t.Errorf("%s %s %s %s: Run probed %s, not in the plan %v", name, mode, dir, primary, c.probe, plan)
						}
					}
				}
			}
		}
	}
}

// TestRerankSkip: RerankSkip leaves the fused order as it is, probes no E12
// and says why in the trace and the spaces; a profile that weighs E12
// reranks anyway.
func TestRerankSkip(t *testing.T) {
	f := newFake().
		set(sym(fp.E6), 1, 9, 2, 8, 3, 7).
		set(sym(fp.E1), 1, .9, 2, .8, 3, .7).
		set(Probe{fp.E1, ViewMatryoshka128}, 1, .9, 2, .8, 3, .7).
		set(sym(fp.E12), 3, .99, 2, .98, 1, .1) // E12 alone would turn the order round
	f.unavailable[fp.E13] = true
	semantic, _ := profiles.Lookup("semantic_search")
	res, err := Run(ctx, f, Request{Profile: semantic, Mode: ModePipeline, RerankSkip: "why not"})
	if err != nil {
		t.Fatal(err)
	}
	if n := traceOf(res, StageRerank).Note; n != "skipped: why not" {
		t.Errorf("rerank note %q", n)
	}
	if r, ok := report(res, StageRerank, fp.E12); !ok || r.Status != StatusSkipped || r.Note != "why not" {
		t.Errorf("E12 report %+v %v", r, ok)
	}
	for _, c := range f.calls {
		if c.probe.Slot == fp.E12 {
			t.Errorf("skipped S4 probed E12")
		}
	}
	if got := docs(res); !slices.Equal(got, []record.DocNum{1, 2, 3}) {
		t.Errorf("results %v, want the fused order 1 2 3", got)
	}
	for _, name := range []string{"semantic_search", "balanced"} { // balanced weighs E12 itself
		p, _ := profiles.Lookup(name)
		skip := ""
		if name == "balanced" {
			skip = "ignored: the profile weighs E12"
		}
		res, err := Run(ctx, f, Request{Profile: p, Mode: ModePipeline, RerankSkip: skip, RerankWeight: 1})
		if err != nil {
			t.Fatal(err)
		}
		if n := traceOf(res, StageRerank).Note; !strings.Contains(n, "E12 MaxSim weight") {
			t.Errorf("%s: rerank note %q, want a rerank", name, n)
		}
		if got := docs(res); name == "semantic_search" && slices.Equal(got, []record.DocNum{1, 2, 3}) {
			t.Errorf("reranked at weight 1, the order stayed %v: the skip above proves nothing", got)
		}
	}
}
