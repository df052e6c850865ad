package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"maps"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/benchstore"
	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/cli/benchcmd"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
)

const tinySet = "../bench/testdata/tiny"

func benchExec(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = ExecuteContext(context.Background(), append([]string{"--db", t.TempDir()}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// benchOverlapRetriever scores documents by distinct shared lower-case tokens
// (ties by id); profile typo_tolerant reverses the ranking. Exact and
// deterministic. embedder_first:E9 fails on query q3; embedder_first:E12
// calls cancel (when set), as an interrupted bench.
type benchOverlapRetriever struct {
	docs   []bench.Doc
	cancel context.CancelFunc
}

func benchWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		m[w] = true
	}
	return m
}

func (o *benchOverlapRetriever) Index(_ context.Context, docs []bench.Doc, progress func(int)) (bool, error) {
	o.docs = docs
	return false, nil
}

func (o *benchOverlapRetriever) Search(ctx context.Context, req bench.SearchRequest) ([]bench.Ranked, []bench.StageTiming, error) {
	switch {
	case req.Run.Embedder == "E9" && req.Query.ID == "q3":
		return nil, nil, errors.New("E9: query has no letters to hash")
	case req.Run.Embedder == "E12" && o.cancel != nil:
		o.cancel() // as a user's Ctrl-C during this run
		return nil, nil, ctx.Err()
	}
	q := benchWords(req.Query.Text)
	var out []bench.Ranked
	for _, d := range o.docs {
		n := 0
		for w := range benchWords(d.Title + " " + d.Text) {
			if q[w] {
				n++
			}
		}
		if n > 0 {
			out = append(out, bench.Ranked{ID: d.ID, Score: float64(n)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	if req.Run.Profile == "typo_tolerant" {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, []bench.StageTiming{{Stage: "overlap"}}, nil
}

func withTestRetriever(t *testing.T) {
	withCancellingTestRetriever(t, nil)
}

func withCancellingTestRetriever(t *testing.T, cancel context.CancelFunc) {
	old := benchcmd.Retriever
	benchcmd.Retriever = func(a *app.App, cfg benchstore.Config) (bench.Retriever, bench.Repro, func() error, error) {
		return &benchOverlapRetriever{cancel: cancel}, bench.Repro{StageSizes: map[string]int{"k": 100}}, func() error { return nil }, nil
	}
	t.Cleanup(func() { benchcmd.Retriever = old })
}

// TestBenchRunSurvivesFailingQuery is the 12-minute abort of issue 19: one
// query that fails in one run is reported, and every run is written.
func TestBenchRunSurvivesFailingQuery(t *testing.T) {
	withTestRetriever(t)
	out := t.TempDir()
	stdout, stderr, code := benchExec(t, "--json", "bench", "run", "--data", tinySet, "--modes", "embedder_first", "--embedders", "E9,E6", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 4 || rep.Partial { // the baselines (E6 is bm25_only) and E9
		t.Fatalf("%d runs, partial %v", len(rep.Runs), rep.Partial)
	}
	e9, _ := rep.Run("embedder_first:E9")
	if e9 == nil || e9.Failed != 1 || len(e9.Failures) != 1 || e9.Failures[0].Query != "q3" || !strings.Contains(e9.Failures[0].Error, "no letters") {
		t.Errorf("E9 run %+v", e9)
	}
	if !strings.Contains(stderr, "run embedder_first:E9: 1 of 8 queries failed") {
		t.Errorf("stderr does not warn about the failure: %q", stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "| embedder_first:E9 | 1 | E9: query has no letters to hash | q3 |") {
		t.Errorf("report.md (%v) lacks the failure:\n%s", err, md)
	}
}

// TestBenchRunInterruptedWritesFinishedRuns: a bench stopped during its third
// run leaves report files holding the two runs it finished, marked partial.
func TestBenchRunInterruptedWritesFinishedRuns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	withCancellingTestRetriever(t, cancel)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"--db", t.TempDir(), "bench", "run", "--data", tinySet, "--modes", "embedder_first", "--embedders", "E6,E7,E12,E13", "--no-baselines", "--out", out}
	if code := ExecuteContext(ctx, args, strings.NewReader(""), &stdout, &stderr); code == 0 {
		t.Fatalf("an interrupted bench exited 0: %s", stdout.String())
	}
	rep, err := bench.ReadReport(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 2 || !rep.Partial || rep.RunsPlanned != 4 || !strings.Contains(rep.StopReason, "stopped after 2 of 4 runs") {
		t.Errorf("report on disk: %d runs, partial %v, planned %d, reason %q", len(rep.Runs), rep.Partial, rep.RunsPlanned, rep.StopReason)
	}
	if !strings.Contains(stderr.String(), "the 2 finished runs are in") {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestBenchRunAndCompare(t *testing.T) {
	withTestRetriever(t)
	out := t.TempDir()
	stdout, stderr, code := benchExec(t, "--json", "bench", "run", "--data", tinySet, "--profiles", "code_search,typo_tolerant", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON report: %v\n%s", err, stdout)
	}
	var names []string
	for _, r := range rep.Runs {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, " "); got != "bm25_only e1_only rrf_e1_e6 pipeline:code_search pipeline:typo_tolerant" {
		t.Fatalf("runs %s", got)
	}
	if len(rep.Runs[0].Queries) != 0 {
		t.Errorf("--json stdout carries %d per-query results; report.json holds them", len(rep.Runs[0].Queries))
	}
	if full, err := bench.ReadReport(filepath.Join(out, "report.json")); err != nil || len(full.Runs[0].Queries) != 8 {
		t.Errorf("report.json per-query results: %v", err)
	}
	cs, err := profiles.Lookup("code_search")
	if err != nil {
		t.Fatal(err)
	}
	if w, want := rep.Repro.ProfileWeights["code_search"]["E1"], cs.Weights.Get(fingerprint.E1); w != want || want == 0 {
		t.Errorf("code_search E1 weight %v in the reproducibility block, want the profile's %v", w, want)
	}
	if rep.Repro.CgraphVersion == "" || rep.Repro.DatasetChecksum == "" {
		t.Errorf("repro %+v", rep.Repro)
	}
	// The default baseline is the best single-slot run; typo_tolerant
	// (reversed by the test retriever) loses to it on every query.
	if rep.Baseline != "bm25_only" && rep.Baseline != "e1_only" {
		t.Errorf("baseline %q, want a single-slot run", rep.Baseline)
	}
	if s := rep.Runs[4].VsBaseline["ndcg@10"]; s.Verdict != bench.VerdictLoss || s.Family != 4 || s.PHolm < s.P {
		t.Errorf("pipeline:typo_tolerant against the baseline: %+v", s)
	}
	for _, f := range bench.ReportFiles {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report file %s: %v", f, err)
		}
	}

	report := filepath.Join(out, "report.json")
	stdout, stderr, code = benchExec(t, "bench", "compare", report, report, "--run", "pipeline:code_search", "--run-b", "pipeline:typo_tolerant")
	if code != 0 {
		t.Fatalf("compare exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "pipeline:code_search (A) vs pipeline:typo_tolerant (B), ndcg@10 over 8 paired queries") || !strings.Contains(stdout, "(exact)") {
		t.Errorf("compare output:\n%s", stdout)
	}
	stdout, _, code = benchExec(t, "--json", "bench", "compare", report, report)
	var cmp struct{ Comparisons []bench.Comparison }
	if code != 0 || json.Unmarshal([]byte(stdout), &cmp) != nil || len(cmp.Comparisons) != 5 {
		t.Fatalf("compare --json: exit %d, %s", code, stdout)
	}
	for _, c := range cmp.Comparisons {
		if c.PValue != 1 || c.MeanDelta != 0 {
			t.Errorf("a report compared with itself: %+v", c)
		}
	}
}

func TestBenchRunAllProfiles(t *testing.T) {
	withTestRetriever(t)
	stdout, stderr, code := benchExec(t, "--json", "bench", "run", "--data", tinySet, "--profiles", "all", "--no-baselines", "--max-queries", "2", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 17 || rep.Runs[0].Name != "pipeline:semantic_search" || len(rep.Repro.ProfileWeights) != 17 {
		t.Fatalf("%d runs, first %q, %d profiles recorded; want the 17 built-ins", len(rep.Runs), rep.Runs[0].Name, len(rep.Repro.ProfileWeights))
	}
	if rep.Repro.Queries != 2 {
		t.Errorf("--max-queries 2 ran %d queries", rep.Repro.Queries)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	withTestRetriever(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "run"}, 2, "--data is missing"},
		{[]string{"bench", "run", "--data", tinySet, "--profiles", "nope"}, 2, `unknown profile "nope"`},
		{[]string{"bench", "run", "--data", tinySet, "--modes", "fast"}, 2, `unknown mode "fast"`},
		{[]string{"bench", "run", "--data", tinySet, "--split", "dev"}, 1, "dev.tsv"},
		{[]string{"bench", "prepare", "csn-ruby", "--src", ".", "--out", "x"}, 2, `unknown set kind "csn-ruby"`},
		{[]string{"bench", "prepare", "csn-go", "--out", "x"}, 2, "--src is missing"},
		{[]string{"bench", "prepare", "csn-go", "--src", "."}, 2, "--out is missing"},
		{[]string{"bench", "compare", "a.json"}, 2, "two report.json files"},
		{[]string{"bench", "run", "--data", tinySet, "--baseline", "nope"}, 2, `--baseline "nope" is not one of the runs`},
		{[]string{"bench", "run", "--data", tinySet, "--alpha", "1.5"}, 2, "--alpha 1.5 is not in (0, 1)"},
		{[]string{"bench", "run", "--data", tinySet, "--rerank-weight", "1.5"}, 2, "--rerank-weight 1.5 is out of range"},
		{[]string{"bench", "run", "--data", tinySet, "--metrics", "ndcg@10,f1"}, 2, `unknown metric "f1"`},
		{[]string{"bench", "run", "--data", tinySet, "--metrics", "recall@1000"}, 2, "--metrics look 1000 results deep but --k is 100"},
		{[]string{"bench", "compare", "a.json", "b.json", "--metric", "f1@5"}, 2, `--metric "f1@5" is not a metric`},
		{[]string{"bench", "compare", "a.json", "b.json"}, 1, "read report"},
	} {
		_, stderr, code := benchExec(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestBenchPrepareMTEBUnreachable: with the hub out of reach (a closed
// local port, by flag or environment) prepare mteb:TASK says so clearly.
func TestBenchPrepareMTEBUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, viaEnv := range []bool{false, true} {
		args := []string{"bench", "prepare", "mteb:CosQA", "--out", t.TempDir()}
		if viaEnv {
			t.Setenv("CGRAPH_HF_ENDPOINT", ep)
		} else {
			args = append(args, "--hub", ep)
		}
		_, stderr, code := benchExec(t, args...)
		if code != 1 || !strings.Contains(stderr, "cannot reach the Hugging Face hub at "+ep) || !strings.Contains(stderr, "CoIR-Retrieval/cosqa") {
			t.Errorf("env %v: exit %d, stderr %q", viaEnv, code, stderr)
		}
	}
	_, stderr, code := benchExec(t, "bench", "prepare", "mteb:NoSuchTask", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, `unknown MTEB task "NoSuchTask"`) {
		t.Errorf("unknown task: exit %d, stderr %q", code, stderr)
	}
}

func TestBenchPrepareDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, out := range []string{a, b} {
		stdout, stderr, code := benchExec(t, "--json", "bench", "prepare", "csn-go", "--src", "../bench/testdata/src/go", "--out", out, "--typos", "--seed", "3")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var res struct {
			Stats bench.PrepareStats
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Stats.Pairs != 4 {
			t.Fatalf("output %s (%v)", stdout, err)
		}
	}
	for _, f := range []string{"corpus.jsonl", "queries.jsonl", "queries-typos.jsonl", "qrels/test.tsv", "prepare.json"} {
		x, err := os.ReadFile(filepath.Join(a, f))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, f))
		if err != nil {
			t.Fatal(err)
		}
		if sha256.Sum256(x) != sha256.Sum256(y) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}

// TestBenchPrepareJavaAndJS builds sets from the Javadoc and JSDoc fixtures
// through the command, and refuses a --lang that contradicts the kind.
func TestBenchPrepareJavaAndJS(t *testing.T) {
	for _, c := range []struct {
		kind, src, lang string
		pairs           int
	}{{"csn-java", "../bench/testdata/src/java", "java", 2}, {"csn-js", "../bench/testdata/src/js", "javascript", 3}} {
		stdout, stderr, code := benchExec(t, "--json", "bench", "prepare", c.kind, "--src", c.src, "--out", t.TempDir())
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.kind, code, stderr)
		}
		var res struct {
			Lang  string
			Stats bench.PrepareStats
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Stats.Pairs != c.pairs || res.Lang != c.lang {
			t.Errorf("%s: output %s (%v), want %d %s pairs", c.kind, stdout, err, c.pairs, c.lang)
		}
	}
	_, stderr, code := benchExec(t, "bench", "prepare", "csn-java", "--lang", "go", "--src", ".", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "conflicts with --lang") {
		t.Errorf("csn-java --lang go: exit %d, %s", code, stderr)
	}
}

// TestProfilesLearn fits a profile on the tiny set with the exact test
// retriever: the file it writes is a valid profile that profile files load,
// it keeps the base's stage-only weight, and the JSON reports both
// cross-validated figures.
func TestProfilesLearn(t *testing.T) {
	withTestRetriever(t)
	out := filepath.Join(t.TempDir(), "learned.toml")
	stdout, stderr, code := benchExec(t, "--json", "profiles", "learn", "--data", tinySet, "--folds", "2", "--out", out,
		"--slots", "E1,E6,E7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got benchstore.LearnedJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout: %v\n%s", err, stdout)
	}
	if got.Profile != "learned_tiny" || got.Queries < 4 || got.CV.Mean <= 0 || got.CV.Low > got.CV.Mean || got.BaseCV.Mean <= 0 || len(got.FoldWeights) != 2 || got.Fusion != "rrf" {
		t.Fatalf("learn report %+v", got)
	}
	// --fusion minmax fits under min-max and says so.
	stdout, stderr, code = benchExec(t, "--json", "profiles", "learn", "--data", tinySet, "--folds", "2", "--out", filepath.Join(t.TempDir(), "mm.toml"),
		"--slots", "E1,E6,E7", "--fusion", "minmax")
	var mm benchstore.LearnedJSON
	if code != 0 || json.Unmarshal([]byte(stdout), &mm) != nil || mm.Fusion != "minmax" || mm.BaseCV.Mean <= 0 {
		t.Fatalf("--fusion minmax: exit %d, %+v: %s", code, mm, stderr)
	}
	p, err := engine.LoadProfileFile(out)
	if err != nil {
		t.Fatalf("the learned file does not load: %v", err)
	}
	base, _ := engine.BuiltinProfile("pipeline_full")
	if p.Name != "learned_tiny" || !p.Staged || p.Weights.Get(engine.E13) != base.Weights.Get(engine.E13) {
		t.Errorf("learned profile %+v", p)
	}

	// --holdout leaves out exactly the queries a bench run of that size
	// evaluates; that run then scores the learned profile file.
	held := filepath.Join(t.TempDir(), "held.yaml")
	stdout, stderr, code = benchExec(t, "--json", "profiles", "learn", "--data", tinySet, "--folds", "2", "--out", held,
		"--slots", "E1,E6,E7", "--holdout", "3", "--name", "held_out")
	var heldRep benchstore.LearnedJSON
	if code != 0 || json.Unmarshal([]byte(stdout), &heldRep) != nil || heldRep.Queries != got.Queries-3 {
		t.Fatalf("--holdout 3: exit %d, %d queries (all: %d): %s", code, heldRep.Queries, got.Queries, stderr)
	}
	runOut := t.TempDir()
	stdout, stderr, code = benchExec(t, "--json", "bench", "run", "--data", tinySet, "--profiles", "all,"+held, "--modes", "pipeline",
		"--max-queries", "3", "--out", runOut)
	var rep bench.Report
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil {
		t.Fatalf("bench run with a profile file: exit %d: %s", code, stderr)
	}
	run, _ := rep.Run("pipeline:held_out")
	if run == nil || len(run.Stages) == 0 || run.Stages[0].Queries != 3 || rep.Repro.ProfileWeights["held_out"]["E1"] <= 0 {
		t.Errorf("bench run lacks the learned profile: run %+v, weights %v", run, rep.Repro.ProfileWeights)
	}
	for _, name := range engine.ProfileNames() { // all,FILE: every built-in beside the file
		if run, _ := rep.Run("pipeline:" + name); run == nil {
			t.Errorf("--profiles all,FILE: no run of %s", name)
		}
	}
	builtinNamed := filepath.Join(t.TempDir(), "clash.toml")
	if err := os.WriteFile(builtinNamed, []byte("name = \"code_search\"\n[weights]\nE1 = 1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"built-in name in a file": {"bench", "run", "--data", tinySet, "--profiles", builtinNamed, "--out", runOut},
		"missing profile file":    {"bench", "run", "--data", tinySet, "--profiles", "nowhere.toml", "--out", runOut},
		"unknown profile":         {"bench", "run", "--data", tinySet, "--profiles", "no_such", "--out", runOut},
		"holdout of everything":   {"profiles", "learn", "--data", tinySet, "--out", out, "--holdout", "100"},
		"no out":                  {"profiles", "learn", "--data", tinySet},
		"bad extension":           {"profiles", "learn", "--data", tinySet, "--out", "x.json"},
		"temporal slot":           {"profiles", "learn", "--data", tinySet, "--out", out, "--slots", "E2"},
		"one fold":                {"profiles", "learn", "--data", tinySet, "--out", out, "--folds", "1"},
		"bad fusion":              {"profiles", "learn", "--data", tinySet, "--out", out, "--fusion", "sum"},
	} {
		if _, stderr, code := benchExec(t, args...); code != ExitUsage {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
		}
	}
}

// TestBenchAblate ablates code_search on the tiny set with the exact test
// retriever: one row per weighted fused slot, each paired with the whole
// profile over the same queries.
func TestBenchAblate(t *testing.T) {
	withTestRetriever(t)
	stdout, stderr, code := benchExec(t, "--json", "bench", "ablate", "--data", tinySet, "--profile", "code_search", "--store", filepath.Join(t.TempDir(), "s"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got benchstore.Ablation
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout: %v\n%s", err, stdout)
	}
	p, _ := engine.BuiltinProfile("code_search")
	var fused []string
	for _, s := range p.Weights.Active() {
		if s.Fused() {
			fused = append(fused, s.String())
		}
	}
	if len(got.Rows) != len(fused) || got.Profile != "code_search" || got.Mode != "pipeline" {
		t.Fatalf("ablate report %+v, want one row per fused slot %v", got, fused)
	}
	for i, r := range got.Rows {
		if r.Removed != fused[i] || r.Evaluated == 0 || r.Low > r.Delta || r.Delta > r.High {
			t.Errorf("row %+v", r)
		}
	}
	if _, _, code := benchExec(t, "bench", "ablate", "--data", tinySet, "--mode", "e1_only"); code != ExitUsage {
		t.Errorf("--mode e1_only: exit %d", code)
	}
}

// TestBenchRunFileAndExternalCompare: bench run --run-out writes one TREC
// run per run; compare reads one back beside its report.json (same scores,
// so no difference), and scores an external run (a hand-written BM25-style
// run of the tiny set) against --data.
func TestBenchRunFileAndExternalCompare(t *testing.T) {
	withTestRetriever(t)
	out, runs := t.TempDir(), t.TempDir()
	if _, stderr, code := benchExec(t, "bench", "run", "--data", tinySet, "--profiles", "code_search", "--out", out, "--run-out", runs); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, err := os.ReadDir(runs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "bm25_only.trec e1_only.trec pipeline_code_search.trec rrf_e1_e6.trec" {
		t.Fatalf("run files %v", names)
	}
	report := filepath.Join(out, "report.json")
	stdout, stderr, code := benchExec(t, "--json", "bench", "compare", report, filepath.Join(runs, "pipeline_code_search.trec"), "--data", tinySet, "--run", "pipeline:code_search")
	if code != 0 {
		t.Fatalf("compare exit %d: %s", code, stderr)
	}
	var cmp struct{ Comparisons []bench.Comparison }
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil || len(cmp.Comparisons) != 1 {
		t.Fatalf("compare --json: %v\n%s", err, stdout)
	}
	if c := cmp.Comparisons[0]; c.B != "pipeline:code_search" || c.Queries != 8 || c.MeanDelta != 0 || c.Ties != 8 {
		t.Errorf("a run against its own TREC file: %+v", c)
	}
	ext := filepath.Join(t.TempDir(), "bm25.trec")
	if err := os.WriteFile(ext, []byte("q1 Q0 d01 1 9.5 bm25\nq1 Q0 d02 2 3.1 bm25\nq2 Q0 d04 1 7 bm25\nq2 Q0 d03 2 7 bm25\nq7 Q0 d18 1 12 bm25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = benchExec(t, "bench", "compare", ext, report, "--data", tinySet)
	if code != 0 {
		t.Fatalf("compare exit %d: %s", code, stderr)
	}
	for _, want := range []string{"bm25 (A) vs pipeline:code_search (B), ndcg@10 over 8 paired queries", "bm25 (A) vs bm25_only (B)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, stdout)
		}
	}
	_, stderr, code = benchExec(t, "bench", "compare", report, ext)
	if code == 0 || !strings.Contains(stderr, "is a TREC run: give the dataset it ran on (--data)") {
		t.Errorf("TREC run without --data: exit %d, %q", code, stderr)
	}
}

// scopeRecorder records the correction scope each run asked for.
type scopeRecorder struct {
	benchOverlapRetriever
	scopes map[string]string
}

func (s *scopeRecorder) Search(ctx context.Context, req bench.SearchRequest) ([]bench.Ranked, []bench.StageTiming, error) {
	s.scopes[req.Run.DisplayName()] = req.Run.Correct
	return s.benchOverlapRetriever.Search(ctx, req)
}

// TestBenchRunCorrectScopes: --correct with several scopes runs every run
// once per scope, in one report; one scope keeps the run names; an unknown
// scope is a usage error.
func TestBenchRunCorrectScopes(t *testing.T) {
	rec := &scopeRecorder{scopes: map[string]string{}}
	old := benchcmd.Retriever
	benchcmd.Retriever = func(a *app.App, cfg benchstore.Config) (bench.Retriever, bench.Repro, func() error, error) {
		return rec, bench.Repro{}, func() error { return nil }, nil
	}
	t.Cleanup(func() { benchcmd.Retriever = old })
	for _, c := range []struct {
		correct string
		want    map[string]string
	}{
		{"off,keywords", map[string]string{"e1_only/correct=off": "off", "e1_only/correct=keywords": "keywords",
			"multi_space:typo_tolerant/correct=off": "off", "multi_space:typo_tolerant/correct=keywords": "keywords"}},
		{"keywords", map[string]string{"e1_only": "keywords", "multi_space:typo_tolerant": "keywords"}},
	} {
		clear(rec.scopes)
		_, stderr, code := benchExec(t, "--json", "bench", "run", "--data", tinySet, "--no-baselines", "--modes", "e1_only,multi_space",
			"--profiles", "typo_tolerant", "--correct", c.correct, "--out", t.TempDir())
		if code != 0 {
			t.Fatalf("--correct %s: exit %d: %s", c.correct, code, stderr)
		}
		if !maps.Equal(rec.scopes, c.want) {
			t.Errorf("--correct %s: runs and scopes %v, want %v", c.correct, rec.scopes, c.want)
		}
	}
	if _, stderr, code := benchExec(t, "bench", "run", "--data", tinySet, "--correct", "sometimes", "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, "every, keywords, off") {
		t.Errorf("--correct sometimes: exit %d, %s", code, stderr)
	}
	for _, bad := range []string{"-1", "21", "0,99"} {
		if _, stderr, code := benchExec(t, "bench", "run", "--data", tinySet, "--feedback", bad, "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, "is out of range") {
			t.Errorf("--feedback %s: exit %d, %s", bad, code, stderr)
		}
	}
	if _, stderr, code := benchExec(t, "bench", "run", "--data", tinySet, "--fusion", "rrf,sum", "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, `unknown fusion "sum"`) {
		t.Errorf("--fusion rrf,sum: exit %d, %s", code, stderr)
	}
}
