package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// TestSearchUsageErrors runs search with every kind of bad input: each is
// a usage error (exit 2) naming what was wrong and listing the valid values,
// found before any store is opened (the --db here does not exist).
func TestSearchUsageErrors(t *testing.T) {
	dir := t.TempDir()
	badFile := filepath.Join(dir, "bad.yaml")
	writeFile(t, badFile, "name: bad\nweights:\n  E2: 1\n")
	db := filepath.Join(dir, "none")
	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"no query", []string{"search"}, []string{"search needs a QUERY"}},
		{"empty query", []string{"search", "  "}, []string{"the query is empty"}},
		{"two queries", []string{"search", "a", "b"}, []string{"quote the query"}},
		{"bad profile", []string{"search", "q", "--profile", "causal"}, []string{`unknown profile "causal"`, "causal_reasoning", "pipeline_full", "balanced"}},
		{"profile and file", []string{"search", "q", "--profile", "balanced", "--profile-file", badFile}, []string{"choose one"}},
		{"bad profile file", []string{"search", "q", "--profile-file", badFile}, []string{"E2", "temporal"}},
		{"missing profile file", []string{"search", "q", "--profile-file", filepath.Join(dir, "nope.toml")}, []string{"nope.toml"}},
		{"bad mode", []string{"search", "q", "--mode", "fast"}, []string{`unknown mode "fast"`, "pipeline", "e1_only", "multi_space", "embedder_first"}},
		{"bad slot", []string{"search", "q", "--embedder", "E14"}, []string{`unknown slot "E14"`, "E1 (semantic)", "E13 (splade)"}},
		{"badge slot", []string{"search", "q", "--embedder", "E2"}, []string{"E2 cannot lead", "E1, E5, E6, E7, E8, E9, E10, E11, E13"}},
		{"rerank slot", []string{"search", "q", "--embedder", "late_interaction"}, []string{"E12 cannot lead"}},
		{"embedder with other mode", []string{"search", "q", "--embedder", "E6", "--mode", "pipeline"}, []string{"needs --mode embedder_first"}},
		{"embedder_first without slot", []string{"search", "q", "--mode", "embedder_first"}, []string{"needs --embedder"}},
		{"bad direction", []string{"search", "q", "--direction", "backwards"}, []string{`unknown direction "backwards"`, "effects", "causes"}},
		{"bad weight slot", []string{"search", "q", "--weight", "E99=0.5"}, []string{`unknown slot "E99"`}},
		{"bad weight value", []string{"search", "q", "--weight", "E5=1.5"}, []string{"outside [0, 1]"}},
		{"bad weight form", []string{"search", "q", "--weight", "E5"}, []string{"E5"}},
		{"temporal weight", []string{"search", "q", "--weight", "E2=0.3"}, []string{"temporal slot E2"}},
		{"weight twice", []string{"search", "q", "--weight", "E5=0.3", "--weight", "E5=0.4"}, []string{"E5"}},
		{"top-k 0", []string{"search", "q", "--top-k", "0"}, []string{"--top-k 0 is out of range"}},
		{"top-k huge", []string{"search", "q", "--top-k", "100000"}, []string{"--top-k 100000 is out of range"}},
		{"recall-k", []string{"search", "q", "--recall-k", "-1"}, []string{"--recall-k -1 is not positive"}},
		{"negative feedback", []string{"search", "q", "--feedback", "-1"}, []string{"--feedback -1 is out of range", "1 to 20"}},
		{"feedback too deep", []string{"search", "q", "--feedback", "21"}, []string{"--feedback 21 is out of range", "1 to 20"}},
		{"bad fusion", []string{"search", "q", "--fusion", "sum"}, []string{`unknown fusion "sum"`, "rrf, minmax"}},
		{"seq without session", []string{"search", "q", "--seq", "3"}, []string{"--seq needs --session"}},
		{"bad now", []string{"search", "q", "--now", "yesterday"}, []string{"RFC 3339"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, "", append([]string{"--db", db}, tc.args...)...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, ExitUsage, r.stderr)
			}
			if !strings.HasPrefix(r.stderr, "cgraph: ") || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr is not one cgraph: line: %q", r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q: %q", w, r.stderr)
				}
			}
			// --json: one error value on stdout with the same exit code.
			rj := run(t, "", append([]string{"--db", db, "--json"}, tc.args...)...)
			var e struct {
				Error struct {
					Message  string `json:"message"`
					ExitCode int    `json:"exit_code"`
				} `json:"error"`
			}
			oneJSON(t, rj.stdout, &e)
			if rj.code != ExitUsage || e.Error.ExitCode != ExitUsage || e.Error.Message == "" {
				t.Errorf("--json: exit %d, %+v", rj.code, e)
			}
		})
	}
}

