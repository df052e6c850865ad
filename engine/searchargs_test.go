package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

var (
	flagNames = SearchArgNames{Profile: "--profile", ProfileFile: "--profile-file", Weights: "--weight", Mode: "--mode", Embedder: "--embedder", Direction: "--direction"}
	toolNames = SearchArgNames{Profile: "profile", ProfileFile: "profile_file", Weights: "weights", Mode: "mode", Embedder: "embedder", Direction: "direction"}
)

// TestSearchArgsShape: mode, embedder and direction parse by one set of
// rules whichever face names them.
func TestSearchArgsShape(t *testing.T) {
	for _, tc := range []struct {
		name string
		args SearchArgs
		mode Mode
		slot SlotID
		dir  Direction
	}{
		{"defaults", SearchArgs{}, ModeMultiSpace, 0, DirectionAny},
		{"mode", SearchArgs{Mode: "Pipeline"}, ModePipeline, 0, DirectionAny},
		{"e1_only", SearchArgs{Mode: " e1_only "}, ModeE1Only, 0, DirectionAny},
		{"embedder implies its mode", SearchArgs{Embedder: "keywords"}, ModeEmbedderFirst, E6, DirectionAny},
		{"embedder with its mode", SearchArgs{Embedder: "E13", Mode: "embedder_first"}, ModeEmbedderFirst, E13, DirectionAny},
		{"direction", SearchArgs{Direction: "causes"}, ModeMultiSpace, 0, DirectionCauses},
		{"all three", SearchArgs{Embedder: "e5", Direction: "EFFECTS"}, ModeEmbedderFirst, E5, DirectionEffects},
	} {
		for _, names := range []SearchArgNames{flagNames, toolNames} {
			tc.args.Names = names
			req := SearchRequest{Mode: ModePipeline, Embedder: E7, Direction: DirectionEffects} // overwritten
			if err := tc.args.ParseShape(&req); err != nil {
				t.Fatalf("%s (%s): %v", tc.name, names.Mode, err)
			}
			if req.Mode != tc.mode || req.Embedder != tc.slot || req.Direction != tc.dir {
				t.Errorf("%s (%s): mode %v slot %v direction %v, want %v %v %v", tc.name, names.Mode, req.Mode, req.Embedder, req.Direction, tc.mode, tc.slot, tc.dir)
			}
		}
	}
}

