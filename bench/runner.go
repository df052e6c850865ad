package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"strings"
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
// run's result, so a degraded run is never reported as if it were whole. A
// note's Text must not vary with the run or the query (put those in
// Example), so reports can merge the same note across runs.
type RunNoter interface {
	Notes(run string) []Note
}

// BuildTimer is implemented by a Retriever that can reuse an index it built
// earlier: BuildSeconds is how long that build took (0 if unknown), so a
// report over a reused index still states the real ingest throughput.
type BuildTimer interface {
	BuildSeconds() float64
}

// IndexDescriber is implemented by a Retriever that can say what its index
// is (e.g. "cgraph store at out/store") and when it was built (zero when
// unknown), asked after Index; reports print it in their ingest line.
type IndexDescriber interface {
	IndexInfo() (what string, builtAt time.Time)
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
	// Correct is the query typo correction the retriever applies: empty
	// for its default, else a scope it names (benchstore: keywords,
	// every, off), so that one report pairs the scopes query by query.
	Correct string `json:",omitempty"`
	// Feedback is the retriever's pseudo-relevance feedback depth (the
	// top documents that expand the query; 0 off), so that one report
	// pairs runs with and without it query by query.
	Feedback int `json:",omitempty"`
	// Fusion is the retriever's fusion of the spaces' lists (rrf, minmax;
	// empty for its default), so that one report pairs fusions query by
	// query.
	Fusion string `json:",omitempty"`
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
	// MetricNames. A K below the deepest cutoff is warned about.
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
	// Baseline names the run every other is tested against (default: the
	// best single-slot run on the headline metric, see DefaultBaseline);
	// Alpha is the level of the win/loss verdicts (default DefaultAlpha).
	Baseline string
	Alpha    float64
	// RunDir, if set, receives one TREC run file per run
	// (TRECRunFileName): every query's full ranking (up to K) with scores,
	// written as the run goes and renamed into place when it is complete.
	RunDir string
	// OnRun, if set, is called after each run with the report so far
	// (Partial until the last run), so a caller can save finished runs
	// before the next one starts. An error stops the bench.
	OnRun func(*Report) error
}