// parseSearch runs search's flag parsing alone and returns the request.
func parseSearch(t *testing.T, args ...string) engine.SearchRequest {
	t.Helper()
	var f searchFlags
	var got engine.SearchRequest
	cmd := &cobra.Command{Use: "search", Args: searchArgs, RunE: func(cmd *cobra.Command, args []string) error {
		var err error
		got, err = f.request(cmd, args[0])
		return err
	}}
	bindSearchFlags(cmd, &f)
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("search %v: %v", args, err)
	}
	return got
}

func TestSearchRequest(t *testing.T) {
	req := parseSearch(t, "why")
	if req.Query != "why" || req.Profile.Name != engine.DefaultProfile || req.Mode != defaultSearchMode || req.TopK != engine.DefaultTopK ||
		req.RecallK != engine.DefaultRecallK || req.FilterK != engine.DefaultFilterK || req.FusionK != engine.DefaultFusionK ||
		req.Direction != engine.DirectionAny || !req.Now.IsZero() {
		t.Fatalf("defaults: %+v", req)
	}
	req = parseSearch(t, "why", "--profile", "causal_reasoning", "--weight", "E5=0.6", "--direction", "causes", "--top-k", "3",
		"--mode", "pipeline", "--recall-k", "50", "--filter-k", "20", "--fusion-k", "10", "--session", "s1", "--seq", "4",
		"--now", "2026-03-01T12:00:00Z", "--no-thresholds")
	if req.Profile.Name != "causal_reasoning" || req.Profile.Weights.Get(engine.E5) != 0.6 || req.Direction != engine.DirectionCauses ||
		req.TopK != 3 || req.Mode != engine.ModePipeline || req.RecallK != 50 || req.FilterK != 20 || req.FusionK != 10 ||
		req.Session != "s1" || req.Seq != 4 || !req.Now.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) || !req.NoThresholds {
		t.Fatalf("parsed: %+v", req)
	}
	// The override re-normalised the other slots: E1 .15 of the .75 left.
	if w := req.Profile.Weights.Get(engine.E1); w < 0.15*0.4/0.75-1e-9 || w > 0.15*0.4/0.75+1e-9 {
		t.Errorf("E1 after E5=0.6: %v", w)
	}
	if req := parseSearch(t, "q", "--fusion", "minmax"); req.Fusion.String() != "minmax" {
		t.Errorf("--fusion minmax: %v", req.Fusion)
	}
	req = parseSearch(t, "q", "--embedder", "keywords")
	if req.Mode != engine.ModeEmbedderFirst || req.Embedder != engine.E6 {
		t.Fatalf("--embedder keywords: mode %v slot %v", req.Mode, req.Embedder)
	}
	req = parseSearch(t, "q", "--embedder", "E13", "--mode", "embedder_first")
	if req.Mode != engine.ModeEmbedderFirst || req.Embedder != engine.E13 {
		t.Fatalf("--embedder E13: mode %v slot %v", req.Mode, req.Embedder)
	}
}

