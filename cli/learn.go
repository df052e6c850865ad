package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/benchstore"
	"github.com/cgraph/cgraph/engine"
)

// learnJSON is `profiles learn --json`.
type learnJSON struct {
	Data        string               `json:"data"`
	Queries     int                  `json:"queries"`
	Out         string               `json:"out"`
	Profile     string               `json:"profile"`
	Base        string               `json:"base"`
	Weights     map[string]float64   `json:"weights"`
	Slots       []string             `json:"slots"`
	Folds       int                  `json:"folds"`
	CV          bench.MetricCI       `json:"cv_ndcg_at_10"`
	BaseCV      bench.MetricCI       `json:"base_ndcg_at_10"`
	FoldWeights []map[string]float64 `json:"fold_weights"`
}

type learnFlags struct {
	set                               benchstore.Set
	base, mode, out, name, store      string
	slots                             []string
	folds, depth, maxQueries, holdout int
	seed                              uint64
}

func newProfilesLearnCmd(a *App) *cobra.Command {
	var f learnFlags
	cmd := &cobra.Command{
		Use:   "learn --data SET --out FILE.toml",
		Short: "Fit a profile's per-slot weights on a BEIR-layout set, with k-fold cross-validation",
		Long: `Fit the fusion weights of a profile on a set's queries and relevance judgements.
Each fused slot with a model is searched on its own for every query (top --depth);
coordinate ascent then maximises mean nDCG@10 of weighted RRF over those lists,
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
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			return a.learnProfile(f)
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
	fl.IntVar(&f.holdout, "holdout", 0, "leave out the N queries `bench run --max-queries N --seed SEED` evaluates, so that run scores the learned profile on queries it never saw")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the query sample, the holdout and the folds")
	return cmd
}

func (a *App) learnProfile(f learnFlags) (err error) {
	if f.set.Data == "" || f.out == "" {
		return usagef("give --data SET and --out FILE.toml", "--data and --out are required")
	}
	format, err := engine.ProfileFormatOf(f.out)
	if err != nil {
		return &UsageError{Problem: err.Error()}
	}
	base, err := engine.BuiltinProfile(f.base)
	if err != nil {
		return &UsageError{Problem: err.Error(), Fix: "see `cgraph profiles`"}
	}
	switch f.mode {
	case "pipeline":
		base.Staged = true
	case "multi_space":
	default:
		return usagef("give pipeline or multi_space", "--mode %q", f.mode)
	}
	if f.holdout < 0 || f.maxQueries < 0 {
		return usagef("give 0 or a positive count", "--holdout %d --max-queries %d", f.holdout, f.maxQueries)
	}
	if f.folds < 2 || f.depth < 10 {
		return usagef("give at least 2 folds and a depth of at least 10", "--folds %d --depth %d", f.folds, f.depth)
	}
	slots, err := learnSlots(f.slots)
	if err != nil {
		return err
	}
	l, err := benchstore.Learn(a.Context(), benchstore.LearnOptions{
		Set: f.set, Base: base, Slots: slots, Folds: f.folds, Depth: f.depth, MaxQueries: f.maxQueries, Holdout: f.holdout, Seed: f.seed,
		Name: f.name, Out: f.out, Format: format, Store: f.store, Open: a.benchOpener(),
		IndexProgress: a.benchIndexProgress(), SearchProgress: a.countProgress("searching each slot"), Warn: a.Warnf})
	if err != nil {
		return err
	}
	return a.printLearned(f, l)
}

// learnSlots parses --slots; empty means every fused slot.
func learnSlots(names []string) ([]engine.SlotID, error) {
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
			return nil, &UsageError{Problem: "--slots: " + err.Error()}
		}
		if !s.Fused() {
			return nil, usagef("give fused slots: E1, E5–E11", "--slots: %s is not fused (temporal slots badge, E12 reranks, E13 recalls)", s)
		}
		out = append(out, s)
	}
	return out, nil
}

func (a *App) printLearned(f learnFlags, l benchstore.Learned) error {
	p, res, n := l.Profile, l.Result, l.Queries
	weights := func(w engine.Weights) map[string]float64 {
		m := map[string]float64{}
		for _, s := range w.Active() {
			m[s.String()] = w.Get(s)
		}
		return m
	}
	if a.JSON {
		out := learnJSON{Data: l.Data, Queries: n, Out: f.out, Profile: p.Name, Base: f.base, Weights: weights(p.Weights),
			Folds: f.folds, CV: res.CV, BaseCV: res.Base}
		for _, s := range l.Used {
			out.Slots = append(out.Slots, s.String())
		}
		for _, w := range res.FoldWeights {
			out.FoldWeights = append(out.FoldWeights, weights(w))
		}
		return a.PrintJSON(out)
	}
	a.Printf("wrote %s (profile %s) from %d queries of %s\n", f.out, p.Name, n, l.Data)
	a.Printf("%d-fold cross-validated nDCG@10: learned %.4f [%.4f, %.4f], base %s %.4f [%.4f, %.4f] (WRRF of the slots' own lists)\n",
		f.folds, res.CV.Mean, res.CV.Low, res.CV.High, f.base, res.Base.Mean, res.Base.Low, res.Base.High)
	var parts []string
	for _, s := range p.Weights.Active() {
		parts = append(parts, fmt.Sprintf("%s %.3f", s, p.Weights.Get(s)))
	}
	a.Printf("weights: %s\n", strings.Join(parts, ", "))
	return nil
}
