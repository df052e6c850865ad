package bench

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteSummary writes the terminal summary `cgraph bench run` prints
// after the reports are written into out: one row per run with its metrics,
// latency percentiles and its verdict against the baseline on the headline
// metric, then the ingest figures, the significance note and where the
// reports are. It is a short view of the report, not a report file: it
// never replaces report.md.
func (r *Report) WriteSummary(w io.Writer, out string) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	ms := r.MetricList()
	p("%-32s", "run")
	for _, m := range ms {
		p(" %10s", m)
	}
	p(" %9s %9s\n", "p50 ms", "p95 ms")
	for _, run := range r.Runs {
		p("%-32s", run.Name)
		for _, m := range ms {
			p(" %10.4f", run.Metrics[m])
		}
		p(" %9.3f %9.3f", run.LatencyMS.P50, run.LatencyMS.P95)
		if s, ok := run.VsBaseline[ms[0]]; ok && s.Verdict != VerdictTie {
			p("  %s", map[string]string{VerdictWin: "▲ better than", VerdictLoss: "▼ worse than", VerdictBaseline: "= baseline"}[s.Verdict])
			if s.Verdict != VerdictBaseline {
				p(" %s (p_Holm %.3g)", s.Against, s.PHolm)
			}
		}
		if run.Failed > 0 {
			p("  (%d failed queries)", run.Failed)
		}
		p("\n")
	}
	p("ingest: %s\n", strings.ReplaceAll(r.Ingest.Describe(""), "`", ""))
	if r.Baseline != "" {
		p("significance: every run against %s, Holm-adjusted over the runs, α = %g (report.md has the table)\n", r.Baseline, r.Alpha)
	}
	p("cgraph %s, %s\nreports in %s: %s\n", r.Repro.CgraphVersion, r.Repro.CgraphCommit, out, strings.Join(ReportFiles, ", "))
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write the run summary: %w", err)
	}
	return nil
}

// WriteComparisons writes the paired comparisons `cgraph bench compare`
// prints: for each, the means, the delta with its bootstrap CI, the
// randomisation p (Holm-adjusted too when there are several) and the
// win/loss/tie counts; with perQuery also every query's delta.
func WriteComparisons(w io.Writer, cs []*Comparison, perQuery bool) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	for _, c := range cs {
		how := fmt.Sprintf("%d sampled sign flips", RandomizationPermutations)
		if c.Exact {
			how = "exact"
		}
		if len(cs) > 1 {
			how += fmt.Sprintf("; Holm-adjusted over %d comparisons: %.4g", len(cs), c.PHolm)
		}
		p("%s (A) vs %s (B), %s over %d paired queries:\n  mean A %.4f  mean B %.4f  Δ %+.4f  95%% CI [%+.4f, %+.4f]  p = %.4g (%s)\n  B better on %d, worse on %d, tied on %d queries",
			c.A, c.B, c.Metric, c.Queries, c.MeanA, c.MeanB, c.MeanDelta, c.CI95.Lo, c.CI95.Hi, c.PValue, how, c.Wins, c.Losses, c.Ties)
		if c.QueriesDiffer {
			p("; the query files differ (same corpus and qrels)")
		}
		if c.Unpaired > 0 {
			p("; %d queries in only one run ignored", c.Unpaired)
		}
		p("\n")
		if perQuery {
			for _, d := range c.Deltas {
				p("    %-20s %.4f → %.4f  %+.4f\n", d.ID, d.A, d.B, d.Delta)
			}
		}
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write the comparisons: %w", err)
	}
	return nil
}