// Run indexes the dataset's corpus, evaluates every run over the queries and
// returns the report.
//
// A query whose search fails (an error or a panic in the retriever) is
// recorded in its run's Failures, scored as an empty ranking and left out
// of the latency figures; the run and the bench go on. Only an index error
// or the end of ctx stops the bench: after ctx ends, Run returns the report
// of the runs finished so far (Partial, with StopReason) along with the
// error; the run that was interrupted is not reported.
func Run(ctx context.Context, ds *Dataset, r Retriever, o RunOptions) (*Report, error) {
	if err := checkRunNames(o.Runs, o.RunDir != ""); err != nil {
		return nil, err
	}
	if err := checkBaseline(o.Runs, o.Baseline); err != nil {
		return nil, err
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
	queries := sampleQueries(ds.Queries, o.MaxQueries, o.Seed)
	rep := newReport(ds, queries, metrics, o)
	if err := indexCorpus(ctx, ds, r, rep, o); err != nil {
		return nil, err
	}
	for _, spec := range o.Runs {
		res, err := runOne(ctx, ds, queries, r, spec, metrics, o)
		if err != nil {
			rep.StopReason = fmt.Sprintf("stopped after %d of %d runs: %v (that run is not reported)", len(rep.Runs), len(o.Runs), err)
			return rep, errors.Join(err, rep.testFinished(o))
		}
		rep.Runs = append(rep.Runs, res)
		rep.Partial = len(rep.Runs) < len(o.Runs)
		if err := rep.updatePeakRSS(); err != nil {
			return rep, err
		}
		if !rep.Partial {
			if err := rep.TestSignificance(o.Baseline, o.Alpha, o.Seed); err != nil {
				return rep, err
			}
		}
		if o.OnRun != nil {
			if err := o.OnRun(rep); err != nil {
				return rep, fmt.Errorf("save the report after run %s: %w", res.Name, err)
			}
		}
	}
	return rep, nil
}

// checkRunNames refuses no runs, unnamed and repeated runs, and (with
// runFiles) two runs whose TREC run files would have one name.
func checkRunNames(runs []RunSpec, runFiles bool) error {
	if len(runs) == 0 {
		return fmt.Errorf("no runs requested: give at least one mode or profile")
	}
	seen := map[string]bool{}
	files := map[string]string{}
	for _, s := range runs {
		n := s.DisplayName()
		if n == "" {
			return fmt.Errorf("a run has neither a name nor a mode")
		}
		if seen[n] {
			return fmt.Errorf("run %q requested twice: give each run a distinct name", n)
		}
		seen[n] = true
		f := TRECRunFileName(n)
		if other, ok := files[f]; ok && runFiles {
			return fmt.Errorf("runs %q and %q would both write the TREC run file %s: rename one", other, n, f)
		}
		files[f] = n
	}
	return nil
}

// checkBaseline refuses a baseline that names none of the runs.
func checkBaseline(runs []RunSpec, baseline string) error {
	if baseline == "" {
		return nil
	}
	var names []string
	for _, s := range runs {
		if s.DisplayName() == baseline {
			return nil
		}
		names = append(names, s.DisplayName())
	}
	return fmt.Errorf("baseline %q is not one of the runs (%s)", baseline, strings.Join(names, ", "))
}

// testFinished tests the runs of an interrupted bench against the
// baseline, when it is among them.
func (rep *Report) testFinished(o RunOptions) error {
	if len(rep.Runs) == 0 {
		return nil
	}
	if _, err := rep.Run(o.Baseline); o.Baseline != "" && err != nil {
		return nil // the baseline did not run: nothing to test against
	}
	return rep.TestSignificance(o.Baseline, o.Alpha, o.Seed)
}

// sampleQueries returns all queries, or a seeded sample of n in file order.
func sampleQueries(all []Query, n int, seed uint64) []Query {
	if n <= 0 || n >= len(all) {
		return all
	}
	out := make([]Query, 0, n)
	for _, i := range sampleIndexes(len(all), n, seed) {
		out = append(out, all[i])
	}
	return out
}

// newReport starts the report with everything known before indexing: the
// dataset and its checksums, the machine, the seeds and the warnings.
func newReport(ds *Dataset, queries []Query, metrics []Metric, o RunOptions) *Report {
	rep := &Report{Version: ReportVersion, Dataset: ds.Name, Repro: o.Repro, Metrics: metricNames(metrics),
		RunsPlanned: len(o.Runs), Partial: true, Warnings: append([]string(nil), ds.Warnings...)}
	if k := MaxCutoff(metrics); k > o.K {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("rankings hold at most %d results but a metric looks %d deep: its values are lower bounds (raise --k)", o.K, k))
	}
	rp := &rep.Repro
	rp.DatasetChecksum, rp.DatasetChecksums, rp.DatasetFiles, rp.Split = ds.Checksum, ds.Checksums, ds.Files, ds.Split
	rp.Queries, rp.Cores, rp.GoVersion = len(queries), runtime.NumCPU(), runtime.Version()
	if rp.CgraphCommit.Revision == "" {
		rp.CgraphCommit = ReadBuildCommit()
	}
	if rp.CgraphCommit.Revision == "" {
		rp.CgraphCommit = versionCommit(rp.CgraphVersion)
	}
	names := make([]string, len(ds.QueriesFiles))
	for i, f := range ds.QueriesFiles {
		names[i] = filepath.Base(f)
	}
	rp.QueriesFile = strings.Join(names, ", ")
	rp.Seeds = maps.Clone(rp.Seeds)
	if rp.Seeds == nil {
		rp.Seeds = map[string]uint64{}
	}
	rp.Seeds["bootstrap"] = o.Seed
	if len(queries) < len(ds.Queries) {
		rp.Seeds["query_sample"] = o.Seed
	}
	return rep
}

// indexCorpus indexes the corpus and fills rep.Ingest and what the
// retriever knows about itself once indexed.
func indexCorpus(ctx context.Context, ds *Dataset, r Retriever, rep *Report, o RunOptions) error {
	t0 := time.Now()
	progress := func(int) {}
	if o.IndexProgress != nil {
		progress = func(done int) { o.IndexProgress(done, len(ds.Corpus)) }
	}
	reused, err := r.Index(ctx, ds.Corpus, progress)
	if err != nil {
		return fmt.Errorf("index %d documents of %s: %w", len(ds.Corpus), ds.Name, err)
	}
	secs := time.Since(t0).Seconds()
	rep.Ingest = Ingest{Docs: len(ds.Corpus), Seconds: secs, Reused: reused}
	if !reused {
		rep.Ingest.BuiltAt = time.Now().UTC().Truncate(time.Second)
	}
	if d, ok := r.(IndexDescriber); ok {
		what, at := d.IndexInfo()
		rep.Ingest.Index = what
		if !at.IsZero() {
			rep.Ingest.BuiltAt = at.UTC().Truncate(time.Second)
		}
	}
	if err := rep.updatePeakRSS(); err != nil {
		return err
	}
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
	return nil
}

func (rep *Report) updatePeakRSS() error {
	rss, err := PeakRSSBytes()
	if err != nil {
		return err
	}
	rep.Ingest.PeakRSSBytes = max(rep.Ingest.PeakRSSBytes, rss)
	return nil
}

// search calls r.Search and turns a panic into an error, so one bad query
// cannot end a bench.
func search(ctx context.Context, r Retriever, req SearchRequest) (ranked []Ranked, timings []StageTiming, err error) {
	defer func() {
		if p := recover(); p != nil {
			ranked, timings, err = nil, nil, fmt.Errorf("retriever panicked: %v", p)
		}
	}()
	return r.Search(ctx, req)
}

