package engine

import (
	"fmt"
	"math"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/record"
)

// Relevance: how likely a hit is what the query is after, as a calibrated
// probability, so that an agent (and the context packer, and the prompt
// hook) can tell "the best of nothing" from a real match. Fused RRF scores
// cannot say it: they are rank-based, and the top hit of an off-topic
// query scores like the top hit of a good one. Raw e5 cosines are
// compressed (off-topic top hits 0.77–0.82, relevant ones 0.82–0.90).
//
// The relevance of a hit is a logistic regression over evidence every
// search already holds (RelevanceEvidence); its coefficients were fitted
// on the development sets with off-topic queries (relevance_calibrate_test.go,
// docs/BENCHMARKS.md "Relevance"): fitted on one set and tested on the
// other both ways to choose the evidence, then fitted on both and tested
// on off-topic queries the fit never saw.

// RelevanceEvidence is what a hit's relevance is computed from. Each field
// is one feature of the logistic model. Other evidence was tried and left
// out because it did not carry from one development set to the other
// (docs/BENCHMARKS.md "Relevance"): the agreement of spaces, E6 relative to
// the query's best, E1's lift over the result's median, E5's cosine.
type RelevanceEvidence struct {
	// E1 is the hit's raw E1 cosine (the E10 boost divided out); a hit E1
	// did not list takes the lowest E1 cosine of the result's hits.
	E1 float64 `json:"e1"`
	// E7 is the hit's raw E7 cosine, the same way; NoE7 says E7 listed no
	// hit (no model, or a mode that does not search it): the model without
	// E7 is used.
	E7   float64 `json:"e7"`
	NoE7 bool    `json:"no_e7,omitempty"`
	// Fused is the hit's fused score over the top hit's (1 for the top
	// hit): the query's own evidence that this hit is its best or not.
	Fused float64 `json:"fused"`
}

// logistic is one fitted model: p = σ(Intercept + E1·e1 + E7·e7 + Fused·fused).
type logistic struct{ Intercept, E1, E7, Fused float64 }

func (m logistic) p(ev RelevanceEvidence) float64 {
	return 1 / (1 + math.Exp(-(m.Intercept + m.E1*ev.E1 + m.E7*ev.E7 + m.Fused*ev.Fused)))
}

// The fitted models, printed by TestCalibrateRelevance (relevance_calibrate_test.go:
// CGRAPH_RELEVANCE_SETS=…) from the top-10 multi_space hits of 1,000 dev
// queries of each of csn-go-2000 and csn-py-2000 (positive: the qrels'
// document) and of 40 off-topic queries (off-topic set A, weighted ×12)
// against each store, profile semantic_search, models e5-small-v2 (E1)
// and all-minilm-l6-v2 with its query head (E7; refitted when the head
// changed E7's query cosines). relevanceNoE7 is the same fit without E7.
// With E7's fine-tuned query encoder (e7tune.bin) this fit still meets
// the goals on the calibration sets, and a refit on them was measured
// and not kept: it put a relevant prose memory of the bundled samples
// under the floor (relevance 0.112, against 0.136 with this fit), and the
// calibration sets hold no prose (docs/BENCHMARKS.md "E7 fine-tuned for
// code").
var (
	relevanceModel = logistic{Intercept: -34.3821, E1: 15.9461, E7: 5.0064, Fused: 17.8173}
	relevanceNoE7  = logistic{Intercept: -45.7193, E1: 30.1298, Fused: 19.3299}
)

// RelevanceFloor is the relevance a hit must reach to count as relevant:
// "nothing relevant" is the answer when no hit clears it. It is the
// highest floor that keeps the relevant top-1 hit of ≥ 99% of the fitting
// dev queries, a point of margin over the goal of 98% (docs/BENCHMARKS.md
// "Relevance": the held-out figures and the trade-off around it). The
// probabilities are calibrated against a corpus where one document per
// query is marked relevant, so they read low: a hit at 0.3 is a strong one.
const RelevanceFloor = 0.12

// RelevanceStrong is the relevance from which a hit is "strong": about
// the median relevance of a relevant top-1 hit of the development sets.
const RelevanceStrong = 0.5

// Relevance levels.
const (
	LevelStrong = "strong" // relevance ≥ RelevanceStrong
	LevelWeak   = "weak"   // RelevanceFloor ≤ relevance < RelevanceStrong
	LevelNone   = "none"   // below RelevanceFloor
)

// RelevanceLevel names p's level.
func RelevanceLevel(p float64) string {
	switch {
	case p >= RelevanceStrong:
		return LevelStrong
	case p >= RelevanceFloor:
		return LevelWeak
	}
	return LevelNone
}

// Relevance is the calibrated probability, in [0, 1], that a hit with this
// evidence is relevant. It rises with each of E1, E7 and Fused.
func (ev RelevanceEvidence) Relevance() float64 {
	if ev.NoE7 {
		return relevanceNoE7.p(ev)
	}
	return relevanceModel.p(ev)
}

// EvidenceOf returns the evidence of every hit of res, E1's cosines as
// E1's list scored them. Cost: O(hits).
func EvidenceOf(res pipeline.Result) []RelevanceEvidence { return evidenceOf(res, nil) }

