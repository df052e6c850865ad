package benchstore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// TestPlanRuns: scopes and depths multiply the runs (repeats once), and
// every bad flag value is a validation error naming the flag.
func TestPlanRuns(t *testing.T) {
	base := Plan{Modes: []string{"pipeline"}, Profiles: []string{"code_search"}, Correct: []string{CorrectEvery}, Feedback: []int{0}, Alpha: 0.05}
	runs, err := base.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("plain plan: %d runs, %v", len(runs), err)
	}
	many := base
	many.Correct, many.Feedback = []string{CorrectOff, CorrectEvery, CorrectOff}, []int{0, 3, 3}
	if runs, err := many.Runs(); err != nil || len(runs) != 4 {
		t.Fatalf("2 scopes × 2 depths: %d runs, %v", len(runs), err)
	}
	fused := base
	fused.Modes, fused.Baselines = []string{"pipeline", "embedder_first"}, true
	fused.Embedders, fused.Fusion = []string{"E7"}, []string{"rrf", "minmax", "rrf"}
	runs2, err := fused.Runs()
	var names []string
	for _, r := range runs2 {
		names = append(names, r.DisplayName()+"|"+r.Fusion)
	}
	// Baselines and single-slot runs once each; rrf_e1_e6 stays plain RRF.
	want := []string{"bm25_only|", "e1_only|", "rrf_e1_e6|rrf", "pipeline:code_search/fusion=rrf|rrf",
		"pipeline:code_search/fusion=minmax|minmax", "embedder_first:E7|"}
	if err != nil || !slices.Equal(names, want) {
		t.Fatalf("2 fusions: %v, %v; want %v", names, err, want)
	}
	named := base
	named.Baseline = runs[0].DisplayName()
	if _, err := named.Runs(); err != nil {
		t.Fatalf("--baseline %s: %v", named.Baseline, err)
	}
	for _, c := range []struct {
		edit func(*Plan)
		want string
	}{
		{func(p *Plan) { p.Modes = []string{"no_mode"} }, "see `cgraph bench run --help`"},
		{func(p *Plan) { p.Correct = nil }, "--correct names no scope"},
		{func(p *Plan) { p.Correct = []string{"sometimes"} }, `--correct "sometimes" is not a correction scope`},
		{func(p *Plan) { p.Feedback = nil }, "--feedback names no depth"},
		{func(p *Plan) { p.Feedback = []int{engine.MaxFeedback + 1} }, "is out of range"},
		{func(p *Plan) { p.Fusion = []string{"zscore"} }, `--fusion: unknown fusion "zscore"`},
		{func(p *Plan) { p.Alpha = 1 }, "--alpha 1 is not in (0, 1): give a level such as 0.05"},
		{func(p *Plan) { p.Baseline = "nope" }, `--baseline "nope" is not one of the runs: use one of pipeline:code_search`},
	} {
		p := base
		c.edit(&p)
		_, err := p.Runs()
		var ve *record.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Runs() = %v, want a validation error holding %q", err, c.want)
		}
	}
}

// TestResolveProfiles: all expands to the built-ins beside a file, a file
// is read and replaced by its name, and clashes or unknown names are
// refused.
func TestResolveProfiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mine := file("mine.toml", "name = \"mine\"\n[weights]\nE1 = 1.0\n")
	in := []string{"all", mine}
	names, custom, err := ResolveProfiles(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(engine.ProfileNames())+1 || names[len(names)-1] != "mine" || custom["mine"].Name != "mine" || in[1] != mine {
		t.Fatalf("ResolveProfiles(all, file) = %v, %v (input now %v)", names, custom, in)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"no_such"}, "name a built-in profile"},
		{[]string{filepath.Join(dir, "missing.toml")}, "--profiles: "},
		{[]string{file("clash.toml", "name = \"code_search\"\n[weights]\nE1 = 1.0\n")}, `name "code_search" is a built-in profile`},
		{[]string{mine, file("again.toml", "name = \"mine\"\n[weights]\nE1 = 1.0\n")}, `profile "mine" is named twice`},
	} {
		_, _, err := ResolveProfiles(c.names)
		var ve *record.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ResolveProfiles(%v) = %v, want a validation error holding %q", c.names, err, c.want)
		}
	}
}

// TestLearnSlots: none means every fused slot; a named fused slot is
// kept; a stage-only or unknown slot is refused.
func TestLearnSlots(t *testing.T) {
	all, err := LearnSlots(nil)
	if err != nil || len(all) == 0 {
		t.Fatalf("LearnSlots(nil) = %v, %v", all, err)
	}
	for _, s := range all {
		if !s.Fused() {
			t.Errorf("LearnSlots(nil) holds %s, which is not fused", s)
		}
	}
	if got, err := LearnSlots([]string{"E1", "E7"}); err != nil || len(got) != 2 {
		t.Fatalf("LearnSlots(E1,E7) = %v, %v", got, err)
	}
	for names, want := range map[string]string{"E2": "--slots: E2 is not fused", "E13": "is not fused", "E99": "--slots: "} {
		_, err := LearnSlots([]string{names})
		var ve *record.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), want) {
			t.Errorf("LearnSlots(%s) = %v, want a validation error holding %q", names, err, want)
		}
	}
}

// TestAblationAndLearnedText: the ablation table and the learned
// profile's text and JSON carry what the commands print.
func TestAblationAndLearnedText(t *testing.T) {
	var b bytes.Buffer
	ab := Ablation{Data: "tiny", Profile: "code_search", Mode: "pipeline", Full: 0.5,
		Rows: []AblationRow{{Removed: "E7", NDCG: 0.4, Delta: -0.1, Low: -0.2, High: -0.05, PValue: 0.01, Wins: 1, Losses: 5}}}
	if err := ab.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"pipeline:code_search on tiny, nDCG@10 0.5000;", "REMOVED", "E7       0.4000   -0.1000  [-0.2000, -0.0500]  0.01  1/5"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("ablation table lacks %q:\n%s", w, b.String())
		}
	}
	base, err := engine.BuiltinProfile("pipeline_full")
	if err != nil {
		t.Fatal(err)
	}
	l := Learned{Data: "tiny", Queries: 7, Profile: base, Used: []engine.SlotID{engine.Slots()[0]},
		Result: bench.LearnResult{CV: bench.MetricCI{Mean: 0.6, Low: 0.5, High: 0.7}, Base: bench.MetricCI{Mean: 0.4}, FoldWeights: []engine.Weights{base.Weights}}}
	l.Profile.Name = "learned_tiny"
	o := LearnOptions{Out: "x.toml", Base: base, Folds: 3}
	j := l.JSON(o, "Pipeline_Full")
	if j.Out != "x.toml" || j.Base != "Pipeline_Full" || j.Profile != "learned_tiny" || j.Folds != 3 || len(j.Slots) != 1 || len(j.FoldWeights) != 1 || len(j.Weights) == 0 {
		t.Errorf("JSON = %+v", j)
	}
	b.Reset()
	if err := l.WriteText(&b, o, "pipeline_full"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"wrote x.toml (profile learned_tiny) from 7 queries of tiny\n", "3-fold cross-validated nDCG@10: learned 0.6000 [0.5000, 0.7000], base pipeline_full 0.4000", "weights: E1 "} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("learned text lacks %q:\n%s", w, b.String())
		}
	}
}
