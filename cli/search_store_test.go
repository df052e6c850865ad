package cli

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// TestSearchSamples searches the bundled samples, embedded with the real
// models, and checks that the memory a person would pick is among the top
// three (found by its content, not by a recorded id).
func TestSearchSamples(t *testing.T) {
	db := sharedSampleStore(t)
	models := realModelsDir(t)
	for _, tc := range []struct {
		name  string
		args  []string
		want  string // a substring of the expected memory's content
		topK  int
		label string
	}{
		{"causal", []string{"why did the build fail", "--profile", "causal_reasoning"}, "go build fails with 'undefined reference", 3, ""},
		{"causal causes", []string{"the go build fails at link time", "--profile", "causal_reasoning", "--direction", "causes"}, "undefined reference to rocksdb_options_set_blob_cache", 3, ""},
		{"pipeline", []string{"too many database connections during the nightly import", "--mode", "pipeline", "--profile", "pipeline_full"}, "too many connections for role", 3, ""},
		{"e1_only", []string{"the frontend crashes reading map of undefined", "--mode", "e1_only"}, "SearchResults.tsx", 3, ""},
		{"keywords only", []string{"psycopg2 OperationalError", "--embedder", "E6"}, "psycopg2.OperationalError", 1, ""},
		{"code", []string{"retry an async function with exponential backoff", "--profile", "code_search"}, "withRetry", 3, ""},
		{"typo", []string{"tokeniser retruns UNK for evry subword", "--profile", "typo_tolerant"}, "tokenized to [UNK]", 3, ""},
		{"override", []string{"why did the build fail", "--profile", "causal_reasoning", "--weight", "E1=0.6"}, "go build fails with 'undefined reference", 3, ""},
		{"auto", []string{"retry an async function with exponential backoff", "--profile", "auto"}, "withRetry", 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--db", db, "--models-dir", models, "--json", "search"}, tc.args...)
			var got searchOut
			oneJSON(t, mustRun(t, "", args...).stdout, &got)
			if got.Query != tc.args[0] || len(got.Results) == 0 {
				t.Fatalf("query %q: %d results", got.Query, len(got.Results))
			}
			found := -1
			for i, r := range got.Results {
				if i < tc.topK && strings.Contains(r.Content, tc.want) {
					found = i
				}
				if r.ID == "" || r.Content == "" || len(r.Slots) == 0 {
					t.Errorf("result %d lacks id, content or slots: %+v", i, r)
				}
				if i > 0 && r.Score > got.Results[i-1].Score {
					t.Errorf("result %d scores %v above result %d (%v)", i, r.Score, i-1, got.Results[i-1].Score)
				}
			}
			if found < 0 {
				var top []string
				for _, r := range got.Results {
					top = append(top, ops.Snippet(r.Content, 60))
				}
				t.Errorf("no result with %q in the top %d:\n%s", tc.want, tc.topK, strings.Join(top, "\n"))
			}
			if len(got.Trace) == 0 {
				t.Error("no trace")
			}
			if tc.name == "auto" && got.Auto == nil {
				t.Fatal("auto: no per-query weights in the JSON")
			}
			if tc.name == "auto" {
				// one weight per slot that returned a list (E11 finds no
				// entity in some queries), summing to 1, with reasons
				sum := 0.0
				for _, w := range got.Auto.Weights {
					sum += w.Weight
				}
				if len(got.Auto.Weights) < 5 || math.Abs(sum-1) > 1e-6 || len(got.Auto.Reasons) == 0 {
					t.Errorf("auto: per-query weights %+v (sum %g) in the JSON", got.Auto, sum)
				}
			}
			if tc.name == "override" && (strings.Join(got.Overrides, ",") != "E1=0.6" || got.Weights["E1"] != 0.6) {
				t.Errorf("override: overrides %v, weights %v", got.Overrides, got.Weights)
			}
		})
	}
}

