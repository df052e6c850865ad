package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ReportVersion is the version of the report JSON layout; bump it when a
// field changes meaning. Version 2 added failures, warnings, the metric list
// and partial reports; version 1 reports still read (as if nothing failed).
const ReportVersion = 2

// minReportVersion is the oldest report layout ParseReport reads.
const minReportVersion = 1

// Report is the result of one `bench run`: every (mode, profile) run over one
// dataset, the ingest figures and what is needed to reproduce them.
type Report struct {
	Version int    `json:"version"`
	Dataset string `json:"dataset"`
	// Metrics names the metrics every run was scored with, in report order
	// (the first is the headline); empty in version 1 reports (MetricNames).
	Metrics []string    `json:"metrics,omitempty"`
	Runs    []RunResult `json:"runs"`
	// Warnings are facts about the whole bench a reader must know (qrels
	// naming absent ids, rankings shorter than a metric's cutoff).
	Warnings []string `json:"warnings,omitempty"`
	// RunsPlanned is how many runs the bench was asked for; Partial is set
	// while (or because) fewer than that are in Runs, and StopReason says why
	// the bench stopped early.
	// Baseline is the run every other run was tested against (see
	// TestSignificance), Alpha the level of the win/loss verdicts.
	Baseline    string  `json:"baseline,omitempty"`
	Alpha       float64 `json:"alpha,omitempty"`
	RunsPlanned int     `json:"runs_planned"`
	Partial     bool    `json:"partial,omitempty"`
	StopReason  string  `json:"stop_reason,omitempty"`
	Ingest      Ingest  `json:"ingest"`
	Repro       Repro   `json:"reproducibility"`
}

// RunResult is one (mode, profile) over every query.
type RunResult struct {
	// Name identifies the run in reports and in `bench compare --run`;
	// baselines use bm25_only, e1_only and rrf_e1_e6.
	Name      string        `json:"name"`
	Mode      string        `json:"mode"`
	Profile   string        `json:"profile"`
	Metrics   Metrics       `json:"metrics"`
	CI95      map[string]CI `json:"ci95"` // bootstrap 95% CI of each mean metric
	LatencyMS Latency       `json:"latency_ms"`
	Stages    []StageStats  `json:"stages"`
	Queries   []QueryResult `json:"queries,omitempty"`
	// Notes are what the retriever reported about the run (unavailable
	// slots, fallbacks, empty spaces, with how many queries they hit).
	Notes []Note `json:"notes,omitempty"`
	// Failed counts the queries whose search failed; Failures says which
	// and why. Each was scored as an empty ranking (it counts, as 0 on most
	// metrics, in every mean) and is left out of the latency figures.
	Failed   int            `json:"failed"`
	Failures []QueryFailure `json:"failures,omitempty"`
	// RunFile is the TREC run file written for this run (in the run
	// directory), RunFileAdjusted how many of its scores were lowered so
	// that trec_eval ranks as the run did (ties, inversions).
	RunFile         string `json:"run_file,omitempty"`
	RunFileAdjusted int    `json:"run_file_adjusted_scores,omitempty"`
	// VsBaseline is, per metric, this run against the report's Baseline.
	VsBaseline map[string]Significance `json:"vs_baseline,omitempty"`
}

// QueryFailure is one query whose search returned an error (or panicked).
type QueryFailure struct {
	Query QueryID `json:"query"`
	Error string  `json:"error"`
}

// CI is a two-sided confidence interval.
type CI struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Latency summarises durations in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Mean float64 `json:"mean"`
}

// StageStats is the latency of one pipeline stage over all queries.
type StageStats struct {
	Stage     string  `json:"stage"`
	LatencyMS Latency `json:"latency_ms"`
	Queries   int     `json:"queries"` // how many queries ran this stage
}

// QueryResult is one query's outcome within a run.
type QueryResult struct {
	ID        QueryID            `json:"id"`
	Metrics   Metrics            `json:"metrics"`
	LatencyMS float64            `json:"latency_ms"`
	StagesMS  map[string]float64 `json:"stages_ms,omitempty"`
	Top       []DocID            `json:"top"` // the first 10 returned ids
	// Error is set when the search failed; the query was then scored as an
	// empty ranking.
	Error string `json:"error,omitempty"`
}

