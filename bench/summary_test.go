package bench

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteSummary checks the terminal summary of a run: a header of the
// report's metrics, one row per run with its verdict against the baseline
// on the headline metric (none for a tie), failed queries, and where the
// reports are.
func TestWriteSummary(t *testing.T) {
	rep := &Report{Metrics: []string{"ndcg@10", "mrr@10"}, Baseline: "e1_only", Alpha: 0.05,
		Repro: Repro{CgraphVersion: "v9", CgraphCommit: BuildCommit{Revision: "abc"}},
		Runs: []RunResult{
			{Name: "e1_only", Metrics: Metrics{"ndcg@10": 0.5, "mrr@10": 0.4}, LatencyMS: Latency{P50: 1, P95: 2},
				VsBaseline: map[string]Significance{"ndcg@10": {Verdict: VerdictBaseline}}},
			{Name: "pipeline:code_search", Metrics: Metrics{"ndcg@10": 0.6, "mrr@10": 0.5}, LatencyMS: Latency{P50: 3, P95: 4}, Failed: 2,
				VsBaseline: map[string]Significance{"ndcg@10": {Verdict: VerdictWin, Against: "e1_only", PHolm: 0.001}}},
			{Name: "multi_space:balanced", Metrics: Metrics{"ndcg@10": 0.49, "mrr@10": 0.4},
				VsBaseline: map[string]Significance{"ndcg@10": {Verdict: VerdictTie, Against: "e1_only"}}},
		}}
	var b bytes.Buffer
	if err := rep.WriteSummary(&b, "out/x"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, want := range []struct{ has, hasNot string }{
		{has: "run", hasNot: "map"},
		{has: "e1_only", hasNot: "better"},
		{has: "▲ better than e1_only (p_Holm 0.001)  (2 failed queries)"},
		{has: "multi_space:balanced", hasNot: "than"},
		{has: "ingest: "},
		{has: "significance: every run against e1_only, Holm-adjusted over the runs, α = 0.05"},
		{has: "cgraph v9, commit abc"},
		{has: "reports in out/x: " + strings.Join(ReportFiles, ", ")},
	} {
		if i >= len(lines) {
			t.Fatalf("summary has %d lines, want more:\n%s", len(lines), b.String())
		}
		if !strings.Contains(lines[i], want.has) || want.hasNot != "" && strings.Contains(lines[i], want.hasNot) {
			t.Errorf("line %d = %q, want it to hold %q and not %q", i, lines[i], want.has, want.hasNot)
		}
	}
	if !strings.Contains(lines[0], "ndcg@10") || !strings.Contains(lines[0], "mrr@10") || !strings.Contains(lines[1], "= baseline") {
		t.Errorf("header or baseline row wrong:\n%s", b.String())
	}
}

// TestWriteComparisons checks bench compare's text: the Holm note only
// with several comparisons, the flags for differing query files and
// unpaired queries, and per-query deltas only when asked.
func TestWriteComparisons(t *testing.T) {
	c1 := &Comparison{A: "a", B: "b", Metric: "ndcg@10", Queries: 3, MeanA: 0.5, MeanB: 0.6, MeanDelta: 0.1, PValue: 0.25, Exact: true,
		Wins: 2, Losses: 1, QueriesDiffer: true, Unpaired: 4, Deltas: []QueryDelta{{ID: "q1", A: 0.5, B: 0.6, Delta: 0.1}}}
	c2 := &Comparison{A: "c", B: "d", Metric: "ndcg@10", Queries: 30, PHolm: 0.5}
	for _, tc := range []struct {
		cs        []*Comparison
		perQuery  bool
		has, hasN []string
	}{
		{cs: []*Comparison{c1}, has: []string{"a (A) vs b (B), ndcg@10 over 3 paired queries:", "p = 0.25 (exact)", "B better on 2, worse on 1, tied on 0 queries",
			"; the query files differ", "; 4 queries in only one run ignored"}, hasN: []string{"Holm", "q1"}},
		{cs: []*Comparison{c1}, perQuery: true, has: []string{"    q1                   0.5000 → 0.6000  +0.1000"}},
		{cs: []*Comparison{c1, c2}, has: []string{"Holm-adjusted over 2 comparisons: 0.5", "sampled sign flips"}},
	} {
		var b bytes.Buffer
		if err := WriteComparisons(&b, tc.cs, tc.perQuery); err != nil {
			t.Fatal(err)
		}
		for _, h := range tc.has {
			if !strings.Contains(b.String(), h) {
				t.Errorf("output lacks %q:\n%s", h, b.String())
			}
		}
		for _, h := range tc.hasN {
			if strings.Contains(b.String(), h) {
				t.Errorf("output holds %q:\n%s", h, b.String())
			}
		}
	}
}
