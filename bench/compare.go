package bench

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Comparison is a paired, per-query comparison of two runs on one metric.
type Comparison struct {
	A         string  `json:"a"`
	B         string  `json:"b"`
	Metric    string  `json:"metric"`
	Queries   int     `json:"queries"`  // paired queries
	Unpaired  int     `json:"unpaired"` // queries present in only one run (ignored)
	MeanA     float64 `json:"mean_a"`
	MeanB     float64 `json:"mean_b"`
	MeanDelta float64 `json:"mean_delta"` // mean of B − A
	CI95      CI      `json:"ci95"`       // paired bootstrap 95% CI of the mean delta
	PValue    float64 `json:"p_value"`    // two-sided paired randomisation test
	// PHolm is PValue Holm-adjusted over the comparisons made together
	// (CompareReports); equal to PValue for a single comparison.
	PHolm  float64 `json:"p_holm"`
	Exact  bool    `json:"p_exact"` // p enumerated all sign flips
	Wins   int     `json:"wins"`    // queries where B > A
	Losses int     `json:"losses"`
	Ties   int     `json:"ties"`
	Seed   uint64  `json:"seed"`
	// QueriesDiffer is set when the two reports used different query files
	// over the same corpus and qrels (e.g. clean vs typo queries).
	QueriesDiffer bool         `json:"queries_differ"`
	Deltas        []QueryDelta `json:"deltas"`
}

// QueryDelta is one query's paired values.
type QueryDelta struct {
	ID    QueryID `json:"id"`
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	Delta float64 `json:"delta"`
}

// Compare pairs the per-query values of metric in a and b by query id (in
// a's order) and tests whether their mean difference is zero. Deterministic
// for a given seed. Cost: O(2^n · n) for n ≤ ExactPermutationLimit, else
// O((RandomizationPermutations + BootstrapResamples) · n).
func Compare(a, b *RunResult, metric string, seed uint64) (*Comparison, error) {
	m, err := ParseMetric(metric)
	if err != nil {
		return nil, err
	}
	metric = m.Name
	if err := hasMetric(a, metric); err != nil {
		return nil, err
	}
	if err := hasMetric(b, metric); err != nil {
		return nil, err
	}
	bq := make(map[QueryID]Metrics, len(b.Queries))
	for _, q := range b.Queries {
		bq[q.ID] = q.Metrics
	}
	c := &Comparison{A: a.Name, B: b.Name, Metric: metric, Seed: seed}
	var deltas, as, bs []float64
	for _, q := range a.Queries {
		mb, ok := bq[q.ID]
		if !ok {
			c.Unpaired++
			continue
		}
		delete(bq, q.ID)
		va, _ := q.Metrics.Get(metric)
		vb, _ := mb.Get(metric)
		d := vb - va
		c.Deltas = append(c.Deltas, QueryDelta{ID: q.ID, A: va, B: vb, Delta: d})
		deltas, as, bs = append(deltas, d), append(as, va), append(bs, vb)
		switch {
		case math.Abs(d) < 1e-12:
			c.Ties++
		case d > 0:
			c.Wins++
		default:
			c.Losses++
		}
	}
	c.Unpaired += len(bq)
	if len(deltas) == 0 {
		return nil, fmt.Errorf("runs %s and %s share no query ids: compare runs over the same dataset", a.Name, b.Name)
	}
	c.Queries = len(deltas)
	c.MeanA, c.MeanB, c.MeanDelta = mean(as), mean(bs), mean(deltas)
	c.CI95 = BootstrapCI(deltas, seed)
	c.PValue = RandomizationTest(deltas, seed)
	c.PHolm = c.PValue
	c.Exact = len(deltas) <= ExactPermutationLimit
	return c, nil
}

// hasMetric checks that every query of run carries metric.
func hasMetric(run *RunResult, metric string) error {
	for _, q := range run.Queries {
		if _, ok := q.Metrics[metric]; !ok {
			return fmt.Errorf("unknown metric %s for run %s: it was scored with %v; re-run the bench with --metrics including it",
				metric, run.Name, sortedKeys(q.Metrics))
		}
	}
	return nil
}

// CompareFilesOptions say what CompareFiles compares: two files
// ReadComparable reads, and which runs on which metric.
type CompareFilesOptions struct {
	A, B string
	// Data is the set a TREC run file is scored against (nil: only
	// report.json files can be compared).
	Data *Dataset
	// RunA and RunB name the runs (CompareReports); Metric is the metric
	// compared (a TREC run is scored on it and on MetricNames); Seed
	// seeds the bootstrap and the sampled randomisation test.
	RunA, RunB, Metric string
	Seed               uint64
}

// CompareFiles is bench compare: it reads o.A and o.B (ReadComparable) and
// compares their runs query by query (CompareReports).
func CompareFiles(o CompareFilesOptions) ([]*Comparison, error) {
	names := []string{o.Metric}
	for _, n := range MetricNames {
		if n != o.Metric {
			names = append(names, n)
		}
	}
	ms, err := ParseMetrics(names)
	if err != nil {
		return nil, err
	}
	ra, err := ReadComparable(o.A, o.Data, ms, 0)
	if err != nil {
		return nil, err
	}
	rb, err := ReadComparable(o.B, o.Data, ms, 0)
	if err != nil {
		return nil, err
	}
	return CompareReports(ra, rb, o.RunA, o.RunB, o.Metric, o.Seed)
}