// Ingest describes how the corpus was indexed.
type Ingest struct {
	Docs         int     `json:"docs"`
	Seconds      float64 `json:"seconds"`
	DocsPerS     float64 `json:"docs_per_s"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	Reused       bool    `json:"reused"` // an existing store built with the same models was reused
	// BuiltSeconds is, for a reused store, how long its build took; DocsPerS
	// is then computed from it (0 when unknown), and Seconds is the reopen.
	BuiltSeconds float64 `json:"built_seconds,omitempty"`
	// Index says what was indexed into (e.g. "cgraph store at out/store"),
	// BuiltAt when that index was built (zero when unknown).
	Index   string    `json:"index,omitempty"`
	BuiltAt time.Time `json:"built_at,omitzero"`
}

// Repro records what produced a report.
type Repro struct {
	CgraphVersion string `json:"cgraph_version"`
	// CgraphCommit is the source revision of the binary that ran the bench
	// (its Go VCS stamp), so "cgraph-dev" still names a commit.
	CgraphCommit   BuildCommit                   `json:"cgraph_commit"`
	GoVersion      string                        `json:"go_version"`
	Models         []ModelInfo                   `json:"models"`
	ProfileWeights map[string]map[string]float64 `json:"profile_weights"`
	StageSizes     map[string]int                `json:"stage_sizes"`
	// RerankWeight is E12's S4 weight where a profile gives E12 none.
	RerankWeight    float64 `json:"rerank_weight,omitempty"`
	DatasetChecksum string  `json:"dataset_checksum"`
	// DatasetChecksums are per part: corpus, queries, qrels.
	DatasetChecksums map[string]string `json:"dataset_checksums"`
	DatasetFiles     []string          `json:"dataset_files"`
	// QueriesFile names the queries file(s) the runs used (base names),
	// so a typo run is never titled like a clean one.
	QueriesFile string            `json:"queries_file,omitempty"`
	Split       string            `json:"split"`
	Queries     int               `json:"queries"`
	Cores       int               `json:"cores"`
	Seeds       map[string]uint64 `json:"seeds"`
	Command     string            `json:"command,omitempty"`
}

// ModelInfo names what computed one slot of the indexed corpus: a model (or
// model-free algorithm) id and the sha256 of its weights (or parameters).
// Device says where its model ran. Status is the slot's state in the retriever ("ready", "fallback",
// "unavailable"); Note says why a slot is unavailable or which fallback
// serves it. A slot nothing computed has an empty ID and SHA256.
type ModelInfo struct {
	Slot   string `json:"slot"`
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
	Status string `json:"status,omitempty"`
	Note   string `json:"note,omitempty"`
	// Device is the execution provider the slot's model ran on ("cpu",
	// "cuda", "cpu (fallback: …)"); empty for a model-free slot.
	Device string `json:"device,omitempty"`
}

// MetricList returns the report's metric names, MetricNames for reports that
// do not list them.
func (r *Report) MetricList() []string {
	if len(r.Metrics) == 0 {
		return MetricNames
	}
	return r.Metrics
}

func metricNames(ms []Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// WithoutQueries returns a copy of r whose runs carry no per-query results:
// the summary `bench run --json` prints (report.json keeps them).
func (r *Report) WithoutQueries() *Report {
	c := *r
	c.Runs = make([]RunResult, len(r.Runs))
	for i, run := range r.Runs {
		run.Queries = nil
		c.Runs[i] = run
	}
	return &c
}

// Run returns the run with the given name.
func (r *Report) Run(name string) (*RunResult, error) {
	var names []string
	for i := range r.Runs {
		if r.Runs[i].Name == name {
			return &r.Runs[i], nil
		}
		names = append(names, r.Runs[i].Name)
	}
	return nil, fmt.Errorf("no run named %q in the report: it has %v", name, names)
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write report JSON: %w", err)
	}
	return nil
}

// ReadReport reads a report written by WriteJSON and checks its version.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	return ParseReport(b, path)
}

// ParseReport decodes a report.json body; name is used in errors. It checks
// the version, that there are runs with distinct non-empty names and that
// per-query ids are unique within a run.
func ParseReport(b []byte, name string) (*Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not a bench report (JSON): %w", name, err)
	}
	if r.Version < minReportVersion || r.Version > ReportVersion {
		return nil, fmt.Errorf("%s: report version %d, this cgraph reads versions %d to %d: re-run the bench", name, r.Version, minReportVersion, ReportVersion)
	}
	if len(r.Runs) == 0 {
		return nil, fmt.Errorf("%s: report has no runs", name)
	}
	runs := map[string]bool{}
	for i, run := range r.Runs {
		if run.Name == "" || runs[run.Name] {
			return nil, fmt.Errorf("%s: run %d has an empty or repeated name %q", name, i, run.Name)
		}
		runs[run.Name] = true
		qs := map[QueryID]bool{}
		for _, q := range run.Queries {
			if qs[q.ID] {
				return nil, fmt.Errorf("%s: run %s lists query %q twice", name, run.Name, q.ID)
			}
			qs[q.ID] = true
		}
	}
	return &r, nil
}

// ReportFiles are the names WriteAll writes inside its directory.
var ReportFiles = []string{"report.json", "report.md", "quality.svg", "latency.svg"}

// WriteAll writes report.json, report.md, quality.svg and latency.svg into dir.
func (r *Report) WriteAll(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create report directory: %w", err)
	}
	writers := []func(io.Writer) error{r.WriteJSON, r.WriteMarkdown, r.PlotQuality, r.PlotLatency}
	for i, name := range ReportFiles {
		if err := writeFile(filepath.Join(dir, name), writers[i]); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes through a temporary file and renames it into place.
func writeFile(path string, write func(io.Writer) error) (err error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp) // best effort; the write error is what matters
		}
	}()
	if err := write(f); err != nil {
		_ = f.Close() // the write error is reported
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", path, err)
	}
	return nil
}