// sampleResult is a hand-made search result of two memories in pipeline
// mode, with an unavailable and a skipped space.
func sampleResult() (engine.SearchResult, engine.SearchRequest) {
	p, _ := engine.BuiltinProfile("causal_reasoning")
	req := engine.SearchRequest{Query: "why did the build fail", Profile: p, Mode: engine.ModePipeline, TopK: 10, Direction: engine.DirectionCauses}
	id1, id2 := record.NewID(), record.NewID()
	res := engine.SearchResult{
		Result: engine.Explained{
			Query: req.Query, Profile: p.Name, Mode: engine.ModePipeline,
			Hits: []engine.Hit{
				{Doc: 7, Score: 0.01234, Badges: []string{"recent"},
					Slots: engine.SlotScores{
						engine.E5: {Rank: 0, Score: 0.8123, Contribution: 0.0075, Level: "high"},
						engine.E1: {Rank: 2, Score: 0.5, Contribution: 0.2 / 62, Level: "mid"},
						engine.E6: {Rank: 1, Score: 7.25, Contribution: 0.05 / 61},
					},
					Boosts: []engine.Boost{{Name: "E11 exact names", Signal: 0.5, Factor: 1.05}}},
				{Doc: 3, Score: 0.0081, Slots: engine.SlotScores{engine.E1: {Rank: 0, Score: 0.61, Contribution: 0.2 / 60, Level: "mid"}}},
			},
			Spaces: []engine.SpaceReport{
				{Stage: engine.StageRecall, Slot: engine.E13, Name: "E13", Status: engine.SpaceUnavailable, Note: "no model; recall from E6"},
				{Stage: engine.StageRecall, Slot: engine.E6, Name: "E6", Weight: 0.05, Status: engine.SpaceOK, Hits: 12},
				{Stage: engine.StageFusion, Slot: engine.E5, Name: "E5", View: engine.ViewBackward, Weight: 0.45, Status: engine.SpaceOK, Hits: 12, Note: "direction factor ×0.8"},
				{Stage: engine.StageRerank, Slot: engine.E12, Name: "E12", Weight: 0.15, Status: engine.SpaceSkipped, Note: "no model"},
			},
			Trace: []engine.StageTrace{
				{Stage: engine.StageRecall, Candidates: 12, Duration: 1500 * time.Microsecond, Note: "E6 recall k=10000 (E13 unavailable)"},
				{Stage: engine.StageFusion, Candidates: 12, Duration: 2 * time.Millisecond},
				{Stage: engine.StageValidate, Candidates: 2, Duration: 100 * time.Microsecond},
			},
		},
		Memories: []record.Memory{
			{ID: id1, DocNum: 7, Type: record.TypeError, Content: "build failed:   grocksdb v1.7.16 does not link\nagainst librocksdb 7.8.3",
				Tags: []string{"build"}, CreatedAt: time.Date(2026, 2, 20, 9, 0, 0, 0, time.UTC), Importance: 0.5},
			{ID: id2, DocNum: 3, Type: record.TypeDecision, Content: "pin grocksdb v1.7.15", CreatedAt: time.Date(2026, 2, 21, 9, 0, 0, 0, time.UTC), Importance: 0.8},
		},
		Encode: 12 * time.Millisecond,
		Total:  16 * time.Millisecond,
	}
	return res, req
}

// searchOut is search --json as a script reads it.
type searchOut struct {
	Query     string             `json:"query"`
	Profile   string             `json:"profile"`
	Mode      string             `json:"mode"`
	Direction string             `json:"direction"`
	Overrides []string           `json:"overrides"`
	Weights   map[string]float64 `json:"weights"`
	Results   []struct {
		ID      string  `json:"id"`
		Score   float64 `json:"score"`
		Content string  `json:"content"`
		Slots   map[string]struct {
			Rank         *int     `json:"rank"`
			Score        *float64 `json:"score"`
			Contribution *float64 `json:"contribution"`
			Level        string   `json:"level"`
		} `json:"slots"`
		Badges []string `json:"badges"`
		Boosts []struct {
			Name   string  `json:"name"`
			Factor float64 `json:"factor"`
		} `json:"boosts"`
		Memory struct {
			Type    string   `json:"type"`
			Tags    []string `json:"tags"`
			Session string   `json:"session"`
		} `json:"memory"`
	} `json:"results"`
	Spaces []struct {
		Stage, Slot, View, Status, Note string
		Weight                          float64
		Hits                            int
	} `json:"spaces"`
	Trace []struct {
		Stage      string   `json:"stage"`
		Candidates *int     `json:"candidates"`
		MS         *float64 `json:"ms"`
		Note       *string  `json:"note"`
	} `json:"trace"`
	Auto *struct {
		Weights []struct {
			Slot   string  `json:"slot"`
			Weight float64 `json:"weight"`
		} `json:"weights"`
		Reasons []string `json:"reasons"`
	} `json:"auto"`
	EncodeMS float64 `json:"encode_ms"`
	TotalMS  float64 `json:"total_ms"`
}