// TestSearchReportsEverySpace checks that every slot the profile weighs is
// reported in "spaces", and that a slot without a model says unavailable
// there and is not scored in any result.
func TestSearchReportsEverySpace(t *testing.T) {
	db := sharedSampleStore(t)
	var slots []ops.EmbedderRow
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", realModelsDir(t), "--json", "embedders").stdout, &slots)
	unavailable := map[string]bool{}
	for _, s := range slots {
		if s.Status == "unavailable" {
			unavailable[s.Slot] = true
		}
	}
	for _, mode := range []string{"multi_space", "pipeline"} {
		var got searchOut
		oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", realModelsDir(t), "--json", "search", "rocksdb column family handles",
			"--profile", "pipeline_full", "--mode", mode).stdout, &got)
		reported := map[string]string{}
		for _, sp := range got.Spaces {
			if reported[sp.Slot] == "" || sp.Status != engine.SpaceOK {
				reported[sp.Slot] = sp.Status
			}
			if sp.Status == engine.SpaceUnavailable && sp.Note == "" {
				t.Errorf("%s: %s unavailable without a note", mode, sp.Slot)
			}
		}
		p, _ := engine.BuiltinProfile("pipeline_full")
		for _, s := range p.Weights.Active() {
			if _, ok := reported[s.String()]; !ok {
				t.Errorf("%s: weighted slot %s is not in spaces: %+v", mode, s, got.Spaces)
			}
			if unavailable[s.String()] && reported[s.String()] == engine.SpaceOK {
				t.Errorf("%s: %s has no model but its space is ok", mode, s)
			}
		}
		for _, r := range got.Results {
			for slot := range r.Slots {
				if unavailable[slot] {
					t.Errorf("%s: result scored in %s, which has no model", mode, slot)
				}
			}
		}
		if mode == "pipeline" {
			var stages []string
			for _, tr := range got.Trace {
				stages = append(stages, tr.Stage)
			}
			if strings.Join(stages, ",") != "S1 recall,S2 filter,S3 fusion,S4 rerank,S5 validate" {
				t.Errorf("pipeline trace stages %v", stages)
			}
		}
	}
}

// TestSearchFusionFromEnv: $CGRAPH_FUSION sets the fusion of every search
// of the process, --fusion wins over it, the JSON answer names the fusion
// that ran, and a bad value is a usage error before anything opens.
func TestSearchFusionFromEnv(t *testing.T) {
	db := sharedSampleStore(t)
	models := realModelsDir(t)
	fusionOf := func(args ...string) (string, float64) {
		t.Helper()
		var got struct {
			Fusion  string `json:"fusion"`
			Results []struct {
				Score float64 `json:"score"`
			} `json:"results"`
		}
		oneJSON(t, mustRun(t, "", append([]string{"--db", db, "--models-dir", models, "--json", "search", "why did the build fail"}, args...)...).stdout, &got)
		if len(got.Results) == 0 {
			t.Fatalf("%v: no results", args)
		}
		return got.Fusion, got.Results[0].Score
	}
	t.Setenv("CGRAPH_FUSION", "")
	if f, top := fusionOf(); f != "rrf" || top > 0.1 {
		t.Errorf("default: fusion %q, top score %v (WRRF scores are below 1/60 per weight)", f, top)
	}
	t.Setenv("CGRAPH_FUSION", "minmax")
	if f, top := fusionOf(); f != "minmax" || top < 0.3 {
		t.Errorf("CGRAPH_FUSION=minmax: fusion %q, top score %v", f, top)
	}
	if f, _ := fusionOf("--fusion", "rrf"); f != "rrf" {
		t.Errorf("--fusion rrf under CGRAPH_FUSION=minmax: fusion %q", f)
	}
	if f, _ := fusionOf("--embedder", "E6"); f != "" {
		t.Errorf("single-slot search names fusion %q", f)
	}
	t.Setenv("CGRAPH_FUSION", "sum")
	if r := run(t, "", "--db", db, "search", "q"); r.code != ExitUsage || !strings.Contains(r.stderr, "CGRAPH_FUSION") || !strings.Contains(r.stderr, "rrf or minmax") {
		t.Errorf("CGRAPH_FUSION=sum: exit %d, %s", r.code, r.stderr)
	}
}