// runAcc accumulates one run's per-query results.
type runAcc struct {
	res        RunResult
	perQuery   []Metrics
	total      []float64 // end-to-end ms of the queries that did not fail
	stageMS    map[string][]float64
	stageOrder []string
}

// runOne evaluates one run over queries. It returns an error only when ctx
// ends; a failing query is recorded and scored as an empty ranking.
func runOne(ctx context.Context, ds *Dataset, queries []Query, r Retriever, spec RunSpec, metrics []Metric, o RunOptions) (_ RunResult, err error) {
	name := spec.DisplayName()
	acc := &runAcc{res: RunResult{Name: name, Mode: spec.Mode, Profile: spec.Profile}, stageMS: map[string][]float64{},
		perQuery: make([]Metrics, 0, len(queries))}
	var trec *trecRunWriter
	if o.RunDir != "" {
		if trec, err = newTRECRunWriter(o.RunDir, name); err != nil {
			return acc.res, err
		}
		defer func() {
			if err != nil {
				trec.abort()
			}
		}()
	}
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return acc.res, fmt.Errorf("run %s interrupted after %d of %d queries: %w", name, i, len(queries), err)
		}
		start := time.Now()
		ranked, timings, err := search(ctx, r, SearchRequest{Query: q, Run: spec, K: o.K})
		elapsed := time.Since(start)
		if err != nil && ctx.Err() != nil {
			return acc.res, fmt.Errorf("run %s interrupted at query %s: %w", name, q.ID, ctx.Err())
		}
		ranked = ranked[:min(len(ranked), o.K)]
		acc.add(q, ranked, timings, err, elapsed, ds.Qrels[q.ID], metrics)
		if trec != nil && err == nil {
			if err := trec.add(RankedQuery{Query: q.ID, Ranked: ranked}); err != nil {
				return acc.res, fmt.Errorf("run %s: %w", name, err)
			}
		}
		if o.Progress != nil {
			o.Progress(name, i+1, len(queries))
		}
	}
	if rn, ok := r.(RunNoter); ok {
		acc.res.Notes = rn.Notes(name)
	}
	if trec != nil {
		if err := trec.commit(); err != nil {
			return acc.res, fmt.Errorf("run %s: %w", name, err)
		}
		acc.res.RunFile, acc.res.RunFileAdjusted = filepath.Base(trec.final), trec.adjusted
	}
	return acc.finish(metrics, o.Seed), nil
}

// add records one query: its metrics (over an empty ranking when err is
// set), and its latency and stage times unless it failed.
func (a *runAcc) add(q Query, ranked []Ranked, timings []StageTiming, err error, elapsed time.Duration, judged map[DocID]int, metrics []Metric) {
	ms := float64(elapsed.Nanoseconds()) / 1e6
	if err != nil {
		a.res.Failures = append(a.res.Failures, QueryFailure{Query: q.ID, Error: err.Error()})
		m := EvaluateMetrics(nil, judged, metrics)
		a.perQuery = append(a.perQuery, m)
		a.res.Queries = append(a.res.Queries, QueryResult{ID: q.ID, Metrics: m, LatencyMS: ms, Top: []DocID{}, Error: err.Error()})
		return
	}
	ids := make([]DocID, len(ranked))
	for i, d := range ranked {
		ids[i] = d.ID
	}
	m := EvaluateMetrics(ids, judged, metrics)
	a.perQuery = append(a.perQuery, m)
	a.total = append(a.total, ms)
	qr := QueryResult{ID: q.ID, Metrics: m, LatencyMS: ms, Top: ids[:min(10, len(ids))]}
	if len(timings) > 0 {
		qr.StagesMS = map[string]float64{}
	}
	for _, st := range timings {
		if _, ok := a.stageMS[st.Stage]; !ok {
			a.stageOrder = append(a.stageOrder, st.Stage)
		}
		v := float64(st.Duration.Nanoseconds()) / 1e6
		a.stageMS[st.Stage] = append(a.stageMS[st.Stage], v)
		qr.StagesMS[st.Stage] += v
	}
	a.res.Queries = append(a.res.Queries, qr)
}

// finish computes the run's means, bootstrap CIs and latency summaries.
func (a *runAcc) finish(metrics []Metric, seed uint64) RunResult {
	res := a.res
	res.Failed = len(res.Failures)
	res.Metrics = Mean(a.perQuery)
	res.LatencyMS = summarize(a.total)
	for _, s := range a.stageOrder {
		res.Stages = append(res.Stages, StageStats{Stage: s, LatencyMS: summarize(a.stageMS[s]), Queries: len(a.stageMS[s])})
	}
	res.CI95 = map[string]CI{}
	for k, m := range metrics {
		xs := make([]float64, len(a.perQuery))
		for i, pq := range a.perQuery {
			xs[i] = pq[m.Name]
		}
		res.CI95[m.Name] = BootstrapCI(xs, seed+uint64(k))
	}
	return res
}
