package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/internal/testdir"
	"github.com/cgraph/cgraph/models"
)

// benchModelsDir is the installed models directory, read before any
// TestMain points CGRAPH_MODELS elsewhere (package variables are initialised
// first).
var benchModelsDir = defaultModelsDir(os.Getenv)

// requireBenchModels returns the models directory, failing with how to
// install them when E1's model is missing (`make setup` installs it).
func requireBenchModels(t *testing.T) string {
	t.Helper()
	mf, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	if id := models.ModelID("e5-small-v2-q"); !mf.Installed(benchModelsDir, id) {
		t.Fatalf("E1's model %s is not installed in %s: run `make setup` (or `cgraph models pull %s`)", id, benchModelsDir, id)
	}
	return benchModelsDir
}

// benchRunJSON is the --json shape issue #7 fixes, decoded loosely so a
// renamed key fails the test.
type benchRunJSON struct {
	Dataset string `json:"dataset"`
	Runs    []struct {
		Name      string             `json:"name"`
		Mode      string             `json:"mode"`
		Profile   string             `json:"profile"`
		Metrics   map[string]float64 `json:"metrics"`
		LatencyMS map[string]float64 `json:"latency_ms"`
		Notes     []bench.Note       `json:"notes"`
	} `json:"runs"`
	Ingest map[string]any `json:"ingest"`
	Repro  bench.Repro    `json:"reproducibility"`
}

func runBenchJSON(t *testing.T, models string, args ...string) benchRunJSON {
	t.Helper()
	stdout, stderr, code := benchExec(t, append([]string{"--json", "--models-dir", models, "bench", "run"}, args...)...)
	if code != 0 {
		t.Fatalf("bench run %v: exit %d: %s", args, code, stderr)
	}
	var rep benchRunJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON report: %v\n%s", err, stdout)
	}
	return rep
}

