package engine

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// TestRelevanceMonotone: the relevance is a probability that rises with
// each piece of evidence that should raise it (E1, E7, the fused score
// relative to the top hit), with and without E7, and whose levels follow
// the floors.
func TestRelevanceMonotone(t *testing.T) {
	base := RelevanceEvidence{E1: 0.82, E7: 0.35, Fused: 1}
	raise := map[string]func(*RelevanceEvidence, float64){
		"e1":    func(ev *RelevanceEvidence, d float64) { ev.E1 += d },
		"e7":    func(ev *RelevanceEvidence, d float64) { ev.E7 += d },
		"fused": func(ev *RelevanceEvidence, d float64) { ev.Fused += d },
	}
	for _, noE7 := range []bool{false, true} {
		for name, up := range raise {
			if noE7 && name == "e7" {
				continue
			}
			prev := -1.0
			for _, d := range []float64{-0.3, -0.1, -0.05, -0.02, 0, 0.02, 0.05, 0.1} {
				ev := base
				ev.NoE7 = noE7
				up(&ev, d)
				p := ev.Relevance()
				if p < 0 || p > 1 || math.IsNaN(p) {
					t.Fatalf("%s%+g (no E7 %t): relevance %g outside [0, 1]", name, d, noE7, p)
				}
				if p <= prev {
					t.Errorf("%s%+g (no E7 %t): relevance %g does not rise from %g", name, d, noE7, p, prev)
				}
				prev = p
			}
		}
	}
	// The samples the issue measured: a relevant top hit (e5 0.86, MiniLM
	// 0.55) clears the floor, an off-topic one (e5 0.78, MiniLM 0.15)
	// does not.
	if p := (RelevanceEvidence{E1: 0.86, E7: 0.55, Fused: 1}).Relevance(); p < RelevanceFloor {
		t.Errorf("a relevant top hit: %g < floor %g", p, RelevanceFloor)
	}
	if p := (RelevanceEvidence{E1: 0.78, E7: 0.15, Fused: 1}).Relevance(); p >= RelevanceFloor {
		t.Errorf("an off-topic top hit: %g ≥ floor %g", p, RelevanceFloor)
	}
	for _, c := range []struct {
		p    float64
		want string
	}{{0, LevelNone}, {RelevanceFloor - 1e-9, LevelNone}, {RelevanceFloor, LevelWeak}, {RelevanceStrong - 1e-9, LevelWeak}, {RelevanceStrong, LevelStrong}, {1, LevelStrong}} {
		if got := RelevanceLevel(c.p); got != c.want {
			t.Errorf("RelevanceLevel(%g) = %s, want %s", c.p, got, c.want)
		}
	}
}

// TestEvidenceOf: the E10 boost is divided out of E1, a hit a space did
// not list takes the lowest cosine of the others, E1's raw cosines replace
// its list's scores where given, Fused is relative to the top hit, and a
// result without E7 says so.
func TestEvidenceOf(t *testing.T) {
	res := pipeline.Result{Hits: []pipeline.ResultHit{
		{Doc: 1, Score: 0.04, Slots: pipeline.SlotScores{fingerprint.E1: {Score: 0.9 * 1.1}, fingerprint.E7: {Score: 0.6}},
			Boosts: []pipeline.Boost{{Name: "E10 on E1", Signal: 0.7, Factor: 1.1}}},
		{Doc: 2, Score: 0.02, Slots: pipeline.SlotScores{fingerprint.E1: {Score: 0.8}}},
		{Doc: 3, Score: 0.01, Slots: pipeline.SlotScores{fingerprint.E7: {Score: 0.2}}},
	}}
	evs := EvidenceOf(res)
	want := []RelevanceEvidence{{E1: 0.9, E7: 0.6, Fused: 1}, {E1: 0.8, E7: 0.2, Fused: 0.5}, {E1: 0.8, E7: 0.2, Fused: 0.25}}
	for i := range want {
		if math.Abs(evs[i].E1-want[i].E1) > 1e-9 || math.Abs(evs[i].E7-want[i].E7) > 1e-9 || math.Abs(evs[i].Fused-want[i].Fused) > 1e-9 || evs[i].NoE7 {
			t.Errorf("hit %d: %+v, want %+v", i, evs[i], want[i])
		}
	}
	// E1's raw cosines (a tuned E1) replace the listed scores, boost and
	// all; the unlisted hit still takes the lowest.
	raw := []float64{0.85, 0.7, 0.99}
	evs = evidenceOf(res, raw)
	for i, w := range []float64{0.85, 0.7, 0.7} {
		if math.Abs(evs[i].E1-w) > 1e-9 {
			t.Errorf("with raw E1 cosines, hit %d: E1 %g, want %g", i, evs[i].E1, w)
		}
	}
	// A hit whose vector is gone (NaN) counts as unlisted: the lowest.
	evs = evidenceOf(res, []float64{math.NaN(), 0.7, 0.99})
	if math.Abs(evs[0].E1-0.7) > 1e-9 {
		t.Errorf("a hit without a raw cosine: E1 %g, want the lowest 0.7", evs[0].E1)
	}
	delete(res.Hits[0].Slots, fingerprint.E7)
	delete(res.Hits[2].Slots, fingerprint.E7)
	if evs := EvidenceOf(res); !evs[0].NoE7 || evs[0].Relevance() != relevanceNoE7.p(evs[0]) {
		t.Errorf("without E7: %+v", evs[0])
	}
	if rel := relevanceOf(pipeline.Result{Hits: []pipeline.ResultHit{{Doc: 1, Score: 1, Slots: pipeline.SlotScores{fingerprint.E6: {Score: 3}}}}}, nil); rel != nil {
		t.Errorf("no E1 evidence gave a relevance: %+v", rel)
	}
}