func TestSearchJSONShape(t *testing.T) {
	res, req := sampleResult()
	var buf bytes.Buffer
	a := &app.App{Stdout: &buf, JSON: true}
	if err := a.PrintJSON(ops.SearchAnswerOf(res, req)); err != nil {
		t.Fatal(err)
	}
	var got searchOut
	oneJSON(t, buf.String(), &got)
	if got.Query != req.Query || got.Profile != "causal_reasoning" || got.Mode != "pipeline" || got.Direction != "causes" ||
		len(got.Results) != 2 || got.EncodeMS != 12 || got.TotalMS != 16 {
		t.Fatalf("top level: %+v", got)
	}
	r0 := got.Results[0]
	if r0.ID != res.Memories[0].ID.String() || r0.Content != res.Memories[0].Content || r0.Score != 0.01234 ||
		len(r0.Badges) != 1 || r0.Badges[0] != "recent" || r0.Memory.Type != "error" || len(r0.Boosts) != 1 || r0.Boosts[0].Factor != 1.05 {
		t.Errorf("result 0: %+v", r0)
	}
	e5 := r0.Slots["E5"]
	if len(r0.Slots) != 3 || e5.Rank == nil || *e5.Rank != 1 || e5.Score == nil || *e5.Score != 0.8123 || e5.Contribution == nil || *e5.Contribution != 0.0075 || e5.Level != "high" {
		t.Errorf("result 0 slots: %+v", r0.Slots)
	}
	if r1 := got.Results[1]; r1.ID != res.Memories[1].ID.String() || r1.Badges == nil || len(r1.Badges) != 0 || r1.Memory.Tags == nil {
		t.Errorf("result 1 (badges and tags must be [] not null): %+v", r1)
	}
	if len(got.Trace) != 3 || got.Trace[0].Stage != "S1 recall" || got.Trace[0].Candidates == nil || *got.Trace[0].Candidates != 12 ||
		got.Trace[0].MS == nil || *got.Trace[0].MS != 1.5 || got.Trace[0].Note == nil {
		t.Errorf("trace: %+v", got.Trace)
	}
	if len(got.Spaces) != 4 || got.Spaces[0].Slot != "E13" || got.Spaces[0].Status != "unavailable" || got.Spaces[2].View != "backward" {
		t.Errorf("spaces: %+v", got.Spaces)
	}
	// The keys the issue promises, on the raw object.
	var raw map[string]json.RawMessage
	oneJSON(t, buf.String(), &raw)
	for _, k := range []string{"query", "profile", "mode", "results", "trace"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	var hits []map[string]json.RawMessage
	if err := json.Unmarshal(raw["results"], &hits); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "score", "content", "slots", "badges"} {
		if _, ok := hits[0][k]; !ok {
			t.Errorf("result lacks %q", k)
		}
	}
	// Slots are keyed in slot order.
	if s := string(hits[0]["slots"]); strings.Index(s, `"E1"`) > strings.Index(s, `"E5"`) || strings.Index(s, `"E5"`) > strings.Index(s, `"E6"`) {
		t.Errorf("slots not in slot order: %s", s)
	}
}

