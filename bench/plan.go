package bench

import (
	"fmt"
	"strings"
)

// Modes are the search modes a run may use (see the pipeline package).
var Modes = []string{"e1_only", "multi_space", "embedder_first", "pipeline"}

// Baseline run names. Every `bench run` includes them unless disabled, so a
// profile is always measured against single slots and plain fusion.
const (
	BaselineBM25   = "bm25_only" // E6 (BM25) alone: embedder_first with E6
	BaselineE1     = "e1_only"   // E1 alone: one dense ANN query
	BaselineRRF    = "rrf_e1_e6" // unweighted RRF of E1 and E6: multi_space over the RRFProfile, fused by RRF whatever the default fusion
	RRFProfileName = "rrf_e1_e6" // a profile with E1 = E6 = 0.5 and nothing else
)

// Baselines returns the three baseline runs. A Retriever must understand
// RRFProfileName as the weights {E1: 0.5, E6: 0.5}.
func Baselines() []RunSpec {
	return []RunSpec{
		{Name: BaselineBM25, Mode: "embedder_first", Embedder: "E6"},
		{Name: BaselineE1, Mode: "e1_only"},
		{Name: BaselineRRF, Mode: "multi_space", Profile: RRFProfileName, Fusion: "rrf"},
	}
}

// PlanOptions lists what a `bench run` asked for.
type PlanOptions struct {
	Modes     []string // default: pipeline
	Profiles  []string // for multi_space and pipeline
	Embedders []string // for embedder_first
	Direction string   // "", causes or effects
	Baselines bool
}

// PlanRuns expands modes × profiles (and embedder_first × embedders) into
// runs, baselines first. Names are "<mode>:<profile>" or
// "embedder_first:<slot>"; a run equal to a baseline is not repeated.
func PlanRuns(o PlanOptions) ([]RunSpec, error) {
	switch o.Direction {
	case "", "causes", "effects":
	default:
		return nil, fmt.Errorf("direction %q: use causes or effects", o.Direction)
	}
	if len(o.Modes) == 0 {
		o.Modes = []string{"pipeline"}
	}
	var out []RunSpec
	seen := map[string]bool{}
	add := func(s RunSpec) {
		s.Direction = o.Direction
		key := s.Mode + "|" + s.Profile + "|" + s.Embedder
		if !seen[key] {
			seen[key] = true
			out = append(out, s)
		}
	}
	if o.Baselines {
		for _, b := range Baselines() {
			add(b)
		}
	}
	for _, m := range o.Modes {
		switch m {
		case "e1_only":
			add(RunSpec{Name: BaselineE1, Mode: m})
		case "embedder_first":
			if len(o.Embedders) == 0 {
				return nil, fmt.Errorf("mode embedder_first needs --embedders, e.g. E6,E7")
			}
			for _, e := range o.Embedders {
				add(RunSpec{Name: m + ":" + e, Mode: m, Embedder: e})
			}
		case "multi_space", "pipeline":
			if len(o.Profiles) == 0 {
				return nil, fmt.Errorf("mode %s needs at least one profile (--profiles)", m)
			}
			for _, p := range o.Profiles {
				add(RunSpec{Name: m + ":" + p, Mode: m, Profile: p})
			}
		default:
			return nil, fmt.Errorf("unknown mode %q: valid modes are %s", m, strings.Join(Modes, ", "))
		}
	}
	return out, nil
}
