package benchstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/engine"
)

// LearnOptions is `profiles learn` once its flags are parsed and checked:
// the base profile (Staged for the pipeline mode), the fused slots to
// weigh, the cross-validation and the profile file to write.
type LearnOptions struct {
	Set  Set
	Base engine.Profile
	// Slots are the fused slots to weigh; a slot that lists nothing for
	// every query (no model) is left out, and Warn says so.
	Slots []engine.SlotID
	// Folds (≥ 2) of cross-validation; Depth results per slot and query;
	// MaxQueries a seeded sample (0: all); Holdout the queries of `bench
	// run --max-queries Holdout --seed Seed`, left out.
	Folds, Depth, MaxQueries, Holdout int
	Seed                              uint64
	// Name is the learned profile's name (default learned_<set>); Out the
	// file written in Format.
	Name, Out string
	Format    engine.ProfileFormat
	// Fusion is the fusion the weights are fitted under: the one the
	// searches that will use the profile run (zero: the engine's default).
	Fusion engine.Fusion
	// Store is the store directory (default bench-out/<set>/store).
	Store string
	Open  Opener
	// IndexProgress and SearchProgress draw progress (nil: none); Warn
	// says what the user should know.
	IndexProgress, SearchProgress func(done, total int)
	Warn                          func(format string, args ...any)
}

// Learned is what Learn fitted and wrote.
type Learned struct {
	Data    string
	Queries int // the queries learned from
	Profile engine.Profile
	Used    []engine.SlotID // the slots weighed
	Result  bench.LearnResult
}

// Learn indexes the set (or reuses its store), searches every slot on its
// own for every query, fits the profile's weights by coordinate ascent
// with k-fold cross-validation (bench.LearnWeights) and writes the
// learned profile to Out. A holdout that leaves no query is a
// *record.ValidationError; the file is written only when all went well.
func Learn(ctx context.Context, o LearnOptions) (l Learned, err error) {
	ds, err := o.Set.Load()
	if err != nil {
		return Learned{}, fmt.Errorf("profiles learn: %w", err)
	}
	r, _, closeR, err := o.Open(Config{Dir: storeDir(o.Store, "bench-out", ds)})
	if err != nil {
		return Learned{}, err
	}
	defer func() {
		if cerr := closeR(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close bench store: %w", cerr))
		}
	}()
	progress := func(done int) {
		if o.IndexProgress != nil {
			o.IndexProgress(done, len(ds.Corpus))
		}
	}
	if _, err := r.Index(ctx, ds.Corpus, progress); err != nil {
		return Learned{}, fmt.Errorf("profiles learn: index %s: %w", ds.Name, err)
	}
	qs := bench.SampleQueries(heldOut(ds.Queries, o.Holdout, o.Seed), o.MaxQueries, o.Seed)
	if len(qs) == 0 {
		return Learned{}, invalid("holdout", fmt.Sprintf("%d leaves no query of %d to learn from", o.Holdout, len(ds.Queries)), "give a smaller --holdout")
	}
	lqs, used, err := o.slotLists(ctx, r, qs)
	if err != nil {
		return Learned{}, err
	}
	res, err := bench.LearnWeights(lqs, ds.Qrels, bench.LearnConfig{Base: o.Base, Slots: used, Folds: o.Folds, Seed: o.Seed, Fusion: o.Fusion})
	if err != nil {
		return Learned{}, fmt.Errorf("profiles learn: %w", err)
	}
	l = Learned{Data: ds.Name, Queries: len(lqs), Profile: o.named(res, ds.Name, len(lqs)), Used: used, Result: res}
	body, err := engine.EncodeProfile(l.Profile, o.Format)
	if err != nil {
		return Learned{}, fmt.Errorf("profiles learn: %w", err)
	}
	if err := os.WriteFile(o.Out, body, 0o644); err != nil {
		return Learned{}, fmt.Errorf("profiles learn: write %s: %w", o.Out, err)
	}
	return l, nil
}

