package bench

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteMarkdown writes a human-readable report: the quality table (means with
// bootstrap 95% CIs for nDCG@10), the latency table per stage, ingest figures
// and the reproducibility block.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("# Benchmark: %s\n\n", r.Dataset)
	p("%d queries (%s), dataset %s, %d cores, cgraph %s, %s.\n\n", r.Repro.Queries, orDash(r.Repro.QueriesFile), r.Repro.DatasetChecksum, r.Repro.Cores, r.Repro.CgraphVersion, r.Repro.CgraphCommit)
	if r.Partial {
		p("**Partial report: %d of %d runs.** %s\n\n", len(r.Runs), r.RunsPlanned, orDash(r.StopReason))
	}
	for _, w := range r.Warnings {
		p("> Warning: %s\n\n", w)
	}
	r.writeQuality(p)
	r.writeSignificance(p)
	r.writeFailures(p)
	r.writeLatency(p)
	r.writeNotes(p)
	p("\n## Ingest\n\n%s\n\n## Reproducibility\n\n", r.Ingest.Describe(r.Repro.DatasetChecksums["corpus"]))
	r.writeRepro(p)
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write markdown report: %w", err)
	}
	return nil
}

// writeQuality writes the quality table: each run's metrics (the headline
// with its CI), latency, failed queries and verdict against the baseline.
func (r *Report) writeQuality(p func(string, ...any)) {
	p("## Quality\n\n")
	ms := r.MetricList()
	sig := r.Baseline != ""
	if sig {
		p("Means over the queries with the bootstrap 95%% CI of the headline metric; the last column tests %s against the baseline %s (see below).\n\n", metricLabel(ms[0]), mdEscape(r.Baseline))
	}
	p("| run | mode | profile | %s (95%% CI) |", metricLabel(ms[0]))
	for _, m := range ms[1:] {
		p(" %s |", metricLabel(m))
	}
	failed := r.failedQueries() > 0
	p(" p50 ms | p95 ms |%s%s\n|---|---|---|---|%s---|---|%s%s\n", ifStr(failed, " failed |"), ifStr(sig, " vs baseline |"),
		strings.Repeat("---|", len(ms)-1), ifStr(failed, "---|"), ifStr(sig, "---|"))
	for _, run := range r.Runs {
		ci := run.CI95[ms[0]]
		p("| %s | %s | %s | %.4f (%.4f–%.4f) |", mdEscape(run.Name), mdEscape(run.Mode), mdEscape(run.Profile), run.Metrics[ms[0]], ci.Lo, ci.Hi)
		for _, m := range ms[1:] {
			p(" %.4f |", run.Metrics[m])
		}
		p(" %.3f | %.3f |", run.LatencyMS.P50, run.LatencyMS.P95)
		if failed {
			p(" %d |", run.Failed)
		}
		if sig {
			p(" %s |", sigCell(run.VsBaseline[ms[0]], false))
		}
		p("\n")
	}
}

// writeLatency writes the per-stage latency table.
func (r *Report) writeLatency(p func(string, ...any)) {
	p("\n## Latency per stage (ms, p50 / p95)\n\n")
	stages := stageNames(r.Runs)
	if len(stages) == 0 {
		p("No run reported per-stage timings.\n")
	} else {
		p("| run | %s | end to end |\n|---|%s---|\n", strings.Join(stages, " | "), strings.Repeat("---|", len(stages)))
		for _, run := range r.Runs {
			cells := make([]string, len(stages))
			for i, s := range stages {
				cells[i] = "–"
				for _, st := range run.Stages {
					if st.Stage == s {
						cells[i] = fmt.Sprintf("%.3f / %.3f", st.LatencyMS.P50, st.LatencyMS.P95)
					}
				}
			}
			p("| %s | %s | %.3f / %.3f |\n", mdEscape(run.Name), strings.Join(cells, " | "), run.LatencyMS.P50, run.LatencyMS.P95)
		}
	}
}