// evidenceOf is EvidenceOf with E1's raw cosines (rawE1) in place of the
// scores E1's list gave where raw is not nil.
func evidenceOf(res pipeline.Result, raw []float64) []RelevanceEvidence {
	hits := res.Hits
	out := make([]RelevanceEvidence, len(hits))
	e1, _ := cosines(hits, fingerprint.E1, raw)
	e7, ok7 := cosines(hits, fingerprint.E7, nil)
	for i, h := range hits {
		out[i] = RelevanceEvidence{E1: e1[i], E7: e7[i], NoE7: !ok7}
		if hits[0].Score > 0 {
			out[i].Fused = h.Score / hits[0].Score
		}
	}
	return out
}

// cosines are the hits' raw cosines in slot (E1 with the E10 boost divided
// out, or raw[i] where raw is not nil); a hit the slot did not list, or
// whose raw[i] is NaN, takes the lowest of the others. ok is false when the slot listed no hit.
func cosines(hits []pipeline.ResultHit, slot fingerprint.SlotID, raw []float64) (out []float64, ok bool) {
	out = make([]float64, len(hits))
	has := make([]bool, len(hits))
	low := math.Inf(1)
	for i, h := range hits {
		s, ok := h.Slots[slot]
		if !ok || raw != nil && math.IsNaN(raw[i]) {
			continue
		}
		out[i], has[i] = s.Score, true
		switch {
		case raw != nil:
			out[i] = raw[i]
		case slot == fingerprint.E1:
			out[i] = rawE1(s.Score, h.Boosts)
		}
		low = min(low, out[i])
	}
	if math.IsInf(low, 1) {
		return out, false
	}
	for i := range out {
		if !has[i] {
			out[i] = low
		}
	}
	return out, true
}

// rawE1 divides the E10 boost out of an E1 score.
func rawE1(score float64, boosts []pipeline.Boost) float64 {
	for _, b := range boosts {
		if b.Name == "E10 on E1" && b.Factor > 0 {
			return score / b.Factor
		}
	}
	return score
}

// HitRelevance is one hit's relevance and its level, with the evidence.
type HitRelevance struct {
	P        float64           `json:"relevance"`
	Level    string            `json:"level"`
	Evidence RelevanceEvidence `json:"evidence"`
}

// relevanceOf scores every hit of res, with E1's raw cosines raw (nil:
// the scores E1's list gave); nil when E1 listed none of them
// (no E1 model, or a mode that does not search E1): the model has no
// evidence to read, and a floor is then not applied.
func relevanceOf(res pipeline.Result, raw []float64) []HitRelevance {
	if _, ok := cosines(res.Hits, fingerprint.E1, nil); !ok {
		return nil
	}
	evs := evidenceOf(res, raw)
	out := make([]HitRelevance, len(evs))
	for i, ev := range evs {
		p := ev.Relevance()
		out[i] = HitRelevance{P: p, Level: RelevanceLevel(p), Evidence: ev}
	}
	return out
}

// checkMinRelevance validates a request's floor.
func checkMinRelevance(v float64) error {
	if v < 0 || v > 1 || math.IsNaN(v) {
		return &record.ValidationError{Field: "min_relevance", Problem: fmt.Sprintf("%g is outside [0, 1]", v),
			Fix: fmt.Sprintf("give a probability, e.g. %g (the calibrated floor), or 0 to keep every hit", RelevanceFloor)}
	}
	return nil
}

// keepRelevant drops the hits below floor, keeping Memories and Relevance
// beside Hits; with none left it records NothingRelevant and the best
// relevance seen. The evidence was computed over every hit first, so a
// kept hit's relevance is what it was before the others were dropped.
func (r *SearchResult) keepRelevant(floor float64) {
	if len(r.Relevance) != len(r.Hits) {
		return // no relevance: nothing to floor by (relevanceOf)
	}
	hits, mems, rels := r.Hits[:0:0], r.Memories[:0:0], r.Relevance[:0:0]
	for i, rel := range r.Relevance {
		r.Best = max(r.Best, rel.P)
		if rel.P < floor {
			continue
		}
		hits, mems, rels = append(hits, r.Hits[i]), append(mems, r.Memories[i]), append(rels, rel)
	}
	r.NothingRelevant = len(hits) == 0 && len(r.Hits) > 0
	r.Hits, r.Memories, r.Relevance = hits, mems, rels
}

// rawE1 is, where q holds E1's raw view (withRawE1), each hit's cosine
// between that view and the hit's stored E1 vector: the evidence on the
// scale the relevance model was fitted on, while E1's tuned queries rank.
// Nil where there is no raw view; NaN for a hit whose E1 vector is gone
// (forgotten since the search listed it), which cosines then treats as
// unlisted. REQUIRES: s.mu held shared.
func (s *Engine) rawE1(q *queryViews, hits []pipeline.ResultHit) []float64 {
	v, ok := q.views[viewKey{slot: fingerprint.E1, raw: true}]
	dense, isDense := v.(fingerprint.Dense)
	s.ix.mu.RLock() // the set's maps change under writes
	x := s.ix.dense[spaceKey{slot: fingerprint.E1}]
	s.ix.mu.RUnlock()
	if !ok || !isDense || x == nil {
		return nil
	}
	out := make([]float64, len(hits))
	for i, h := range hits {
		d := x.Vector(record.DocNum(h.Doc))
		if len(d) != len(dense) { // forgotten since it was listed
			out[i] = math.NaN()
			continue
		}
		var dot float64
		for j, a := range dense {
			dot += float64(a) * float64(d[j])
		}
		out[i] = dot
	}
	return out
}