// CompareReports compares runs of two reports over the same dataset (or the
// same corpus and qrels with another query file, e.g. typo queries: then
// QueriesDiffer is set); either may come from a TREC run (ReadComparable).
// With runA empty it compares every run name present in both reports, or,
// when they share none and one report has a single run (an external
// baseline), every run of the other against it. With runB empty, runB is
// runA, or the only run of rb. Reports over different datasets are refused.
func CompareReports(ra, rb *Report, runA, runB, metric string, seed uint64) ([]*Comparison, error) {
	ca, cb := ra.Repro.DatasetChecksums, rb.Repro.DatasetChecksums
	queriesDiffer := false
	switch {
	case ra.Repro.DatasetChecksum == rb.Repro.DatasetChecksum:
	case ca["corpus"] != "" && ca["corpus"] == cb["corpus"] && ca["qrels"] == cb["qrels"]:
		queriesDiffer = true
	default:
		return nil, fmt.Errorf("the reports are over different datasets (%s %s vs %s %s): per-query pairing needs the same corpus and qrels",
			ra.Dataset, ra.Repro.DatasetChecksum, rb.Dataset, rb.Repro.DatasetChecksum)
	}
	pairs, err := comparePairs(ra, rb, runA, runB)
	if err != nil {
		return nil, err
	}
	var out []*Comparison
	for _, p := range pairs {
		a, err := ra.Run(p[0])
		if err != nil {
			return nil, fmt.Errorf("first report: %w", err)
		}
		b, err := rb.Run(p[1])
		if err != nil {
			return nil, fmt.Errorf("second report: %w", err)
		}
		c, err := Compare(a, b, metric, seed)
		if err != nil {
			return nil, err
		}
		c.QueriesDiffer = queriesDiffer
		out = append(out, c)
	}
	ps := make([]float64, len(out))
	for i, c := range out {
		ps[i] = c.PValue
	}
	for i, adj := range Holm(ps) {
		out[i].PHolm = adj
	}
	return out, nil
}

// comparePairs lists the (run of ra, run of rb) names to compare.
func comparePairs(ra, rb *Report, runA, runB string) ([][2]string, error) {
	if runA != "" {
		if runB == "" {
			runB = runA
			if _, err := rb.Run(runA); err != nil && len(rb.Runs) == 1 {
				runB = rb.Runs[0].Name
			}
		}
		return [][2]string{{runA, runB}}, nil
	}
	var pairs [][2]string
	for _, r := range ra.Runs {
		if _, err := rb.Run(r.Name); err == nil {
			pairs = append(pairs, [2]string{r.Name, r.Name})
		}
	}
	switch {
	case len(pairs) > 0:
	case len(rb.Runs) == 1:
		for _, r := range ra.Runs {
			pairs = append(pairs, [2]string{r.Name, rb.Runs[0].Name})
		}
	case len(ra.Runs) == 1:
		for _, r := range rb.Runs {
			pairs = append(pairs, [2]string{ra.Runs[0].Name, r.Name})
		}
	default:
		return nil, fmt.Errorf("the reports share no run name: pick runs with --run and --run-b")
	}
	return pairs, nil
}

// ReadComparable reads what bench compare accepts: a report.json, or a TREC
// run file (qid Q0 docid rank score tag, possibly gzip) scored against ds
// with metrics, one run per tag, rankings cut at k (0 = whole). A TREC run
// needs ds: without qrels it cannot be scored.
func ReadComparable(path string, ds *Dataset, metrics []Metric, k int) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		return ParseReport(b, path)
	}
	runs, err := ParseTRECRun(bytes.NewReader(b), path)
	if err != nil {
		return nil, fmt.Errorf("%s is neither a report.json nor a TREC run: %w", path, err)
	}
	if ds == nil {
		return nil, fmt.Errorf("%s is a TREC run: give the dataset it ran on (--data) so it can be scored", path)
	}
	rep := &Report{Version: ReportVersion, Dataset: ds.Name, Metrics: metricNames(metrics), RunsPlanned: len(runs)}
	rep.Repro.DatasetChecksum, rep.Repro.DatasetChecksums, rep.Repro.DatasetFiles = ds.Checksum, ds.Checksums, ds.Files
	rep.Repro.Split, rep.Repro.Queries, rep.Repro.Command = ds.Split, len(ds.Queries), "TREC run "+path
	for _, q := range ds.QueriesFiles {
		rep.Repro.QueriesFile = strings.TrimPrefix(rep.Repro.QueriesFile+", "+filepath.Base(q), ", ")
	}
	for _, run := range runs {
		rep.Runs = append(rep.Runs, EvaluateTRECRun(run, ds, metrics, k))
	}
	return rep, nil
}
