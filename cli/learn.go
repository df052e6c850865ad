package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/bench"
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
	data, queries, qrels, split, base, mode, out, name, store string
	slots                                                     []string
	folds, depth, maxQueries, holdout                         int
	seed                                                      uint64
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
	fl.StringVar(&f.data, "data", "", "BEIR-layout set directory (corpus.jsonl, queries.jsonl, qrels/)")
	fl.StringVar(&f.queries, "queries", "", "queries file inside --data (default queries.jsonl)")
	fl.StringVar(&f.qrels, "qrels", "", "qrels file inside --data (default qrels/<split>.tsv)")
	fl.StringVar(&f.split, "split", "test", "qrels split")
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
	if f.data == "" || f.out == "" {
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
	ds, err := bench.Load(f.data, bench.LoadOptions{Split: f.split,
		QueriesFile: inDataDir(f.data, f.queries), QrelsFile: inDataDir(f.data, f.qrels)})
	if err != nil {
		return fmt.Errorf("profiles learn: %w", err)
	}
	store := f.store
	if store == "" {
		store = filepath.Join("bench-out", ds.Name, "store")
	}
	r, _, closeR, err := benchRetriever(a, benchStoreConfig{Dir: store})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeR(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close bench store: %w", cerr))
		}
	}()
	draw := a.benchIndexProgress()
	progress := func(done int) {
		if draw != nil {
			draw(done, len(ds.Corpus))
		}
	}
	if _, err := r.Index(a.Context(), ds.Corpus, progress); err != nil {
		return fmt.Errorf("profiles learn: index %s: %w", ds.Name, err)
	}
	qs := bench.SampleQueries(heldOut(ds.Queries, f.holdout, f.seed), f.maxQueries, f.seed)
	if len(qs) == 0 {
		return usagef("give a smaller --holdout", "--holdout %d leaves no query of %d to learn from", f.holdout, len(ds.Queries))
	}
	lqs, used, err := a.slotLists(r, qs, slots, f.depth)
	if err != nil {
		return err
	}
	res, err := bench.LearnWeights(lqs, ds.Qrels, bench.LearnConfig{Base: base, Slots: used, Folds: f.folds, Seed: f.seed})
	if err != nil {
		return fmt.Errorf("profiles learn: %w", err)
	}
	p := res.Profile
	p.Name = f.name
	if p.Name == "" {
		p.Name = "learned_" + strings.NewReplacer("-", "_", ".", "_").Replace(ds.Name)
	}
	held := ""
	if f.holdout > 0 {
		held = fmt.Sprintf(", holding out the %d queries of bench run --max-queries %d --seed %d", f.holdout, f.holdout, f.seed)
	}
	p.Description = fmt.Sprintf("learned from %s (%d queries%s) starting at %s; %d-fold CV nDCG@10 %.3f [%.3f, %.3f] vs the base's %.3f",
		ds.Name, len(lqs), held, f.base, f.folds, res.CV.Mean, res.CV.Low, res.CV.High, res.Base.Mean)
	body, err := engine.EncodeProfile(p, format)
	if err != nil {
		return fmt.Errorf("profiles learn: %w", err)
	}
	if err := os.WriteFile(f.out, body, 0o644); err != nil {
		return fmt.Errorf("profiles learn: write %s: %w", f.out, err)
	}
	return a.printLearned(f, ds, p, used, res, len(lqs))
}

// heldOut returns qs without the n queries a bench run with --max-queries n
// --seed seed evaluates (all of qs when n is 0).
func heldOut(qs []bench.Query, n int, seed uint64) []bench.Query {
	if n <= 0 {
		return qs
	}
	test := map[bench.QueryID]bool{}
	for _, q := range bench.SampleQueries(qs, n, seed) {
		test[q.ID] = true
	}
	out := make([]bench.Query, 0, len(qs)-len(test))
	for _, q := range qs {
		if !test[q.ID] {
			out = append(out, q)
		}
	}
	return out
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

// slotLists searches every slot on its own for every query. A slot that
// returns nothing for every query (no model here) is left out, and said.
func (a *App) slotLists(r bench.Retriever, qs []bench.Query, slots []engine.SlotID, depth int) ([]bench.LearnQuery, []engine.SlotID, error) {
	out := make([]bench.LearnQuery, len(qs))
	found := map[engine.SlotID]bool{}
	bar := a.countBar(len(qs)*len(slots), "searching each slot")
	for i, q := range qs {
		out[i] = bench.LearnQuery{ID: q.ID, Lists: map[engine.SlotID][]bench.Ranked{}}
		for _, s := range slots {
			ranked, _, err := r.Search(a.Context(), bench.SearchRequest{Query: q, K: depth,
				Run: bench.RunSpec{Mode: "embedder_first", Embedder: s.String()}})
			if err != nil {
				return nil, nil, fmt.Errorf("profiles learn: query %s, %s: %w", q.ID, s, err)
			}
			out[i].Lists[s] = ranked
			found[s] = found[s] || len(ranked) > 0
			if bar != nil {
				_ = bar.Add(1) // only draws on the terminal
			}
		}
	}
	var used []engine.SlotID
	for _, s := range slots {
		if found[s] {
			used = append(used, s)
		} else {
			a.Warnf("profiles learn: %s returned nothing for every query (no model here?): left out", s)
		}
	}
	return out, used, nil
}

func (a *App) printLearned(f learnFlags, ds *bench.Dataset, p engine.Profile, used []engine.SlotID, res bench.LearnResult, n int) error {
	weights := func(w engine.Weights) map[string]float64 {
		m := map[string]float64{}
		for _, s := range w.Active() {
			m[s.String()] = w.Get(s)
		}
		return m
	}
	if a.JSON {
		out := learnJSON{Data: ds.Name, Queries: n, Out: f.out, Profile: p.Name, Base: f.base, Weights: weights(p.Weights),
			Folds: f.folds, CV: res.CV, BaseCV: res.Base}
		for _, s := range used {
			out.Slots = append(out.Slots, s.String())
		}
		for _, w := range res.FoldWeights {
			out.FoldWeights = append(out.FoldWeights, weights(w))
		}
		return a.PrintJSON(out)
	}
	a.Printf("wrote %s (profile %s) from %d queries of %s\n", f.out, p.Name, n, ds.Name)
	a.Printf("%d-fold cross-validated nDCG@10: learned %.4f [%.4f, %.4f], base %s %.4f [%.4f, %.4f] (WRRF of the slots' own lists)\n",
		f.folds, res.CV.Mean, res.CV.Low, res.CV.High, f.base, res.Base.Mean, res.Base.Low, res.Base.High)
	var parts []string
	for _, s := range p.Weights.Active() {
		parts = append(parts, fmt.Sprintf("%s %.3f", s, p.Weights.Get(s)))
	}
	a.Printf("weights: %s\n", strings.Join(parts, ", "))
	return nil
}