func TestSearchHuman(t *testing.T) {
	res, req := sampleResult()
	var buf bytes.Buffer
	if err := printSearch(&buf, ops.SearchAnswerOf(res, req), req, searchView{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("want header, 2 results, not-searched line; got:\n%s", out)
	}
	if lines[0] != `"why did the build fail"  profile causal_reasoning  mode pipeline  direction causes` {
		t.Errorf("header %q", lines[0])
	}
	want1 := "  1. WRRF 0.01234  " + res.Memories[0].ID.String() + "  error        build failed: grocksdb v1.7.16 does not link…  [recent]"
	if lines[1] != want1 {
		t.Errorf("result line\n got %q\nwant %q", lines[1], want1)
	}
	if !strings.HasPrefix(lines[2], "  2. WRRF 0.00810  "+res.Memories[1].ID.String()+"  decision     pin grocksdb v1.7.15") {
		t.Errorf("second line %q", lines[2])
	}
	if lines[3] != "not searched: E13 unavailable, E12 skipped (--explain says why)" {
		t.Errorf("not-searched line %q", lines[3])
	}
	if strings.Contains(out, "contribution") {
		t.Error("slot table printed without --explain")
	}
	// Under min-max fusion the score is labelled as such, not WRRF.
	res.Fusion = engine.FusionMinMax
	buf.Reset()
	if err := printSearch(&buf, ops.SearchAnswerOf(res, req), req, searchView{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "  1. minmax 0.01234  ") || strings.Contains(buf.String(), "WRRF") {
		t.Errorf("min-max result lines:\n%s", buf.String())
	}
	buf.Reset()
	if err := printSearch(&buf, ops.SearchAnswerOf(res, req), req, searchView{overrides: []string{"E5=0.6", "E1=0.1"}}); err != nil {
		t.Fatal(err)
	}
	if h, _, _ := strings.Cut(buf.String(), "\n"); h != `"why did the build fail"  profile causal_reasoning (E5=0.6, E1=0.1)  mode pipeline  direction causes` {
		t.Errorf("header with overrides %q", h)
	}
}

func TestSearchExplain(t *testing.T) {
	res, req := sampleResult()
	var buf bytes.Buffer
	if err := printSearch(&buf, ops.SearchAnswerOf(res, req), req, searchView{explain: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"slot  rank  score  level  contribution", // per-result table header
		"E5    1     0.812  high   0.00750",      // E5 row of result 1 (ranks 1-based)
		"E6    2     7.250  -      0.00082",      // BM25 has no level
		"boost E11 exact names ×1.050 (signal 0.500)",
		"spaces (every slot the profile weighs):",
		"S1 recall  E13", "unavailable", "no model; recall from E6",
		"S3 fusion  E5    backward", "direction factor ×0.8",
		"S4 rerank  E12", "skipped",
		"trace:",
		"S1 recall    12          1.50  E6 recall k=10000 (E13 unavailable)",
		"S5 validate  2           0.10",
		"query encoding 12.0 ms, total 16.0 ms",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	// Slot rows come in slot order: E1 before E5 before E6 within result 1.
	i1, i5, i6 := strings.Index(out, "E1    3"), strings.Index(out, "E5    1"), strings.Index(out, "E6    2")
	if !(i1 >= 0 && i1 < i5 && i5 < i6) {
		t.Errorf("slot rows out of order (%d %d %d):\n%s", i1, i5, i6, out)
	}
}

func TestSearchHumanNoResults(t *testing.T) {
	p, _ := engine.BuiltinProfile("semantic_search")
	req := engine.SearchRequest{Query: "q", Profile: p, Mode: engine.ModeE1Only, TopK: 10}
	res := engine.SearchResult{Result: engine.Explained{Query: "q", Profile: p.Name, Mode: engine.ModeE1Only}}
	var buf bytes.Buffer
	if err := printSearch(&buf, ops.SearchAnswerOf(res, req), req, searchView{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "no results above the slots' low thresholds (--no-thresholds keeps weaker matches)") {
		t.Errorf("no-results output:\n%s", buf.String())
	}
	var j bytes.Buffer
	a := &app.App{Stdout: &j, JSON: true}
	if err := a.PrintJSON(ops.SearchAnswerOf(res, req)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `"results": []`) || !strings.Contains(j.String(), `"trace": []`) {
		t.Errorf("empty result JSON must have [] not null:\n%s", j.String())
	}
}

func TestFormatScore(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0"}, {0.0123456, "0.01235"}, {0.81234, "0.812"}, {12.3456, "12.346"}, {-0.05, "-0.05000"}} {
		if got := formatScore(tc.v); got != tc.want {
			t.Errorf("formatScore(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestSearchCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"search", "q", "--profile", ""}, []string{"causal_reasoning\twhy did this happen", "pipeline_full", "balanced"}, nil},
		{[]string{"search", "q", "--profile", "pipe"}, []string{"pipeline_full"}, nil},
		{[]string{"search", "q", "--mode", ""}, []string{"multi_space\t", "pipeline\t", "e1_only", "embedder_first"}, nil},
		{[]string{"search", "q", "--embedder", ""}, []string{"E1\tsemantic", "E6\tkeywords", "E13\tsplade"}, []string{"E2\t", "E12\t"}},
		{[]string{"search", "q", "--direction", ""}, []string{"causes", "effects"}, nil},
		{[]string{"search", "q", "--weight", ""}, []string{"E5=\tcausal"}, nil},
		{[]string{"reembed", "--slot", ""}, []string{"E1\tsemantic", "E12\tlate_interaction"}, nil},
	} {
		out := mustRun(t, "", append([]string{cobra.ShellCompRequestCmd}, tc.args...)...).stdout
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("completion of %v lacks %q:\n%s", tc.args, w, out)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(out, w) {
				t.Errorf("completion of %v offers %q:\n%s", tc.args, w, out)
			}
		}
	}
}
