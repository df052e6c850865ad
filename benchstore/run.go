package benchstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// Opener builds the retriever a bench measures over the store cfg
// describes, with the reproducibility fields it knows and the function
// that releases it. A face passes one that loads the installed models and
// calls New; a test can pass a small exact retriever.
type Opener func(cfg Config) (bench.Retriever, bench.Repro, func() error, error)

// Set names a BEIR- or MTEB-layout set on disk: its directory, the
// queries and qrels files (a bare name is looked up in Data) and the
// qrels split.
type Set struct {
	Data, Queries, Qrels, Split string
}

// Load reads the set (bench.Load).
func (s Set) Load() (*bench.Dataset, error) {
	return bench.Load(s.Data, bench.LoadOptions{Split: s.Split,
		QueriesFile: inDataDir(s.Data, s.Queries), QrelsFile: inDataDir(s.Data, s.Qrels)})
}

// inDataDir resolves a bare file name against the data directory when it
// does not exist relative to the working directory.
func inDataDir(data, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if _, err := os.Stat(p); err == nil {
		return p
	}
	cand := filepath.Join(data, p)
	if _, err := os.Stat(cand); err == nil {
		return cand
	}
	return p
}

// storeDir is dir, or the default bench store of the set under base.
func storeDir(dir, base string, ds *bench.Dataset) string {
	if dir != "" {
		return dir
	}
	return filepath.Join(base, ds.Name, "store")
}

// RunOptions is `bench run` once its flags are parsed and checked: the
// planned runs, the profiles they name, where the store and the reports
// go, and the hooks a face draws progress and warnings with.
type RunOptions struct {
	Set Set
	// Out is the report directory (default bench-out/<set>); Store the
	// store directory (default <Out>/store).
	Out, Store string
	// Store is the retriever's configuration; its Dir is set from Store.
	Config Config
	// Profiles are the profile names the runs use (built-in or in
	// Config.Profiles); Baselines says the baseline runs are planned, whose
	// rrf profile the reproducibility block then names.
	Profiles  []string
	Baselines bool
	// Bench is the bench's own options (runs, k, metrics, baseline,
	// progress); its Repro and OnRun are filled here.
	Bench bench.RunOptions
	// Command is the command line, recorded for reproduction.
	Command string
	Open    Opener
	// Warn says something the user should know and the run goes on.
	Warn func(format string, args ...any)
}

// Run indexes the set into the store (or reuses it), runs the planned runs
// and writes the report files into the report directory after every run,
// so that an interrupted bench keeps what it finished (marked partial). It
// returns the report and the directory it wrote. It never deletes a store
// it did not build (New refuses one).
func Run(ctx context.Context, o RunOptions) (rep *bench.Report, out string, err error) {
	ds, err := o.Set.Load()
	if err != nil {
		return nil, "", fmt.Errorf("bench run: %w", err)
	}
	out = o.Out
	if out == "" {
		out = filepath.Join("bench-out", ds.Name)
	}
	cfg := o.Config
	cfg.Dir = o.Store
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(out, "store")
	}
	r, repro, closeR, err := o.Open(cfg)
	if err != nil {
		return nil, out, err
	}
	defer func() {
		if cerr := closeR(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close bench store: %w", cerr))
		}
	}()
	ro := o.Bench
	ro.Repro = o.repro(repro)
	ro.OnRun = saveRun(out, o.Warn)
	for _, w := range ds.Warnings {
		o.Warn("bench: %s", w)
	}
	rep, err = bench.Run(ctx, ds, r, ro)
	if err != nil {
		if rep != nil && len(rep.Runs) > 0 {
			if werr := rep.WriteAll(out); werr != nil {
				err = errors.Join(err, werr)
			}
			o.Warn("bench: the %d finished runs are in %s (marked partial)", len(rep.Runs), out)
		}
		return rep, out, fmt.Errorf("bench run: %w", err)
	}
	return rep, out, nil
}