// TestBenchRunEngine is issue #7's small bench: the tiny set through the
// real store, real models and the real pipeline, a few profiles and every
// baseline.
func TestBenchRunEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the ONNX models and indexes a corpus; skipped with -short")
	}
	models := requireBenchModels(t)
	out := t.TempDir()
	store := filepath.Join(out, "store")
	args := []string{"--data", tinySet, "--profiles", "code_search,typo_tolerant", "--modes", "pipeline,multi_space,embedder_first",
		"--embedders", "E6,E9", "--out", out, "--store", store}
	rep := runBenchJSON(t, models, args...)

	want := []string{"bm25_only", "e1_only", "rrf_e1_e6", "pipeline:code_search", "pipeline:typo_tolerant",
		"multi_space:code_search", "multi_space:typo_tolerant", "embedder_first:E9"}
	var names []string
	for _, r := range rep.Runs {
		names = append(names, r.Name)
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("runs %v, want %v", names, want)
	}
	if rep.Dataset != "tiny" {
		t.Errorf("dataset %q", rep.Dataset)
	}
	byName := map[string]int{}
	for i, r := range rep.Runs {
		byName[r.Name] = i
		for _, m := range bench.MetricNames {
			v, ok := r.Metrics[m]
			if !ok || v < 0 || v > 1 {
				t.Errorf("run %s: metric %s = %v (present %v), want a value in [0, 1]", r.Name, m, v, ok)
			}
		}
		if r.Mode == "" || r.LatencyMS["p50"] <= 0 || r.LatencyMS["p95"] < r.LatencyMS["p50"] {
			t.Errorf("run %s: mode %q, latency %v", r.Name, r.Mode, r.LatencyMS)
		}
	}
	// The tiny set's queries paraphrase one document each: a real E1 model
	// ranks most of them first, and fusion with BM25 must not fall apart.
	for _, name := range []string{"e1_only", "rrf_e1_e6", "multi_space:code_search", "pipeline:code_search"} {
		if got := rep.Runs[byName[name]].Metrics["ndcg@10"]; got < 0.6 {
			t.Errorf("%s nDCG@10 = %.3f on the tiny set; a working engine gets well above 0.6", name, got)
		}
	}
	// A copy of E1 would return E1's lists: compare the rankings, not the
	// metrics, which on 8 easy queries can coincide.
	full, err := bench.ReadReport(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	e9, e1 := full.Runs[byName["embedder_first:E9"]].Queries, full.Runs[byName["e1_only"]].Queries
	same := len(e9) == len(e1) && len(e9) > 0
	for i := range e9 {
		same = same && slices.Equal(e9[i].Top, e1[i].Top)
	}
	if same {
		t.Errorf("E9 alone returned exactly E1 alone's lists for all %d queries: is E9 a copy of E1?", len(e9))
	}

	if rep.Ingest["docs"] != float64(20) || rep.Ingest["reused"] != false || rep.Ingest["docs_per_s"].(float64) <= 0 || rep.Ingest["peak_rss_bytes"].(float64) <= 0 {
		t.Errorf("ingest %v", rep.Ingest)
	}
	hex64 := regexp.MustCompile(`^[0-9a-f]{64}$`)
	models13 := map[string]bench.ModelInfo{}
	for _, m := range rep.Repro.Models {
		models13[m.Slot] = m
	}
	if len(models13) != 13 {
		t.Errorf("%d slots in the reproducibility block, want 13: %+v", len(models13), rep.Repro.Models)
	}
	if e1 := models13["E1"]; e1.ID == "" || !hex64.MatchString(e1.SHA256) || e1.Status != engine.SlotPresent.String() || e1.Device != "cpu" {
		t.Errorf("E1 model %+v: want its id, sha256, ready and the device it ran on (cpu)", e1)
	}
	if e6 := models13["E6"]; e6.Device != "" {
		t.Errorf("model-free E6 names a device: %+v", e6)
	}
	for _, m := range rep.Repro.Models {
		if m.Status == engine.SlotUnavailable.String() && (m.Note == "" || m.ID != "") {
			t.Errorf("unavailable slot %+v must say why and name no model", m)
		}
	}
	for _, k := range []string{"recall_k", "filter_k", "fusion_k", "top_k"} {
		if rep.Repro.StageSizes[k] <= 0 {
			t.Errorf("stage size %s missing: %v", k, rep.Repro.StageSizes)
		}
	}
	if rep.Repro.RerankWeight != engine.DefaultRerankWeight {
		t.Errorf("repro rerank weight %g, want the default %g", rep.Repro.RerankWeight, engine.DefaultRerankWeight)
	}
	if rep.Repro.Cores <= 0 || rep.Repro.DatasetChecksum == "" || rep.Repro.CgraphVersion == "" || len(rep.Repro.Seeds) == 0 {
		t.Errorf("repro %+v", rep.Repro)
	}

	// The report files exist and parse (report.json read above).
	if len(full.Runs) != len(want) || len(full.Runs[0].Queries) != 8 {
		t.Errorf("report.json: %d runs, %d queries in the first", len(full.Runs), len(full.Runs[0].Queries))
	}
	for _, r := range full.Runs {
		if len(r.Stages) == 0 || r.Stages[0].Stage != "encode" {
			t.Errorf("run %s: stages %+v, want encode then the pipeline trace", r.Name, r.Stages)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "| pipeline:code_search | pipeline | code_search |") {
		t.Errorf("report.md (%v):\n%s", err, md)
	}
	for _, f := range []string{"quality.svg", "latency.svg"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || !strings.Contains(string(b), "<svg") {
			t.Errorf("%s is not an SVG (%v)", f, err)
		}
	}

	// Same corpus and models: the store is reused and answers the same.
	again := runBenchJSON(t, models, "--data", tinySet, "--modes", "e1_only", "--no-baselines", "--out", t.TempDir(), "--store", store)
	if again.Ingest["reused"] != true {
		t.Errorf("second run over the same store rebuilt it: %v", again.Ingest)
	}
	if got, want := again.Runs[0].Metrics, rep.Runs[byName["e1_only"]].Metrics; !sameMetrics(got, want) {
		t.Errorf("reused store: e1_only %v, first run %v", got, want)
	}

	// Another corpus in the same store directory: rebuilt, never mixed.
	other := t.TempDir()
	testdir.Copy(t, tinySet, other)
	f, err := os.OpenFile(filepath.Join(other, "corpus.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"_id": "d99", "title": "extra", "text": "an extra document"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	third := runBenchJSON(t, models, "--data", other, "--modes", "e1_only", "--no-baselines", "--out", t.TempDir(), "--store", store)
	if third.Ingest["reused"] != false || third.Ingest["docs"] != float64(21) {
		t.Errorf("changed corpus: ingest %v, want a rebuilt store of 21 documents", third.Ingest)
	}
}

func sameMetrics(a, b map[string]float64) bool {
	for _, m := range bench.MetricNames {
		if a[m] != b[m] {
			return false
		}
	}
	return true
}

// TestBenchRunRefusesForeignStore: a non-empty --store that the bench did
// not build is never deleted.
func TestBenchRunRefusesForeignStore(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the ONNX models; skipped with -short")
	}
	models := requireBenchModels(t)
	store := t.TempDir()
	keep := filepath.Join(store, "precious.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := benchExec(t, "--models-dir", models, "bench", "run", "--data", tinySet, "--modes", "e1_only", "--out", t.TempDir(), "--store", store)
	if code != ExitUsage || !strings.Contains(stderr, "was not built by cgraph bench") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the foreign directory was touched: %v", err)
	}
}