// writeRepro writes the reproducibility block: versions, dataset, command,
// models, stage sizes, seeds and profile weights.
func (r *Report) writeRepro(p func(string, ...any)) {
	rp := r.Repro
	p("- cgraph %s, %s, %s, %d cores\n", rp.CgraphVersion, rp.CgraphCommit, rp.GoVersion, rp.Cores)
	p("- dataset checksum `%s` over %s, split %s\n", rp.DatasetChecksum, strings.Join(rp.DatasetFiles, ", "), rp.Split)
	if rp.Command != "" {
		p("- command: `%s`\n", rp.Command)
	}
	for _, m := range rp.Models {
		switch {
		case m.ID == "":
			p("- slot %s: %s", m.Slot, orDash(m.Status))
		default:
			p("- slot %s: %s sha256 %s", m.Slot, m.ID, m.SHA256)
			if m.Status != "" {
				p(" (%s)", m.Status)
			}
			if m.Device != "" {
				p(" on %s", m.Device)
			}
		}
		if m.Note != "" {
			p(" — %s", m.Note)
		}
		p("\n")
	}
	for _, k := range sortedKeys(rp.StageSizes) {
		p("- stage size %s = %d\n", k, rp.StageSizes[k])
	}
	if rp.RerankWeight > 0 {
		p("- S4 rerank weight (E12, where a profile gives it none) = %g\n", rp.RerankWeight)
	}
	for _, k := range sortedKeys(rp.Seeds) {
		p("- seed %s = %d\n", k, rp.Seeds[k])
	}
	for _, name := range sortedKeys(rp.ProfileWeights) {
		ws := rp.ProfileWeights[name]
		parts := make([]string, 0, len(ws))
		for _, slot := range sortedKeys(ws) {
			parts = append(parts, fmt.Sprintf("%s=%.3g", slot, ws[slot]))
		}
		p("- profile %s: %s\n", name, strings.Join(parts, " "))
	}
}

// metricLabel is how a metric is headed in tables: "nDCG@10", "MAP@100".
func metricLabel(name string) string {
	m, err := ParseMetric(name)
	if err != nil {
		return name
	}
	kind, cut, _ := strings.Cut(m.Name, "@")
	label := map[string]string{"ndcg": "nDCG", "mrr": "MRR", "recall": "Recall", "p": "P", "map": "MAP"}[kind]
	if m.K == 0 {
		return label
	}
	if cut == "" {
		cut = fmt.Sprint(m.K)
	}
	return label + "@" + cut
}

// writeSignificance writes every run against the baseline on every metric.
func (r *Report) writeSignificance(p func(string, ...any)) {
	if r.Baseline == "" {
		return
	}
	ms := r.MetricList()
	p("\n## Significance against %s\n\n", mdEscape(r.Baseline))
	p("Each run against the baseline %s, query by query: the mean delta, its paired bootstrap 95%% CI and the p-value of a two-sided paired randomisation test, "+
		"Holm-adjusted over the %s of this report (one family per metric). ▲ significantly better, ▼ significantly worse at α = %g; n.s. not significant.\n\n",
		mdEscape(r.Baseline), plural(len(r.Runs)-1, "other run"), r.Alpha)
	p("| run |")
	for _, m := range ms {
		p(" %s |", metricLabel(m))
	}
	p("\n|---|%s\n", strings.Repeat("---|", len(ms)))
	for _, run := range r.Runs {
		p("| %s |", mdEscape(run.Name))
		for _, m := range ms {
			p(" %s |", sigCell(run.VsBaseline[m], true))
		}
		p("\n")
	}
}

// sigCell renders one test: "▲ +0.0312 (p_Holm 0.002)", with the CI when
// long is set; "baseline" for the baseline; "–" when not tested.
func sigCell(s Significance, long bool) string {
	mark := map[string]string{VerdictWin: "▲", VerdictLoss: "▼", VerdictTie: "n.s."}[s.Verdict]
	switch {
	case s.Verdict == VerdictBaseline:
		return "baseline"
	case mark == "":
		return "–"
	case long:
		return fmt.Sprintf("%s %+.4f [%+.4f, %+.4f] p=%.3g", mark, s.Delta, s.CI95.Lo, s.CI95.Hi, s.PHolm)
	}
	return fmt.Sprintf("%s %+.4f (p_Holm %.3g)", mark, s.Delta, s.PHolm)
}