// TestNothingRelevantOnAStore searches a real store (hash vectors for the
// model slots, so cosines are high for the memory's own words and near 0
// for unrelated ones): with MinRelevance at the floor an unrelated query
// answers nothing relevant, a query in the memory's words keeps it first
// with its relevance; without MinRelevance every hit comes back; a floor
// outside [0, 1] is a caller error.
func TestNothingRelevantOnAStore(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), hashRegistry(t, ""))
	ms := addAll(t, s, texts)
	search := func(q string, floor float64) SearchResult {
		t.Helper()
		res, err := s.Search(ctx, SearchRequest{Query: q, Mode: ModeMultiSpace, TopK: 5, MinRelevance: floor, NoThresholds: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Relevance) != len(res.Hits) || len(res.Memories) != len(res.Hits) {
			t.Fatalf("%q: %d hits, %d relevances, %d memories", q, len(res.Hits), len(res.Relevance), len(res.Memories))
		}
		return res
	}
	off := "zzqx wwvb ppqj kkxz"
	if res := search(off, 0); len(res.Hits) == 0 || res.NothingRelevant {
		t.Fatalf("without a floor the unrelated query got %d hits (nothing relevant %t)", len(res.Hits), res.NothingRelevant)
	}
	res := search(off, RelevanceFloor)
	if !res.NothingRelevant || len(res.Hits) != 0 || res.Best >= RelevanceFloor {
		t.Fatalf("unrelated query with the floor: %d hits, nothing relevant %t, best %g", len(res.Hits), res.NothingRelevant, res.Best)
	}
	res = search(texts[5], RelevanceFloor)
	if res.NothingRelevant || len(res.Hits) == 0 || res.Memories[0].ID != ms[5].ID || res.Relevance[0].P < RelevanceFloor {
		t.Fatalf("the memory's own words: nothing relevant %t, %d hits, relevance %+v", res.NothingRelevant, len(res.Hits), res.Relevance)
	}
	for _, r := range res.Relevance {
		if r.P < RelevanceFloor || r.Level == LevelNone {
			t.Errorf("a hit below the floor was kept: %+v", r)
		}
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		_, err := s.Search(ctx, SearchRequest{Query: "rocksdb", MinRelevance: bad})
		var ve *record.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("MinRelevance %g: %v, want a validation error", bad, err)
		}
	}
}

// TestRelevanceReadsRawE1 searches real memories with the real models,
// whose E1 encodes queries with its code-tuned encoder: each hit's E1
// evidence is the cosine of the untuned query (Query.Raw) with the hit's
// stored E1 vector — the scale the relevance model was fitted on — not the
// tuned score E1's list ranked by, and the two differ.
func TestRelevanceReadsRawE1(t *testing.T) {
	ctx := context.Background()
	reg := neuralRegistry(t)
	e1 := reg.Get(fingerprint.E1)
	if tq, ok := e1.(embedders.TunedQueries); !ok || !tq.Tuned() {
		t.Skipf("E1's queries are not tuned here: %s", e1.Status().Representation)
	}
	s := openStore(t, t.TempDir(), reg)
	if _, err := s.AddBatch(ctx, []record.NewMemory{
		{Content: "We pinned grocksdb at v1.7.15 because newer releases need RocksDB 9 headers the CI image lacks.", Type: record.TypeDecision},
		{Content: "func ParseDuration(s string) (time.Duration, error) parses a duration string such as 300ms or 2h45m.", Type: record.TypeCode},
		{Content: "Search results of the different spaces are combined by weighted reciprocal rank fusion.", Type: record.TypeDecision},
	}); err != nil {
		t.Fatal(err)
	}
	p, err := profiles.Lookup("semantic_search")
	if err != nil {
		t.Fatal(err)
	}
	const q = "parse a duration string"
	res, err := s.Search(ctx, SearchRequest{Query: q, Profile: p, Mode: ModeMultiSpace, TopK: 3, NoThresholds: true})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := e1.EmbedQuery(ctx, embedders.Query{Text: q, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	rv := raw.Value.(fingerprint.Dense)
	if len(res.Relevance) != len(res.Hits) || len(res.Hits) == 0 {
		t.Fatalf("%d hits, %d relevances", len(res.Hits), len(res.Relevance))
	}
	differ := false
	for i, h := range res.Hits {
		listed, ok := h.Slots[fingerprint.E1]
		if !ok {
			continue
		}
		var want float64
		for j, x := range s.ix.dense[spaceKey{slot: fingerprint.E1}].Vector(record.DocNum(h.Doc)) {
			want += float64(x) * float64(rv[j])
		}
		if got := res.Relevance[i].Evidence.E1; math.Abs(got-want) > 1e-4 {
			t.Errorf("hit %d: E1 evidence %.5f, want the raw cosine %.5f (listed %.5f)", i, got, want, listed.Score)
		}
		differ = differ || math.Abs(listed.Score-want) > 1e-3
	}
	if !differ {
		t.Error("the tuned E1 scores equal the raw cosines: the raw view is not raw")
	}
}
