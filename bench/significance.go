package bench

import (
	"fmt"
	"sort"
)

// A report of many runs tests each against one baseline, per metric: the
// paired bootstrap CI of the mean delta and a paired randomisation test
// (Compare), with Holm's step-down correction over all runs of the report
// (one family per metric: the metrics are not independent, and a reader
// picks one). A run is a significant win (loss) when its Holm-adjusted p is
// below Alpha and its mean delta is positive (negative).

// DefaultAlpha is the significance level of the win/loss verdicts.
const DefaultAlpha = 0.05

// Verdicts of a run against the baseline.
const (
	VerdictWin      = "win"
	VerdictLoss     = "loss"
	VerdictTie      = "n.s." // not significantly different
	VerdictBaseline = "baseline"
)

// Significance is one run against the baseline on one metric.
type Significance struct {
	Delta   float64 `json:"delta"`    // mean of run − baseline over paired queries
	CI95    CI      `json:"ci95"`     // paired bootstrap 95% CI of Delta
	P       float64 `json:"p"`        // two-sided paired randomisation test
	PHolm   float64 `json:"p_holm"`   // Holm-adjusted over the report's runs
	Verdict string  `json:"verdict"`  // win, loss, n.s. or baseline
	Wins    int     `json:"wins"`     // queries where the run beats the baseline
	Losses  int     `json:"losses"`   // queries where it does worse
	Paired  int     `json:"paired"`   // queries in both
	Exact   bool    `json:"p_exact"`  // p enumerated every sign flip
	Seed    uint64  `json:"seed"`     // of the bootstrap and the sampled test
	Family  int     `json:"family"`   // runs in the Holm family
	Against string  `json:"baseline"` // the baseline run
}

// Holm returns Holm–Bonferroni adjusted p-values in the order of ps: the
// i-th smallest p is multiplied by (m − i + 1), made monotone, capped at 1.
// A NaN p is treated as 1.
func Holm(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	p := func(i int) float64 {
		if ps[i] != ps[i] { // NaN
			return 1
		}
		return ps[i]
	}
	sort.SliceStable(idx, func(a, b int) bool { return p(idx[a]) < p(idx[b]) })
	out := make([]float64, m)
	running := 0.0
	for rank, i := range idx {
		running = max(running, min(1, float64(m-rank)*p(i)))
		out[i] = running
	}
	return out
}

// singleSlotModes are the modes whose runs search one slot alone.
var singleSlotModes = map[string]bool{"e1_only": true, "embedder_first": true}

// DefaultBaseline picks the baseline of a report: the single-slot run (e1_only
// or embedder_first, bm25_only included) with the best mean of metric, or,
// when there is none, the first run. Ties keep the earlier run.
func (r *Report) DefaultBaseline(metric string) string {
	best, bestV := "", -1.0
	for _, run := range r.Runs {
		if v := run.Metrics[metric]; singleSlotModes[run.Mode] && v > bestV {
			best, bestV = run.Name, v
		}
	}
	if best == "" && len(r.Runs) > 0 {
		best = r.Runs[0].Name
	}
	return best
}

// TestSignificance tests every run of r against baseline (empty: the
// DefaultBaseline of the headline metric) on every metric of the report,
// with Holm's correction over the runs, and stores the results in the runs'
// VsBaseline and the report's Baseline and Alpha (0: DefaultAlpha).
// Cost: per run and metric, one Compare.
func (r *Report) TestSignificance(baseline string, alpha float64, seed uint64) error {
	if len(r.Runs) == 0 {
		return nil
	}
	ms := r.MetricList()
	if baseline == "" {
		baseline = r.DefaultBaseline(ms[0])
	}
	base, err := r.Run(baseline)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	r.Baseline, r.Alpha = baseline, alpha
	for i := range r.Runs {
		r.Runs[i].VsBaseline = map[string]Significance{}
	}
	for _, m := range ms {
		if err := r.testMetric(base, m, alpha, seed); err != nil {
			return err
		}
	}
	return nil
}

// testMetric fills VsBaseline[metric] of every run.
func (r *Report) testMetric(base *RunResult, metric string, alpha float64, seed uint64) error {
	var family []int
	var ps []float64
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.Name == base.Name {
			run.VsBaseline[metric] = Significance{Verdict: VerdictBaseline, P: 1, PHolm: 1, Against: base.Name}
			continue
		}
		c, err := Compare(base, run, metric, seed)
		if err != nil {
			return fmt.Errorf("run %s against %s: %w", run.Name, base.Name, err)
		}
		run.VsBaseline[metric] = Significance{Delta: c.MeanDelta, CI95: c.CI95, P: c.PValue, Wins: c.Wins, Losses: c.Losses,
			Paired: c.Queries, Exact: c.Exact, Seed: seed, Against: base.Name}
		family = append(family, i)
		ps = append(ps, c.PValue)
	}
	for k, adj := range Holm(ps) {
		run := &r.Runs[family[k]]
		s := run.VsBaseline[metric]
		s.PHolm, s.Family = adj, len(family)
		switch {
		case adj < alpha && s.Delta > 0:
			s.Verdict = VerdictWin
		case adj < alpha && s.Delta < 0:
			s.Verdict = VerdictLoss
		default:
			s.Verdict = VerdictTie
		}
		run.VsBaseline[metric] = s
	}
	return nil
}