// named is the learned profile with its name and a description that says
// where it came from and how it scored.
func (o LearnOptions) named(res bench.LearnResult, set string, queries int) engine.Profile {
	p := res.Profile
	p.Name = o.Name
	if p.Name == "" {
		p.Name = "learned_" + strings.NewReplacer("-", "_", ".", "_").Replace(set)
	}
	held := ""
	if o.Holdout > 0 {
		held = fmt.Sprintf(", holding out the %d queries of bench run --max-queries %d --seed %d", o.Holdout, o.Holdout, o.Seed)
	}
	p.Description = fmt.Sprintf("learned from %s (%d queries%s) starting at %s; %d-fold CV nDCG@10 %.3f [%.3f, %.3f] vs the base's %.3f",
		set, queries, held, o.Base.Name, o.Folds, res.CV.Mean, res.CV.Low, res.CV.High, res.Base.Mean)
	return p
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

// slotLists searches every slot on its own for every query. A slot that
// returns nothing for every query (no model here) is left out, and said.
func (o LearnOptions) slotLists(ctx context.Context, r bench.Retriever, qs []bench.Query) ([]bench.LearnQuery, []engine.SlotID, error) {
	out := make([]bench.LearnQuery, len(qs))
	found := map[engine.SlotID]bool{}
	done, total := 0, len(qs)*len(o.Slots)
	for i, q := range qs {
		out[i] = bench.LearnQuery{ID: q.ID, Lists: map[engine.SlotID][]bench.Ranked{}}
		for _, s := range o.Slots {
			ranked, _, err := r.Search(ctx, bench.SearchRequest{Query: q, K: o.Depth,
				Run: bench.RunSpec{Mode: "embedder_first", Embedder: s.String()}})
			if err != nil {
				return nil, nil, fmt.Errorf("profiles learn: query %s, %s: %w", q.ID, s, err)
			}
			out[i].Lists[s] = ranked
			found[s] = found[s] || len(ranked) > 0
			if done++; o.SearchProgress != nil {
				o.SearchProgress(done, total)
			}
		}
	}
	var used []engine.SlotID
	for _, s := range o.Slots {
		if found[s] {
			used = append(used, s)
		} else {
			o.Warn("profiles learn: %s returned nothing for every query (no model here?): left out", s)
		}
	}
	return out, used, nil
}

// LearnedJSON is `profiles learn --json`: the file written, the weights
// fitted on all the queries, and the cross-validated nDCG@10 of the
// learned and the base profile.
type LearnedJSON struct {
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
	Fusion      string               `json:"fusion"` // what the weights were fitted under
}

// JSON is l as `profiles learn --json` prints it; o is what Learn was
// given, base the base profile as the user named it.
func (l Learned) JSON(o LearnOptions, base string) LearnedJSON {
	out := LearnedJSON{Data: l.Data, Queries: l.Queries, Out: o.Out, Profile: l.Profile.Name, Base: base,
		Weights: activeWeights(l.Profile.Weights), Folds: o.Folds, CV: l.Result.CV, BaseCV: l.Result.Base, Fusion: o.Fusion.Resolve().String()}
	for _, s := range l.Used {
		out.Slots = append(out.Slots, s.String())
	}
	for _, w := range l.Result.FoldWeights {
		out.FoldWeights = append(out.FoldWeights, activeWeights(w))
	}
	return out
}

// activeWeights is w's non-zero weights by slot name.
func activeWeights(w engine.Weights) map[string]float64 {
	m := map[string]float64{}
	for _, s := range w.Active() {
		m[s.String()] = w.Get(s)
	}
	return m
}

// WriteText writes l as `profiles learn` prints it: the file written, the
// cross-validated figures beside the base profile's, and the weights in
// slot order; o is what Learn was given, base the base profile as the
// user named it.
func (l Learned) WriteText(w io.Writer, o LearnOptions, base string) error {
	res := l.Result
	var parts []string
	for _, s := range l.Profile.Weights.Active() {
		parts = append(parts, fmt.Sprintf("%s %.3f", s, l.Profile.Weights.Get(s)))
	}
	_, err := fmt.Fprintf(w, "wrote %s (profile %s) from %d queries of %s\n"+
		"%d-fold cross-validated nDCG@10: learned %.4f [%.4f, %.4f], base %s %.4f [%.4f, %.4f] (%s fusion of the slots' own lists)\n"+
		"weights: %s\n",
		o.Out, l.Profile.Name, l.Queries, l.Data,
		o.Folds, res.CV.Mean, res.CV.Low, res.CV.High, base, res.Base.Mean, res.Base.Low, res.Base.High, o.Fusion.Resolve().String(),
		strings.Join(parts, ", "))
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