// TestSearchArgsErrors: every bad value is a *record.ValidationError that
// names the face's argument, says what is wrong and lists what would do.
func TestSearchArgsErrors(t *testing.T) {
	dir := t.TempDir()
	temporal := filepath.Join(dir, "temporal.yaml")
	if err := os.WriteFile(temporal, []byte("name: bad\nweights:\n  E2: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    SearchArgs
		profile bool     // ParseProfile, else ParseShape
		field   string   // of the flag names; the tool names say the same without "--"
		want    []string // substrings of the error
	}{
		{"unknown mode", SearchArgs{Mode: "fast"}, false, "--mode", []string{`unknown mode "fast"`, "multi_space", "pipeline", "e1_only", "embedder_first"}},
		{"unknown slot", SearchArgs{Embedder: "E14"}, false, "--embedder", []string{`unknown slot "E14"`, "E1 (semantic)", "E13 (splade)", "E1, E5, E6"}},
		{"badge slot", SearchArgs{Embedder: "E2"}, false, "--embedder", []string{"E2 cannot lead a search", "E1, E5, E6, E7, E8, E9, E10, E11, E13"}},
		{"rerank slot", SearchArgs{Embedder: "late_interaction"}, false, "--embedder", []string{"E12 cannot lead"}},
		{"embedder with another mode", SearchArgs{Embedder: "E6", Mode: "pipeline"}, false, "--embedder", []string{"--embedder E6 needs --mode embedder_first, got --mode pipeline", "drop --mode"}},
		{"embedder_first alone", SearchArgs{Mode: "embedder_first"}, false, "--mode", []string{"--mode embedder_first needs --embedder", "E1, E5"}},
		{"unknown direction", SearchArgs{Direction: "backwards"}, false, "--direction", []string{`unknown direction "backwards"`, "causes", "effects"}},
		{"unknown profile", SearchArgs{Profile: "causal"}, true, "--profile", []string{`unknown profile "causal"`, "causal_reasoning", "balanced"}},
		{"profile and file", SearchArgs{Profile: "balanced", ProfileFile: temporal}, true, "--profile", []string{"both --profile balanced and --profile-file", "choose one"}},
		{"temporal file", SearchArgs{ProfileFile: temporal}, true, "--profile-file", []string{"E2", "temporal"}},
		{"missing file", SearchArgs{ProfileFile: filepath.Join(dir, "nope.toml")}, true, "--profile-file", []string{"nope.toml"}},
		{"weight slot", SearchArgs{Weights: []string{"E99=0.5"}}, true, "--weight", []string{`unknown slot "E99"`}},
		{"weight value", SearchArgs{Weights: []string{"E5=1.5"}}, true, "--weight", []string{"outside [0, 1]"}},
		{"weight twice", SearchArgs{Weights: []string{"E5=0.3", "E5=0.4"}}, true, "--weight", []string{"E5"}},
		{"temporal weight", SearchArgs{Weights: []string{"E2=0.3"}}, true, "--weight", []string{"temporal slot E2", "temporal_navigation"}},
		{"weights over 1", SearchArgs{Profile: "causal_reasoning", Weights: []string{"E5=0.7", "E1=0.6"}}, true, "--weight", []string{"sum ≤ 1"}},
	} {
		for _, names := range []SearchArgNames{flagNames, toolNames} {
			tc.args.Names = names
			var err error
			if tc.profile {
				_, err = tc.args.ParseProfile()
			} else {
				err = tc.args.ParseShape(&SearchRequest{})
			}
			var ve *record.ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("%s (%s): %v, want a *record.ValidationError", tc.name, names.Mode, err)
				continue
			}
			field := tc.field
			if names == toolNames {
				field = map[string]string{"--mode": "mode", "--embedder": "embedder", "--direction": "direction", "--profile": "profile", "--profile-file": "profile_file", "--weight": "weights"}[field]
			}
			if ve.Field != field || ve.Fix == "" {
				t.Errorf("%s (%s): field %q fix %q, want field %q and a fix", tc.name, names.Mode, ve.Field, ve.Fix, field)
			}
			for _, w := range tc.want {
				if names == toolNames {
					w = strings.NewReplacer("--profile-file", "profile_file", "--profile", "profile", "--mode", "mode", "--embedder", "embedder").Replace(w)
				}
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s (%s): %q lacks %q", tc.name, names.Mode, err, w)
				}
			}
			// The valid names are said once, in the fix: the problem names
			// only what was wrong.
			if n := strings.Count(err.Error(), "pipeline_stage1_recall"); n > 1 {
				t.Errorf("%s (%s): %q lists the profiles %d times", tc.name, names.Mode, err, n)
			}
		}
	}
}

// TestSearchArgsProfile: the named profile (DefaultProfile when none), or
// the file, with the overrides applied and the rest re-normalised.
func TestSearchArgsProfile(t *testing.T) {
	p, err := SearchArgs{Names: flagNames}.ParseProfile()
	if err != nil || p.Name != DefaultProfile {
		t.Fatalf("default: %v %v", p.Name, err)
	}
	p, err = SearchArgs{Profile: "causal_reasoning", Weights: []string{"E5=0.6"}, Names: toolNames}.ParseProfile()
	if err != nil || p.Name != "causal_reasoning" || p.Weights.Get(E5) != 0.6 {
		t.Fatalf("causal_reasoning E5=0.6: %+v %v", p, err)
	}
	// E1 had .15 of causal_reasoning; the .4 left to the others is shared
	// in their old proportions (.75 of the weight).
	if w, want := p.Weights.Get(E1), 0.15*0.4/0.75; w < want-1e-9 || w > want+1e-9 {
		t.Errorf("E1 after E5=0.6: %v, want %v", w, want)
	}
	p, err = SearchArgs{ProfileFile: "../profiles/testdata/good_causal.toml", Weights: []string{"E1=0.2"}, Names: flagNames}.ParseProfile()
	if err != nil || p.Weights.Get(E1) != 0.2 {
		t.Fatalf("file with override: %+v %v", p, err)
	}
}
