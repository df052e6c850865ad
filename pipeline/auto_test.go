package pipeline

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

func TestQueryFeatures(t *testing.T) {
	for _, tc := range []struct {
		q                      string
		words                  int
		ident, question, cause float64
		punctAbove             float64 // code_punct must exceed this
		punctAtMost            float64 // and be at most this
	}{
		{q: "", words: 0, punctAtMost: 0},
		{q: "Returns an fs.FileInfo for the Header.", words: 6, ident: 1.0 / 6, punctAtMost: 0},
		{q: "why does the build fail?", words: 5, question: 1, cause: 1.0 / 3, punctAbove: 0, punctAtMost: 0.1},
		{q: "how to parse json", words: 4, question: 1},
		{q: "the cache expired because the clock jumped so requests failed", words: 10, cause: 1},
		{q: "strings.Split(s, sep) []string", words: 3, ident: 2.0 / 3, punctAbove: 0.1, punctAtMost: 0.2}, // ( ) [ ] of 28
		{q: "parse_config readAll utf8 HTTPServer", words: 4, ident: 1, punctAbove: 0, punctAtMost: 0.05},  // _ of 33
		{q: "Close the file", words: 3, ident: 0, punctAtMost: 0},
	} {
		f := QueryFeatures(tc.q)
		if len(f) != NumQueryFeatures {
			t.Fatalf("%q: %d features", tc.q, len(f))
		}
		if want := math.Log1p(float64(tc.words)); math.Abs(f[0]-want) > 1e-9 {
			t.Errorf("%q: length %g, want log1p(%d)", tc.q, f[0], tc.words)
		}
		if math.Abs(f[1]-tc.ident) > 1e-9 || f[2] != tc.question || math.Abs(f[3]-tc.cause) > 1e-9 {
			t.Errorf("%q: identifiers %g question %g causal %g, want %g %g %g", tc.q, f[1], f[2], f[3], tc.ident, tc.question, tc.cause)
		}
		if f[4] > tc.punctAtMost || (tc.punctAbove > 0 && f[4] <= tc.punctAbove) {
			t.Errorf("%q: code punctuation %g, want in (%g, %g]", tc.q, f[4], tc.punctAbove, tc.punctAtMost)
		}
	}
}

// hits builds a list from docs with descending scores.
func hitsOf(scores []float64, docs ...record.DocNum) []Hit {
	hs := make([]Hit, len(docs))
	for i, d := range docs {
		hs[i] = Hit{Doc: d, Score: scores[i]}
	}
	return hs
}

func seq(from, n int) []record.DocNum {
	out := make([]record.DocNum, n)
	for i := range out {
		out[i] = record.DocNum(from + i)
	}
	return out
}

func linear(n int, top, step float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = top - step*float64(i)
	}
	return out
}

func TestListEvidence(t *testing.T) {
	peaked := linear(50, 0.5, 0.001)
	peaked[0] = 0.95 // one clear winner
	lists := []RankedList{
		{Slot: fp.E1, Hits: hitsOf(peaked, seq(1, 50)...)},
		{Slot: fp.E6, Hits: hitsOf(linear(50, 20, 0.1), seq(1, 50)...)},     // same documents, flat
		{Slot: fp.E7, Hits: hitsOf(linear(50, 0.9, 0.01), seq(101, 50)...)}, // other documents
	}
	ev, conf := ListEvidence(lists)
	if ev[0][0] != 0.95 || ev[1][0] != 20 {
		t.Errorf("top scores %g %g", ev[0][0], ev[1][0])
	}
	if ev[0][1] < 0.9 || ev[1][1] > 0.2 {
		t.Errorf("gap: peaked %g (want near 1), flat %g (want 1/9)", ev[0][1], ev[1][1])
	}
	if !(ev[0][2] < ev[1][2]) || ev[1][2] < 0.9 || ev[1][2] > 1 {
		t.Errorf("entropy: peaked %g should be below flat %g (≤ 1, near 1)", ev[0][2], ev[1][2])
	}
	if ev[0][3] != 0.5 || ev[2][3] != 0 {
		t.Errorf("agreement: E1 %g (shares its top 10 with E6 only: want .5), E7 %g (want 0)", ev[0][3], ev[2][3])
	}
	if !(conf[0] > 5 && conf[1] < 2) {
		t.Errorf("confidence: peaked %g, flat %g", conf[0], conf[1])
	}
	// A short list: no gap, flat entropy, no confidence; an empty list, zeros.
	ev, conf = ListEvidence([]RankedList{{Slot: fp.E1, Hits: hitsOf([]float64{.5}, 1)}, {Slot: fp.E6}})
	if ev[0][1] != 0 || ev[0][2] != 1 || conf[0] != 0 || ev[1][0] != 0 || conf[1] != 0 {
		t.Errorf("short lists: %v %v", ev, conf)
	}
}

