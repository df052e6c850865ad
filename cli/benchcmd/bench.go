package benchcmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/benchstore"
	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
)

func init() { app.Register(newBenchCmd) }

func newBenchCmd(a *app.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Build retrieval sets, run benchmarks and compare runs",
		Long: `Benchmark retrieval on BEIR-layout sets (corpus.jsonl, queries.jsonl, qrels/<split>.tsv;
any of them .gz; TREC qrels too) and on the MTEB / Hugging Face layout of the
MTEB and CoIR code-retrieval sets (corpus/, queries/, data/ of parquet or JSONL).

  bench prepare   build a CodeSearchNet-style set from a source tree on this machine
  bench run       index a set into a fresh store, run modes × profiles, write reports
  bench compare   paired per-query comparison of two runs (bootstrap CI, randomisation p)`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newBenchPrepareCmd(a), newBenchRunCmd(a), newBenchCompareCmd(a), newBenchAblateCmd(a))
	return cmd
}

func newBenchPrepareCmd(a *app.App) *cobra.Command {
	var o bench.PrepareOptions
	var hub, split string
	cmd := &cobra.Command{
		Use:   "prepare csn-go|csn-python|csn-java|csn-javascript|csn-php|csn-rust|mteb:TASK --out DIR",
		Short: "Build a code-search set from a source tree, or fetch an MTEB task",
		Long: `Build a CodeSearchNet-style BEIR set from real source files: each query is the first
paragraph of a function's doc comment (Go), docstring (Python), /** */ block
(Javadoc for Java, JSDoc for JavaScript, PHPDoc for PHP; block tags and HTML dropped) or /// lines
(Rust; Markdown reduced to its text, attributes left out of the code), its one
relevant document is the function without that comment. Test files, testdata/vendor
directories, trivial functions (< 3 lines, queries < 4 words) and duplicates are
skipped. Go queries lose their leading function name (Go comments start with it,
which would let a keyword match find every answer by name alone).

The walk is sorted and sampling (--max) is seeded, so the same tree and flags give
byte-identical files. --typos also writes queries-typos.jsonl: about 30% of the
words of 4+ letters get one QWERTY-neighbour typo, seeded per query.

Writes corpus.jsonl, queries.jsonl, qrels/test.tsv, prepare.json (and
queries-typos.jsonl) into --out.

mteb:TASK fetches an MTEB retrieval task from the Hugging Face hub (--hub,
$CGRAPH_HF_ENDPOINT or $HF_ENDPOINT replace https://huggingface.co) into
--out, in the hub's own layout, which bench run reads: TASK is one of the code
tasks (` + bench.MTEBTaskNames() + `) at the revision MTEB pins,
or a dataset repository owner/name[@revision]. Each file is checked against the
sha256 the hub lists; prepare.json records the commit and the files.`,
		Example: `  cgraph bench prepare csn-go --src "$(go env GOROOT)/src" --out sets/csn-go --typos --max 2000
  cgraph bench prepare csn-python --src /usr/lib/python3.11 --out sets/csn-py
  cgraph bench prepare csn-java --src /tmp/jdk17-src --out sets/csn-java --max 2000
  cgraph bench prepare csn-rust --src vendor --out sets/csn-rust --max 2000   # after cargo vendor
  cgraph bench prepare mteb:CosQA --out sets/cosqa`,
		Args: app.ExactArgs(1, "the set kind (csn-go, csn-python, csn-java, csn-javascript, csn-php, csn-rust or mteb:TASK)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if task, ok := strings.CutPrefix(args[0], "mteb:"); ok {
				return prepareMTEB(a, task, o.Out, hub, split)
			}
			return prepareCSN(a, args[0], o, cmd.Flags().Changed("lang"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Src, "src", "", "source tree to read")
	f.StringVar(&o.Out, "out", "", "output directory (created)")
	f.StringVar(&o.Lang, "lang", "go", "language: go, python, java or javascript")
	f.BoolVar(&o.Typos, "typos", false, "also write queries-typos.jsonl with keyboard typos")
	f.IntVar(&o.Max, "max", 0, "keep at most N pairs, a seeded sample (0 = all)")
	f.Uint64Var(&o.Seed, "seed", 1, "seed for sampling and typos")
	f.StringVar(&hub, "hub", "", "mteb: Hugging Face hub URL (default $CGRAPH_HF_ENDPOINT, $HF_ENDPOINT or "+bench.DefaultHubEndpoint+")")
	f.StringVar(&split, "split", "test", "mteb: the qrels split to check the fetched set with")
	_ = cmd.MarkFlagDirname("src") // fails only for an unknown flag
	_ = cmd.MarkFlagDirname("out") // fails only for an unknown flag
	return cmd
}

// prepareCSN builds a CodeSearchNet-style set of kind (csn-go,
// csn-python, csn with --lang) from a source tree; langSet says --lang was
// given.
func prepareCSN(a *app.App, kind string, o bench.PrepareOptions, langSet bool) error {
	o, err := bench.CSNOptions(kind, o, langSet)
	if err != nil {
		return err
	}
	st, err := bench.Prepare(o)
	if err != nil {
		return fmt.Errorf("bench prepare: %w", err)
	}
	if a.JSON {
		return a.PrintJSON(map[string]any{"out": o.Out, "lang": bench.NormLang(o.Lang), "stats": st})
	}
	a.Printf("wrote %d query/function pairs to %s (%d files read, %d trivial, %d duplicates, %d unparsable files skipped)\n",
		st.Pairs, o.Out, st.Files, st.Trivial, st.Duplicates, st.ParseErrors)
	return nil
}

// prepareMTEB fetches an MTEB task from the hub into out and loads it back,
// so a set that bench run could not read is reported here.
func prepareMTEB(a *app.App, spec, out, hub, split string) error {
	task, err := bench.ResolveMTEBTask(spec)
	if err != nil {
		return &app.UsageError{Problem: err.Error(), Fix: "e.g. mteb:CosQA or mteb:CoIR-Retrieval/cosqa@main"}
	}
	if out == "" {
		return app.Usagef("give an output directory with --out DIR", "--out is missing")
	}
	res, err := bench.FetchMTEB(a.Context(), bench.FetchOptions{Task: task, Out: out, Endpoint: hub,
		Progress: func(path string, done, total int) {
			if !a.JSON {
				a.Warnf("bench prepare: %d/%d %s", done, total, path)
			}
		}})
	if err != nil {
		return fmt.Errorf("bench prepare: %w", err)
	}
	ds, err := bench.Load(out, bench.LoadOptions{Split: split})
	if err != nil {
		return fmt.Errorf("bench prepare: fetched %s into %s, but it does not load: %w", task.Repo, out, err)
	}
	if a.JSON {
		return a.PrintJSON(map[string]any{"out": out, "fetch": res, "docs": len(ds.Corpus), "queries": len(ds.Queries), "warnings": ds.Warnings})
	}
	a.Printf("fetched %s@%s (%d files) into %s: %d documents, %d judged queries (split %s)\n",
		task.Repo, res.Commit, len(res.Files), out, len(ds.Corpus), len(ds.Queries), split)
	for _, w := range ds.Warnings {
		a.Warnf("bench prepare: %s", w)
	}
	return nil
}

// Retriever builds the retriever `bench run` measures: it indexes into
// a fresh store in cfg.Dir (or reuses one built from the same corpus and
// models), understands every bench.RunSpec mode and bench.RRFProfileName, and
// reports the reproducibility fields it knows (models with sha256, stage
// sizes). close releases the store. It is a variable so tests can measure the
// command with a small exact retriever.
var Retriever = newEngineRetriever

// newEngineRetriever is the real bench retriever: a store fingerprinted by
// the models of --models-dir (benchstore).
func newEngineRetriever(a *app.App, cfg benchstore.Config) (bench.Retriever, bench.Repro, func() error, error) {
	reg, closeReg, err := a.LoadRegistry() // --device and --precision, as every command
	if err != nil {
		return nil, bench.Repro{}, nil, fmt.Errorf("bench run: %w", err)
	}
	r, err := benchstore.New(cfg, reg, closeReg)
	if err != nil {
		return nil, bench.Repro{}, nil, errors.Join(err, app.CloseRegistry(closeReg))
	}
	for _, st := range reg.Statuses() {
		if st.State == engine.SlotUnavailable {
			a.Warnf("bench: a slot is unavailable: %s", st.Reason)
		}
	}
	return r, bench.Repro{}, r.Close, nil
}

type benchRunFlags struct {
	set                                 benchstore.Set
	out, store, direction               string
	runOut, baseline                    string
	alpha                               float64
	profiles, modes, embedders, metrics []string
	maxQueries, k                       int
	recallK, filterK, fusionK, batch    int
	rerankWeight                        float64
	seed                                uint64
	noBaselines, noThresholds           bool
	correct                             []string
	feedback                            []int
	fusion                              []string
}

func newBenchRunCmd(a *app.App) *cobra.Command {
	var f benchRunFlags
	cmd := &cobra.Command{
		Use:   "run --data DIR",
		Short: "Index a BEIR or MTEB set and evaluate modes × profiles (nDCG@10, MRR@10, Recall@10/100, MAP)",
		Long: `Index the corpus of a BEIR- or MTEB-layout set into a fresh store, run every requested
(mode, profile) over its queries and write report.json, report.md, quality.svg
(bootstrap 95% CIs) and latency.svg (per stage) into --out.

The store (--store, default <out>/store) is built with the installed models
(--models-dir) and reused by later runs while <store>.bench.json says it holds
the same corpus (sha256) computed by the same slot producers; otherwise it is
rebuilt. A non-empty directory without that manifest is refused, never deleted.
--max-queries evaluates a sample seeded by --seed, the same query ids for a
clean and a typo query file of one set (so bench compare can pair them).

Baselines bm25_only (E6 alone), e1_only (E1 alone) and rrf_e1_e6 (plain RRF of
E1 and E6) run too unless --no-baselines. Every run is tested against one
baseline run (--baseline; default the best single-slot run on the first
metric), per metric: paired bootstrap CI of the mean delta and a paired
randomisation test, Holm-adjusted over all runs; report.md marks significant
wins and losses at --alpha. --metrics chooses the metrics (the first is the
headline), e.g. ndcg@10,recall@100,map,mrr@10,p@5.
A query whose search fails is recorded, scored as an empty ranking, and the
bench goes on; the report files are rewritten after every run. Metrics follow BEIR/pytrec_eval:
nDCG@10 with the graded relevance as gain, MAP cut at 100.
--json prints the report without per-query results (report.json has them).`,
		Example: `  cgraph bench run --data sets/csn-go --profiles code_search,typo_tolerant --modes pipeline,multi_space
  cgraph bench run --data sets/csn-go --queries queries-typos.jsonl --out out/typos --json`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options(a)
			if err != nil {
				return err
			}
			rep, out, err := benchstore.Run(a.Context(), o)
			if err != nil {
				return err
			}
			if a.JSON {
				return a.PrintJSON(rep.WithoutQueries())
			}
			return rep.WriteSummary(a.Stdout, out)
		},
	}
	fl := cmd.Flags()
	bindSet(fl, &f.set, "set directory, BEIR layout or MTEB/Hugging Face layout (corpus/, queries/, data/)",
		"queries file (default <data>/queries.jsonl; a bare name is looked up in --data)",
		"qrels file, BEIR TSV or TREC (qid 0 docid rel), may be .gz (default <data>/qrels/<split>.tsv)", "qrels split")
	fl.StringSliceVar(&f.profiles, "profiles", []string{engine.DefaultProfile}, "profiles for the multi_space and pipeline modes: built-in names, profile files (.toml, .yaml; e.g. from 'profiles learn'), or all = every built-in profile")
	fl.StringSliceVar(&f.modes, "modes", []string{"pipeline"}, "modes: "+strings.Join(bench.Modes, ", "))
	fl.StringSliceVar(&f.embedders, "embedders", nil, "primary slots for embedder_first, e.g. E6,E7")
	fl.StringVar(&f.direction, "direction", "", "causes or effects, for causal searches")
	fl.IntVar(&f.maxQueries, "max-queries", 0, "evaluate a seeded sample of N queries (--seed; 0 = all)")
	fl.IntVar(&f.k, "k", 100, "results per query (at least the deepest metric cutoff)")
	fl.StringSliceVar(&f.metrics, "metrics", bench.MetricNames, "metrics, the first is the headline: "+bench.MetricForms)
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the bootstrap and of the --max-queries sample")
	fl.StringVar(&f.out, "out", "", "report directory (default bench-out/<set>)")
	fl.StringVar(&f.store, "store", "", "store directory for the indexed corpus (default <out>/store)")
	fl.StringVar(&f.baseline, "baseline", "", "run every other run is tested against (default: the best single-slot run on the first metric)")
	fl.Float64Var(&f.alpha, "alpha", bench.DefaultAlpha, "significance level of the win/loss column (Holm-adjusted over all runs)")
	fl.StringVar(&f.runOut, "run-out", "", "write one TREC run file per run here (qid Q0 docid rank score run_name, top --k with scores)")
	fl.BoolVar(&f.noBaselines, "no-baselines", false, "skip the bm25_only, e1_only and rrf_e1_e6 runs")
	fl.IntVar(&f.recallK, "recall-k", 0, "pipeline S1 recall size (0 = the pipeline default, 10000)")
	fl.IntVar(&f.filterK, "filter-k", 0, "pipeline S2 filter size (0 = the pipeline default, 1000)")
	fl.Float64Var(&f.rerankWeight, "rerank-weight", 0, "E12's weight in the pipeline's S4 MaxSim rerank where a profile gives E12 none, in (0, 1] (0 = the default, 0.15)")
	fl.IntVar(&f.fusionK, "fusion-k", 0, "S3 fusion size and per-slot k in multi_space (0 = the default, 100)")
	fl.IntVar(&f.batch, "batch", 0, "memories per write batch while indexing (0 = 64)")
	fl.BoolVar(&f.noThresholds, "no-thresholds", false, "keep results below every slot's low similarity threshold")
	fl.IntSliceVar(&f.feedback, "feedback", []int{0}, "pseudo-relevance feedback depth of the pipeline and multi_space runs (the top N fused documents expand the E1/E5/E6 queries; 0 off). Several (0,3) run every run once per depth, named RUN/feedback=N, paired in one report")
	fl.StringSliceVar(&f.fusion, "fusion", nil, "fusion of the pipeline and multi_space runs: rrf (reciprocal ranks) or minmax (min-max normalised scores); default the engine's. Several (rrf,minmax) run every run once per fusion, named RUN/fusion=NAME, paired in one report")
	fl.StringSliceVar(&f.correct, "correct", []string{benchstore.CorrectEvery}, "typo correction of the queries: every = the corrected query for every space (what search does); keywords = for E6 and E9 only, the typed query elsewhere; off = none. Several (off,every) run every run once per scope, named RUN/correct=SCOPE, paired in one report")
	return cmd
}

// options checks the flags of `bench run` and turns them into the
// bench's options: the planned runs, the profile files read, the stage
// sizes.
func (f *benchRunFlags) options(a *app.App) (benchstore.RunOptions, error) {
	if f.set.Data == "" {
		return benchstore.RunOptions{}, app.Usagef("give the set directory, e.g. one written by `cgraph bench prepare`", "--data is missing")
	}
	profiles, custom, err := benchstore.ResolveProfiles(f.profiles)
	if err != nil {
		return benchstore.RunOptions{}, err
	}
	ms, err := bench.ParseMetrics(f.metrics)
	if err != nil {
		return benchstore.RunOptions{}, &app.UsageError{Problem: err.Error(), Fix: "use " + bench.MetricForms}
	}
	if k := bench.MaxCutoff(ms); f.k > 0 && k > f.k {
		return benchstore.RunOptions{}, app.Usagef(fmt.Sprintf("give --k %d or more", k), "--metrics look %d results deep but --k is %d", k, f.k)
	}
	runs, err := benchstore.Plan{Modes: f.modes, Profiles: profiles, Embedders: f.embedders, Direction: f.direction, Baselines: !f.noBaselines,
		Correct: f.correct, Feedback: f.feedback, Fusion: f.fusion, Baseline: f.baseline, Alpha: f.alpha}.Runs()
	if err != nil {
		return benchstore.RunOptions{}, err
	}
	for _, v := range []struct {
		name string
		v    int
	}{{"--recall-k", f.recallK}, {"--filter-k", f.filterK}, {"--fusion-k", f.fusionK}, {"--batch", f.batch}, {"--k", f.k}} {
		if v.v < 0 {
			return benchstore.RunOptions{}, app.Usagef("give 0 (the default) or a positive size", "%s %d is negative", v.name, v.v)
		}
	}
	if !(f.rerankWeight >= 0 && f.rerankWeight <= 1) {
		return benchstore.RunOptions{}, app.Usagef("give a weight in (0, 1], or 0 for the default 0.15", "--rerank-weight %g is out of range", f.rerankWeight)
	}
	return benchstore.RunOptions{
		Set: f.set, Out: f.out, Store: f.store, Profiles: profiles, Baselines: !f.noBaselines,
		Config: benchstore.Config{RecallK: f.recallK, FilterK: f.filterK, FusionK: f.fusionK, RerankWeight: f.rerankWeight, Batch: f.batch,
			NoThresholds: f.noThresholds, Profiles: custom},
		Bench: bench.RunOptions{Runs: runs, K: f.k, MaxQueries: f.maxQueries, Seed: f.seed, Metrics: f.metrics,
			Progress: a.BenchProgress(), IndexProgress: a.BenchIndexProgress(), RunDir: f.runOut,
			Baseline: f.baseline, Alpha: f.alpha},
		Command: "cgraph " + strings.Join(os.Args[1:], " "),
		Open:    benchOpener(a),
		Warn:    a.Warnf,
	}, nil
}

// benchOpener opens the retriever through Retriever (a test's, or
// the real one over the installed models).
func benchOpener(a *app.App) benchstore.Opener {
	return func(cfg benchstore.Config) (bench.Retriever, bench.Repro, func() error, error) {
		return Retriever(a, cfg)
	}
}

func newBenchCompareCmd(a *app.App) *cobra.Command {
	var runA, runB, metric string
	var seed uint64
	var perQuery bool
	var data benchstore.Set
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Paired per-query comparison of two bench runs (report.json or TREC run files)",
		Long: `Compare runs of two report.json files (or two runs of one file) query by query:
the mean delta (B − A), its paired bootstrap 95% CI, and the two-sided p-value
of a paired randomisation (sign-flip) test — exact up to 16 queries, else
20,000 seeded samples. Deterministic for a given --seed. With several
comparisons, p is also given Holm-adjusted over all of them.

Without --run, every run name present in both reports is compared. With
--run X, run X of A is compared with run X of B (or with --run-b Y).
Reports over different corpora or qrels (checksums) are refused; reports over
the same corpus and qrels with different query files (clean vs typo queries)
are paired by query id and flagged.

A or B may be a TREC run file (qid Q0 docid rank score tag: bench run
--run-out writes them, Anserini/Pyserini and most toolkits too); it is scored
against the set given with --data (and --split/--queries/--qrels), ranked as
trec_eval ranks (score, then docid descending), a query it lacks scored as an
empty ranking (trec_eval -c). A run file with one run is compared with every
run of the other side, or with --run.`,
		Example: `  cgraph bench compare out/clean/report.json out/typos/report.json --run pipeline:typo_tolerant
  cgraph bench compare out/report.json out/report.json --run e1_only --run-b pipeline:code_search --metric mrr@10
  cgraph bench compare out/report.json pyserini-bm25.trec --data sets/csn-go --run pipeline:code_search`,
		Args: app.ExactArgs(2, "two report.json files (or TREC run files)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := bench.ParseMetric(metric); err != nil {
				return app.Usagef("use "+bench.MetricForms, "--metric %q is not a metric: %v", metric, err)
			}
			if runB != "" && runA == "" {
				return app.Usagef("give --run too", "--run-b needs --run")
			}
			ds, err := loadSet(data)
			if err != nil {
				return fmt.Errorf("bench compare: %w", err)
			}
			cs, err := bench.CompareFiles(bench.CompareFilesOptions{A: args[0], B: args[1], Data: ds, RunA: runA, RunB: runB, Metric: metric, Seed: seed})
			if err != nil {
				return err
			}
			if a.JSON {
				return a.PrintJSON(map[string]any{"a": args[0], "b": args[1], "comparisons": cs})
			}
			return bench.WriteComparisons(a.Stdout, cs, perQuery)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&runA, "run", "", "run name to compare (default: every run in both reports)")
	fl.StringVar(&runB, "run-b", "", "run name in B when it differs from --run")
	fl.StringVar(&metric, "metric", "ndcg@10", "metric: "+bench.MetricForms)
	fl.Uint64Var(&seed, "seed", 1, "seed for the bootstrap and the sampled randomisation test")
	fl.BoolVar(&perQuery, "per-query", false, "print every query's delta")
	bindSet(fl, &data, "set directory to score TREC run files against", "queries file of --data (default its queries.jsonl)",
		"qrels file of --data (default qrels/<split>.tsv)", "qrels split of --data")
	return cmd
}

// bindSet defines the flags that name a bench set — --data, --queries,
// --qrels and --split (default test) — into s, with the command's help
// for each: bench run, bench compare, bench ablate and profiles learn.
func bindSet(fl *pflag.FlagSet, s *benchstore.Set, data, queries, qrels, split string) {
	fl.StringVar(&s.Data, "data", "", data)
	fl.StringVar(&s.Queries, "queries", "", queries)
	fl.StringVar(&s.Qrels, "qrels", "", qrels)
	fl.StringVar(&s.Split, "split", "test", split)
}

// loadSet loads the set s names, or returns nil when --data is not given
// (bench compare needs a set only to score TREC run files).
func loadSet(s benchstore.Set) (*bench.Dataset, error) {
	if s.Data == "" {
		return nil, nil
	}
	return s.Load()
}
