package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"
)

// overlapRetriever is an exact, deterministic test retriever: it scores a
// document by the number of distinct query tokens it contains (title and
// text, lower-cased), ties broken by document id. Mode "reverse" returns the
// ranking reversed (a deliberately bad run; so does embedder "reverse");
// mode "fail" fails on query q3,
// mode "panic" panics on q5.
type overlapRetriever struct {
	docs    []Doc
	tokens  []map[string]bool
	indexed int
}

var _ Retriever = (*overlapRetriever)(nil)

func tokenize(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func (o *overlapRetriever) Index(_ context.Context, docs []Doc, progress func(int)) (bool, error) {
	o.indexed++
	o.docs = docs
	o.tokens = make([]map[string]bool, len(docs))
	for i, d := range docs {
		o.tokens[i] = map[string]bool{}
		for _, w := range tokenize(d.Title + " " + d.Text) {
			o.tokens[i][w] = true
		}
		progress(i + 1)
	}
	return false, nil
}

func (o *overlapRetriever) Search(_ context.Context, req SearchRequest) ([]Ranked, []StageTiming, error) {
	if req.Run.Mode == "fail" && req.Query.ID == "q3" {
		return nil, nil, errors.New("index unavailable")
	}
	if req.Run.Mode == "panic" && req.Query.ID == "q5" {
		var m map[string]int
		m["boom"]++ // a nil-map write, as a buggy retriever would
	}
	t0 := time.Now()
	qt := map[string]bool{}
	for _, w := range tokenize(req.Query.Text) {
		qt[w] = true
	}
	var out []Ranked
	for i, d := range o.docs {
		n := 0
		for w := range qt {
			if o.tokens[i][w] {
				n++
			}
		}
		if n > 0 {
			out = append(out, Ranked{ID: d.ID, Score: float64(n)})
		}
	}
	t1 := time.Now()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	if req.Run.Mode == "reverse" || req.Run.Embedder == "reverse" {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	if len(out) > req.K {
		out = out[:req.K]
	}
	return out, []StageTiming{{"score", t1.Sub(t0)}, {"sort", time.Since(t1)}}, nil
}

func tinyRun(t *testing.T, runs []RunSpec) *Report {
	t.Helper()
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lastDone, lastTotal int
	rep, err := Run(context.Background(), ds, &overlapRetriever{}, RunOptions{
		Runs: runs, Seed: 42, IndexProgress: func(done, total int) { lastDone, lastTotal = done, total },
		Repro: Repro{CgraphVersion: "test", StageSizes: map[string]int{"s1": 10}, Models: []ModelInfo{{Slot: "E1", ID: "m", SHA256: "abc"}},
			ProfileWeights: map[string]map[string]float64{"p": {"E1": 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if lastDone != 20 || lastTotal != 20 {
		t.Errorf("index progress ended at %d/%d, want 20/20", lastDone, lastTotal)
	}
	return rep
}

// TestRunTinyBenchEndToEnd runs a small bench, writes every report file and
// checks that each exists and parses, and that the figures are the ones the
// exact retriever must produce.
func TestRunTinyBenchEndToEnd(t *testing.T) {
	rep := tinyRun(t, []RunSpec{{Name: "overlap", Mode: "overlap"}, {Mode: "reverse", Profile: "p"}})
	if len(rep.Runs) != 2 || rep.Runs[1].Name != "reverse:p" {
		t.Fatalf("runs %+v", rep.Runs)
	}
	good, bad := rep.Runs[0], rep.Runs[1]
	if len(good.Queries) != 8 || rep.Repro.Queries != 8 || rep.Ingest.Docs != 20 {
		t.Fatalf("queries %d / docs %d", len(good.Queries), rep.Ingest.Docs)
	}
	// q7 "convert a decimal string to an int" matches d18 on 5 distinct tokens; nothing else comes close.
	for _, q := range good.Queries {
		if q.ID == "q7" && (q.Top[0] != "d18" || q.Metrics["mrr@10"] != 1) {
			t.Errorf("q7: top %v, metrics %+v", q.Top, q.Metrics)
		}
	}
	if good.Metrics["ndcg@10"] <= bad.Metrics["ndcg@10"] || good.Metrics["mrr@10"] <= bad.Metrics["mrr@10"] {
		t.Errorf("reversed ranking scored as well as the real one: %+v vs %+v", good.Metrics, bad.Metrics)
	}
	// Recall@100 is the same for both: the same set, in another order.
	if !near(good.Metrics["recall@100"], bad.Metrics["recall@100"]) {
		t.Errorf("recall@100 differs: %v vs %v", good.Metrics["recall@100"], bad.Metrics["recall@100"])
	}
	ci := good.CI95["ndcg@10"]
	if !(ci.Lo <= good.Metrics["ndcg@10"] && good.Metrics["ndcg@10"] <= ci.Hi) {
		t.Errorf("nDCG %v outside its CI %+v", good.Metrics["ndcg@10"], ci)
	}
	if len(good.Stages) != 2 || good.Stages[0].Stage != "score" || good.Stages[0].Queries != 8 {
		t.Errorf("stages %+v", good.Stages)
	}
	if rep.Ingest.PeakRSSBytes < 1<<20 || rep.Repro.Cores < 1 || rep.Repro.DatasetChecksum == "" || rep.Repro.Seeds["bootstrap"] != 42 {
		t.Errorf("ingest/repro %+v %+v", rep.Ingest, rep.Repro)
	}

	dir := t.TempDir()
	if err := rep.WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(back.Runs[0].Metrics, good.Metrics) || back.Repro.DatasetChecksum != rep.Repro.DatasetChecksum {
		t.Errorf("JSON round trip changed the report")
	}
	// The JSON shape: runs[].{mode, profile, metrics{ndcg@10,…}, latency_ms{p50,p95}}, ingest.
	var shape map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(b, &shape); err != nil {
		t.Fatal(err)
	}
	run0 := shape["runs"].([]any)[0].(map[string]any)
	for _, k := range MetricNames {
		if _, ok := run0["metrics"].(map[string]any)[k]; !ok {
			t.Errorf("metrics lacks %q", k)
		}
	}
	for _, k := range []string{"p50", "p95"} {
		if _, ok := run0["latency_ms"].(map[string]any)[k]; !ok {
			t.Errorf("latency_ms lacks %q", k)
		}
	}
	for _, k := range []string{"docs", "seconds", "docs_per_s", "peak_rss_bytes"} {
		if _, ok := shape["ingest"].(map[string]any)[k]; !ok {
			t.Errorf("ingest lacks %q", k)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"| overlap | overlap |  |", "| reverse:p | reverse | p |", "## Latency per stage", "slot E1: m sha256 abc", "profile p: E1=1"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, f := range []string{"quality.svg", "latency.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(bytes.NewReader(b))
		var root struct{ XMLName xml.Name }
		if err := d.Decode(&root); err != nil || root.XMLName.Local != "svg" {
			t.Errorf("%s is not SVG: %v %v", f, root.XMLName, err)
		}
		if !bytes.Contains(b, []byte("overlap")) {
			t.Errorf("%s does not name the runs", f)
		}
	}
}

func TestRunErrors(t *testing.T) {
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		runs []RunSpec
		want string
	}{
		{"no runs", nil, "no runs requested"},
		{"duplicate", []RunSpec{{Mode: "a"}, {Name: "a", Mode: "b"}}, `run "a" requested twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(ctx, ds, &overlapRetriever{}, RunOptions{Runs: tc.runs})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	rep, err := Run(ctx, ds, &overlapRetriever{}, RunOptions{Runs: []RunSpec{{Mode: "x"}}, MaxQueries: 3, K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs[0].Queries) != 3 {
		t.Errorf("MaxQueries: %d queries", len(rep.Runs[0].Queries))
	}
	for _, q := range rep.Runs[0].Queries {
		if len(q.Top) > 1 {
			t.Errorf("K=1 but query %s kept %d results", q.ID, len(q.Top))
		}
	}
}

// TestRunSurvivesFailingQueries: a query that errors (or panics) in one run
// is recorded with its run, id and error, scored as an empty ranking and
// left out of the latency figures; that run and the next ones go on, and the
// report says so in JSON and Markdown.
func TestRunSurvivesFailingQueries(t *testing.T) {
	rep := tinyRun(t, []RunSpec{{Mode: "fail"}, {Mode: "panic"}, {Mode: "overlap"}})
	if len(rep.Runs) != 3 || rep.Partial || rep.RunsPlanned != 3 {
		t.Fatalf("%d runs, partial %v: the bench stopped", len(rep.Runs), rep.Partial)
	}
	fail, panicked, whole := rep.Runs[0], rep.Runs[1], rep.Runs[2]
	if fail.Failed != 1 || len(fail.Failures) != 1 || fail.Failures[0] != (QueryFailure{Query: "q3", Error: "index unavailable"}) {
		t.Errorf("fail run failures %d %+v", fail.Failed, fail.Failures)
	}
	if panicked.Failed != 1 || panicked.Failures[0].Query != "q5" || !strings.Contains(panicked.Failures[0].Error, "retriever panicked: assignment to entry in nil map") {
		t.Errorf("panic run failures %+v", panicked.Failures)
	}
	if whole.Failed != 0 || len(fail.Queries) != 8 {
		t.Errorf("whole run failed %d; fail run has %d queries", whole.Failed, len(fail.Queries))
	}
	// The failed query counts as an empty ranking: the mean is the whole
	// run's mean less q3's share.
	var q3 QueryResult
	for _, q := range whole.Queries {
		if q.ID == "q3" {
			q3 = q
		}
	}
	for _, m := range MetricNames {
		want := whole.Metrics[m] - q3.Metrics[m]/8
		if !near(fail.Metrics[m], want) {
			t.Errorf("%s: fail run %v, want %v (q3 scored as empty)", m, fail.Metrics[m], want)
		}
	}
	if fail.Stages[0].Queries != 7 {
		t.Errorf("stage timings over %d queries, want the 7 that did not fail", fail.Stages[0].Queries)
	}
	for _, q := range fail.Queries {
		if (q.ID == "q3") != (q.Error != "") {
			t.Errorf("query %s error %q", q.ID, q.Error)
		}
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ParseReport(b.Bytes(), "r")
	if err != nil || back.Runs[0].Failures[0].Query != "q3" || back.Runs[0].Failed != 1 {
		t.Fatalf("JSON round trip lost the failure: %v", err)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Failed queries", "| fail | 1 | index unavailable | q3 |", "| panic | 1 | retriever panicked"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// cancellingRetriever cancels the bench's context at its first query of
// run "stop", as a user's Ctrl-C would.
type cancellingRetriever struct {
	overlapRetriever
	cancel context.CancelFunc
}

func (c *cancellingRetriever) Search(ctx context.Context, req SearchRequest) ([]Ranked, []StageTiming, error) {
	if req.Run.Mode == "stop" {
		c.cancel()
		return nil, nil, ctx.Err()
	}
	return c.overlapRetriever.Search(ctx, req)
}

// TestRunInterruptedKeepsFinishedRuns: the runs finished before the
// interruption were handed to OnRun as they finished, and the returned
// report holds them, marked partial, with the reason.
func TestRunInterruptedKeepsFinishedRuns(t *testing.T) {
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var saved []string
	dir := t.TempDir()
	rep, err := Run(ctx, ds, &cancellingRetriever{cancel: cancel}, RunOptions{
		Runs: []RunSpec{{Mode: "a"}, {Mode: "b"}, {Mode: "stop"}, {Mode: "c"}},
		OnRun: func(r *Report) error {
			saved = append(saved, fmt.Sprintf("%d/%v", len(r.Runs), r.Partial))
			return r.WriteAll(dir)
		},
	})
	if !errors.Is(err, context.Canceled) || rep == nil {
		t.Fatalf("got %v, %v; want the partial report and context.Canceled", rep, err)
	}
	if strings.Join(saved, " ") != "1/true 2/true" {
		t.Errorf("OnRun saw %v, want the two finished runs, each partial", saved)
	}
	if len(rep.Runs) != 2 || !rep.Partial || !strings.Contains(rep.StopReason, "stopped after 2 of 4 runs") {
		t.Errorf("report: %d runs, partial %v, reason %q", len(rep.Runs), rep.Partial, rep.StopReason)
	}
	onDisk, err := ReadReport(filepath.Join(dir, "report.json"))
	if err != nil || len(onDisk.Runs) != 2 || !onDisk.Partial {
		t.Fatalf("report on disk: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json.tmp")); !os.IsNotExist(err) {
		t.Errorf("a temporary file was left behind: %v", err)
	}
}

func TestCompareRuns(t *testing.T) {
	rep := tinyRun(t, []RunSpec{{Name: "good", Mode: "overlap"}, {Name: "bad", Mode: "reverse"}})
	same, err := CompareReports(rep, rep, "good", "", "ndcg@10", 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := same[0]; c.QueriesDiffer || c.PValue != 1 || c.MeanDelta != 0 || c.Ties != 8 || c.CI95 != (CI{}) || !c.Exact {
		t.Errorf("identical runs: %+v", c)
	}
	cs, err := CompareReports(rep, rep, "good", "bad", "mrr@10", 1)
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if c.MeanDelta >= 0 || c.Losses == 0 || c.Queries != 8 || !near(c.MeanB-c.MeanA, c.MeanDelta) {
		t.Errorf("good→bad: %+v", c)
	}
	if c.CI95.Hi < c.MeanDelta || c.CI95.Lo > c.MeanDelta {
		t.Errorf("mean delta %v outside CI %+v", c.MeanDelta, c.CI95)
	}
	all, err := CompareReports(rep, rep, "", "", "map", 1)
	if err != nil || len(all) != 2 {
		t.Fatalf("all common runs: %v %v", all, err)
	}
	other := *rep
	other.Repro.DatasetChecksum = "sha256:other"
	other.Repro.DatasetChecksums = map[string]string{"corpus": rep.Repro.DatasetChecksums["corpus"], "qrels": rep.Repro.DatasetChecksums["qrels"], "queries": "sha256:typos"}
	cs, err = CompareReports(rep, &other, "good", "", "map", 1)
	if err != nil || !cs[0].QueriesDiffer {
		t.Errorf("same corpus and qrels, other queries: %v %+v", err, cs)
	}
	other.Repro.DatasetChecksums = map[string]string{"corpus": "sha256:x", "qrels": rep.Repro.DatasetChecksums["qrels"]}
	if _, err := CompareReports(rep, &other, "", "", "map", 1); err == nil || !strings.Contains(err.Error(), "different datasets") {
		t.Errorf("different datasets: %v", err)
	}
	if _, err := CompareReports(rep, rep, "nope", "", "map", 1); err == nil || !strings.Contains(err.Error(), `no run named "nope"`) {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := CompareReports(rep, rep, "good", "", "p@5", 1); err == nil || !strings.Contains(err.Error(), "unknown metric") {
		t.Errorf("unknown metric: %v", err)
	}
}

func TestReadReportErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"garbage", "{", "is not a bench report"},
		{"old", `{"version": 0, "runs": [{}]}`, "report version 0"},
		{"future", `{"version": 99, "runs": [{}]}`, "report version 99"},
		{"empty", `{"version": 1}`, "has no runs"},
		{"unnamed run", `{"version": 1, "runs": [{"name": ""}]}`, "empty or repeated name"},
		{"repeated run", `{"version": 1, "runs": [{"name": "a"}, {"name": "a"}]}`, `repeated name "a"`},
		{"repeated query", `{"version": 1, "runs": [{"name": "a", "queries": [{"id": "q"}, {"id": "q"}]}]}`, `lists query "q" twice`},
	} {
		p := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadReport(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func BenchmarkRandomizationTest(b *testing.B) {
	d := make([]float64, 500)
	for i := range d {
		d[i] = float64(i%7-3) * 0.05
	}
	for b.Loop() {
		RandomizationTest(d, 1)
	}
}

func FuzzParseReport(f *testing.F) {
	rep := &Report{Version: ReportVersion, Dataset: "d", Runs: []RunResult{{Name: "a", Queries: []QueryResult{{ID: "q1"}}}}}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Add(`{"version": 1, "runs": [{"name": "a"}, {"name": "a"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseReport([]byte(in), "f")
		if err != nil {
			if r != nil {
				t.Fatal("error with a report")
			}
			return
		}
		if r.Version != ReportVersion || len(r.Runs) == 0 {
			t.Fatalf("accepted %+v", r)
		}
		for _, run := range r.Runs {
			if _, err := r.Run(run.Name); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func BenchmarkRunTiny(b *testing.B) {
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	runs := []RunSpec{{Mode: "overlap"}}
	for b.Loop() {
		if _, err := Run(context.Background(), ds, &overlapRetriever{}, RunOptions{Runs: runs}); err != nil {
			b.Fatal(err)
		}
	}
}

// reproRetriever reports its models only after Index, like the engine
// retriever whose models are those the store was built with.
type reproRetriever struct {
	overlapRetriever
	indexedBeforeRepro bool
}

func (r *reproRetriever) Repro(rp *Repro) {
	r.indexedBeforeRepro = r.indexed > 0
	rp.Models = []ModelInfo{{Slot: "E1", ID: "e5-small-v2", SHA256: "ab12", Status: "ready", Device: "cuda"}}
	rp.StageSizes = map[string]int{"recall_k": 10000}
}

func TestRunAsksReproAfterIndex(t *testing.T) {
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &reproRetriever{}
	rep, err := Run(context.Background(), ds, r, RunOptions{Runs: []RunSpec{{Mode: "x"}},
		Repro: Repro{CgraphVersion: "v", Models: []ModelInfo{{Slot: "E1", ID: "stale"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.indexedBeforeRepro {
		t.Error("Repro was called before Index")
	}
	if len(rep.Repro.Models) != 1 || rep.Repro.Models[0].ID != "e5-small-v2" || rep.Repro.StageSizes["recall_k"] != 10000 {
		t.Errorf("the retriever's reproducibility facts were not kept: %+v", rep.Repro)
	}
	if rep.Repro.CgraphVersion != "v" {
		t.Errorf("fields the retriever did not set were lost: %+v", rep.Repro)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "- slot E1: e5-small-v2 sha256 ab12 (ready) on cuda") {
		t.Errorf("markdown lacks the model line:\n%s", md.String())
	}
}

// notingRetriever notes the same thing in every run it served, with the
// run in the example, and one more thing in run y.
type notingRetriever struct{ overlapRetriever }

func (n *notingRetriever) Notes(run string) []Note {
	out := []Note{{Text: "S3 fusion E7 unavailable", Count: 8, Example: "no model for E7 (" + run + ")"}}
	if run == "y" {
		out = append(out, Note{Text: "S1 recall fallback", Count: 3, Example: "E13 has no model: E6 recalls"})
	}
	return out
}

// TestRunMergesRetrieverNotes: notes are kept per run in the JSON and
// merged into one table in the Markdown: one row per note with its runs,
// its count per run and in all, and an example; never a line per run.
func TestRunMergesRetrieverNotes(t *testing.T) {
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), ds, &notingRetriever{}, RunOptions{Runs: []RunSpec{{Mode: "x"}, {Mode: "y"}, {Mode: "z"}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Runs[1].Notes; len(n) != 2 || n[0].Count != 8 || n[0].Example != "no model for E7 (y)" {
		t.Errorf("run y notes %+v", n)
	}
	rows := rep.MergedNotes()
	if len(rows) != 2 || rows[0].Total != 24 || len(rows[0].Runs) != 3 || rows[1].Text != "S1 recall fallback" {
		t.Fatalf("merged notes %+v", rows)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| S3 fusion E7 unavailable | all 3 | 8 | 24 | no model for E7 (x) |", "| S1 recall fallback | y | 3 | 3 | E13 has no model: E6 recalls |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if c := strings.Count(md.String(), "E7 unavailable"); c != 1 {
		t.Errorf("the E7 note appears %d times in the markdown, want once", c)
	}
	// A version 1 report's notes were strings: they still read.
	var n Note
	if err := json.Unmarshal([]byte(`"S5 validate E4 unavailable ×500"`), &n); err != nil || n.Text != "S5 validate E4 unavailable ×500" {
		t.Errorf("v1 note: %+v %v", n, err)
	}
}

func TestDescribeRuns(t *testing.T) {
	rep := &Report{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		rep.Runs = append(rep.Runs, RunResult{Name: n})
	}
	for _, tc := range []struct {
		runs []string
		want string
	}{
		{[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, "all 10"},
		{[]string{"a", "b", "c", "d", "e", "f", "g", "h"}, "8: all but i, j"},
		{[]string{"b", "c"}, "b, c"},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, "7: all but h, i, j"},
	} {
		if got := rep.describeRuns(tc.runs); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.runs, got, tc.want)
		}
	}
}

// reusingRetriever claims a reused index that took buildSecs to build.
type reusingRetriever struct {
	overlapRetriever
	buildSecs float64
}

func (r *reusingRetriever) Index(ctx context.Context, docs []Doc, progress func(int)) (bool, error) {
	_, err := r.overlapRetriever.Index(ctx, docs, progress)
	return true, err
}

func (r *reusingRetriever) BuildSeconds() float64 { return r.buildSecs }

func TestRunReusedIndexReportsBuildThroughput(t *testing.T) {
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		build, wantRate float64
	}{{4, 5}, {0, 0}} {
		rep, err := Run(context.Background(), ds, &reusingRetriever{buildSecs: tc.build}, RunOptions{Runs: []RunSpec{{Mode: "x"}}})
		if err != nil {
			t.Fatal(err)
		}
		in := rep.Ingest
		if !in.Reused || in.BuiltSeconds != tc.build || in.DocsPerS != tc.wantRate {
			t.Errorf("build %v s: ingest %+v, want %v docs/s from the build (20 docs), never from the reopen", tc.build, in, tc.wantRate)
		}
	}
}

func TestRunMaxQueriesSamples(t *testing.T) {
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(seed uint64) []QueryID {
		rep, err := Run(context.Background(), ds, &overlapRetriever{}, RunOptions{Runs: []RunSpec{{Mode: "x"}}, MaxQueries: 4, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var out []QueryID
		for _, q := range rep.Runs[0].Queries {
			out = append(out, q.ID)
		}
		if rep.Repro.Seeds["query_sample"] != seed || rep.Repro.Queries != 4 {
			t.Errorf("seed %d: repro %+v", seed, rep.Repro)
		}
		return out
	}
	a, b := ids(1), ids(1)
	if len(a) != 4 || !slices.Equal(a, b) || !slices.IsSorted(a) {
		t.Fatalf("same seed gave %v then %v; want the same 4 ids in file order", a, b)
	}
	differ := false
	for seed := uint64(2); seed < 12 && !differ; seed++ {
		differ = !slices.Equal(ids(seed), a)
	}
	if !differ {
		t.Errorf("ten seeds all picked %v: not a sample", a)
	}
	prefix := []QueryID{"q1", "q2", "q3", "q4"}
	same := 0
	for seed := uint64(1); seed < 12; seed++ {
		if slices.Equal(ids(seed), prefix) {
			same++
		}
	}
	if same == 11 {
		t.Errorf("MaxQueries always takes the first queries")
	}
}

// TestCompareFiles: bench compare's job reads two report files and
// compares them as CompareReports compares the reports; a TREC run
// without the set it ran on is refused.
func TestCompareFiles(t *testing.T) {
	rep := tinyRun(t, []RunSpec{{Name: "good", Mode: "overlap"}, {Name: "bad", Mode: "reverse"}})
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := CompareFiles(CompareFilesOptions{A: path, B: path, RunA: "good", RunB: "bad", Metric: "mrr@10", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want, err := CompareReports(rep, rep, "good", "bad", "mrr@10", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].MeanDelta != want[0].MeanDelta || got[0].PValue != want[0].PValue || got[0].Queries != want[0].Queries {
		t.Errorf("from files: %+v\nfrom reports: %+v", got[0], want[0])
	}
	if _, err := CompareFiles(CompareFilesOptions{A: path, B: "testdata/trec/run-ties.trec", Metric: "ndcg@10"}); err == nil || !strings.Contains(err.Error(), "give the dataset") {
		t.Errorf("TREC run without --data: %v", err)
	}
}
