package benchstore

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// Plan is what `bench run` asks to run, as its flags name it: the modes,
// profiles and primary slots of bench.PlanRuns, each run repeated per
// typo-correction scope and per feedback depth, and the baseline and level
// every run is tested with.
type Plan struct {
	Modes, Profiles, Embedders []string
	Direction                  string
	Baselines                  bool
	Correct                    []string // CorrectScopes, at least one
	Feedback                   []int    // depths, 0 (off) to engine.MaxFeedback, at least one
	Fusion                     []string // engine.ParseFusion names; none: the default only
	Baseline                   string   // "" or the display name of a planned run
	Alpha                      float64  // in (0, 1)
}

// Runs checks the plan and returns its runs; a bad value is a
// *record.ValidationError naming the flag and how to fix it. Repeated
// scopes and depths run once.
func (p Plan) Runs() ([]bench.RunSpec, error) {
	runs, err := bench.PlanRuns(bench.PlanOptions{Modes: p.Modes, Profiles: p.Profiles, Embedders: p.Embedders,
		Direction: p.Direction, Baselines: p.Baselines})
	if err != nil {
		return nil, &record.ValidationError{Problem: err.Error(), Fix: "see `cgraph bench run --help`"}
	}
	if len(p.Correct) == 0 {
		return nil, record.Invalidf("give "+strings.Join(CorrectScopes, ", ")+" or a list of them", "--correct names no scope")
	}
	for _, c := range p.Correct {
		if !slices.Contains(CorrectScopes, c) {
			return nil, record.Invalidf("give "+strings.Join(CorrectScopes, ", ")+" or a list of them", "--correct %q is not a correction scope", c)
		}
	}
	runs = WithCorrectScopes(runs, unique(p.Correct))
	if len(p.Feedback) == 0 {
		return nil, record.Invalidf("give 0 (off) or a depth such as 3, or a list (0,3)", "--feedback names no depth")
	}
	for _, n := range p.Feedback {
		if n < 0 || n > engine.MaxFeedback {
			return nil, record.Invalidf(fmt.Sprintf("give depths from 0 (off) to %d; 3 is typical", engine.MaxFeedback), "--feedback %d is out of range", n)
		}
	}
	runs = WithFeedback(runs, unique(p.Feedback))
	for _, f := range p.Fusion {
		if _, err := engine.ParseFusion(f); err != nil {
			return nil, record.Invalidf("give rrf, minmax or a list of them (rrf,minmax)", "--fusion: %v", err)
		}
	}
	if len(p.Fusion) > 0 {
		runs = WithFusions(runs, unique(p.Fusion))
	}
	if err := checkBaseline(runs, p.Baseline, p.Alpha); err != nil {
		return nil, err
	}
	return runs, nil
}

// checkBaseline refuses a baseline that names no planned run and an alpha
// outside (0, 1).
func checkBaseline(runs []bench.RunSpec, baseline string, alpha float64) error {
	if alpha <= 0 || alpha >= 1 {
		return record.Invalidf("give a level such as 0.05", "--alpha %g is not in (0, 1)", alpha)
	}
	if baseline == "" {
		return nil
	}
	var names []string
	for _, r := range runs {
		if r.DisplayName() == baseline {
			return nil
		}
		names = append(names, r.DisplayName())
	}
	return record.Invalidf("use one of "+strings.Join(names, ", "), "--baseline %q is not one of the runs", baseline)
}

// unique drops repeated values, keeping the first of each.
func unique[T comparable](xs []T) []T {
	var out []T
	seen := map[T]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// ResolveProfiles reads `bench run --profiles`: "all" stands for every
// built-in profile, built-in names stay, and a profile file (.toml, .yaml,
// .yml — a learned profile, say) is read and replaced by its name. It
// returns the names to run and the file profiles by name (Config.Profiles);
// an unknown name, an unreadable file, or a file profile named like a
// built-in or another file is a *record.ValidationError.
func ResolveProfiles(names []string) ([]string, map[string]engine.Profile, error) {
	if i := slices.Index(names, "all"); i >= 0 { // all = every built-in, beside any profile files
		names = slices.Concat(names[:i], engine.ProfileNames(), names[i+1:])
	} else {
		names = slices.Clone(names)
	}
	custom := map[string]engine.Profile{}
	for i, n := range names {
		if _, err := engine.ProfileFormatOf(n); err != nil {
			if _, err := engine.BuiltinProfile(n); err != nil {
				return nil, nil, &record.ValidationError{Problem: err.Error(), Fix: "name a built-in profile (see `cgraph profiles`) or a profile file ending in .toml or .yaml"}
			}
			continue
		}
		p, err := engine.LoadProfileFile(n)
		if err != nil {
			return nil, nil, &record.ValidationError{Problem: "--profiles: " + err.Error()}
		}
		if _, err := engine.BuiltinProfile(p.Name); err == nil {
			return nil, nil, record.Invalidf("rename the profile in the file", "--profiles: %s names its profile %q, a built-in name", n, p.Name)
		}
		if _, dup := custom[p.Name]; dup || p.Name == bench.RRFProfileName {
			return nil, nil, record.Invalidf("give each profile file its own name", "--profiles: profile %q is named twice", p.Name)
		}
		custom[p.Name] = p
		names[i] = p.Name
	}
	return names, custom, nil
}

// LearnSlots reads `profiles learn --slots`: empty means every fused
// slot; a name that is no slot, or a slot that is not fused (temporal
// slots badge, E12 reranks, E13 recalls), is a *record.ValidationError.
func LearnSlots(names []string) ([]engine.SlotID, error) {
	if len(names) == 0 {
		var out []engine.SlotID
		for _, s := range engine.Slots() {
			if s.Fused() {
				out = append(out, s)
			}
		}
		return out, nil
	}
	var out []engine.SlotID
	for _, n := range names {
		s, err := engine.ParseSlot(n)
		if err != nil {
			return nil, &record.ValidationError{Problem: "--slots: " + err.Error()}
		}
		if !s.Fused() {
			return nil, record.Invalidf("give fused slots: E1, E5–E11", "--slots: %s is not fused (temporal slots badge, E12 reranks, E13 recalls)", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// WriteTable writes the ablation as `bench ablate` prints it: the whole
// profile's nDCG@10, then one row per removed slot with its Δ, CI, p and
// wins/losses.
func (a Ablation) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s:%s on %s, nDCG@10 %.4f; each row removes one slot (Δ = without − with):\n", a.Mode, a.Profile, a.Data, a.Full)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REMOVED\tnDCG@10\tΔ\t95% CI\tp\tWINS/LOSSES")
	for _, r := range a.Rows {
		fmt.Fprintf(tw, "%s\t%.4f\t%+.4f\t[%+.4f, %+.4f]\t%.3g\t%d/%d\n", r.Removed, r.NDCG, r.Delta, r.Low, r.High, r.PValue, r.Wins, r.Losses)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
