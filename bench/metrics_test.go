package bench

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The nDCG example of Wikipedia's "Discounted cumulative gain" article:
// documents D1…D6 returned with grades 3,2,3,0,1,2; the collection also holds
// D7 (grade 3) and D8 (grade 2). DCG6 = 6.861, IDCG6 = 8.740, nDCG6 = 0.785.
func TestNDCGPublishedExample(t *testing.T) {
	judged := map[DocID]int{"D1": 3, "D2": 2, "D3": 3, "D4": 0, "D5": 1, "D6": 2, "D7": 3, "D8": 2}
	ranking := []DocID{"D1", "D2", "D3", "D4", "D5", "D6"}
	got := NDCG(ranking, judged, 6)
	if math.Abs(got-6.861/8.740) > 5e-4 || math.Abs(got-0.785) > 5e-4 {
		t.Fatalf("nDCG@6 = %.4f, want 0.785 (6.861/8.740)", got)
	}
}

func TestMetricsHandComputed(t *testing.T) {
	// Grades: a=2, b=1, c=0 (judged non-relevant), e=1 (never retrieved).
	judged := map[DocID]int{"a": 2, "b": 1, "c": 0, "e": 1}
	l2 := math.Log2
	for _, tc := range []struct {
		name                  string
		ranking               []DocID
		k                     int
		ndcg, mrr, recall, ap float64
	}{
		{"ideal", []DocID{"a", "b", "e"}, 10, 1, 1, 1, 1},
		{"relevant at 2 and 4", []DocID{"x", "b", "c", "a"}, 10,
			(1/l2(3) + 2/l2(5)) / (2 + 1/l2(3) + 1/l2(4)), 0.5, 2.0 / 3, (1.0/2 + 2.0/4) / 3},
		{"cut at 3 hides rank 4", []DocID{"x", "b", "c", "a"}, 3,
			(1 / l2(3)) / (2 + 1/l2(3) + 1/l2(4)), 0.5, 1.0 / 3, (1.0 / 2) / 3},
		{"nothing relevant", []DocID{"c", "x"}, 10, 0, 0, 0, 0},
		{"empty ranking", nil, 10, 0, 0, 0, 0},
		{"duplicates earn once", []DocID{"a", "a", "a", "b"}, 10,
			(2 + 1/l2(5)) / (2 + 1/l2(3) + 1/l2(4)), 1, 2.0 / 3, (1.0 + 2.0/4) / 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NDCG(tc.ranking, judged, tc.k); !near(got, tc.ndcg) {
				t.Errorf("nDCG = %v, want %v", got, tc.ndcg)
			}
			if got := MRR(tc.ranking, judged, tc.k); !near(got, tc.mrr) {
				t.Errorf("MRR = %v, want %v", got, tc.mrr)
			}
			if got := Recall(tc.ranking, judged, tc.k); !near(got, tc.recall) {
				t.Errorf("Recall = %v, want %v", got, tc.recall)
			}
			if got := AveragePrecision(tc.ranking, judged, tc.k); !near(got, tc.ap) {
				t.Errorf("AP = %v, want %v", got, tc.ap)
			}
		})
	}
}

func TestNoJudgementsScoreZero(t *testing.T) {
	m := Evaluate([]DocID{"a"}, nil)
	if len(m) != len(MetricNames) {
		t.Fatalf("got %v, want the %d default metrics", m, len(MetricNames))
	}
	for k, v := range m {
		if v != 0 {
			t.Fatalf("%s = %v, want 0", k, v)
		}
	}
}

func TestMeanAndGet(t *testing.T) {
	one := func(vs ...float64) Metrics {
		m := Metrics{}
		for i, n := range MetricNames {
			m[n] = vs[i]
		}
		return m
	}
	m := Mean([]Metrics{one(1, 1, 1, 1, 1), one(0, 0.5, 0, 0.5, 0)})
	if want := one(0.5, 0.75, 0.5, 0.75, 0.5); !maps.Equal(m, want) {
		t.Fatalf("Mean = %+v, want %+v", m, want)
	}
	for i, name := range MetricNames {
		v, ok := one(1, 2, 3, 4, 5).Get(name)
		if !ok || v != float64(i+1) {
			t.Errorf("Get(%q) = %v, %v", name, v, ok)
		}
	}
	if _, ok := m.Get("p@5"); ok {
		t.Error("Get found a metric the run was not scored with")
	}
	if len(Mean(nil)) != 0 {
		t.Error("Mean(nil) not empty")
	}
}

