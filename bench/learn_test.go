package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
)

// learnSet makes n queries over 50 documents each: E1 ranks the relevant
// document at 0–2, E6 at a random place, E7 at 3–9. The best fusion weighs
// E1 most and E6 least.
func learnSet(n int) ([]LearnQuery, Qrels) {
	r := rand.New(rand.NewPCG(7, 7))
	var qs []LearnQuery
	qrels := Qrels{}
	for i := range n {
		id := QueryID(fmt.Sprint("q", i))
		rel := DocID(fmt.Sprint("rel", i))
		qrels[id] = map[DocID]int{rel: 1}
		list := func(at int) []Ranked {
			var out []Ranked
			for d := range 50 {
				doc := DocID(fmt.Sprint("d", i, "-", d))
				if d == at {
					doc = rel
				}
				out = append(out, Ranked{ID: doc, Score: float64(50 - d)})
			}
			return out
		}
		qs = append(qs, LearnQuery{ID: id, Lists: map[fingerprint.SlotID][]Ranked{
			fingerprint.E1: list(r.IntN(3)), fingerprint.E6: list(r.IntN(50)), fingerprint.E7: list(3 + r.IntN(7)),
		}})
	}
	return qs, qrels
}

func TestLearnWeights(t *testing.T) {
	qs, qrels := learnSet(200)
	base := profiles.Profile{Name: "base", Staged: true}
	base.Weights.Set(fingerprint.E1, 0.1)
	base.Weights.Set(fingerprint.E6, 0.6) // weighs the noise most
	base.Weights.Set(fingerprint.E7, 0.2)
	base.Weights.Set(fingerprint.E13, 0.1) // stage-only: kept as it is
	res, err := LearnWeights(qs, qrels, LearnConfig{Base: base, Slots: []fingerprint.SlotID{fingerprint.E1, fingerprint.E6, fingerprint.E7}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Profile.Weights
	t.Logf("learned %v; CV %.3f [%.3f, %.3f], base %.3f", w, res.CV.Mean, res.CV.Low, res.CV.High, res.Base.Mean)
	if w.Get(fingerprint.E1) <= w.Get(fingerprint.E7) || w.Get(fingerprint.E7) < w.Get(fingerprint.E6) {
		t.Errorf("weights %v: want E1 > E7 ≥ E6", w)
	}
	if w.Get(fingerprint.E13) != 0.1 {
		t.Errorf("E13 weight %v, want the base's 0.1 kept", w.Get(fingerprint.E13))
	}
	if err := res.Profile.Validate(); err != nil {
		t.Fatal(err)
	}
	if res.CV.Low <= res.Base.High {
		t.Errorf("CV %+v does not beat the base %+v on held-out folds", res.CV, res.Base)
	}
	if len(res.FoldWeights) != 5 {
		t.Errorf("%d fold weights, want 5", len(res.FoldWeights))
	}
	sum := 0.0
	for _, s := range fingerprint.Slots() {
		sum += w.Get(s)
	}
	if math.Abs(sum-1) > 0.01 {
		t.Errorf("weights sum to %v", sum)
	}
}

func TestLearnWeightsRefuses(t *testing.T) {
	qs, qrels := learnSet(20)
	base := profiles.Profile{Name: "b"}
	base.Weights.Set(fingerprint.E1, 1)
	for name, cfg := range map[string]LearnConfig{
		"temporal slot": {Base: base, Slots: []fingerprint.SlotID{fingerprint.E2}},
		"stage slot":    {Base: base, Slots: []fingerprint.SlotID{fingerprint.E12}},
		"no slot":       {Base: base},
		"too few":       {Base: base, Slots: []fingerprint.SlotID{fingerprint.E1}, Folds: 15},
	} {
		if _, err := LearnWeights(qs, qrels, cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestLearnWeightsUnderFusion: the weights are scored under the fusion
// asked for. The base profile's cross-validated nDCG differs between WRRF
// and min-max on the same queries, and E1 still comes out on top under
// min-max.
func TestLearnWeightsUnderFusion(t *testing.T) {
	qs, qrels := learnSet(120)
	base := profiles.Profile{Name: "base"}
	base.Weights.Set(fingerprint.E1, 0.2)
	base.Weights.Set(fingerprint.E6, 0.5)
	base.Weights.Set(fingerprint.E7, 0.3)
	slots := []fingerprint.SlotID{fingerprint.E1, fingerprint.E6, fingerprint.E7}
	rrf, err := LearnWeights(qs, qrels, LearnConfig{Base: base, Slots: slots, Seed: 1, Fusion: pipeline.FusionRRF})
	if err != nil {
		t.Fatal(err)
	}
	mm, err := LearnWeights(qs, qrels, LearnConfig{Base: base, Slots: slots, Seed: 1, Fusion: pipeline.FusionMinMax})
	if err != nil {
		t.Fatal(err)
	}
	if rrf.Base.Mean == mm.Base.Mean {
		t.Errorf("base nDCG %.4f under both fusions: the fusion was not used", rrf.Base.Mean)
	}
	if w := mm.Profile.Weights; w.Get(fingerprint.E1) <= w.Get(fingerprint.E6) {
		t.Errorf("min-max weights %v: want E1 above the noise E6", w)
	}
}