func TestSearchHumanOnSamples(t *testing.T) {
	db := sharedSampleStore(t)
	out := mustRun(t, "", "--db", db, "--models-dir", realModelsDir(t), "search", "why did the build fail", "--profile", "causal_reasoning", "--explain", "--top-k", "3").stdout
	lines := strings.Split(out, "\n")
	if lines[0] != `"why did the build fail"  profile causal_reasoning  mode multi_space` {
		t.Errorf("header %q", lines[0])
	}
	for _, want := range []string{"  1. WRRF ", "  3. WRRF ", "slot  rank  score", "spaces (every slot the profile weighs):", "S3 fusion", "trace:", "S5 validate", "query encoding",
		"models: e5-small-v2-q (E1, E12) on cpu", "bge-small-en-v1.5-q (E5) on cpu", "all-minilm-l6-v2 (E7, E8, E10, E11) on cpu"} {
		if !strings.Contains(out, want) {
			t.Errorf("search --explain lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "  4. ") {
		t.Errorf("--top-k 3 printed a 4th result:\n%s", out)
	}
}

func TestSearchStoreErrors(t *testing.T) {
	dir := t.TempDir()
	// An empty store: exit 1 saying how to fill it, in both output modes.
	db := newStore(t)
	r := run(t, "", "--db", db, "search", "anything")
	if r.code != ExitError || !strings.Contains(r.stderr, "holds no memories") || !strings.Contains(r.stderr, "init --samples") || r.stdout != "" {
		t.Errorf("empty store: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, "", "--db", db, "--json", "search", "anything")
	var e struct {
		Error struct {
			ExitCode int `json:"exit_code"`
		} `json:"error"`
	}
	oneJSON(t, r.stdout, &e)
	if r.code != ExitError || e.Error.ExitCode != ExitError {
		t.Errorf("empty store --json: exit %d, %s", r.code, r.stdout)
	}
	// No store at all.
	r = run(t, "", "--db", filepath.Join(dir, "absent"), "search", "anything")
	if r.code != ExitError || !strings.Contains(r.stderr, "cgraph init") {
		t.Errorf("no store: exit %d, stderr %q", r.code, r.stderr)
	}
	// Without models, a search of a model-backed slot alone fails naming the fix.
	mustRun(t, "", "--db", db, "add", "the build failed because grocksdb v1.7.16 needs RocksDB 8")
	r = run(t, "", "--db", db, "search", "build failure", "--mode", "e1_only")
	if r.code != ExitError || !strings.Contains(r.stderr, "E1") || !strings.Contains(r.stderr, "cgraph models pull") {
		t.Errorf("e1_only without a model: exit %d, stderr %q", r.code, r.stderr)
	}
	// Keywords still work without any model.
	var got searchOut
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "search", "grocksdb", "--embedder", "E6").stdout, &got)
	if len(got.Results) != 1 || !strings.Contains(got.Results[0].Content, "grocksdb") {
		t.Errorf("E6 search without models: %+v", got.Results)
	}
}

// TestSearchReadOnly: search opens the store read-only, so it
// works while --read-only is given and never takes the writer lock.
func TestSearchReadOnly(t *testing.T) {
	db := newStore(t)
	mustRun(t, "", "--db", db, "add", "postgres connection pool exhausted during nightly import")
	var got searchOut
	oneJSON(t, mustRun(t, "", "--db", db, "--read-only", "--json", "search", "connection pool", "--embedder", "keywords").stdout, &got)
	if len(got.Results) != 1 || got.Results[0].Slots["E6"].Rank == nil {
		t.Fatalf("read-only search: %+v", got)
	}
}

// TestSearchSessionAnchor: sequence_navigation with --session/--seq puts the
// anchor session's turns first, each with the in_sequence badge.
func TestSearchSessionAnchor(t *testing.T) {
	db := sharedSampleStore(t)
	var got searchOut
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", realModelsDir(t), "--json", "search", "what did the assistant answer",
		"--profile", "sequence_navigation", "--session", "2026-03-02-rocksdb-store", "--seq", "2", "--top-k", "6").stdout, &got)
	if len(got.Results) < 4 {
		t.Fatalf("%d results", len(got.Results))
	}
	for i, r := range got.Results[:4] {
		if r.Memory.Session != "2026-03-02-rocksdb-store" || !contains(r.Badges, "in_sequence") || r.Slots["E4"].Score == nil {
			t.Errorf("result %d is not a turn of the anchor session with the badge: session %q badges %v", i, r.Memory.Session, r.Badges)
		}
	}
	// Without the anchor E4 has nothing to score: empty, saying why (not
	// "unavailable", which would suggest installing something).
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", realModelsDir(t), "--json", "search", "what did the assistant answer",
		"--profile", "sequence_navigation").stdout, &got)
	for _, sp := range got.Spaces {
		if sp.Slot == "E4" && (sp.Status != engine.SpaceEmpty || !strings.Contains(sp.Note, "session")) {
			t.Errorf("E4 without an anchor: %+v", sp)
		}
	}
}

