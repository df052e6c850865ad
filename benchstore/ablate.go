package benchstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/engine"
)

// AblateOptions is `bench ablate` once its flags are parsed: the profile
// whose fused slots are removed in turn, the mode it runs in (pipeline or
// multi_space, checked by the face), the set and the store.
type AblateOptions struct {
	Set     Set
	Profile engine.Profile
	Mode    string
	// Store is the store directory (default bench-out/<set>/store).
	Store      string
	MaxQueries int
	Seed       uint64
	Open       Opener
	// Progress and IndexProgress draw the bench's progress (nil: none).
	Progress      func(run string, done, total int)
	IndexProgress func(done, total int)
}

// AblationRow is one slot removed: the profile without it against the
// whole profile, query by query (ΔnDCG@10 = without − with).
type AblationRow struct {
	Removed   string  `json:"removed"`
	NDCG      float64 `json:"ndcg_at_10"`
	Delta     float64 `json:"delta"`
	Low       float64 `json:"delta_ci95_low"`
	High      float64 `json:"delta_ci95_high"`
	PValue    float64 `json:"p_value"`
	Wins      int     `json:"wins"`
	Losses    int     `json:"losses"`
	Evaluated int     `json:"queries"`
}

// Ablation is Ablate's answer (and `bench ablate --json`).
type Ablation struct {
	Data    string        `json:"data"`
	Profile string        `json:"profile"`
	Mode    string        `json:"mode"`
	Full    float64       `json:"ndcg_at_10"`
	Rows    []AblationRow `json:"ablations"`
}

// Ablate runs the profile and, for each weighted fused slot, the profile
// without it (bench.Ablations), over the set, and compares each ablated run
// with the whole profile (paired bootstrap and randomisation test). A
// profile with nothing to ablate is a *record.ValidationError.
func Ablate(ctx context.Context, o AblateOptions) (out Ablation, err error) {
	abl, err := bench.Ablations(o.Profile)
	if err != nil {
		return Ablation{}, invalid("profile", err.Error(), "")
	}
	ds, err := o.Set.Load()
	if err != nil {
		return Ablation{}, fmt.Errorf("bench ablate: %w", err)
	}
	custom := map[string]engine.Profile{o.Profile.Name: o.Profile}
	runs := []bench.RunSpec{{Mode: o.Mode, Profile: o.Profile.Name}}
	for _, ab := range abl {
		custom[ab.Profile.Name] = ab.Profile
		runs = append(runs, bench.RunSpec{Mode: o.Mode, Profile: ab.Profile.Name})
	}
	r, repro, closeR, err := o.Open(Config{Dir: storeDir(o.Store, "bench-out", ds), Profiles: custom})
	if err != nil {
		return Ablation{}, err
	}
	defer func() {
		if cerr := closeR(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close bench store: %w", cerr))
		}
	}()
	repro.CgraphVersion = engine.Version
	rep, err := bench.Run(ctx, ds, r, bench.RunOptions{Runs: runs, K: 100, MaxQueries: o.MaxQueries, Seed: o.Seed,
		Repro: repro, Progress: o.Progress, IndexProgress: o.IndexProgress})
	if err != nil {
		return Ablation{}, fmt.Errorf("bench ablate: %w", err)
	}
	out = Ablation{Data: ds.Name, Profile: o.Profile.Name, Mode: o.Mode}
	out.Full, _ = rep.Runs[0].Metrics.Get("ndcg@10")
	for i, ab := range abl {
		c, err := bench.Compare(&rep.Runs[0], &rep.Runs[i+1], "ndcg@10", o.Seed)
		if err != nil {
			return Ablation{}, fmt.Errorf("bench ablate: %w", err)
		}
		out.Rows = append(out.Rows, AblationRow{Removed: ab.Slot.String(), NDCG: c.MeanB, Delta: c.MeanDelta,
			Low: c.CI95.Lo, High: c.CI95.Hi, PValue: c.PValue, Wins: c.Wins, Losses: c.Losses, Evaluated: c.Queries})
	}
	return out, nil
}
