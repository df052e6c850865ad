package bench

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// Retriever is what the bench runner needs from a search system. The CLI
// wires the engine and pipeline behind it; tests use a small exact retriever.
// Implementations need not be safe for concurrent use: the runner calls them
// from one goroutine.
type Retriever interface {
	// Index makes docs searchable. reused is true when an existing index
	// built from the same corpus and models was kept instead of rebuilt.
	// progress, never nil, should be called with the number of documents
	// indexed so far (e.g. after each batch).
	Index(ctx context.Context, docs []Doc, progress func(done int)) (reused bool, err error)
	// Search returns up to req.K documents, best first, and the time spent in
	// each pipeline stage (in stage order; may be empty).
	Search(ctx context.Context, req SearchRequest) ([]Ranked, []StageTiming, error)
}

// ReproReporter is implemented by a Retriever that knows reproducibility
// facts only once its index is built (the models that computed the stored
// vectors, the stage sizes it searches with). Run calls Repro after Index and
// before the first search; fields it sets override RunOptions.Repro.
type ReproReporter interface {
	Repro(r *Repro)
}

// RunNoter is implemented by a Retriever that has something to say about a
// run once its queries are done: a slot that was unavailable, a fallback that
// served a stage, a space that returned nothing. Run stores the notes in the
// run's result, so a degraded run is never reported as if it were whole.
type RunNoter interface {
	Notes(run string) []string
}

// BuildTimer is implemented by a Retriever that can reuse an index it built
// earlier: BuildSeconds is how long that build took (0 if unknown), so a
// report over a reused index still states the real ingest throughput.
type BuildTimer interface {
	BuildSeconds() float64
}

// SearchRequest is one query under one run's settings.
type SearchRequest struct {
	Query Query
	Run   RunSpec
	K     int
}

// RunSpec names one (mode, profile) combination to evaluate.
type RunSpec struct {
	Name      string // report name; default "<mode>:<profile>" (or mode alone)
	Mode      string // e.g. pipeline, multi_space, e1_only, embedder_first
	Profile   string // weight profile, may be empty for single-space modes
	Embedder  string // primary slot for embedder_first, e.g. E6
	Direction string // causes|effects for causal searches, else empty
}

// DisplayName returns Name, or the default built from mode and profile.
func (s RunSpec) DisplayName() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Profile == "":
		return s.Mode
	}
	return s.Mode + ":" + s.Profile
}

// Ranked is one retrieved document.
type Ranked struct {
	ID    DocID
	Score float64
}

// StageTiming is the time one pipeline stage took for one query.
type StageTiming struct {
	Stage    string
	Duration time.Duration
}

// RunOptions configures Run.
type RunOptions struct {
	Runs []RunSpec
	K    int // results per query; default 100 (enough for Recall@100 and MAP@100)
	// MaxQueries evaluates a seeded uniform sample of N queries (kept in
	// file order; the same Seed picks the same ids from a typo file of the
	// same set); 0 = all. Not the first N: prepared sets list queries in
	// corpus order, so a prefix would favour whatever prefers low document
	// numbers (e.g. rank ties broken by document number).
	MaxQueries int
	Seed       uint64 // seed of the bootstrap and of the MaxQueries sample
	// Metrics names the metrics to compute (ParseMetric forms); default
	// MetricNames. K must reach the deepest cutoff.
	Metrics []string
	// Repro is copied into the report; Run fills the dataset, machine and
	// seed fields itself.
	Repro Repro
	// Progress, if set, is called after each query with the run name and
	// the number of queries done out of total.
	Progress func(run string, done, total int)
	// IndexProgress, if set, is called while the corpus is indexed with the
	// number of documents done out of total.
	IndexProgress func(done, total int)
}

