package benchcmd

import (
	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/benchstore"
	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
)

type ablateFlags struct {
	set                               benchstore.Set
	profile, profileFile, mode, store string
	maxQueries                        int
	seed                              uint64
}

func newBenchAblateCmd(a *app.App) *cobra.Command {
	var f ablateFlags
	cmd := &cobra.Command{
		Use:   "ablate --data SET --profile P",
		Short: "Run a profile with each weighted slot removed in turn and report what each slot adds",
		Long: `Run a profile, and the same profile with each weighted fused slot removed in turn
(its weight set to 0, the other fused slots rescaled to keep their share), over a
BEIR-layout set; then compare each ablated run with the whole profile query by
query: ΔnDCG@10 (ablated − whole) with a paired 95% bootstrap interval and a
paired randomization test. A slot earns its place when removing it costs nDCG
(a negative Δ whose interval excludes 0). The stage-only slots E12 and E13 act
whatever their weight, so they are not ablated here.`,
		Example: `  cgraph bench ablate --data sets/csn-go --profile pipeline_full
  cgraph bench ablate --data sets/csn-go --profile code_search --mode multi_space --max-queries 500`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return ablate(a, f)
		},
	}
	fl := cmd.Flags()
	bindSet(fl, &f.set, "BEIR-layout set directory", "queries file inside --data (default queries.jsonl)", "qrels file inside --data", "qrels split")
	fl.StringVar(&f.profile, "profile", "pipeline_full", "built-in profile to ablate")
	fl.StringVar(&f.profileFile, "profile-file", "", "ablate a profile file instead (e.g. one 'profiles learn' wrote)")
	fl.StringVar(&f.mode, "mode", "pipeline", "search mode: pipeline or multi_space")
	fl.StringVar(&f.store, "store", "", "bench store directory (default bench-out/<set>/store)")
	fl.IntVar(&f.maxQueries, "max-queries", 0, "evaluate a seeded sample of N queries (0 = all)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the sample, the bootstrap and the randomization test")
	return cmd
}

func ablate(a *app.App, f ablateFlags) (err error) {
	if f.set.Data == "" {
		return app.Usagef("give the set directory", "--data is missing")
	}
	if f.mode != "pipeline" && f.mode != "multi_space" {
		return app.Usagef("give pipeline or multi_space", "--mode %q", f.mode)
	}
	var p engine.Profile
	if f.profileFile != "" {
		if p, err = engine.LoadProfileFile(f.profileFile); err != nil {
			return &app.UsageError{Problem: err.Error()}
		}
	} else if p, err = engine.BuiltinProfile(f.profile); err != nil {
		return &app.UsageError{Problem: err.Error(), Fix: "see `cgraph profiles`"}
	}
	out, err := benchstore.Ablate(a.Context(), benchstore.AblateOptions{
		Set: f.set, Profile: p, Mode: f.mode, Store: f.store, MaxQueries: f.maxQueries, Seed: f.seed, Open: benchOpener(a),
		Progress: a.BenchProgress(), IndexProgress: a.BenchIndexProgress()})
	if err != nil {
		return err
	}
	if a.JSON {
		return a.PrintJSON(out)
	}
	return out.WriteTable(a.Stdout)
}
