package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	rec "github.com/cgraph/cgraph/record"
)

// LearnQuery is one training query: the ranked list each fused slot returns
// for it on its own (an embedder_first search, best first).
type LearnQuery struct {
	ID    QueryID
	Lists map[fingerprint.SlotID][]Ranked
}

// LearnConfig configures LearnWeights.
type LearnConfig struct {
	// Base is the profile the search starts from; its weights on slots not
	// in Slots (E12, E13, the temporal slots) and its other fields are kept.
	Base profiles.Profile
	// Slots are the fused slots whose weights are fitted.
	Slots []fingerprint.SlotID
	// Folds is the number of cross-validation folds (default 5).
	Folds int
	// K is the nDCG cutoff optimised and reported (default 10).
	K int
	// Seed shuffles queries into folds.
	Seed uint64
	// Rounds bounds the coordinate-ascent passes over the slots (default 10).
	Rounds int
	// Fusion is the fusion the weights are fitted under, the one the
	// searches that use them will run (zero: pipeline.DefaultFusion).
	Fusion pipeline.Fusion
}

// LearnResult is what LearnWeights found.
type LearnResult struct {
	// Profile is Base with the weights fitted on every query.
	Profile profiles.Profile
	// CV is the mean nDCG@K of the weights fitted on the other folds, on
	// each held-out query; Base is the base profile's on the same queries.
	// Both fuse the slots' lists with LearnConfig.Fusion alone (no E10 or
	// E11 boost).
	CV, Base MetricCI
	// FoldWeights are the weights each fold learned, for stability.
	FoldWeights []profiles.Weights
}

// MetricCI is a mean with its 95% bootstrap confidence interval.
type MetricCI struct {
	Mean, Low, High float64
}

// LearnWeights fits per-slot fusion weights by coordinate ascent on mean
// nDCG@K of WRRF over the slots' own lists, with K-fold cross-validation:
// each fold's held-out queries are scored with the weights the other folds
// learned, so CV is an estimate for unseen queries. The fitted profile keeps
// every profile invariant (the weights sum to 1, temporal and stage-only
// slots keep the base's weights) and is checked with Validate. Cost:
// O(Folds × Rounds × |Slots| × candidates × queries) fusions.
func LearnWeights(qs []LearnQuery, qrels Qrels, cfg LearnConfig) (LearnResult, error) {
	if cfg.Folds == 0 {
		cfg.Folds = 5
	}
	if cfg.K == 0 {
		cfg.K = 10
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = 10
	}
	if len(cfg.Slots) == 0 {
		return LearnResult{}, fmt.Errorf("learn: no slot to weigh")
	}
	for _, s := range cfg.Slots {
		if !s.Fused() {
			return LearnResult{}, fmt.Errorf("learn: %s is not a fused slot (temporal slots badge, E12 reranks, E13 recalls)", s)
		}
	}
	if len(qs) < 2*cfg.Folds {
		return LearnResult{}, fmt.Errorf("learn: %d queries for %d folds: give at least %d", len(qs), cfg.Folds, 2*cfg.Folds)
	}
	l := newLearner(qs, qrels, cfg)
	start := l.startWeights()
	order := rand.New(rand.NewPCG(cfg.Seed, 0x1ea7)).Perm(len(qs))
	cvScores := make([]float64, len(qs))
	baseScores := make([]float64, len(qs))
	var folds []profiles.Weights
	for f := range cfg.Folds {
		var train, test []int
		for i, q := range order {
			if i%cfg.Folds == f {
				test = append(test, q)
			} else {
				train = append(train, q)
			}
		}
		w := l.ascend(start, train)
		folds = append(folds, l.weights(w))
		for _, q := range test {
			cvScores[q] = l.score(w, q)
			baseScores[q] = l.score(start, q)
		}
	}
	all := make([]int, len(qs))
	for i := range all {
		all[i] = i
	}
	p := cfg.Base.Clone()
	p.Weights = l.weights(l.ascend(start, all))
	if err := p.Validate(); err != nil {
		return LearnResult{}, fmt.Errorf("learn: the fitted profile breaks a rule: %w", err)
	}
	return LearnResult{Profile: p, CV: meanCI(cvScores, cfg.Seed), Base: meanCI(baseScores, cfg.Seed), FoldWeights: folds}, nil
}

// learner holds the queries in the shape fusion needs: per query, per
// slot, a pipeline ranked list over query-local doc numbers.
type learner struct {
	cfg    LearnConfig
	free   float64            // weight the fitted slots share: 1 − the kept slots' weights
	lists  [][][]pipeline.Hit // [query][slot index in cfg.Slots]
	docs   [][]DocID          // [query][local doc number] → id
	judged []map[DocID]int
}