// repro completes the retriever's reproducibility fields with the
// version, the command, every profile's weights and the stage sizes.
func (o RunOptions) repro(repro bench.Repro) bench.Repro {
	repro.CgraphVersion = engine.Version
	repro.Command = o.Command
	repro.ProfileWeights = map[string]map[string]float64{}
	for _, p := range o.Profiles {
		pr, ok := o.Config.Profiles[p]
		if !ok {
			pr, _ = engine.BuiltinProfile(p) // checked by the face
		}
		repro.ProfileWeights[pr.Name] = weightsByName(pr.Weights)
	}
	if o.Baselines {
		repro.ProfileWeights[bench.RRFProfileName] = map[string]float64{"E1": 0.5, "E6": 0.5}
	}
	if repro.StageSizes == nil {
		repro.StageSizes = map[string]int{}
	}
	repro.StageSizes["top_k"] = o.Bench.K
	if o.Config.NoThresholds {
		repro.StageSizes["no_thresholds"] = 1
	}
	return repro
}

// weightsByName is a profile's active weights by slot name.
func weightsByName(w engine.Weights) map[string]float64 {
	m := map[string]float64{}
	for _, s := range w.Active() {
		m[s.String()] = w.Get(s)
	}
	return m
}

// saveRun writes the report files after every finished run (each file
// through a temporary file and a rename), so an interrupted bench keeps
// what it did, and warns about the run's failed queries.
func saveRun(out string, warn func(string, ...any)) func(*bench.Report) error {
	return func(rep *bench.Report) error {
		run := rep.Runs[len(rep.Runs)-1]
		if run.Failed > 0 {
			warn("bench: run %s: %d of %d queries failed and were scored as empty rankings (first: %s: %s)",
				run.Name, run.Failed, len(run.Queries), run.Failures[0].Query, run.Failures[0].Error)
		}
		return rep.WriteAll(out)
	}
}

// WithFeedback runs each run once per feedback depth, named
// "RUN/feedback=N"; with one depth every run just takes it.
func WithFeedback(runs []bench.RunSpec, depths []int) []bench.RunSpec {
	return withVariants(runs, "feedback", depths, func(r *bench.RunSpec, n int) { r.Feedback = n })
}

// WithFusions runs each run of a fusion mode (multi_space, pipeline) once
// per fusion, named "RUN/fusion=NAME" (with one fusion each just takes it).
// Single-slot runs fuse nothing and stay as they are, and so does a run
// that names its fusion already: the rrf_e1_e6 baseline is plain RRF by
// definition.
func WithFusions(runs []bench.RunSpec, fusions []string) []bench.RunSpec {
	var out []bench.RunSpec
	for _, r := range runs {
		if r.Fusion != "" || (r.Mode != "multi_space" && r.Mode != "pipeline") {
			out = append(out, r)
			continue
		}
		out = append(out, withVariants([]bench.RunSpec{r}, "fusion", fusions, func(r *bench.RunSpec, f string) { r.Fusion = f })...)
	}
	return out
}

// WithCorrectScopes runs each run once per correction scope, named
// "RUN/correct=SCOPE"; with one scope every run just takes it.
func WithCorrectScopes(runs []bench.RunSpec, scopes []string) []bench.RunSpec {
	return withVariants(runs, "correct", scopes, func(r *bench.RunSpec, c string) { r.Correct = c })
}

// withVariants runs each run once per value, set by set and named
// "RUN/key=VALUE", so that one report pairs the values query by query; with
// one value every run takes it under its own name.
func withVariants[T any](runs []bench.RunSpec, key string, values []T, set func(*bench.RunSpec, T)) []bench.RunSpec {
	if len(values) == 1 {
		for i := range runs {
			set(&runs[i], values[0])
		}
		return runs
	}
	var out []bench.RunSpec
	for _, r := range runs {
		for _, v := range values {
			x := r
			x.Name = fmt.Sprintf("%s/%s=%v", r.DisplayName(), key, v)
			set(&x, v)
			out = append(out, x)
		}
	}
	return out
}

// invalid is a caller's error naming the option (as the CLI's flag is
// named, without dashes).
func invalid(field, problem, fix string) error {
	return &record.ValidationError{Field: field, Problem: problem, Fix: fix}
}