func TestParseMetric(t *testing.T) {
	for _, tc := range []struct {
		in, name string
		k        int
	}{
		{"ndcg@10", "ndcg@10", 10}, {"NDCG@5", "ndcg@5", 5}, {"ndcg_cut_10", "ndcg@10", 10},
		{"map", "map", 100}, {"map@10", "map@10", 10}, {"map_cut_1000", "map@1000", 1000},
		{"mrr@10", "mrr@10", 10}, {"mrr", "mrr", 0}, {"recip_rank", "mrr", 0},
		{"recall@100", "recall@100", 100}, {"recall_5", "recall@5", 5},
		{"p@5", "p@5", 5}, {"precision@5", "p@5", 5}, {"P_10", "p@10", 10},
	} {
		m, err := ParseMetric(tc.in)
		if err != nil || m.Name != tc.name || m.K != tc.k {
			t.Errorf("ParseMetric(%q) = %+v, %v; want %s cut at %d", tc.in, m, err, tc.name, tc.k)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"ndcg", "needs a cutoff"}, {"recall", "needs a cutoff"}, {"ndcg@0", "not a positive integer"},
		{"ndcg@x", "not a positive integer"}, {"f1@10", "unknown metric"}, {"", "unknown metric"},
	} {
		if _, err := ParseMetric(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseMetric(%q): %v, want %q", tc.in, err, tc.want)
		}
	}
	if _, err := ParseMetrics([]string{"ndcg@10", "NDCG_cut_10"}); err == nil || !strings.Contains(err.Error(), "ndcg@10 given twice") {
		t.Errorf("duplicate metrics: %v", err)
	}
	if ms, _ := ParseMetrics([]string{"mrr@10", "recall@1000", "map"}); MaxCutoff(ms) != 1000 {
		t.Errorf("MaxCutoff = %d", MaxCutoff(ms))
	}
}

// FuzzMetricBounds checks, for arbitrary rankings with repeats and arbitrary
// grades, that every metric stays in [0, 1] and that repeating a document
// never raises a score above the ranking without the repeat.
func FuzzMetricBounds(f *testing.F) {
	f.Add([]byte{1, 1, 1, 2, 3}, []byte{1, 2, 0, 3})
	f.Add([]byte{0, 0, 0, 0}, []byte{5})
	f.Fuzz(func(t *testing.T, rank, grades []byte) {
		judged := map[DocID]int{}
		for i, g := range grades {
			judged[DocID(rune('a'+i%26))] = int(int8(g)) % 4
		}
		var ranking, dedup []DocID
		seen := map[DocID]bool{}
		for _, r := range rank {
			d := DocID(rune('a' + r%30))
			ranking = append(ranking, d)
			if !seen[d] {
				seen[d] = true
				dedup = append(dedup, d)
			}
		}
		for _, k := range []int{1, 3, 10, 100} {
			vals := map[string][2]float64{
				"ndcg":   {NDCG(ranking, judged, k), NDCG(dedup, judged, k)},
				"mrr":    {MRR(ranking, judged, k), MRR(dedup, judged, k)},
				"recall": {Recall(ranking, judged, k), Recall(dedup, judged, k)},
				"ap":     {AveragePrecision(ranking, judged, k), AveragePrecision(dedup, judged, k)},
				"p":      {Precision(ranking, judged, k), Precision(dedup, judged, k)},
			}
			for name, v := range vals {
				if v[0] < 0 || v[0] > 1+1e-12 || math.IsNaN(v[0]) {
					t.Fatalf("%s@%d = %v out of [0,1] for %v / %v", name, k, v[0], ranking, judged)
				}
				if v[0] > v[1]+1e-12 {
					t.Fatalf("%s@%d with repeats %v > without %v", name, k, v[0], v[1])
				}
			}
		}
	})
}

func BenchmarkEvaluate(b *testing.B) {
	judged := map[DocID]int{"d3": 2, "d50": 1, "d99": 1}
	ranking := make([]DocID, 100)
	for i := range ranking {
		ranking[i] = DocID("d" + string(rune('0'+i%10)) + string(rune('0'+i/10)))
	}
	for b.Loop() {
		Evaluate(ranking, judged)
	}
}

// TestMetricsMatchPytrecEval compares every metric kind, at several cutoffs,
// on 40 random queries with the values pytrec_eval (trec_eval, as used by
// BEIR) computed for the same qrels and rankings; testdata/trec/gen.py made
// the fixture.
func TestMetricsMatchPytrecEval(t *testing.T) {
	f, err := os.Open("testdata/trec/qrels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	js, err := ParseQrels(f, "qrels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	qrels := Qrels{}
	for _, j := range js {
		if qrels[j.Query] == nil {
			qrels[j.Query] = map[DocID]int{}
		}
		qrels[j.Query][j.Doc] = j.Rel
	}
	runText, err := os.ReadFile("testdata/trec/run.tsv")
	if err != nil {
		t.Fatal(err)
	}
	runs := map[QueryID][]DocID{}
	for _, line := range strings.Split(strings.TrimSpace(string(runText)), "\n") {
		fs := strings.Split(line, "\t")
		runs[QueryID(fs[0])] = append(runs[QueryID(fs[0])], DocID(fs[1]))
	}
	b, err := os.ReadFile("testdata/trec/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[QueryID]map[string]float64
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) < 30 {
		t.Fatalf("fixture has only %d queries", len(want))
	}
	nonzero := 0
	kinds := map[string]bool{}
	for q, w := range want {
		for name, wv := range w {
			m, err := ParseMetric(name)
			if err != nil || m.Name != name {
				t.Fatalf("fixture metric %q: %v (parsed as %q)", name, err, m.Name)
			}
			kinds[strings.Split(name, "@")[0]] = true
			gv := m.Value(runs[q], qrels[q])
			if math.Abs(gv-wv) > 1e-9 {
				t.Errorf("%s %s = %.12f, pytrec_eval %.12f", q, name, gv, wv)
			}
			if wv > 0 {
				nonzero++
			}
		}
	}
	if nonzero < 50 {
		t.Errorf("fixture too weak: only %d non-zero expected values", nonzero)
	}
	if len(kinds) != len(metricKinds) {
		t.Errorf("fixture covers the metric kinds %v; every kind must be pinned", kinds)
	}
}