func newLearner(qs []LearnQuery, qrels Qrels, cfg LearnConfig) *learner {
	l := &learner{cfg: cfg, free: 1}
	for _, s := range fingerprint.Slots() {
		if !slices.Contains(cfg.Slots, s) {
			l.free -= cfg.Base.Weights.Get(s)
		}
	}
	for _, q := range qs {
		local := map[DocID]rec.DocNum{}
		var ids []DocID
		perSlot := make([][]pipeline.Hit, len(cfg.Slots))
		for i, s := range cfg.Slots {
			for _, r := range q.Lists[s] {
				d, ok := local[r.ID]
				if !ok {
					d = rec.DocNum(len(ids))
					local[r.ID] = d
					ids = append(ids, r.ID)
				}
				perSlot[i] = append(perSlot[i], pipeline.Hit{Doc: d, Score: r.Score})
			}
		}
		l.lists = append(l.lists, perSlot)
		l.docs = append(l.docs, ids)
		l.judged = append(l.judged, qrels[q.ID])
	}
	return l
}

// startWeights is the base profile's weights on the fitted slots, scaled to
// the free share (uniform when the base weighs none of them).
func (l *learner) startWeights() []float64 {
	w := make([]float64, len(l.cfg.Slots))
	sum := 0.0
	for i, s := range l.cfg.Slots {
		w[i] = l.cfg.Base.Weights.Get(s)
		sum += w[i]
	}
	if sum == 0 {
		for i := range w {
			w[i] = 1
		}
	}
	return normalize(w, l.free)
}

func normalize(w []float64, total float64) []float64 {
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	out := make([]float64, len(w))
	if sum == 0 {
		return out
	}
	for i, x := range w {
		out[i] = x / sum * total
	}
	return out
}

// weights is the base profile's weights with w on the fitted slots.
func (l *learner) weights(w []float64) profiles.Weights {
	out := l.cfg.Base.Weights
	for i, s := range l.cfg.Slots {
		out.Set(s, math.Round(w[i]*1e4)/1e4)
	}
	return out
}

// score is nDCG@K of query q fused with w.
func (l *learner) score(w []float64, q int) float64 {
	var lists []pipeline.RankedList
	for i, s := range l.cfg.Slots {
		if w[i] > 0 && len(l.lists[q][i]) > 0 {
			lists = append(lists, pipeline.RankedList{Slot: s, Weight: w[i], Hits: l.lists[q][i]})
		}
	}
	fused := pipeline.Fuse(lists, l.cfg.Fusion)
	ranking := make([]DocID, 0, min(len(fused), l.cfg.K))
	for _, f := range fused[:min(len(fused), l.cfg.K)] {
		ranking = append(ranking, l.docs[q][f.Doc])
	}
	return NDCG(ranking, l.judged[q], l.cfg.K)
}

func (l *learner) mean(w []float64, qs []int) float64 {
	sum := 0.0
	for _, q := range qs {
		sum += l.score(w, q)
	}
	return sum / float64(len(qs))
}

// ascend improves w one slot at a time on queries qs: each step tries a set
// of values for one slot (the others rescaled to keep the sum), keeps the
// best, and stops when a whole round changes nothing.
func (l *learner) ascend(w []float64, qs []int) []float64 {
	w = slices.Clone(w)
	best := l.mean(w, qs)
	for range l.cfg.Rounds {
		moved := false
		for i := range w {
			for _, v := range candidates(w[i], l.free) {
				trial := setShare(w, i, v, l.free)
				if s := l.mean(trial, qs); s > best+1e-9 {
					best, w, moved = s, trial, true
				}
			}
		}
		if !moved {
			break
		}
	}
	return w
}

// candidates are the values coordinate ascent tries for a weight x.
func candidates(x, free float64) []float64 {
	out := []float64{0, x / 4, x / 2, x * 0.8, x * 1.25, x * 2, x * 4}
	for _, f := range []float64{0.02, 0.05, 0.1, 0.2, 0.35, 0.5} {
		out = append(out, f*free)
	}
	return out
}

// setShare gives slot i the weight v (capped at free) and rescales the
// others so that all sum to free.
func setShare(w []float64, i int, v, free float64) []float64 {
	v = min(max(v, 0), free)
	rest := 0.0
	for j, x := range w {
		if j != i {
			rest += x
		}
	}
	out := make([]float64, len(w))
	for j, x := range w {
		switch {
		case j == i:
			out[j] = v
		case rest > 0:
			out[j] = x / rest * (free - v)
		}
	}
	return out
}

// meanCI is the mean of xs with a 95% percentile bootstrap interval (1,000
// resamples, seeded).
func meanCI(xs []float64, seed uint64) MetricCI {
	if len(xs) == 0 {
		return MetricCI{}
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	r := rand.New(rand.NewPCG(seed, 0xb007))
	const n = 1000
	means := make([]float64, n)
	for b := range means {
		s := 0.0
		for range xs {
			s += xs[r.IntN(len(xs))]
		}
		means[b] = s / float64(len(xs))
	}
	sort.Float64s(means)
	return MetricCI{Mean: mean, Low: means[n*25/1000], High: means[n*975/1000-1]}
}

// SampleQueries returns the seeded uniform sample of n queries that Run
// evaluates with RunOptions{MaxQueries: n, Seed: seed} (all when n ≤ 0 or
// n ≥ len(qs)), so a profile learned on a sample and a run over it see the
// same queries.
func SampleQueries(qs []Query, n int, seed uint64) []Query {
	if n <= 0 || n >= len(qs) {
		return qs
	}
	out := make([]Query, 0, n)
	for _, i := range sampleIndexes(len(qs), n, seed) {
		out = append(out, qs[i])
	}
	return out
}
