package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine"
)

// profilesOut is `profiles --json` as a script reads it.
type profilesOut []struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Weights     map[string]float64 `json:"weights"`
	Temporal    bool               `json:"temporal"`
	Staged      bool               `json:"staged"`
	E10Boost    float64            `json:"e10_boost"`
	ExtraRecall []string           `json:"extra_recall"`
	Builtin     bool               `json:"builtin"`
}

func TestProfilesJSON(t *testing.T) {
	var got profilesOut
	oneJSON(t, mustRun(t, "", "--json", "profiles").stdout, &got)
	want := engine.BuiltinProfiles()
	if len(got) != 17 || len(want) != 17 {
		t.Fatalf("profiles --json lists %d profiles, built-ins %d; want 17", len(got), len(want))
	}
	for i, p := range want {
		g := got[i]
		if g.Name != p.Name || g.Description != p.Description || g.Temporal != p.Temporal || g.Staged != p.Staged || g.E10Boost != p.E10Boost || !g.Builtin {
			t.Errorf("profile %d = %+v, want %+v", i, g, p)
		}
		if len(g.Weights) != engine.NumSlots {
			t.Errorf("%s has %d weights, want every slot", p.Name, len(g.Weights))
		}
		var sum float64
		for _, s := range engine.Slots() {
			w, ok := g.Weights[s.String()]
			if !ok || w != p.Weights.Get(s) {
				t.Errorf("%s %s = %v (present %v), want %v", p.Name, s, w, ok, p.Weights.Get(s))
			}
			sum += w
		}
		if math.Abs(sum-1) > engine.ProfileSumTolerance {
			t.Errorf("%s weights sum to %v", p.Name, sum)
		}
		if len(g.ExtraRecall) != len(p.ExtraRecall) {
			t.Errorf("%s extra_recall %v, want %v", p.Name, g.ExtraRecall, p.ExtraRecall)
		}
	}
	// Spot-check against profiles/builtin.go (docs/PROFILES.md), so a drift
	// in both places shows.
	byName := map[string]int{}
	for i, g := range got {
		byName[g.Name] = i
	}
	if w := got[byName["causal_reasoning"]].Weights; w["E5"] != 0.25 || w["E1"] != 0.15 {
		t.Errorf("causal_reasoning weights %v", w)
	}
	if g := got[byName["typo_tolerant"]]; len(g.ExtraRecall) != 1 || g.ExtraRecall[0] != "E9" {
		t.Errorf("typo_tolerant extra_recall %v, want [E9]", g.ExtraRecall)
	}
}

func TestProfilesHuman(t *testing.T) {
	out := mustRun(t, "", "profiles").stdout
	lines := strings.Split(out, "\n")
	header := strings.Fields(lines[0])
	if len(header) != 14 || header[0] != "profile" || header[1] != "E1" || header[13] != "E13" {
		t.Fatalf("header %q", lines[0])
	}
	rows := map[string][]string{}
	for _, l := range lines[1:18] {
		f := strings.Fields(l)
		rows[f[0]] = f
	}
	if len(rows) != 17 {
		t.Fatalf("%d profile rows:\n%s", len(rows), out)
	}
	// causal_reasoning: E1 .15, E2–E4 ., E5 .25; no flags.
	if r := rows["causal_reasoning"]; strings.Join(r[1:6], " ") != ".15 . . . .25" || len(r) != 14 {
		t.Errorf("causal_reasoning row %q", r)
	}
	if r := rows["typo_tolerant"]; strings.Join(r[14:], " ") != "staged +E9" {
		t.Errorf("typo_tolerant flags %q", r[14:])
	}
	if r := rows["intent_enhanced"]; r[len(r)-1] != "e10×2" {
		t.Errorf("intent_enhanced flags %q", r[14:])
	}
	if r := rows["semantic_search"]; r[len(r)-1] != "default" {
		t.Errorf("semantic_search is not marked default: %q", r)
	}
	if !strings.Contains(out, "causal_reasoning         why did this happen") {
		t.Errorf("descriptions missing:\n%s", out)
	}
}

func TestProfilesFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.toml")
	writeFile(t, good, "name = \"mine\"\ndescription = \"test\"\n[weights]\nE1 = 0.5\nE5 = 0.5\n")
	var got profilesOut
	oneJSON(t, mustRun(t, "", "--json", "profiles", "--file", good).stdout, &got)
	if len(got) != 1 || got[0].Name != "mine" || got[0].Weights["E5"] != 0.5 || got[0].Weights["E7"] != 0 || got[0].Builtin {
		t.Fatalf("profiles --file: %+v", got)
	}
	bad := filepath.Join(dir, "bad.toml")
	writeFile(t, bad, "name = \"bad\"\n[weights]\nE1 = 0.5\nE5 = 0.2\n")
	r := run(t, "", "profiles", "--file", bad)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "sum") || r.stdout != "" {
		t.Fatalf("bad profile file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