// TestSearchProfileFile searches with a custom profile file: the result
// names it, and a profile weighing E6 alone ranks like --embedder E6.
func TestSearchProfileFile(t *testing.T) {
	db := sharedSampleStore(t)
	models := realModelsDir(t)
	file := filepath.Join(t.TempDir(), "kw.yaml")
	writeFile(t, file, "name: keywords_only\nweights:\n  E6: 1\n")
	var prof, emb searchOut
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "search", "grocksdb RocksDB version", "--profile-file", file).stdout, &prof)
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "search", "grocksdb RocksDB version", "--embedder", "E6").stdout, &emb)
	if prof.Profile != "keywords_only" || len(prof.Results) == 0 || len(prof.Results) != len(emb.Results) {
		t.Fatalf("profile file: %q, %d results; E6 alone %d", prof.Profile, len(prof.Results), len(emb.Results))
	}
	for i := range prof.Results {
		if prof.Results[i].ID != emb.Results[i].ID {
			t.Errorf("rank %d: profile file %s, E6 alone %s", i, prof.Results[i].ID, emb.Results[i].ID)
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// BenchmarkCommand measures whole in-process commands on the sample store,
// as a user pays for them: opening the store, loading the models (search,
// embedders), the work, the output. list (records only, no models) is the
// baseline of the same run.
//
//	go test -run '^$' -bench BenchmarkCommand -benchtime 10x ./cli
func BenchmarkCommand(b *testing.B) {
	db := sharedSampleStore(b)
	models := realModels
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"list", []string{"list", "--limit", "10"}},
		{"search_multi_space", []string{"--models-dir", models, "search", "why did the build fail", "--profile", "causal_reasoning"}},
		{"search_pipeline", []string{"--models-dir", models, "search", "why did the build fail", "--mode", "pipeline", "--profile", "pipeline_full"}},
		{"search_e6_only", []string{"--models-dir", models, "search", "grocksdb", "--embedder", "E6"}},
		{"embedders", []string{"--models-dir", models, "embedders"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if code, stderr := execCLI(append([]string{"--db", db}, bc.args...)...); code != ExitOK {
					b.Fatalf("exit %d: %s", code, stderr)
				}
			}
		})
	}
}

// TestSearchBesideWriter: while another App holds the writer lock and adds
// a memory, search (read-only) opens the store and finds it; add, which
// writes, is refused as in use.
func TestSearchBesideWriter(t *testing.T) {
	db := newStore(t)
	w := &app.App{DBDir: db, ModelsDir: os.Getenv("CGRAPH_MODELS"), Device: "cpu"}
	s, err := w.OpenStore(true)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		var err error
		w.CloseStore(s, &err)
		if err != nil {
			t.Error(err)
		}
	}()
	if _, err := s.Add(context.Background(), record.NewMemory{Content: "the writer added this about zstd compression"}); err != nil {
		t.Fatal(err)
	}
	var got searchOut
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "search", "zstd", "--embedder", "E6").stdout, &got)
	if len(got.Results) != 1 || !strings.Contains(got.Results[0].Content, "zstd") {
		t.Fatalf("search beside the writer: %+v", got.Results)
	}
	if r := run(t, "", "--db", db, "add", "x"); r.code != ExitError || !strings.Contains(r.stderr, "in use") {
		t.Errorf("add beside the writer: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestSearchDirectionEndToEnd: through the real binary's command path and the
// real models, --direction causes compares the query's effect view with the
// stored cause vectors (E5) and its target view with the source vectors
// (E8) — the side the public implementation of this design had backwards —
// and --direction effects the reverse; the spaces report says which.
func TestSearchDirectionEndToEnd(t *testing.T) {
	db := sharedSampleStore(t)
	models := realModelsDir(t)
	for _, tc := range []struct{ dir, view string }{{"causes", "backward"}, {"effects", "forward"}} {
		var got searchOut
		oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "search",
			"why did writes to the database fail", "--profile", "causal_reasoning", "--weight", "E8=0.2",
			"--direction", tc.dir, "--explain").stdout, &got)
		seen := map[string]bool{}
		for _, sp := range got.Spaces {
			if sp.Slot == "E5" || sp.Slot == "E8" {
				seen[sp.Slot] = true
				if sp.View != tc.view {
					t.Errorf("--direction %s: %s searched with view %q, want %q", tc.dir, sp.Slot, sp.View, tc.view)
				}
			}
		}
		if !seen["E5"] || !seen["E8"] {
			t.Errorf("--direction %s: spaces report %+v lacks E5 or E8", tc.dir, got.Spaces)
		}
	}
}

