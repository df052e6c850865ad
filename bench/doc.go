// Package bench loads BEIR/MTEB-layout retrieval sets, prepares code-search sets
// from real source trees, computes retrieval metrics, runs modes × profiles
// against a Retriever and writes reports.
//
// It owns: the dataset format readers (BEIR's corpus.jsonl, queries.jsonl,
// qrels/<split>.tsv, gzip-compressed or not; TREC qrels; the MTEB hub layout
// in parquet or JSON Lines) and the prepare writer; the metric definitions; the
// report layout (report.json, version ReportVersion) and its Markdown and SVG
// renderings; TREC run files; the paired statistics of `bench run` and
// `bench compare`; the hub fetch of MTEB tasks. It must not reach into
// storage or embedders: everything it measures goes through the two-method
// Retriever interface, which the CLI implements over the engine.
//
// # Datasets
//
// Load reads the BEIR layout (corpus.jsonl, queries.jsonl, qrels/<split>.tsv),
// any part possibly gzip-compressed (recognised by its magic bytes, e.g.
// corpus.jsonl.gz); the qrels file may be BEIR TSV, TREC qrels ("qid 0
// docid rel") or JSON Lines, told apart by the first line. It also reads the
// MTEB / Hugging Face hub layout from a local directory: configs corpus/,
// queries/ and data/ (qrels), each of parquet or JSON Lines files per split
// (layout.go says how splits are found). Parquet is read with parquet-go, a
// pure-Go reader; only flat columns, by name. Every malformed line is refused
// with "file:line: what was wrong" (bad JSON, missing "_id" or "text",
// duplicate ids, non-integer scores); nothing is half loaded. "_id" may be a
// string or an integer. Only queries with at least one relevant judgement
// (grade > 0) are evaluated, as in BEIR.
//
// Qrels lines naming absent ids are counted and warned about, not refused
// (published sets have them: ArguAna, NFCorpus), with pytrec_eval's
// semantics: a judged document absent from the corpus stays relevant and can
// never be retrieved (it lowers recall and nDCG), a judged query absent from
// the queries file is skipped. Checksum is a sha256 over the files read,
// recorded in every report with one checksum per part.
//
// # MTEB tasks from the hub (mteb:TASK)
//
// FetchMTEB downloads one pinned revision of an MTEB retrieval task from the
// Hugging Face hub's dataset API into a directory Load reads (the hub's own
// layout, file for file), checking each file's sha256 against the listing
// and recording the commit in prepare.json. The endpoint comes from --hub,
// $CGRAPH_HF_ENDPOINT or $HF_ENDPOINT; a hub that cannot be reached is a
// HubUnreachableError saying how to get the set another way.
//
// # Prepared sets (csn-go, csn-python, csn-java, csn-javascript)
//
// Prepare walks a source tree in lexical order and pairs the first paragraph
// of each function's doc comment (the query) with the function's source
// without that comment (the only relevant document, grade 1). Decisions:
//   - skipped: test files, directories named testdata, vendor, node_modules,
//     test, tests, site-packages, __pycache__ or starting with "." or "_", generated
//     Go files, bodiless declarations, deprecation/TODO comments, queries under
//     MinQueryWords words, functions under MinCodeLines lines, and any pair whose
//     query (case-folded) or code (whitespace-folded) was already taken;
//   - Java and JavaScript pairs come from `/** … */` blocks right before a
//     method or function with a body (blockDocExtractor, a scanner, not a
//     parser): the query is the prose before the first block tag, inline
//     tags reduced to their text, HTML dropped; type docs, abstract methods
//     and minified (.min.js) or test files are skipped;
//   - Go queries lose a leading function name ("Split slices s …" → "Slices s
//     …"): Go comments start with the name by convention, and keeping it would
//     let any keyword matcher answer by name alone;
//   - --max keeps a seeded random sample, in walk order; ids are q000001… and
//     d000001… in that order; JSON is written with sorted keys and no HTML
//     escaping, so the same tree and options give byte-identical files;
//   - typos (queries-typos.jsonl): each word of ≥ 4 ASCII letters gets, with
//     probability TypoRate, one non-initial letter replaced by a QWERTY
//     neighbour; the stream is seeded per query id.
//
// The Python extractor is a line-based reader of def/async def headers and a
// leading triple-quoted docstring, not a Python parser; defs it cannot delimit
// are skipped.
//
// # Retrievers
//
// Run drives a Retriever (Index, then Search per query and run) from one
// goroutine. Four optional interfaces let it say more: ReproReporter (the
// models and stage sizes it searched with, asked after Index), RunNoter
// (what degraded a run: unavailable slots, fallbacks; kept per run in
// report.json, merged across runs into one table in report.md), BuildTimer
// (the build time of an index it reused, so ingest throughput is never
// computed from a reopen) and IndexDescriber (what the index is and when it
// was built, for the ingest line). Reports also record the binary's commit
// from its Go VCS stamp, and say so when it has none. --max-queries evaluates a seeded sample of
// the queries, not a prefix: prepared sets list queries in corpus order.
//
// A bench never aborts on one query: a search that errors or panics is
// recorded (run, query id, error) in the run's failures, scored as an empty
// ranking (so it weighs in every mean, as it would for a user) and left out
// of the latency figures. Only an index error or the end of the context
// stops a bench; RunOptions.OnRun lets the caller write the report after
// every run (`bench run` does, each file through a temporary file and a
// rename), so an interrupted bench keeps its finished runs, marked partial.
//
// # TREC runs
//
// With RunOptions.RunDir (bench run --run-out) every run writes a TREC run
// file, qid Q0 docid rank score run_name, the full top K with scores, so
// any metric can be recomputed by trec_eval or pytrec_eval. trec_eval
// re-sorts by score (ties: docid descending), so a score not strictly below
// the previous one is lowered to the next float below it and counted
// (run_file_adjusted_scores); the retriever's order is what gets evaluated.
// ParseTRECRun reads such files the trec_eval way; ReadComparable scores an
// external run (a Pyserini BM25, say) against a dataset so bench compare can
// pair it with cgraph's runs; a query the run lacks scores as an empty
// ranking (trec_eval -c).
//
// # Metrics
//
// See metrics.go: BEIR's pytrec_eval definitions of ndcg@k (linear gain),
// mrr@k, recall@k, p@k and map@k ("map" is map@100), chosen with --metrics
// (the first is the headline), with rankings taken in returned order and
// repeated ids earning nothing. MRR and Recall cannot exceed 1. Every kind is
// pinned against pytrec_eval (testdata/trec/gen.py).
//
// # Plots
//
// quality.svg and latency.svg are forest plots (report_svg.go): one row
// per run, sorted by the headline metric, the run names written once,
// horizontally, in a column as wide as the longest; one panel per metric
// (mean, bootstrap 95% CI, a dashed line at the baseline, the point coloured
// by its verdict against it) or per stage (median with a whisker to p95,
// log scale when a panel spans more than a decade). Titles name the set, the
// query file and the number of queries. PlotQualityAs/PlotLatencyAs render
// the same figures as PNG or PDF.
//
// # Statistics
//
// Confidence intervals are percentile bootstraps of the mean over queries
// (BootstrapResamples resamples). `compare` pairs queries by id and reports
// the mean delta, its paired bootstrap CI and a two-sided sign-flip
// randomisation test (exact up to ExactPermutationLimit pairs), with the
// p-values of several comparisons also Holm-adjusted. Every `bench run`
// tests each run against one baseline (by default the best single-slot run
// on the headline metric) on every metric the same way, Holm-adjusted over
// all runs of the report (one family per metric); report.md marks
// significant wins (▲) and losses (▼) at Alpha. A baseline chosen as the
// best single slot after seeing the results makes wins harder to claim and
// losses easier; pass --baseline to fix it in advance. All are seeded and
// deterministic.
//
// Nothing in this package keeps global state; Dataset and Report values are
// safe for concurrent reads once built.
package bench
