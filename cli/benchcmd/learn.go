package benchcmd

import (
	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/benchstore"
	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
)

type learnFlags struct {
	set                               benchstore.Set
	base, mode, out, name, store      string
	fusion                            string
	slots                             []string
	folds, depth, maxQueries, holdout int
	seed                              uint64
}

func newProfilesLearnCmd(a *app.App) *cobra.Command {
	var f learnFlags
	cmd := &cobra.Command{
		Use:   "learn --data SET --out FILE.toml",
		Short: "Fit a profile's per-slot weights on a BEIR-layout set, with k-fold cross-validation",
		Long: `Fit the fusion weights of a profile on a set's queries and relevance judgements.
Each fused slot with a model is searched on its own for every query (top --depth);
coordinate ascent then maximises mean nDCG@10 of the fusion over those lists
(--fusion: weighted RRF by default, or minmax; by default $CGRAPH_FUSION's, the one
your searches run),
starting from --base. With --folds K the queries are split into K folds and each
fold is scored with the weights learned on the others: that cross-validated figure
(printed beside the base profile's on the same queries) is the estimate for unseen
queries. The weights written to --out are fitted on all the queries.

The profile file keeps every profile rule (weights sum to 1; temporal slots and the
stage-only E12/E13 keep the base's weights) and is read by search --profile-file
and by bench run --profiles FILE.toml. The store is built as bench run builds it
(--store, default bench-out/<set>/store) and reused.`,
		Example: `  cgraph profiles learn --data sets/csn-go --base pipeline_full --out learned-go.toml
  cgraph profiles learn --data sets/csn-py --max-queries 500 --folds 5 --out learned-py.toml --json`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			return learnProfile(a, f)
		},
	}
	fl := cmd.Flags()
	bindSet(fl, &f.set, "BEIR-layout set directory (corpus.jsonl, queries.jsonl, qrels/)", "queries file inside --data (default queries.jsonl)",
		"qrels file inside --data (default qrels/<split>.tsv)", "qrels split")
	fl.StringVar(&f.base, "base", "pipeline_full", "built-in profile to start from (its flags and stage-only weights are kept)")
	fl.StringVar(&f.mode, "mode", "pipeline", "mode the profile is for: pipeline (staged) or multi_space")
	fl.StringVar(&f.out, "out", "", "profile file to write (.toml, .yaml or .yml)")
	fl.StringVar(&f.name, "name", "", "the learned profile's name (default learned_<set>)")
	fl.StringVar(&f.store, "store", "", "bench store directory (default bench-out/<set>/store)")
	fl.StringSliceVar(&f.slots, "slots", nil, "fused slots to weigh (default every fused slot with a model)")
	fl.IntVar(&f.folds, "folds", 5, "cross-validation folds")
	fl.IntVar(&f.depth, "depth", 100, "results per slot and query the fusion sees")
	fl.IntVar(&f.maxQueries, "max-queries", 0, "learn on a seeded sample of N queries (0 = all)")
	fl.IntVar(&f.holdout, "holdout", 0, "leave out the N queries 'bench run --max-queries N --seed SEED' evaluates, so that run scores the learned profile on queries it never saw")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the query sample, the holdout and the folds")
	fl.StringVar(&f.fusion, "fusion", "", "fusion the weights are fitted under: rrf or minmax (default $CGRAPH_FUSION, else rrf); search with the same one")
	return cmd
}

func learnProfile(a *app.App, f learnFlags) (err error) {
	if f.set.Data == "" || f.out == "" {
		return app.Usagef("give --data SET and --out FILE.toml", "--data and --out are required")
	}
	format, err := engine.ProfileFormatOf(f.out)
	if err != nil {
		return &app.UsageError{Problem: err.Error()}
	}
	base, err := engine.BuiltinProfile(f.base)
	if err != nil {
		return &app.UsageError{Problem: err.Error(), Fix: "see `cgraph profiles`"}
	}
	switch f.mode {
	case "pipeline":
		base.Staged = true
	case "multi_space":
	default:
		return app.Usagef("give pipeline or multi_space", "--mode %q", f.mode)
	}
	if f.holdout < 0 || f.maxQueries < 0 {
		return app.Usagef("give 0 or a positive count", "--holdout %d --max-queries %d", f.holdout, f.maxQueries)
	}
	if f.folds < 2 || f.depth < 10 {
		return app.Usagef("give at least 2 folds and a depth of at least 10", "--folds %d --depth %d", f.folds, f.depth)
	}
	slots, err := benchstore.LearnSlots(f.slots)
	if err != nil {
		return err
	}
	fusion := a.FusionChoice()
	if f.fusion != "" {
		if fusion, err = engine.ParseFusion(f.fusion); err != nil {
			return app.Usagef("give rrf or minmax", "--fusion: %v", err)
		}
	}
	o := benchstore.LearnOptions{
		Set: f.set, Base: base, Slots: slots, Folds: f.folds, Depth: f.depth, MaxQueries: f.maxQueries, Holdout: f.holdout, Seed: f.seed,
		Name: f.name, Out: f.out, Format: format, Store: f.store, Open: benchOpener(a), Fusion: fusion,
		IndexProgress: a.BenchIndexProgress(), SearchProgress: a.CountProgress("searching each slot"), Warn: a.Warnf}
	l, err := benchstore.Learn(a.Context(), o)
	if err != nil {
		return err
	}
	if a.JSON {
		return a.PrintJSON(l.JSON(o, f.base))
	}
	return l.WriteText(a.Stdout, o, f.base)
}