// oddQueries are query shapes that once failed a search: symbols only (a
// pasted glob), an escaped regular expression, one character, emoji,
// non-Latin text, and 10 KB of text.
var oddQueries = map[string]string{
	"glob":      `': '**', '**/**/**': '**' },`,
	"regexp":    `\(\?:\[a-z\]\+\)\*`,
	"one char":  "x",
	"emoji":     "🚀🔥",
	"non-latin": "数据库连接失败 ошибка записи",
	"10 KB":     strings.Repeat("error writing the store ", 440),
}

// TestEveryModeAnswersOddQueries: every mode answers every non-empty query;
// a slot with nothing to say about it is reported (empty or unavailable,
// with the reason), and the search never fails because of it.
func TestEveryModeAnswersOddQueries(t *testing.T) {
	db := sharedSampleStore(t)
	models := realModelsDir(t)
	for name, q := range oddQueries {
		for _, mode := range []string{"pipeline", "multi_space", "e1_only"} {
			r := run(t, "", "--db", db, "--models-dir", models, "--json", "search", q, "--mode", mode, "--profile", "pipeline_full")
			if r.code != ExitOK {
				t.Errorf("%s query, %s: exit %d: %s", name, mode, r.code, r.stderr)
				continue
			}
			var got searchOut
			oneJSON(t, r.stdout, &got)
			if len(got.Spaces) == 0 {
				t.Errorf("%s query, %s: no space reported", name, mode)
			}
			for _, sp := range got.Spaces {
				if sp.Status != "ok" && sp.Note == "" {
					t.Errorf("%s query, %s: %s is %s without a reason", name, mode, sp.Slot, sp.Status)
				}
				if len(sp.Note) > 2000 {
					t.Errorf("%s query, %s: %s's note is %d bytes: the query is echoed", name, mode, sp.Slot, len(sp.Note))
				}
			}
		}
	}
}

// TestSearchNothingRelevantOnSamples: with the calibrated floor, off-topic
// questions against the bundled samples (embedded with the real models)
// answer "nothing relevant" with a note, and questions a sample answers,
// in other words than its own, keep that sample first.
func TestSearchNothingRelevantOnSamples(t *testing.T) {
	db := sharedSampleStore(t)
	floor := fmt.Sprint(engine.RelevanceFloor)
	search := func(q string) ops.SearchAnswer {
		t.Helper()
		var ans ops.SearchAnswer
		oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", realModelsDir(t), "--json", "search", q, "--min-relevance", floor).stdout, &ans)
		return ans
	}
	for _, q := range []string{"how do I bake sourdough bread with a rye starter", "who won the 2018 FIFA World Cup final",
		"symptoms of vitamin D deficiency", "how do I center a div in CSS", "cheap flights from London to Tokyo in April"} {
		ans := search(q)
		t.Logf("%q: %s", q, ans.Note)
		if !ans.NothingRelevant || len(ans.Results) != 0 || !strings.Contains(ans.Note, "nothing relevant") {
			t.Errorf("%q: nothing relevant %t, %d results, note %q", q, ans.NothingRelevant, len(ans.Results), ans.Note)
		}
	}
	for q, want := range map[string]string{
		"why is grocksdb pinned to an old release":                "grocksdb at v1.7.15",
		"how are results of the different search spaces combined": "reciprocal rank fusion",
	} {
		ans := search(q)
		if len(ans.Results) > 0 {
			t.Logf("%q: top relevance %.3f (%s)", q, ans.Results[0].Relevance, ans.Results[0].Level)
		}
		if ans.NothingRelevant || len(ans.Results) == 0 || !strings.Contains(ans.Results[0].Content, want) || ans.Results[0].Relevance < engine.RelevanceFloor {
			t.Errorf("%q: nothing relevant %t (%s), results %+v", q, ans.NothingRelevant, ans.Note, ans.Results)
		}
	}
}