func loadTestModel(t *testing.T, name string) *AutoModel {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadAutoModel(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAutoWeighCrafted runs a small hand-written model (testdata) on crafted
// lists: its coefficients say "causal cue words raise E5", "a large E6 gap
// raises E6", and its gate returns E1 alone above 6 standard deviations.
func TestAutoWeighCrafted(t *testing.T) {
	m := loadTestModel(t, "auto_model_small.json")
	flat := func(s fp.SlotID, from int) RankedList {
		return RankedList{Slot: s, Hits: hitsOf(linear(50, 0.8, 0.002), seq(from, 50)...)}
	}
	weightOf := func(d AutoDecision, s string) float64 {
		i := slices.IndexFunc(d.Weights, func(w SlotWeight) bool { return w.Slot == s })
		if i < 0 {
			t.Fatalf("no weight for %s in %+v", s, d)
		}
		return d.Weights[i].Weight
	}
	plain := []RankedList{flat(fp.E1, 1), flat(fp.E5, 1), flat(fp.E6, 1)}
	neutral := m.Weigh("parse the configuration file", plain, nil)
	causal := m.Weigh("the disk filled up because logs were never rotated so writes failed", []RankedList{flat(fp.E1, 1), flat(fp.E5, 1), flat(fp.E6, 1)}, nil)
	if !(weightOf(causal, "E5") > weightOf(neutral, "E5")*1.3) {
		t.Errorf("causal query: E5 weight %.3f, neutral %.3f: want causal spaces up", weightOf(causal, "E5"), weightOf(neutral, "E5"))
	}
	sum := 0.0
	for _, w := range causal.Weights {
		sum += w.Weight
	}
	if math.Abs(sum-1) > 1e-9 || causal.Gated != "" || len(causal.Reasons) == 0 || !strings.Contains(causal.Reasons[0], "causal_cues E5") {
		t.Errorf("causal decision %+v: want weights summing to 1, no gate, causal_cues E5 first", causal)
	}

	// E1 with one document far above the rest: gated, and WRRF returns E1's
	// ranking alone even though E5 and E6 agree on another order.
	peaked := linear(50, 0.5, 0.001)
	peaked[0] = 0.99
	lists := []RankedList{{Slot: fp.E1, Hits: hitsOf(peaked, seq(1, 50)...)}, flat(fp.E5, 200), flat(fp.E6, 200)}
	d := m.Weigh("parse the configuration file", lists, nil)
	if d.Gated != "E1" || weightOf(d, "E1") != 1 || lists[1].Weight != 0 || lists[2].Weight != 0 {
		t.Fatalf("confident E1: %+v, list weights %g %g %g", d, lists[0].Weight, lists[1].Weight, lists[2].Weight)
	}
	fused := WRRF(lists)
	for i, f := range fused[:10] {
		if f.Doc != lists[0].Hits[i].Doc {
			t.Fatalf("gated fusion rank %d is doc %d, want E1's %d", i, f.Doc, lists[0].Hits[i].Doc)
		}
	}
	if !strings.Contains(d.String(), "E1 confident") {
		t.Errorf("explain line %q does not say why it did not fuse", d.String())
	}

	// A slot the model does not know weighs 0.
	lists = []RankedList{flat(fp.E1, 1), flat(fp.E9, 1)}
	m.Weigh("x", lists, nil)
	if lists[1].Weight != 0 || lists[0].Weight != 1 {
		t.Errorf("unknown slot E9: weights %g %g", lists[0].Weight, lists[1].Weight)
	}
}

// TestCodeShare counts the distinct documents of the lists' top 10 that
// read as code.
func TestCodeShare(t *testing.T) {
	even := func(d record.DocNum) bool { return d%2 == 0 }
	lists := []RankedList{
		{Slot: fp.E1, Hits: hitsOf(linear(20, 1, .01), seq(1, 20)...)}, // top 10: 1..10
		{Slot: fp.E6, Hits: hitsOf(linear(20, 9, .3), seq(6, 20)...)},  // top 10: 6..15
		{Slot: fp.E5, Hits: hitsOf(linear(3, 1, .1), 100, 102, 104)},   // all code
	}
	// distinct 1..15 (7 even) and 100, 102, 104: 10 of 18
	if got := CodeShare(lists, even); math.Abs(got-10.0/18) > 1e-12 {
		t.Errorf("CodeShare = %g, want 10/18", got)
	}
	if got := CodeShare(lists, nil); got != 0 {
		t.Errorf("CodeShare without a predicate = %g, want 0", got)
	}
	if got := CodeShare(nil, even); got != 0 {
		t.Errorf("CodeShare of no lists = %g, want 0", got)
	}
}

// TestAutoWeighRouted: a version 2 model weighs with its prose base when no
// top hit is code, its code base when all are, and the geometric mean at
// half; a version 1 model ignores the predicate.
func TestAutoWeighRouted(t *testing.T) {
	b, err := os.ReadFile("testdata/auto_model_small.json")
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(string(b), `"version": 1`, `"version": 2`, 1)
	for slot, code := range map[string]string{"E1": "0.1", "E5": "0.1", "E6": "0.8"} {
		v2 = strings.Replace(v2, `"`+slot+`": {`, `"`+slot+`": {"base_code": `+code+`,`, 1)
	}
	m, err := LoadAutoModel([]byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	lists := func() []RankedList { // no gate: flat lists, docs 1..30 in each
		return []RankedList{{Slot: fp.E1, Hits: hitsOf(linear(30, .8, .002), seq(1, 30)...)},
			{Slot: fp.E5, Hits: hitsOf(linear(30, .8, .002), seq(1, 30)...)},
			{Slot: fp.E6, Hits: hitsOf(linear(30, 9, .01), seq(1, 30)...)}}
	}
	for _, tc := range []struct {
		name  string
		code  func(record.DocNum) bool
		share float64
		e6    float64 // E6's share of the base weights
	}{
		{"prose", func(record.DocNum) bool { return false }, 0, 0.3},
		{"code", func(record.DocNum) bool { return true }, 1, 0.8},
		{"half", func(d record.DocNum) bool { return d%2 == 0 }, 0.5, math.Sqrt(.3*.8) / (math.Sqrt(.4*.1) + math.Sqrt(.3*.1) + math.Sqrt(.3*.8))},
		{"no predicate", nil, 0, 0.3},
	} {
		ls := lists()
		d := m.Weigh("parse the configuration file", ls, tc.code)
		if math.Abs(d.CodeShare-tc.share) > 1e-12 {
			t.Errorf("%s: code share %g, want %g", tc.name, d.CodeShare, tc.share)
		}
		i := slices.IndexFunc(d.Weights, func(w SlotWeight) bool { return w.Slot == "E6" })
		if math.Abs(d.Weights[i].Base-tc.e6) > 1e-9 {
			t.Errorf("%s: E6 base %g, want %g", tc.name, d.Weights[i].Base, tc.e6)
		}
		if !strings.Contains(d.Reasons[0], "are code") {
			t.Errorf("%s: first reason %q does not say how the route was chosen", tc.name, d.Reasons[0])
		}
	}
	v1 := loadTestModel(t, "auto_model_small.json")
	if d := v1.Weigh("parse the configuration file", lists(), func(record.DocNum) bool { return true }); d.CodeShare != 0 {
		t.Errorf("version 1 model: code share %g, want 0 (it does not route)", d.CodeShare)
	}
}

// TestAutoWeighRoutedTheta: a version 2 model with θ_code applies its θ to
// prose results, θ_code to code results and the blend between; a slot
// without θ_code keeps its θ for both.
func TestAutoWeighRoutedTheta(t *testing.T) {
	b, err := os.ReadFile("testdata/auto_model_small.json")
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(string(b), `"version": 1`, `"version": 2`, 1)
	for slot, base := range map[string]string{"E1": "0.4", "E5": "0.3", "E6": "0.3"} { // the same bases: only θ routes
		v2 = strings.Replace(v2, `"`+slot+`": {`, `"`+slot+`": {"base_code": `+base+`,`, 1)
	}
	// E5's θ weighs causal cue words (+3); its θ_code does not.
	v2 = strings.Replace(v2, `"theta": [0, 0, 0, 3, 0, 0, 0, 0, 0],`, `"theta": [0, 0, 0, 3, 0, 0, 0, 0, 0], "theta_code": [0, 0, 0, 0, 0, 0, 0, 0, 0],`, 1)
	short := strings.Replace(v2, `"theta_code": [0, 0, 0, 0, 0, 0, 0, 0, 0]`, `"theta_code": [0]`, 1)
	if _, err := LoadAutoModel([]byte(short)); err == nil || !strings.Contains(err.Error(), "1 theta_code values") {
		t.Errorf("a theta_code of 1 value: error %v, want one naming it", err)
	}
	m, err := LoadAutoModel([]byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	const q = "the cache fails because the lock leads to a timeout"
	z := QueryFeatures(q)[3] // causal cues, mean 0, sd 1
	if z <= 0 {
		t.Fatalf("query %q has no causal cue feature", q)
	}
	for _, tc := range []struct {
		name  string
		code  func(record.DocNum) bool
		boost float64 // E5's weight over E1's, relative to their bases' ratio
	}{
		{"prose", func(record.DocNum) bool { return false }, math.Exp(3 * z)},
		{"code", func(record.DocNum) bool { return true }, 1},
		{"half", func(d record.DocNum) bool { return d%2 == 0 }, math.Exp(0.5 * 3 * z)},
	} {
		ls := []RankedList{{Slot: fp.E1, Hits: hitsOf(linear(30, .8, .002), seq(1, 30)...)},
			{Slot: fp.E5, Hits: hitsOf(linear(30, .8, .002), seq(1, 30)...)},
			{Slot: fp.E6, Hits: hitsOf(linear(30, 9, .01), seq(1, 30)...)}}
		m.Weigh(q, ls, tc.code)
		if got := (ls[1].Weight / ls[0].Weight) / (0.3 / 0.4); math.Abs(got-tc.boost) > 1e-9 {
			t.Errorf("%s: E5 over E1 ×%.4f their bases' ratio, want ×%.4f", tc.name, got, tc.boost)
		}
	}
}

func TestLoadAutoModelErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/auto_model_small.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"version", `"version": 1`, `"version": 3`, "version 3"},
		{"base_code in v1", `"base": 0.3`, `"base": 0.3, "base_code": 0.2`, "version 1 model"},
		{"v2 without base_code", `"version": 1`, `"version": 2`, "base_code 0 in a version 2 model"},
		{"features", `"length"`, `"words"`, "refit"},
		{"provenance", `"date": "2026-11-26"`, `"date": ""`, "provenance"},
		{"slot", `"E6":`, `"E99":`, "E99"},
		{"stage-only", `"E6":`, `"E12":`, "does not fuse"},
		{"sd", `"sd": [1, 1, 1, 1, 1, 1, 1, 1, 1]`, `"sd": [1, 1, 1, 1, 1, 1, 1, 1, 0]`, "standard deviation"},
		{"theta length", `"theta": [0, 0, 0, 0, 0, 0, 0, 0, 0]`, `"theta": [0]`, "theta/mean/sd"},
		{"unknown key", `"version": 1`, `"version": 1, "bias": 3`, "unknown field"},
		{"base", `"base": 0.3`, `"base": 0`, "base 0"},
		{"theta_code in v1", `"theta": [0, 0, 0, 3, 0, 0, 0, 0, 0],`, `"theta": [0, 0, 0, 3, 0, 0, 0, 0, 0], "theta_code": [0, 0, 0, 0, 0, 0, 0, 0, 0],`, "theta_code values in a version 1 model"},
	} {
		b := strings.Replace(string(good), tc.from, tc.to, 1)
		if b == string(good) {
			t.Fatalf("%s: %q not in the fixture", tc.name, tc.from)
		}
		if _, err := LoadAutoModel([]byte(b)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func FuzzLoadAutoModel(f *testing.F) {
	good, err := os.ReadFile("testdata/auto_model_small.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(autoModelJSON)
	f.Add([]byte(`{"version":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := LoadAutoModel(b)
		if err != nil {
			return
		}
		// Whatever loads weighs without panicking and yields finite weights
		// summing to 1.
		lists := []RankedList{{Slot: fp.E1, Hits: hitsOf(linear(20, 1, .01), seq(1, 20)...)},
			{Slot: fp.E6, Hits: hitsOf(linear(20, 9, .3), seq(5, 20)...)}}
		d := m.Weigh("why does strings.Split fail?", lists, func(d record.DocNum) bool { return d%2 == 0 })
		sum := 0.0
		for _, w := range d.Weights {
			if math.IsNaN(w.Weight) || w.Weight < 0 {
				t.Fatalf("weight %v", w)
			}
			sum += w.Weight
		}
		if len(d.Weights) > 0 && math.Abs(sum-1) > 1e-6 {
			t.Fatalf("weights sum to %g", sum)
		}
	})
}

// TestAutoProfileRun runs the built-in auto profile through multi_space:
// the per-query weights replace the profile's, and explain shows them.
func TestAutoProfileRun(t *testing.T) {
	p, err := profiles.Lookup("auto")
	if err != nil {
		t.Fatal(err)
	}
	f := newFake()
	for i, s := range p.Weights.Active() {
		var pairs []float64
		for j := range 30 {
			pairs = append(pairs, float64((j+i)%40+1), 0.9-0.01*float64(j))
		}
		f.set(Probe{Slot: s, View: ViewSymmetric}, pairs...)
		f.set(Probe{Slot: s, View: ViewForward}, pairs...)
		f.set(Probe{Slot: s, View: ViewBackward}, pairs...)
	}
	for _, m := range []Mode{ModeMultiSpace, ModePipeline} {
		res, err := Run(ctx, f, Request{Query: "why does the parser fail on empty input?", Profile: p, Mode: m, NoThresholds: true})
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if res.Auto == nil || len(res.Auto.Weights) == 0 {
			t.Fatalf("%s: no auto decision in the result", m)
		}
		if note := traceOf(res, StageFusion).Note; !strings.Contains(note, "auto weights") {
			t.Errorf("%s: fusion trace %q does not show the auto weights", m, note)
		}
		if len(res.Hits) == 0 {
			t.Errorf("%s: no results", m)
		}
	}
	// A static profile has no auto decision.
	res, err := Run(ctx, f, Request{Query: "x", Profile: mustLookup(t, "semantic_search"), Mode: ModeMultiSpace})
	if err != nil || res.Auto != nil {
		t.Errorf("semantic_search: auto %+v, err %v", res.Auto, err)
	}
}

func mustLookup(t *testing.T, name string) profiles.Profile {
	t.Helper()
	p, err := profiles.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEmbeddedAutoModel pins the shipped model: it loads, its checksum is the
// one docs/PROFILES.md reports, it says where it came from, and the auto
// profile's typical weights are its base weights.
func TestEmbeddedAutoModel(t *testing.T) {
	m, err := LoadAutoModel(autoModelJSON)
	if err != nil {
		t.Fatal(err)
	}
	const want = "db61d293611974a98ad9492f60fac4f79cea443737e471f147df049823962ea9"
	if got := AutoModelSHA256(); got != want {
		t.Errorf("auto_model.json sha256 %s, pinned %s: a refit must update the pin and docs/PROFILES.md", got, want)
	}
	sets := map[string]bool{}
	for _, f := range m.FittedOn {
		sets[f.Set] = f.Queries > 0
	}
	for _, s := range []string{"csn-go-2000", "csn-py-2000", "causal-dev", "javaeval", "causal-other", "js-set"} {
		if !sets[s] {
			t.Errorf("fitted_on %+v lacks %s", m.FittedOn, s)
		}
	}
	p := mustLookup(t, "auto")
	if !p.Adaptive || !slices.Equal(p.Weights.Active(), m.SlotIDs()) {
		t.Errorf("auto profile: adaptive %v, slots %v; model slots %v", p.Adaptive, p.Weights.Active(), m.SlotIDs())
	}
	total := 0.0
	for _, s := range m.Slots {
		total += s.Base
	}
	for _, s := range m.SlotIDs() {
		if b := m.Slots[s.String()].Base / total; math.Abs(b-p.Weights.Get(s)) > 0.011 {
			t.Errorf("%s: model base %.3f, profiles.AutoBase %.3f", s, b, p.Weights.Get(s))
		}
	}
	// Version 2: results that are code start from code_search's weights.
	if m.Version != 2 {
		t.Fatalf("shipped model version %d, want 2 (it routes on the code share)", m.Version)
	}
	code := mustLookup(t, "code_search")
	for _, s := range m.SlotIDs() {
		if b := m.Slots[s.String()].BaseCode; math.Abs(b-code.Weights.Get(s)) > 0.011 {
			t.Errorf("%s: model code base %.3f, code_search %.3f", s, b, code.Weights.Get(s))
		}
	}
}

// TestShippedAutoModelEvidence checks what the shipped model learned
// (docs/PROFILES.md "Routing on code"): results that are code weigh as
// code_search does — E7 above and E10 far below what prose results give
// them (the code bases refitted on six languages); among prose results an
// E5 list that agrees with the other lists gains weight over the same list
// agreeing with none, while code results take code_search's weights
// whatever the lists show (θ_code is zero: the evidence terms did not carry
// over between code sets, docs/PROFILES.md "Evidence terms for prose
// only"); and the weights stay a distribution throughout.
func TestShippedAutoModelEvidence(t *testing.T) {
	slots := DefaultAutoModel.SlotIDs()
	e5 := slices.Index(slots, fp.E5)
	// Every list ranks docs 1..50 (all agree), or E5 ranks 500..549 (agrees
	// with none).
	lists := func(e5Agrees bool) []RankedList {
		var out []RankedList
		for _, s := range slots {
			out = append(out, RankedList{Slot: s, Hits: hitsOf(linear(50, 0.8, 0.004), seq(1, 50)...)})
		}
		if !e5Agrees {
			out[e5].Hits = hitsOf(linear(50, 0.8, 0.004), seq(500, 50)...)
		}
		return out
	}
	weightOf := func(d AutoDecision, s string) float64 {
		for _, w := range d.Weights {
			if w.Slot == s {
				return w.Weight
			}
		}
		t.Fatalf("no weight for %s", s)
		return 0
	}
	code := func(record.DocNum) bool { return true }
	prose := func(record.DocNum) bool { return false }
	q := "Returns the number of bytes written to the buffer."
	dc, dp := DefaultAutoModel.Weigh(q, lists(true), code), DefaultAutoModel.Weigh(q, lists(true), prose)
	if dc.CodeShare != 1 || dp.CodeShare != 0 {
		t.Fatalf("code shares %g and %g, want 1 and 0", dc.CodeShare, dp.CodeShare)
	}
	// The lists are the same, so the bases (the route) tell the two apart.
	baseOf := func(d AutoDecision, s string) float64 {
		i := slices.IndexFunc(d.Weights, func(w SlotWeight) bool { return w.Slot == s })
		return d.Weights[i].Base
	}
	if !(baseOf(dp, "E10") > 5*baseOf(dc, "E10")) || !(baseOf(dc, "E5") > baseOf(dp, "E5")) {
		t.Errorf("E10 base on code results %.3f, on prose %.3f; E5 %.3f and %.3f: want E10 far lower on code, E5 (code-tuned queries) higher",
			baseOf(dc, "E10"), baseOf(dp, "E10"), baseOf(dc, "E5"), baseOf(dp, "E5"))
	}
	agree, alone := DefaultAutoModel.Weigh(q, lists(true), prose), DefaultAutoModel.Weigh(q, lists(false), prose)
	if !(weightOf(agree, "E5") > weightOf(alone, "E5")) {
		t.Errorf("E5 weight agreeing with the others %.3f, agreeing with none %.3f: want it higher", weightOf(agree, "E5"), weightOf(alone, "E5"))
	}
	codeAlone := DefaultAutoModel.Weigh(q, lists(false), code)
	cs := mustLookup(t, "code_search")
	for _, d := range []AutoDecision{dc, codeAlone} {
		for _, w := range d.Weights {
			if math.Abs(w.Weight-w.Base) > 1e-9 {
				t.Errorf("code results: %s weight %.4f, base %.4f: want the base (no evidence terms on code)", w.Slot, w.Weight, w.Base)
			}
		}
	}
	if e5 := weightOf(codeAlone, "E5"); math.Abs(e5-cs.Weights.Get(fp.E5)) > 0.011 {
		t.Errorf("code results: E5 weight %.3f, code_search %.3f", e5, cs.Weights.Get(fp.E5))
	}
	for _, d := range []AutoDecision{dc, dp, agree, alone, codeAlone} {
		sum := 0.0
		for _, w := range d.Weights {
			sum += w.Weight
		}
		if math.Abs(sum-1) > 1e-9 || len(d.Weights) != len(slots) {
			t.Errorf("weights %+v sum to %g", d.Weights, sum)
		}
	}
}
