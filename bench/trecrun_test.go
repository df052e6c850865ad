package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteTRECRunKeepsTheOrder(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	in := []RankedQuery{
		{"q1", []Ranked{{"a", 3}, {"b", 2}, {"c", 1}}},           // strictly decreasing: kept
		{"q2", []Ranked{{"a", 1}, {"b", 1}, {"z", 1}, {"c", 2}}}, // ties and an inversion
		{"q3", []Ranked{{"x", nan}, {"y", inf}, {"w", -inf}}},
		{"q4", nil},
	}
	var b bytes.Buffer
	adjusted, err := WriteTRECRun(&b, "my_run", in)
	if err != nil {
		t.Fatal(err)
	}
	if adjusted != 3+3 {
		t.Errorf("adjusted %d scores, want 6 (b, z, c of q2; x, y, w of q3)", adjusted)
	}
	if !strings.HasPrefix(b.String(), "q1 Q0 a 1 3 my_run\n") {
		t.Errorf("first line %q", strings.SplitN(b.String(), "\n", 2)[0])
	}
	runs, err := ParseTRECRun(&b, "r")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, rq := range in[:3] {
		var got []DocID
		for _, r := range runs[0].Rankings[rq.Query] {
			got = append(got, r.ID)
		}
		var want []DocID
		for _, r := range rq.Ranked {
			want = append(want, r.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s read back as %v, written %v", rq.Query, got, want)
		}
	}
	if _, err := WriteTRECRun(&b, "t", []RankedQuery{{"q 1", nil}}); err == nil {
		t.Error("a query id with a space was written")
	}
	if _, err := WriteTRECRun(&b, "t", []RankedQuery{{"q", []Ranked{{"d 1", 1}}}}); err == nil {
		t.Error("a document id with a space was written")
	}
}

func TestTRECRunNames(t *testing.T) {
	if got := TRECRunFileName("multi_space:code search/x"); got != "multi_space_code_search_x.trec" {
		t.Errorf("file name %q", got)
	}
	if got := TRECRunTag("pipeline: a b"); got != "pipeline:_a_b" {
		t.Errorf("tag %q", got)
	}
	if err := checkRunNames([]RunSpec{{Name: "a:b"}, {Name: "a/b"}}, true); err == nil || !strings.Contains(err.Error(), "would both write the TREC run file a_b.trec") {
		t.Errorf("colliding run files: %v", err)
	}
	if err := checkRunNames([]RunSpec{{Name: "a:b"}, {Name: "a/b"}}, false); err != nil {
		t.Errorf("no run files, no collision: %v", err)
	}
}

func TestParseTRECRunErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"q Q0 d 1 1.0", "r.trec:1: want 6 whitespace-separated fields"},
		{"q Q0 d 1 high t", `r.trec:1: score "high" is not a number`},
		{"q Q0 d 1 NaN t", `score "NaN" is not a number`},
		{"q Q0 d 1 1 t\n\nq Q0 d 2 0.5 t", "r.trec:3: run t lists document d for query q again (first on line 1)"},
		{"\n\n", "no run lines"},
	} {
		if _, err := ParseTRECRun(strings.NewReader(tc.in), "r.trec"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
	runs, err := ParseTRECRun(strings.NewReader("q1 Q0 a 1 1 x\nq1 Q0 b 2 1 y\nq2 Q0 a 1 1 x\n"), "r")
	if err != nil || len(runs) != 2 || runs[0].Tag != "x" || !slices.Equal(runs[0].Queries, []QueryID{"q1", "q2"}) {
		t.Errorf("two tags: %+v %v", runs, err)
	}
}

// trecFixture loads testdata/trec as a Dataset (every judged or retrieved
// document in the corpus) and the rankings of run.tsv.
func trecFixture(t *testing.T) (*Dataset, map[QueryID][]Ranked) {
	t.Helper()
	f, err := os.Open("testdata/trec/qrels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	js, err := ParseQrels(f, "qrels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ds := &Dataset{Name: "trec", Qrels: Qrels{}, Checksum: "sha256:trec"}
	for _, j := range js {
		if ds.Qrels[j.Query] == nil {
			ds.Qrels[j.Query] = map[DocID]int{}
			ds.Queries = append(ds.Queries, Query{ID: j.Query, Text: string(j.Query)})
		}
		ds.Qrels[j.Query][j.Doc] = j.Rel
	}
	b, err := os.ReadFile("testdata/trec/run.tsv")
	if err != nil {
		t.Fatal(err)
	}
	rankings := map[QueryID][]Ranked{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		fs := strings.Split(line, "\t")
		rankings[QueryID(fs[0])] = append(rankings[QueryID(fs[0])], Ranked{ID: DocID(fs[1])})
	}
	for d := 0; d < 300; d++ {
		ds.Corpus = append(ds.Corpus, Doc{ID: DocID(fmt.Sprintf("d%03d", d))})
	}
	return ds, rankings
}

func readExpected(t *testing.T, path string) map[QueryID]map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[QueryID]map[string]float64
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestTRECRunReaderRanksAsTrecEval reads a run whose scores tie a lot,
// written in an order that is not trec_eval's: scored after reading, it
// gives the values pytrec_eval computed from the same file.
func TestTRECRunReaderRanksAsTrecEval(t *testing.T) {
	ds, _ := trecFixture(t)
	runs, err := ReadTRECRun("testdata/trec/run-ties.trec")
	if err != nil {
		t.Fatal(err)
	}
	want := readExpected(t, "testdata/trec/expected-ties.json")
	ms, err := ParseMetrics([]string{"ndcg@10", "recall@100", "map", "p@5", "mrr"})
	if err != nil {
		t.Fatal(err)
	}
	res := EvaluateTRECRun(runs[0], ds, ms, 0)
	checkAgainst(t, res, want)
}

func checkAgainst(t *testing.T, res RunResult, want map[QueryID]map[string]float64) {
	t.Helper()
	if len(res.Queries) != len(want) {
		t.Fatalf("%d queries scored, fixture has %d", len(res.Queries), len(want))
	}
	compared := map[string]bool{}
	for _, q := range res.Queries {
		for name, w := range want[q.ID] {
			g, ok := q.Metrics[name]
			if !ok {
				continue // a metric this run was not scored with
			}
			compared[name] = true
			if math.Abs(g-w) > 1e-9 {
				t.Errorf("%s %s = %v, pytrec_eval %v", q.ID, name, g, w)
			}
		}
	}
	if len(compared) < 5 {
		t.Errorf("only %v compared with pytrec_eval", compared)
	}
}

// fixtureRetriever returns the fixture's rankings with scores that tie in
// pairs, so the run file must break ties for trec_eval to keep the order.
type fixtureRetriever struct{ rankings map[QueryID][]Ranked }

func (f *fixtureRetriever) Index(context.Context, []Doc, func(int)) (bool, error) { return false, nil }

func (f *fixtureRetriever) Search(_ context.Context, req SearchRequest) ([]Ranked, []StageTiming, error) {
	out := slices.Clone(f.rankings[req.Query.ID])
	for i := range out {
		out[i].Score = float64(1000 - i/2)
	}
	return out, nil, nil
}

// TestRunFileMatchesPytrecEval runs the bench over the pytrec_eval fixture
// with a run directory: the TREC run file it writes, read back and scored,
// gives pytrec_eval's values, as do the report's own per-query figures.
func TestRunFileMatchesPytrecEval(t *testing.T) {
	ds, rankings := trecFixture(t)
	dir := t.TempDir()
	metrics := []string{"ndcg@10", "recall@10", "recall@100", "map", "mrr@10", "p@5", "ndcg@100"}
	rep, err := Run(context.Background(), ds, &fixtureRetriever{rankings}, RunOptions{Runs: []RunSpec{{Name: "fixture run", Mode: "x"}}, RunDir: dir, Metrics: metrics, K: 150})
	if err != nil {
		t.Fatal(err)
	}
	want := readExpected(t, "testdata/trec/expected.json")
	checkAgainst(t, rep.Runs[0], want)
	if rep.Runs[0].RunFile != "fixture_run.trec" || rep.Runs[0].RunFileAdjusted == 0 {
		t.Errorf("run file %q, %d adjusted scores", rep.Runs[0].RunFile, rep.Runs[0].RunFileAdjusted)
	}
	runs, err := ReadTRECRun(filepath.Join(dir, "fixture_run.trec"))
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Tag != "fixture_run" {
		t.Errorf("tag %q", runs[0].Tag)
	}
	ms, _ := ParseMetrics(metrics)
	checkAgainst(t, EvaluateTRECRun(runs[0], ds, ms, 0), want)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("run directory holds %v, want the one run file", entries)
	}
}

func FuzzParseTRECRun(f *testing.F) {
	b, err := os.ReadFile("testdata/trec/run-ties.trec")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:2000])
	f.Add([]byte("q Q0 d 1 1e308 t\nq Q0 e 2 -Inf t\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		runs, err := ParseTRECRun(bytes.NewReader(in), "f")
		if err != nil {
			if runs != nil {
				t.Fatalf("error %v came with runs", err)
			}
			return
		}
		for _, run := range runs {
			if run.Tag == "" || len(run.Queries) != len(run.Rankings) {
				t.Fatalf("run %+v", run)
			}
			for q, rs := range run.Rankings {
				for i := 1; i < len(rs); i++ {
					if rs[i].Score > rs[i-1].Score || rs[i].Score == rs[i-1].Score && rs[i].ID > rs[i-1].ID {
						t.Fatalf("query %s not in trec_eval order: %v", q, rs)
					}
				}
			}
			// What was read writes back to the same rankings.
			var rqs []RankedQuery
			for _, q := range run.Queries {
				rqs = append(rqs, RankedQuery{q, run.Rankings[q]})
			}
			var w bytes.Buffer
			if _, err := WriteTRECRun(&w, run.Tag, rqs); err != nil {
				t.Fatal(err)
			}
			back, err := ParseTRECRun(&w, "back")
			if err != nil {
				t.Fatalf("re-read: %v\n%s", err, w.String())
			}
			for _, q := range run.Queries {
				if len(back[0].Rankings[q]) != len(run.Rankings[q]) {
					t.Fatalf("query %s: %d docs back, %d written", q, len(back[0].Rankings[q]), len(run.Rankings[q]))
				}
				for i, r := range back[0].Rankings[q] {
					if r.ID != run.Rankings[q][i].ID {
						t.Fatalf("query %s rank %d: %s back, %s written", q, i, r.ID, run.Rankings[q][i].ID)
					}
				}
			}
		}
	})
}
