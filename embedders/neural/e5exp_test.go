package neural

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/cgraph/cgraph/models/runtime"
)

type causalPair struct {
	Cause, Effect, Marker, Source string
}

func loadPairs(t testing.TB) []causalPair {
	t.Helper()
	f, err := os.Open("testdata/causal_pairs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []causalPair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var p causalPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

func embedAll(t testing.TB, m *runtime.Model, prefix string, texts []string) [][]float32 {
	t.Helper()
	vs, err := m.EmbedPrefixed(context.Background(), prefix, texts)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = v.Vector
	}
	return out
}

func TestE5Experiment(t *testing.T) {
	if os.Getenv("CGRAPH_E5_EXPERIMENT") == "" {
		t.Skip("set CGRAPH_E5_EXPERIMENT=1 to compare E5 prefix designs")
	}
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	id := os.Getenv("CGRAPH_E5_MODEL")
	if id == "" {
		id = string(l.cfg.variant(l.mf, modelE5))
	}
	lm, why, err := l.get(modelID(id))
	if err != nil || lm == nil {
		t.Fatal(why, err)
	}
	ps := loadPairs(t)
	causes, effects := make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		causes[i], effects[i] = p.Cause, p.Effect
	}
	designs := []struct{ name, qEffect, dCause string }{
		{"none", "", ""},
		{"bge-query", "Represent this sentence for searching relevant passages: ", ""},
		{"what-caused", "What caused this? ", "This is the cause: "},
		{"effect/cause", "Effect: ", "Cause: "},
		{"represent", "Represent this effect for retrieving its cause: ", "Represent this cause: "},
		{"find-cause", "Find the reason why: ", "The reason is: "},
	}
	for _, d := range designs {
		qe := embedAll(t, lm.m, d.qEffect, effects) // query effect-view of effect texts
		qc := embedAll(t, lm.m, d.qEffect, causes)  // query effect-view of cause texts (reverse)
		dc := embedAll(t, lm.m, d.dCause, causes)   // doc cause-vector of cause texts
		de := embedAll(t, lm.m, d.dCause, effects)  // doc cause-vector of effect texts (reverse)
		ev := evalDirection(qe, qc, dc, de)
		t.Logf("%-14s %s", d.name, ev)
	}
}

func TestE5HeadExperiment(t *testing.T) {
	if os.Getenv("CGRAPH_E5_EXPERIMENT") == "" {
		t.Skip("set CGRAPH_E5_EXPERIMENT=1 to compare E5 heads")
	}
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	lm, why, err := l.get(l.cfg.variant(l.mf, modelE5))
	if err != nil || lm == nil {
		t.Fatal(why, err)
	}
	ps := loadPairs(t)
	causes, effects := make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		causes[i], effects[i] = p.Cause, p.Effect
	}
	xc, xe := embedAll(t, lm.m, "", causes), embedAll(t, lm.m, "", effects)
	var trC, trE, teC, teE [][]float32
	for i := range ps {
		if i%2 == 0 {
			trC, trE = append(trC, xc[i]), append(trE, xe[i])
		} else {
			teC, teE = append(teC, xc[i]), append(teE, xe[i])
		}
	}
	for _, center := range []float32{0, 0.5, 0.8, 1} {
		for _, beta := range []float32{0.25, 0.5, 1} {
			h := fitShiftHead(trC, trE, beta)
			for k := range h.Mu {
				h.Mu[k] *= center
			}
			ev := func(c, e [][]float32) dirEval {
				return evalDirection(h.mapAll(e, +1), h.mapAll(c, +1), h.mapAll(c, -1), h.mapAll(e, -1))
			}
			t.Logf("center %.1f beta %.2f train %s", center, beta, ev(trC, trE))
			t.Logf("center %.1f beta %.2f test  %s", center, beta, ev(teC, teE))
		}
	}
}

var updateE5Head = flag.Bool("update-e5-head", false, "refit e5head.json on the even-indexed pairs of testdata/causal_pairs.jsonl")

// TestUpdateE5Head refits the shipped E5 head (go test -run UpdateE5Head
// -update-e5-head ./embedders/neural): the mean-difference head on the
// even-indexed mined pairs, Beta 0.5, no centring (see the package doc for
// the sweep behind these choices). The odd-indexed pairs stay held out for
// TestE5Direction.
func TestUpdateE5Head(t *testing.T) {
	if !*updateE5Head {
		t.Skip("run with -update-e5-head to refit e5head.json")
	}
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	id := l.cfg.variant(l.mf, modelE5)
	lm, why, err := l.get(id)
	if err != nil || lm == nil {
		t.Fatal(why, err)
	}
	ps := loadPairs(t)
	var causes, effects []string
	for i, p := range ps {
		if i%2 == 0 {
			causes, effects = append(causes, p.Cause), append(effects, p.Effect)
		}
	}
	h := fitShiftHead(embedAll(t, lm.m, "", causes), embedAll(t, lm.m, "", effects), 0.5)
	clear(h.Mu) // no centring: cosines keep the encoder's scale
	h.FittedOn = fmt.Sprintf("%s, %d even-indexed pairs of testdata/causal_pairs.jsonl", id, len(causes))
	data, err := json.MarshalIndent(h, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("e5head.json", append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