// Describe is the ingest line: what was built (or reused), from how many
// documents, when, how long it took and the peak memory. corpus is the
// corpus checksum, "" when unknown.
func (in Ingest) Describe(corpus string) string {
	var b strings.Builder
	what := orDefaultStr(in.Index, "the index")
	from := fmt.Sprintf("%d documents", in.Docs)
	if corpus != "" {
		from += fmt.Sprintf(" (corpus `%s`)", corpus)
	}
	when := "at an unknown time"
	if !in.BuiltAt.IsZero() {
		when = "on " + in.BuiltAt.UTC().Format("2006-01-02 15:04 MST")
	}
	switch {
	case !in.Reused:
		fmt.Fprintf(&b, "Built %s from %s %s in %.2f s (%.1f docs/s).", what, from, when, in.Seconds, in.DocsPerS)
	case in.BuiltSeconds > 0:
		fmt.Fprintf(&b, "Reused %s, built from %s %s in %.1f s (%.1f docs/s, the figure to quote); reopening it took %.2f s.", what, from, when, in.BuiltSeconds, in.DocsPerS, in.Seconds)
	default:
		fmt.Fprintf(&b, "Reused %s, built from %s %s; its build time is unknown, so no ingest rate is given; reopening it took %.2f s.", what, from, when, in.Seconds)
	}
	fmt.Fprintf(&b, " Peak RSS %.1f MiB.", float64(in.PeakRSSBytes)/(1<<20))
	return b.String()
}

func orDefaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// maxFailureExamples bounds the query ids listed per (run, error) group.
const maxFailureExamples = 5

// writeFailures writes one row per run and distinct error: how many queries
// failed with it and the first few ids (report.json lists every one).
func (r *Report) writeFailures(p func(string, ...any)) {
	total := r.failedQueries()
	if total == 0 {
		return
	}
	p("\n## Failed queries\n\n%d searches failed; each was scored as an empty ranking and left out of the latency figures (report.json lists every query).\n\n", total)
	p("| run | queries | error | query ids |\n|---|---|---|---|\n")
	for _, run := range r.Runs {
		var order []string
		ids := map[string][]string{}
		for _, f := range run.Failures {
			if _, ok := ids[f.Error]; !ok {
				order = append(order, f.Error)
			}
			ids[f.Error] = append(ids[f.Error], string(f.Query))
		}
		for _, e := range order {
			ex := ids[e][:min(len(ids[e]), maxFailureExamples)]
			more := ""
			if len(ids[e]) > len(ex) {
				more = fmt.Sprintf(" … (%d more)", len(ids[e])-len(ex))
			}
			p("| %s | %d | %s | %s%s |\n", mdEscape(run.Name), len(ids[e]), mdEscape(oneLine(e)), mdEscape(strings.Join(ex, ", ")), more)
		}
	}
}

func (r *Report) failedQueries() int {
	n := 0
	for _, run := range r.Runs {
		n += len(run.Failures)
	}
	return n
}

func ifStr(c bool, s string) string {
	if c {
		return s
	}
	return ""
}

// oneLine folds whitespace runs (newlines included) into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// stageNames returns the stage names of all runs: stages without a pipeline
// number (encode, primary) in first-seen order, then the pipeline stages
// S1…S5 in pipeline order.
func stageNames(runs []RunResult) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Stages {
			if !seen[s.Stage] {
				seen[s.Stage] = true
				out = append(out, s.Stage)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return stageRank(out[i]) < stageRank(out[j]) })
	return out
}

// stageRank is n for a stage named "Sn …", 0 otherwise.
func stageRank(s string) int {
	if len(s) >= 2 && s[0] == 'S' && s[1] >= '1' && s[1] <= '9' {
		return int(s[1] - '0')
	}
	return 0
}