// Run indexes the dataset's corpus, evaluates every run over the queries and
// returns the report. A search error stops the whole run and is returned
// with the run and query that failed: a bench never hides a failing query.
func Run(ctx context.Context, ds *Dataset, r Retriever, o RunOptions) (*Report, error) {
	if len(o.Runs) == 0 {
		return nil, fmt.Errorf("no runs requested: give at least one mode or profile")
	}
	seen := map[string]bool{}
	for _, s := range o.Runs {
		n := s.DisplayName()
		if n == "" {
			return nil, fmt.Errorf("a run has neither a name nor a mode")
		}
		if seen[n] {
			return nil, fmt.Errorf("run %q requested twice: give each run a distinct name", n)
		}
		seen[n] = true
	}
	if o.K <= 0 {
		o.K = 100
	}
	if len(o.Metrics) == 0 {
		o.Metrics = MetricNames
	}
	metrics, err := ParseMetrics(o.Metrics)
	if err != nil {
		return nil, err
	}
	queries := ds.Queries
	if o.MaxQueries > 0 && o.MaxQueries < len(queries) {
		queries = make([]Query, 0, o.MaxQueries)
		for _, i := range sampleIndexes(len(ds.Queries), o.MaxQueries, o.Seed) {
			queries = append(queries, ds.Queries[i])
		}
	}

	rep := &Report{Version: ReportVersion, Dataset: ds.Name, Repro: o.Repro, Metrics: metricNames(metrics)}
	if k := MaxCutoff(metrics); k > o.K {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("rankings hold at most %d results but a metric looks %d deep: its values are lower bounds (raise --k)", o.K, k))
	}
	t0 := time.Now()
	progress := func(int) {}
	if o.IndexProgress != nil {
		progress = func(done int) { o.IndexProgress(done, len(ds.Corpus)) }
	}
	reused, err := r.Index(ctx, ds.Corpus, progress)
	if err != nil {
		return nil, fmt.Errorf("index %d documents of %s: %w", len(ds.Corpus), ds.Name, err)
	}
	secs := time.Since(t0).Seconds()
	rss, err := PeakRSSBytes()
	if err != nil {
		return nil, err
	}
	rep.Ingest = Ingest{Docs: len(ds.Corpus), Seconds: secs, PeakRSSBytes: rss, Reused: reused}
	if rr, ok := r.(ReproReporter); ok {
		rr.Repro(&rep.Repro)
	}
	build := secs
	if reused {
		// Opening a reused index says nothing about ingest speed: report the
		// build that made it, when the retriever knows it.
		build = 0
		if bt, ok := r.(BuildTimer); ok {
			build = bt.BuildSeconds()
			rep.Ingest.BuiltSeconds = build
		}
	}
	if build > 0 {
		rep.Ingest.DocsPerS = float64(len(ds.Corpus)) / build
	}

	for _, spec := range o.Runs {
		res, err := runOne(ctx, ds, queries, r, spec, metrics, o)
		if err != nil {
			return nil, err
		}
		rep.Runs = append(rep.Runs, res)
	}
	if rss, err = PeakRSSBytes(); err != nil {
		return nil, err
	}
	rep.Ingest.PeakRSSBytes = max(rep.Ingest.PeakRSSBytes, rss)

	rp := &rep.Repro
	rp.DatasetChecksum, rp.DatasetChecksums, rp.DatasetFiles, rp.Split = ds.Checksum, ds.Checksums, ds.Files, ds.Split
	rp.Queries, rp.Cores, rp.GoVersion = len(queries), runtime.NumCPU(), runtime.Version()
	if rp.Seeds == nil {
		rp.Seeds = map[string]uint64{}
	}
	rp.Seeds["bootstrap"] = o.Seed
	if len(queries) < len(ds.Queries) {
		rp.Seeds["query_sample"] = o.Seed
	}
	return rep, nil
}

func runOne(ctx context.Context, ds *Dataset, queries []Query, r Retriever, spec RunSpec, metrics []Metric, o RunOptions) (RunResult, error) {
	name := spec.DisplayName()
	res := RunResult{Name: name, Mode: spec.Mode, Profile: spec.Profile}
	var total []float64
	stageMS := map[string][]float64{}
	var stageOrder []string
	perQuery := make([]Metrics, 0, len(queries))
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("run %s: %w", name, err)
		}
		start := time.Now()
		ranked, timings, err := r.Search(ctx, SearchRequest{Query: q, Run: spec, K: o.K})
		elapsed := time.Since(start)
		if err != nil {
			return res, fmt.Errorf("run %s, query %s: %w", name, q.ID, err)
		}
		ids := make([]DocID, 0, min(len(ranked), o.K))
		for j, d := range ranked {
			if j >= o.K {
				break
			}
			ids = append(ids, d.ID)
		}
		m := EvaluateMetrics(ids, ds.Qrels[q.ID], metrics)
		perQuery = append(perQuery, m)
		ms := float64(elapsed.Nanoseconds()) / 1e6
		total = append(total, ms)
		qr := QueryResult{ID: q.ID, Metrics: m, LatencyMS: ms, Top: ids[:min(10, len(ids))]}
		if len(timings) > 0 {
			qr.StagesMS = map[string]float64{}
		}
		for _, st := range timings {
			if _, ok := stageMS[st.Stage]; !ok {
				stageOrder = append(stageOrder, st.Stage)
			}
			v := float64(st.Duration.Nanoseconds()) / 1e6
			stageMS[st.Stage] = append(stageMS[st.Stage], v)
			qr.StagesMS[st.Stage] += v
		}
		res.Queries = append(res.Queries, qr)
		if o.Progress != nil {
			o.Progress(name, i+1, len(queries))
		}
	}
	if rn, ok := r.(RunNoter); ok {
		res.Notes = rn.Notes(name)
	}
	res.Metrics = Mean(perQuery)
	res.LatencyMS = summarize(total)
	for _, s := range stageOrder {
		res.Stages = append(res.Stages, StageStats{Stage: s, LatencyMS: summarize(stageMS[s]), Queries: len(stageMS[s])})
	}
	res.CI95 = map[string]CI{}
	for k, m := range metrics {
		xs := make([]float64, len(perQuery))
		for i, pq := range perQuery {
			xs[i] = pq[m.Name]
		}
		res.CI95[m.Name] = BootstrapCI(xs, o.Seed+uint64(k))
	}
	return res, nil
}
