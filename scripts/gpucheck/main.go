// Command gpucheck measures --device cuda against the CPU in one process, on
// one ONNX Runtime library (the CUDA build also runs the CPU provider), for
// scripts/gpu_check.sh:
//
//   - parity: each installed fp32 default model embeds fixed texts on both
//     devices; the cosine per text must be >= -min-cosine (0.999);
//   - query encoding: one short query per call, p50/p95 per model and device;
//   - model ingest: docs/s per model and device over the corpus, with where the
//     time went (tokenize, pack, run incl. host<->GPU copies, unpack) from
//     runtime.Model.Stats;
//   - slot queries: E1's (tuned, raw, both as a search runs them), E5's and E7's
//     query views through neural.Registry, p50/p95 per device;
//   - full fingerprint: all 13 slots through neural.Registry (what
//     engine.AddBatch computes) and, with -engine, AddBatch into a fresh store
//     (embedding plus the RocksDB write).
//
// It prints a table and writes everything as JSON (-out). The corpus is a
// file of one JSON string per line (-corpus); without one it cuts Go
// functions of about 200 tokens out of $GOROOT/src.
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cgraph/cgraph/bulkimport"
	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/convert"
	"github.com/cgraph/cgraph/models/runtime"
	"github.com/cgraph/cgraph/record"
)

type options struct {
	modelsDir, corpus, out, only       string
	gpuDocs, cpuDocs, queries          int
	batch, batchTokens                 int
	minCosine                          float64
	full, engine                       bool
	devices                            string
	cudaOpts, precision                string
	cpuProfile, engineProfile          string
	importTrace                        string
	slotDocs, concurrentRuns, sessions int
	perModel                           bool
	// manifest and refDir run other weights than the installed manifest's
	// (an fp16 conversion): -models-dir holds them, -manifest pins them,
	// and the CPU side (parity's reference) opens -reference-models-dir with
	// the default manifest.
	manifest, refDir string
	// ortProfile is ONNX Runtime's per-node profile prefix for the cuda
	// sessions of the per-model checks (runtime.Config.ProfilePrefix).
	ortProfile string
	// importBatches are the bulkimport batch sizes of the add --jsonl
	// measures (pipelined and one batch at a time each).
	importBatches string
	// importInFlight are the bulkimport InFlight values of the pipelined
	// add --jsonl measures.
	importInFlight string
	// registryInFlight, above 1, adds a registry row with that many
	// 512-document calls at once.
	registryInFlight int
	// hostE12 projects E12 on the host even where e5's file has the
	// projection in its graph (-host-e12).
	hostE12 bool
	// cpuPooling pools on the CPU even where a model has its own pooled
	// output (the A/B baseline of scripts/pooled).
	cpuPooling bool
	// pageable keeps cuda outputs in Go memory (the baseline of pinned
	// output buffers).
	pageable bool
	// overlap measures whether the models' runs overlap on the GPU.
	overlap bool
	// intraOp is ONNX Runtime's intra-op threads per session on cuda (0:
	// one per core, the runtime's default).
	intraOp int
	// passAt (Unix seconds, 0: off) and passRepeats are the check across
	// processes (passat.go), run instead of every other check.
	passAt      float64
	passRepeats int
}

func main() {
	var o options
	flag.StringVar(&o.modelsDir, "models-dir", neural.DefaultModelsDir(), "installed models")
	flag.StringVar(&o.corpus, "corpus", "", "one JSON string per line (default: Go functions from $GOROOT/src)")
	flag.StringVar(&o.out, "out", "gpucheck.json", "JSON results")
	flag.StringVar(&o.only, "models", "", "comma-separated model ids (default: the installed fp32 defaults)")
	flag.IntVar(&o.gpuDocs, "gpu-docs", 2000, "documents embedded on cuda")
	flag.IntVar(&o.cpuDocs, "cpu-docs", 256, "documents embedded on the CPU (slower)")
	flag.IntVar(&o.queries, "queries", 200, "timed single-query calls per model and device")
	flag.IntVar(&o.batch, "batch", 0, "texts per ONNX run on cuda (0: runtime default)")
	flag.IntVar(&o.batchTokens, "batch-tokens", 0, "padded tokens per ONNX run on cuda (0: runtime default)")
	flag.Float64Var(&o.minCosine, "min-cosine", 0.999, "parity floor per text (fp32)")
	flag.BoolVar(&o.full, "full", true, "measure full 13-slot fingerprints through the registry")
	flag.BoolVar(&o.engine, "engine", true, "measure engine.AddBatch into a fresh store (embedding + write)")
	flag.StringVar(&o.devices, "devices", "cuda,cpu", "devices to measure; parity needs both")
	flag.StringVar(&o.precision, "precision", "fp32", "weights of the full-fingerprint registry on both devices (fp32, int8, or default: int8 e5/bge on the CPU, fp32 on cuda)")
	flag.StringVar(&o.cudaOpts, "cuda-options", "", "extra CUDA provider options, k=v,k=v (e.g. use_tf32=0)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the full-fingerprint registry run on the first device here")
	flag.StringVar(&o.engineProfile, "engine-cpuprofile", "", "write a CPU profile of the one-writer engine run on the first device here")
	flag.StringVar(&o.importTrace, "import-trace", "", "write an execution trace (go tool trace) of the first pipelined add --jsonl measure on the first device here: where its batches' two halves wait")
	flag.IntVar(&o.slotDocs, "slot-docs", 512, "documents each slot embeds alone, one slot after another, for per-slot times (0: skip)")
	flag.IntVar(&o.concurrentRuns, "concurrent-runs", 0, "runs at once per session on every device (0: runtime default)")
	flag.IntVar(&o.sessions, "sessions", 0, "sessions per model on every device (0: runtime default, 1)")
	flag.BoolVar(&o.perModel, "per-model", true, "measure parity, queries and ingest per model")
	flag.StringVar(&o.manifest, "manifest", "", "a model manifest (JSON) for -models-dir instead of the built-in one, e.g. pinning fp16 conversions of the default models under their ids")
	flag.StringVar(&o.refDir, "reference-models-dir", "", "the CPU side (parity's reference, CPU figures) opens the built-in manifest's models here instead of -models-dir")
	flag.StringVar(&o.ortProfile, "ort-profile", "", "ONNX Runtime's per-node profile (Chrome trace JSON) of each model's cuda session, written to PREFIX_<time>.json")
	flag.StringVar(&o.importBatches, "import-batches", "256", "comma-separated lines per AddBatch of the add --jsonl measures (bulkimport.Import, pipelined and not; empty: skip)")
	flag.BoolVar(&o.cpuPooling, "cpu-pooling", false, "pool token states on the CPU even where a model file has its own pooled output (scripts/pooled): the baseline")
	flag.BoolVar(&o.pageable, "pageable-outputs", false, "cuda outputs into ordinary Go memory instead of pinned host buffers: the baseline")
	flag.BoolVar(&o.hostE12, "host-e12", false, "project e5's token states for E12 on the host even where its file has the projection in its graph (scripts/e12graph): the baseline")
	flag.IntVar(&o.registryInFlight, "registry-inflight", 0, "also time the registry with this many 512-document calls at once, as bulkimport overlaps its batches (0 or 1: skip)")
	flag.StringVar(&o.importInFlight, "import-inflight", "2", "comma-separated batches on their way at once (bulkimport.Options.InFlight) of the pipelined add --jsonl measures")
	flag.IntVar(&o.intraOp, "intra-op-threads", 0, "ONNX Runtime intra-op threads per cuda session (0: one per core); with several sessions on one GPU, 1 avoids thread pools contending (onnxruntime issue 20494)")
	flag.BoolVar(&o.overlap, "overlap", true, "each model's token pass alone, one after another, against all at once on each device (do the models' runs overlap on the GPU?)")
	flag.Float64Var(&o.passAt, "pass-at", 0, "only the check across processes: warm the -models up on the first of -devices, wait until this Unix time, then time each model's token pass over -gpu-docs in turn (-pass-repeats times) and print a JSON line per pass; run several processes at one time or at times apart")
	flag.IntVar(&o.passRepeats, "pass-repeats", 3, "token passes per model of -pass-at")
	writeCorpus := flag.String("write-corpus", "", "write the corpus (-gpu-docs texts, one JSON string a line) to this file for -corpus on another machine, and exit")
	flag.Parse()
	if *writeCorpus != "" {
		if err := saveCorpus(*writeCorpus, o); err != nil {
			fmt.Fprintln(os.Stderr, "gpucheck:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "gpucheck:", err)
		os.Exit(1)
	}
}

// Result is the JSON the check writes.
type Result struct {
	Library   string         `json:"library"`
	Cores     int            `json:"cores"`
	Corpus    corpusInfo     `json:"corpus"`
	Parity    []parity       `json:"parity"`
	Queries   []latency      `json:"queries"`
	Ingest    []ingest       `json:"ingest"`
	Full      []fullIngest   `json:"full_fingerprint"`
	Overlap   []overlap      `json:"overlap"`
	Failures  []string       `json:"failures"`
	Seconds   float64        `json:"seconds"`
	StartedAt time.Time      `json:"started_at"`
	Options   map[string]any `json:"options"`
}

type corpusInfo struct {
	Source     string  `json:"source"`
	Docs       int     `json:"docs"`
	MeanTokens float64 `json:"mean_tokens"` // by the first model's tokenizer
}

type parity struct {
	Model string `json:"model"`
	// What is compared: "Embed" (one vector per text) or "token states"
	// (every token's row, as E12 and E10 read them).
	What       string  `json:"what"`
	Texts      int     `json:"texts"`
	MinCosine  float64 `json:"min_cosine"`
	MeanCosine float64 `json:"mean_cosine"`
	Device     string  `json:"device"`
}

type latency struct {
	Model  string  `json:"model"`
	Device string  `json:"device"`
	Calls  int     `json:"calls"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	span
}

// span is when a measurement ran, in Unix seconds (to match GPU
// utilisation samples).
type span struct {
	Start float64 `json:"start_unix"`
	End   float64 `json:"end_unix"`
}

func since(t time.Time) span {
	return span{Start: float64(t.UnixMicro()) / 1e6, End: float64(time.Now().UnixMicro()) / 1e6}
}

type ingest struct {
	Model string `json:"model"`
	// Call is what ran: "EmbedWithTokens" (token states to the host, as
	// E1/E12 and E7/E10 read them; "EmbedWithTokens (pooled + OUTPUT)" where
	// e5's file has E12's projection in its graph: the pooled vector and the
	// projected tokens) or "Embed" (a vector per text: the model's own
	// pooled output where it has one, see -cpu-pooling).
	Call string `json:"call"`
	// Pinned says whether the cuda runs wrote token states into pinned
	// host buffers (runtime.Model.PinnedOutputs; -pageable-outputs: not).
	Pinned     bool    `json:"pinned"`
	Device     string  `json:"device"`
	Docs       int     `json:"docs"`
	DocsPerS   float64 `json:"docs_per_s"`
	Batches    int64   `json:"batches"`
	Fill       float64 `json:"fill"` // real tokens / padded tokens
	TokenizeMS float64 `json:"tokenize_ms"`
	PackMS     float64 `json:"pack_ms"`
	RunMS      float64 `json:"run_ms"`
	UnpackMS   float64 `json:"unpack_ms"`
	WallMS     float64 `json:"wall_ms"`
	span
}

// overlap is whether the models' runs overlap on one device: each model's
// token pass over the corpus alone, one after another, against all of them
// at once (one goroutine each). Speedup = sequential / concurrent: 1 means
// the device runs them one at a time (the registry then costs the sum of
// the models), the number of models means full overlap.
type overlap struct {
	Device       string   `json:"device"`
	Models       []string `json:"models"`
	Docs         int      `json:"docs"`
	SequentialMS float64  `json:"sequential_ms"`
	ConcurrentMS float64  `json:"concurrent_ms"`
	Speedup      float64  `json:"speedup"`
}

type fullIngest struct {
	What     string            `json:"what"` // "registry", "engine" or "engine, 2 writers"
	Device   string            `json:"device"`
	Docs     int               `json:"docs"`
	DocsPerS float64           `json:"docs_per_s"`
	Devices  map[string]string `json:"devices"` // model -> device it ran on
	// Unavailable lists the slots that were not computed, with the reason.
	Unavailable []string `json:"unavailable,omitempty"`
	// SlotMS is, for the registry, each slot's time embedding -slot-docs
	// documents alone, slots one after another (slots that share a model run
	// — E1/E12, E7/E10 — pay it in the first of the pair).
	SlotMS map[string]float64 `json:"slot_ms,omitempty"`
	// InRunMS is, for the registry, each slot's time inside the timed run
	// itself (all slots at once, as EmbedDocuments runs them), summed over
	// its calls: the largest is the run's critical path. A slot that reads
	// a shared model run (E12 on E1's, E10 on E7's) includes its wait for it.
	InRunMS map[string]float64 `json:"in_run_ms,omitempty"`
	// Halves is, for a pipelined add --jsonl, where its batches' time went:
	// the engine's two halves (PrepareBatch: the fingerprints; store: the
	// write) summed over batches, and the wall time during which at least
	// one prepare, at least one store, and both at once ran. Both-at-once
	// near zero means the halves did not overlap: the import cost their sum.
	Halves *halves `json:"halves,omitempty"`
	// Writes is, for the engine and add --jsonl, where the store's writes
	// spent their time (engine.WriteStats) in ms a document: the steps
	// under the write lock, one batch after another.
	Writes *writeSteps `json:"writes,omitempty"`
	span
}

// writeSteps is engine.WriteStats per document stored; see fullIngest.Writes.
type writeSteps struct {
	Batches  int     `json:"batches"`
	StageMS  float64 `json:"stage_ms_per_doc"`
	CommitMS float64 `json:"commit_ms_per_doc"`
	WriteMS  float64 `json:"write_ms_per_doc"`
	IndexMS  float64 `json:"index_ms_per_doc"`
	TotalMS  float64 `json:"total_ms_per_doc"`
}

func writeStepsOf(st engine.WriteStats) *writeSteps {
	n := float64(max(st.Memories, 1))
	return &writeSteps{Batches: st.Batches, StageMS: msOf(st.Stage) / n, CommitMS: msOf(st.Commit) / n,
		WriteMS: msOf(st.Write) / n, IndexMS: msOf(st.Index) / n, TotalMS: msOf(st.Total) / n}
}

// halves is a pipelined import's two halves; see fullIngest.Halves.
type halves struct {
	Batches       int     `json:"batches"`
	PrepareMS     float64 `json:"prepare_ms"`      // summed over batches
	StoreMS       float64 `json:"store_ms"`        // summed over batches
	PrepareWallMS float64 `json:"prepare_wall_ms"` // some prepare running
	StoreWallMS   float64 `json:"store_wall_ms"`   // some store running
	BothMS        float64 `json:"both_ms"`         // a prepare and a store at once
}

// registryInFlight fingerprints in through reg in 512-document calls,
// n calls at once (each goroutine takes the next call), so that one call's
// start and end overlap another's runs, as bulkimport's batches do.
func registryInFlight(ctx context.Context, reg *engine.Registry, in []embedders.Input, n int) (span, error) {
	var next atomic.Int64
	errs := make([]error, n)
	var wg sync.WaitGroup
	t := time.Now()
	for g := range n {
		wg.Go(func() {
			for start := int(next.Add(512) - 512); start < len(in); start = int(next.Add(512) - 512) {
				if _, err := reg.EmbedDocuments(ctx, in[start:min(start+512, len(in))]); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return since(t), errors.Join(errs...)
}

// timedSlot is an embedder that adds the wall time of each EmbedDocuments
// call to took.
type timedSlot struct {
	embedders.Embedder
	took *atomic.Int64
}

func (t timedSlot) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	t0 := time.Now()
	defer func() { t.took.Add(int64(time.Since(t0))) }()
	return t.Embedder.EmbedDocuments(ctx, docs)
}

// timeRegistry fingerprints in through reg in 512-document calls, one at a
// time, with every slot timed: the run's span and each slot's total time
// inside it (fullIngest.InRunMS).
func timeRegistry(ctx context.Context, reg *engine.Registry, in []embedders.Input) (span, map[string]float64, error) {
	timed, took, err := timedRegistry(reg)
	if err != nil {
		return span{}, nil, err
	}
	t := time.Now()
	for start := 0; start < len(in); start += 512 {
		if _, err := timed.EmbedDocuments(ctx, in[start:min(start+512, len(in))]); err != nil {
			return span{}, nil, err
		}
	}
	sp := since(t)
	inRun := map[string]float64{}
	for i, s := range fingerprint.Slots() {
		inRun[s.String()] = msOf(time.Duration(took[i].Load()))
	}
	return sp, inRun, nil
}

// timedRegistry is reg with every slot timed: took[i] is slot i's total.
func timedRegistry(reg *engine.Registry) (*engine.Registry, []*atomic.Int64, error) {
	var es []embedders.Embedder
	var took []*atomic.Int64
	for _, s := range fingerprint.Slots() {
		took = append(took, new(atomic.Int64))
		es = append(es, timedSlot{reg.Get(s), took[len(took)-1]})
	}
	timed, err := embedders.NewRegistry(es...)
	return timed, took, err
}

func run(ctx context.Context, o options) error {
	t0 := time.Now()
	if os.Getenv("CGRAPH_ORT_LIB") == "" { // one library for every session, both devices
		if err := os.Setenv("CGRAPH_ORT_LIB", runtime.LibraryPathFor(runtime.DeviceCUDA)); err != nil {
			return err
		}
	}
	res := Result{Library: runtime.LibraryPathFor(runtime.DeviceCUDA), Cores: goruntime.NumCPU(), StartedAt: t0.UTC(),
		Options: map[string]any{"concurrent_runs": o.concurrentRuns, "sessions": o.sessions, "precision": o.precision, "gpu_docs": o.gpuDocs, "cpu_docs": o.cpuDocs, "queries": o.queries, "batch": o.batch, "batch_tokens": o.batchTokens, "cuda_options": o.cudaOpts, "intra_op_threads": o.intraOp, "manifest": o.manifest, "reference_models_dir": o.refDir}}
	cudaOpts, err := parseKV(o.cudaOpts)
	if err != nil {
		return err
	}
	docs, src, err := loadCorpus(o.corpus, max(o.gpuDocs, o.cpuDocs))
	if err != nil {
		return err
	}
	res.Corpus = corpusInfo{Source: src, Docs: len(docs)}
	ids, err := modelIDs(o)
	if err != nil {
		return err
	}
	fmt.Printf("library %s, %d cores, %d docs from %s, models %v\n", res.Library, res.Cores, len(docs), src, ids)
	var devices []runtime.Device
	for _, d := range strings.Split(o.devices, ",") {
		dev, err := runtime.ParseDevice(d)
		if err != nil {
			return err
		}
		devices = append(devices, dev)
	}
	if o.passAt > 0 {
		return passAt(ctx, o, ids, devices[0], docs[:min(o.gpuDocs, len(docs))], cudaOpts)
	}
	for _, id := range ids {
		if !o.perModel {
			break
		}
		if err := checkModel(ctx, o, id, docs, devices, cudaOpts, &res); err != nil {
			return err
		}
	}
	if o.overlap {
		for _, dev := range devices {
			n := o.gpuDocs
			if dev == runtime.DeviceCPU {
				n = o.cpuDocs
			}
			if err := checkOverlap(ctx, o, ids, dev, docs[:min(n, len(docs))], cudaOpts, &res); err != nil {
				return err
			}
		}
	}
	if o.full {
		for _, dev := range devices {
			n := o.gpuDocs
			if dev == runtime.DeviceCPU {
				n = o.cpuDocs
			}
			if err := checkFull(ctx, o, dev, docs[:min(n, len(docs))], cudaOpts, &res); err != nil {
				return err
			}
		}
	}
	res.Seconds = time.Since(t0).Seconds()
	printTable(res)
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.out, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", o.out, err)
	}
	if len(res.Failures) > 0 {
		return fmt.Errorf("%d checks failed: %s", len(res.Failures), strings.Join(res.Failures, "; "))
	}
	return nil
}

func parseKV(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("-cuda-options %q: want k=v,k=v", s)
		}
		out[k] = v
	}
	return out, nil
}

// modelIDs are -models, else the fp32 default models that are installed.
func modelIDs(o options) ([]models.ModelID, error) {
	if o.only != "" {
		var ids []models.ModelID
		for _, s := range strings.Split(o.only, ",") {
			ids = append(ids, models.ModelID(s))
		}
		return ids, nil
	}
	mf, dir, err := modelsFor(o, runtime.DeviceCUDA)
	if err != nil {
		return nil, err
	}
	all, err := neural.Models(neural.Config{Manifest: mf, Precision: neural.PrecisionFP32})
	if err != nil {
		return nil, err
	}
	var ids []models.ModelID
	for _, id := range all {
		if c, err := mf.Check(dir, id); err == nil && c.Status == models.StatusOK {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no fp32 default model is installed in %s: run `cgraph models pull --default --precision fp32` (or make setup)", o.modelsDir)
	}
	return ids, nil
}

// modelsFor returns the manifest and models directory of dev's side:
// -reference-models-dir with the built-in manifest for the CPU when given,
// else -models-dir with -manifest (or the built-in one).
func modelsFor(o options, dev runtime.Device) (*models.Manifest, string, error) {
	if dev == runtime.DeviceCPU && o.refDir != "" {
		mf, err := models.Default()
		return mf, o.refDir, err
	}
	if o.manifest == "" {
		mf, err := models.Default()
		return mf, o.modelsDir, err
	}
	data, err := os.ReadFile(o.manifest)
	if err != nil {
		return nil, "", err
	}
	mf, err := models.ParseManifest(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", o.manifest, err)
	}
	return mf, o.modelsDir, nil
}

func openModel(o options, id models.ModelID, dev runtime.Device, cudaOpts map[string]string) (*runtime.Model, error) {
	mf, dir, err := modelsFor(o, dev)
	if err != nil {
		return nil, err
	}
	meta, err := mf.Model(id)
	if err != nil {
		return nil, err
	}
	rc, err := meta.RuntimeConfig(dir)
	if err != nil {
		return nil, err
	}
	rc.Device, rc.CUDAOptions, rc.ConcurrentRuns, rc.Sessions, rc.CPUPooling = dev, cudaOpts, o.concurrentRuns, o.sessions, o.cpuPooling
	rc.PageableOutputs = o.pageable
	if name, p, err := neural.E12Projection(); err == nil && p.In == meta.Dims && id == e12Base && !o.hostE12 {
		// A file with E12's projection in its graph (scripts/e12graph: the
		// cuda fp16 e5) runs EmbedWithTokens as E1/E12 do: pooled vector and
		// projected tokens from one run.
		rc.TokenOutput, rc.TokenOutputDims = name, p.Out
	}
	if dev == runtime.DeviceCUDA {
		rc.BatchSize, rc.MaxBatchTokens, rc.IntraOpThreads = o.batch, o.batchTokens, o.intraOp
		if o.ortProfile != "" {
			rc.ProfilePrefix = o.ortProfile + "-" + string(id)
		}
	}
	return runtime.Open(rc)
}

// e12Base is the model whose token states E12's fallback projects.
const e12Base models.ModelID = "e5-small-v2"

// checkModel runs parity, query latency and ingest of one model on every device.
func checkModel(ctx context.Context, o options, id models.ModelID, docs []string, devs []runtime.Device, cudaOpts map[string]string, res *Result) error {
	ms := map[runtime.Device]*runtime.Model{}
	for _, dev := range devs {
		m, err := openModel(o, id, dev, cudaOpts)
		if err != nil {
			return fmt.Errorf("open %s on %s: %w", id, dev, err)
		}
		defer m.Close()
		if dev == runtime.DeviceCUDA && m.Device() != "cuda" {
			return fmt.Errorf("%s runs on %q, not cuda", id, m.Device())
		}
		ms[dev] = m
	}
	if res.Corpus.MeanTokens == 0 {
		n := 0
		for _, d := range docs[:min(len(docs), 500)] {
			enc, err := ms[devs[0]].Tokenizer().Encode(d, 512)
			if err != nil {
				return err
			}
			n += len(enc.IDs)
		}
		res.Corpus.MeanTokens = float64(n) / float64(min(len(docs), 500))
	}
	// Parity on fixed texts: the first 64 docs and the queries, in one batched call each.
	g, okG := ms[runtime.DeviceCUDA]
	if c, ok := ms[runtime.DeviceCPU]; ok && okG {
		if err := checkParity(ctx, o, id, g, c, docs, res); err != nil {
			return err
		}
	}
	for _, dev := range devs {
		m := ms[dev]
		q, err := queryLatency(ctx, m, o.queries)
		if err != nil {
			return err
		}
		q.Model = string(id)
		res.Queries = append(res.Queries, q)
		// Ingest: the corpus in calls of 512 documents.
		n := o.gpuDocs
		if dev == runtime.DeviceCPU {
			n = o.cpuDocs
		}
		set := docs[:min(n, len(docs))]
		if _, err := m.Embed(ctx, runtime.ViewPassage, set[:min(64, len(set))]); err != nil { // warm-up
			return err
		}
		for _, call := range []string{"EmbedWithTokens", "Embed"} {
			g, err := modelIngest(ctx, m, call, set)
			if err != nil {
				return err
			}
			g.Model = string(id)
			res.Ingest = append(res.Ingest, g)
		}
	}
	return nil
}

// checkParity compares id's vectors (Embed) and token states on cuda (g)
// and the CPU (c) for the first 64 docs and the fixed queries, and records
// a failure below -min-cosine.
func checkParity(ctx context.Context, o options, id models.ModelID, g, c *runtime.Model, docs []string, res *Result) error {
	texts := append(slices.Clone(docs[:min(64, len(docs))]), fixedQueries...)
	a, err := g.Embed(ctx, runtime.ViewPassage, texts)
	if err != nil {
		return err
	}
	b, err := c.Embed(ctx, runtime.ViewPassage, texts)
	if err != nil {
		return err
	}
	p := parity{Model: string(id), Texts: len(texts), MinCosine: 1, Device: g.Device() + " vs " + c.Device()}
	for i := range a {
		cs := cosine(a[i].Vector, b[i].Vector)
		p.MinCosine = min(p.MinCosine, cs)
		p.MeanCosine += cs / float64(len(a))
	}
	p.What = "Embed"
	tp, err := tokenParity(ctx, g, c, texts)
	if err != nil {
		return err
	}
	tp.Model = string(id)
	all := []parity{p, tp}
	if g.ProjectedOutput() != "" {
		_, proj, err := neural.E12Projection()
		if err != nil {
			return err
		}
		pp, err := projectedParity(ctx, g, c, texts, proj)
		if err != nil {
			return err
		}
		pp.Model = string(id)
		all = append(all, pp)
	}
	for _, p := range all {
		res.Parity = append(res.Parity, p)
		if p.MinCosine < o.minCosine {
			res.Failures = append(res.Failures, fmt.Sprintf("%s %s parity: worst cosine %.5f < %.3f", id, p.What, p.MinCosine, o.minCosine))
		}
	}
	return nil
}

// tokenParity compares the token states (TokenVectors, what E10 and, on
// a file without E12's projection, E12 read: on cuda through the pinned
// output buffers) of texts on g and c, row by row: the worst and mean
// cosine over every token of every text.
func tokenParity(ctx context.Context, g, c *runtime.Model, texts []string) (parity, error) {
	a, err := g.TokenVectors(ctx, runtime.ViewPassage, texts)
	if err != nil {
		return parity{}, err
	}
	b, err := c.TokenVectors(ctx, runtime.ViewPassage, texts)
	if err != nil {
		return parity{}, err
	}
	p := parity{What: "token states", Texts: len(texts), MinCosine: 1, Device: g.Device() + " vs " + c.Device()}
	return p, rowParityOf(&p, g, c, a, b, func(r []float32) []float32 { return r })
}

// projectedParity compares, row by row, the projected tokens g's graph
// gives (EmbedWithTokens with Config.TokenOutput: E12 in the graph) with
// proj applied on the host to c's token states.
func projectedParity(ctx context.Context, g, c *runtime.Model, texts []string, proj convert.Projection) (parity, error) {
	a, err := g.EmbedWithTokens(ctx, g.Config().PassagePrefix, texts)
	if err != nil {
		return parity{}, err
	}
	b, err := c.TokenVectors(ctx, runtime.ViewPassage, texts)
	if err != nil {
		return parity{}, err
	}
	ta := make([]runtime.TokenMatrix, len(a))
	for i := range a {
		if a[i].Tokens.Output == "" || a[i].Tokens.Dim != proj.Out {
			return parity{}, fmt.Errorf("text %d: %d-wide rows of output %q on %s, want %d projected ones", i, a[i].Tokens.Dim, a[i].Tokens.Output, g.Device(), proj.Out)
		}
		ta[i] = a[i].Tokens
	}
	host := func(r []float32) []float32 {
		out := make([]float32, proj.Out)
		for j := range out {
			var s float32
			for k, v := range r {
				s += (v - proj.Mean[k]) * proj.Components[j*proj.In+k]
			}
			out[j] = s
		}
		return out
	}
	p := parity{What: "E12 projected in the graph", Texts: len(texts), MinCosine: 1, Device: g.Device() + " vs " + c.Device() + " (projected on the host)"}
	return p, rowParityOf(&p, g, c, ta, b, host)
}

// rowParityOf sets p's worst and mean cosine between each row of a and
// fb of the same row of b, text by text; texts tokenized differently are
// an error.
func rowParityOf(p *parity, g, c *runtime.Model, a, b []runtime.TokenMatrix, fb func([]float32) []float32) error {
	rows := 0
	for i := range a {
		ta, tb := a[i], b[i]
		if len(ta.IDs) != len(tb.IDs) {
			return fmt.Errorf("text %d: %d tokens on %s, %d on %s", i, len(ta.IDs), g.Device(), len(tb.IDs), c.Device())
		}
		for r := range ta.IDs {
			cs := cosine(ta.Row(r), fb(tb.Row(r)))
			p.MinCosine = min(p.MinCosine, cs)
			p.MeanCosine += cs
			rows++
		}
	}
	p.MeanCosine /= float64(max(rows, 1))
	return nil
}

// queryLatency encodes n fixed queries through m one per call, as a search
// does, after a warm-up of 20.
func queryLatency(ctx context.Context, m *runtime.Model, n int) (latency, error) {
	l, err := timeQueries(n, func(q string) error {
		_, err := m.Embed(ctx, runtime.ViewQuery, []string{q})
		return err
	})
	l.Device = m.Device()
	return l, err
}

// slotQueries times E1's, E5's and E7's query views through the registry,
// as a search encodes them: the model files above time one pass each, but
// E1, E5 and E7 encode queries with their fine-tuned graphs (e1tune.bin,
// e5tune.bin, e7tune.bin, fp32 even under fp16) and E1 adds its raw view,
// which the engine's relevance reads — two e5 passes per query.
func slotQueries(ctx context.Context, reg *engine.Registry, dev runtime.Device, n int, res *Result) error {
	e1, e5, e7 := reg.Get(fingerprint.E1), reg.Get(fingerprint.E5), reg.Get(fingerprint.E7)
	one := func(e embedders.Embedder, raw bool) func(string) error {
		return func(q string) error {
			_, err := e.EmbedQuery(ctx, embedders.Query{Text: q, Raw: raw})
			return err
		}
	}
	forward := func(q string) error { // E5 as code_search probes it: the query's cause view
		_, err := e5.EmbedQuery(ctx, embedders.Query{Text: q, As: fingerprint.SideA})
		return err
	}
	k := 0 // numbers every text timed, across the rows
	for _, c := range []struct {
		what   string
		encode func(string) error
	}{
		{"E1 query, tuned", one(e1, false)},
		{"E1 query, raw", one(e1, true)},
		{"E1 query, both", func(q string) error { // side by side, as the engine runs them
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, raw := range []bool{false, true} {
				wg.Go(func() { errs[i] = one(e1, raw)(q) })
			}
			wg.Wait()
			return errors.Join(errs...)
		}},
		{"E5 query, tuned", forward},
		{"E7 query, tuned", one(e7, false)},
	} {
		if e := map[string]embedders.Embedder{"E1": e1, "E5": e5, "E7": e7}[c.what[:2]]; e.Status().State == fingerprint.StatusUnavailable {
			continue // no model: nothing to time
		}
		// A text once per call: the registry remembers the queries it
		// encoded (the engine's view cache aside), which would time nothing.
		l, err := timeQueries(n, func(q string) error {
			k++
			return c.encode(fmt.Sprintf("%s (%d)", q, k))
		})
		if err != nil {
			return fmt.Errorf("%s on %s: %w", c.what, dev, err)
		}
		l.Model, l.Device = c.what, string(dev)
		res.Queries = append(res.Queries, l)
	}
	return nil
}

// timeQueries calls encode on n fixed queries one at a time, after a
// warm-up of 20, and returns the latencies (Model and Device unset).
func timeQueries(n int, encode func(string) error) (latency, error) {
	for i := range 20 {
		if err := encode(fixedQueries[i%len(fixedQueries)]); err != nil {
			return latency{}, err
		}
	}
	lat := make([]float64, n)
	tq := time.Now()
	for i := range lat {
		t := time.Now()
		if err := encode(fixedQueries[i%len(fixedQueries)]); err != nil {
			return latency{}, err
		}
		lat[i] = float64(time.Since(t).Microseconds()) / 1000
	}
	slices.Sort(lat)
	return latency{Calls: len(lat), P50MS: pct(lat, 0.5), P95MS: pct(lat, 0.95), span: since(tq)}, nil
}

// modelIngest embeds set through m in calls of 512 documents with call
// ("EmbedWithTokens": token states to the host, as E1/E12 and E7/E10 read
// them; "Embed": a vector per text, the model's pooled output where it has
// one) and says where the time went.
func modelIngest(ctx context.Context, m *runtime.Model, call string, set []string) (ingest, error) {
	before, t := m.Stats(), time.Now()
	for start := 0; start < len(set); start += 512 {
		part := set[start:min(start+512, len(set))]
		var err error
		if call == "Embed" {
			_, err = m.Embed(ctx, runtime.ViewPassage, part)
		} else {
			_, err = m.EmbedWithTokens(ctx, m.Config().PassagePrefix, part)
		}
		if err != nil {
			return ingest{}, err
		}
	}
	wall := time.Since(t)
	st := m.Stats().Sub(before)
	if call == "Embed" && m.PooledOutput() != "" {
		call += " (" + m.PooledOutput() + ")"
	}
	if call == "EmbedWithTokens" && m.ProjectedOutput() != "" {
		call += " (pooled + " + m.ProjectedOutput() + ")"
	}
	return ingest{Call: call, Pinned: m.PinnedOutputs(), Device: m.Device(), Docs: len(set), DocsPerS: float64(len(set)) / wall.Seconds(),
		Batches: st.Batches, Fill: float64(st.Tokens) / float64(max(st.PaddedTokens, 1)),
		TokenizeMS: msOf(st.Tokenize), PackMS: msOf(st.Pack), RunMS: msOf(st.Run), UnpackMS: msOf(st.Unpack), WallMS: msOf(wall), span: since(t)}, nil
}

// checkFull measures full 13-slot fingerprints through the registry, and
// engine.AddBatch into a fresh store.
func checkFull(ctx context.Context, o options, dev runtime.Device, docs []string, cudaOpts map[string]string, res *Result) error {
	prec := neural.Precision(o.precision)
	if prec == "default" {
		prec = neural.PrecisionDefault
	}
	mf, dir, err := modelsFor(o, dev)
	if err != nil {
		return err
	}
	cfg := neural.Config{ModelsDir: dir, Manifest: mf, Device: dev, OpenNow: true, CUDAOptions: cudaOpts, Precision: prec, ConcurrentRuns: o.concurrentRuns, Sessions: o.sessions, CPUPooling: o.cpuPooling, PageableOutputs: o.pageable, HostE12Projection: o.hostE12}
	if dev == runtime.DeviceCUDA {
		cfg.BatchSize, cfg.MaxBatchTokens, cfg.IntraOpThreads = o.batch, o.batchTokens, o.intraOp
	}
	reg, closeReg, err := neural.Registry(ctx, cfg)
	if err != nil {
		return fmt.Errorf("registry on %s: %w", dev, err)
	}
	defer closeReg()
	in := make([]embedders.Input, len(docs))
	now := time.Now()
	for i, d := range docs {
		in[i] = embedders.Input{Text: d, Created: now, Session: "gpucheck", Seq: uint64(i)}
	}
	if _, err := reg.EmbedDocuments(ctx, in[:min(32, len(in))]); err != nil { // warm-up
		return err
	}
	if err := slotQueries(ctx, reg, dev, o.queries, res); err != nil {
		return err
	}
	first := len(res.Full) == 0
	stopProfile, err := startProfile(o.cpuProfile, first)
	if err != nil {
		return err
	}
	sp, inRun, err := timeRegistry(ctx, reg, in)
	if err != nil {
		return fmt.Errorf("registry on %s: %w", dev, err)
	}
	if stopProfile != nil {
		stopProfile()
	}
	slotMS, err := slotsAlone(ctx, reg, in[:min(o.slotDocs, len(in))])
	if err != nil {
		return fmt.Errorf("on %s: %w", dev, err)
	}
	devsUsed := map[string]string{}
	var unavailable []string
	for i, st := range reg.Statuses() {
		if st.Device != "" {
			devsUsed[st.Producer.Model] = st.Device
		}
		if st.State == fingerprint.StatusUnavailable {
			unavailable = append(unavailable, fmt.Sprintf("%s: %s", fingerprint.Slots()[i], st.Reason))
		}
	}
	res.Full = append(res.Full, fullIngest{What: "registry", Device: string(dev), Docs: len(docs), DocsPerS: float64(len(docs)) / (sp.End - sp.Start), Devices: devsUsed, Unavailable: unavailable, SlotMS: slotMS, InRunMS: inRun, span: sp})
	if o.registryInFlight > 1 {
		sp, err := registryInFlight(ctx, reg, in, o.registryInFlight)
		if err != nil {
			return fmt.Errorf("registry on %s: %w", dev, err)
		}
		res.Full = append(res.Full, fullIngest{What: fmt.Sprintf("registry, %d calls at once", o.registryInFlight), Device: string(dev), Docs: len(docs), DocsPerS: float64(len(docs)) / (sp.End - sp.Start), Devices: devsUsed, Unavailable: unavailable, span: sp})
	}
	if !o.engine {
		return nil
	}
	storeDir, err := os.MkdirTemp("", "gpucheck-store-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(storeDir)
	row := fullIngest{Devices: devsUsed, Unavailable: unavailable}
	if err := checkWriters(ctx, o, dev, storeDir, reg, docs, first, row, res); err != nil {
		return err
	}
	return checkImports(ctx, o, dev, storeDir, reg, docs, row, res)
}

// checkWriters measures engine.AddBatch into a fresh store from one writer
// (CPU-profiled with -engine-cpuprofile on the first device) and from two.
func checkWriters(ctx context.Context, o options, dev runtime.Device, storeDir string, reg *engine.Registry, docs []string, first bool, row fullIngest, res *Result) error {
	for _, writers := range []int{1, 2} {
		what := "engine"
		if writers > 1 {
			what = fmt.Sprintf("engine, %d writers", writers)
		}
		stop, err := startProfile(o.engineProfile, first && writers == 1)
		if err != nil {
			return err
		}
		sp, ws, err := engineIngest(ctx, storeDir, what, reg, docs, writers)
		if stop != nil {
			stop()
		}
		if err != nil {
			return fmt.Errorf("%s on %s: %w", what, dev, err)
		}
		r := row
		r.What, r.Device, r.Docs, r.DocsPerS, r.span, r.Writes = what, string(dev), len(docs), float64(len(docs))/(sp.End-sp.Start), sp, ws
		res.Full = append(res.Full, r)
	}
	return nil
}

// checkOverlap opens ids on dev and times their token passes over docs one
// after another and then all at once (after one warm-up pass each).
func checkOverlap(ctx context.Context, o options, ids []models.ModelID, dev runtime.Device, docs []string, cudaOpts map[string]string, res *Result) error {
	ms := make([]*runtime.Model, len(ids))
	names := make([]string, len(ids))
	for i, id := range ids {
		m, err := openModel(o, id, dev, cudaOpts)
		if err != nil {
			return fmt.Errorf("open %s on %s: %w", id, dev, err)
		}
		defer m.Close()
		ms[i], names[i] = m, string(id)
	}
	pass := func(m *runtime.Model) error {
		for start := 0; start < len(docs); start += 512 {
			if _, err := m.EmbedWithTokens(ctx, m.Config().PassagePrefix, docs[start:min(start+512, len(docs))]); err != nil {
				return err
			}
		}
		return nil
	}
	var seq time.Duration
	for _, m := range ms {
		if err := pass(m); err != nil { // warm-up: arenas grown, kernels chosen
			return err
		}
		t := time.Now()
		if err := pass(m); err != nil {
			return err
		}
		seq += time.Since(t)
	}
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	t := time.Now()
	for i, m := range ms {
		wg.Go(func() { errs[i] = pass(m) })
	}
	wg.Wait()
	con := time.Since(t)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	res.Overlap = append(res.Overlap, overlap{Device: string(dev), Models: names, Docs: len(docs), SequentialMS: msOf(seq), ConcurrentMS: msOf(con), Speedup: seq.Seconds() / con.Seconds()})
	return nil
}

// slotsAlone embeds part through each slot in turn: milliseconds per slot
// (an empty map for an empty part).
func slotsAlone(ctx context.Context, reg *engine.Registry, part []embedders.Input) (map[string]float64, error) {
	slotMS := map[string]float64{}
	if len(part) == 0 {
		return slotMS, nil
	}
	for _, slot := range fingerprint.Slots() {
		ts := time.Now()
		if _, err := reg.Get(slot).EmbedDocuments(ctx, part); err != nil {
			return nil, fmt.Errorf("%s alone: %w", slot, err)
		}
		slotMS[slot.String()] = msOf(time.Since(ts))
	}
	return slotMS, nil
}

// checkImports measures add --jsonl (bulkimport.Import into a fresh store)
// for each of -import-batches, pipelined and one batch at a time; row
// carries the registry's devices and unavailable slots.
func checkImports(ctx context.Context, o options, dev runtime.Device, storeDir string, reg *engine.Registry, docs []string, row fullIngest, res *Result) error {
	sizes, err := counts(o.importBatches, "-import-batches")
	if err != nil {
		return err
	}
	traced := dev != firstDevice(o) // only the first device's first pipelined import is traced
	for _, size := range sizes {
		flights, err := counts(o.importInFlight, "-import-inflight")
		if err != nil {
			return err
		}
		for _, inFlight := range append(flights, 0) {
			what := fmt.Sprintf("add --jsonl, batches of %d, %d in flight", size, inFlight)
			if inFlight == 0 {
				what = fmt.Sprintf("add --jsonl, batches of %d, one at a time", size)
			}
			stop, err := startTrace(o.importTrace, inFlight > 0 && !traced)
			if err != nil {
				return err
			}
			traced = traced || stop != nil
			sp, h, ws, err := importIngest(ctx, storeDir, reg, docs, size, inFlight)
			if stop != nil {
				stop()
			}
			if err != nil {
				return fmt.Errorf("%s on %s: %w", what, dev, err)
			}
			r := row
			r.What, r.Device, r.Docs, r.DocsPerS, r.span, r.Halves, r.Writes = what, string(dev), len(docs), float64(len(docs))/(sp.End-sp.Start), sp, h, ws
			res.Full = append(res.Full, r)
		}
	}
	return nil
}

// counts reads a comma-separated list of positive counts (flag names it).
func counts(list, flag string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: %q is not a positive count", flag, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// sequential hides an engine's PrepareBatch, so bulkimport stores one
// batch at a time: the baseline of the pipelined import.
type sequential struct{ bulkimport.Adder }

// importIngest stores docs into a fresh store under dir the way add --jsonl
// does (bulkimport.Import of one JSONL line per document, size lines per
// AddBatch), with inFlight batches on their way at once through the
// engine's two halves, or (0) one AddBatch at a time.
func importIngest(ctx context.Context, dir string, reg *engine.Registry, docs []string, size, inFlight int) (span, *halves, *writeSteps, error) {
	s, err := freshStore(dir, reg)
	if err != nil {
		return span{}, nil, nil, err
	}
	var in strings.Builder
	for _, d := range docs {
		b, err := json.Marshal(map[string]string{"content": d, "type": string(record.TypeCode), "session": "gpucheck"})
		if err != nil {
			return span{}, nil, nil, errors.Join(err, s.Close())
		}
		in.Write(append(b, '\n'))
	}
	var a bulkimport.Adder = s
	tp := &timedPreparer{Engine: s}
	if inFlight == 0 {
		a = sequential{s}
	} else {
		a = tp
	}
	t := time.Now()
	res, err := bulkimport.Import(ctx, a, strings.NewReader(in.String()), bulkimport.Options{BatchSize: size, InFlight: inFlight})
	sp := since(t)
	if err == nil && res.Added+len(res.Duplicates) != len(docs) {
		err = fmt.Errorf("stored %d of %d documents (%d failed)", res.Added+len(res.Duplicates), len(docs), res.Failed)
	}
	var h *halves
	if inFlight > 0 {
		h = tp.halves()
	}
	return sp, h, writeStepsOf(s.WriteStats()), errors.Join(err, s.Close())
}

// timedPreparer is an engine whose two halves of AddBatch are timed: the
// spans of every PrepareBatch and of every store it returned.
type timedPreparer struct {
	*engine.Engine
	mu               sync.Mutex
	prepares, stores []interval
}

type interval struct{ start, end time.Time }

func (tp *timedPreparer) PrepareBatch(ctx context.Context, ns []record.NewMemory) (func(context.Context) ([]record.Memory, error), error) {
	t := time.Now()
	store, err := tp.Engine.PrepareBatch(ctx, ns)
	tp.add(&tp.prepares, t)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) ([]record.Memory, error) {
		t := time.Now()
		defer tp.add(&tp.stores, t)
		return store(ctx)
	}, nil
}

func (tp *timedPreparer) add(to *[]interval, start time.Time) {
	end := time.Now()
	tp.mu.Lock()
	*to = append(*to, interval{start, end})
	tp.mu.Unlock()
}

// halves sums the recorded spans: each half's total, the wall time each
// covered, and the wall time both covered at once.
func (tp *timedPreparer) halves() *halves {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	h := &halves{Batches: len(tp.prepares)}
	for _, iv := range tp.prepares {
		h.PrepareMS += msOf(iv.end.Sub(iv.start))
	}
	for _, iv := range tp.stores {
		h.StoreMS += msOf(iv.end.Sub(iv.start))
	}
	p, st := union(tp.prepares), union(tp.stores)
	h.PrepareWallMS, h.StoreWallMS = msOf(total(p)), msOf(total(st))
	for _, a := range p {
		for _, b := range st {
			if lo, hi := maxTime(a.start, b.start), minTime(a.end, b.end); hi.After(lo) {
				h.BothMS += msOf(hi.Sub(lo))
			}
		}
	}
	return h
}

// union merges overlapping intervals into disjoint ones, in order.
func union(ivs []interval) []interval {
	ivs = slices.Clone(ivs)
	slices.SortFunc(ivs, func(a, b interval) int { return a.start.Compare(b.start) })
	var out []interval
	for _, iv := range ivs {
		if n := len(out); n > 0 && !iv.start.After(out[n-1].end) {
			out[n-1].end = maxTime(out[n-1].end, iv.end)
			continue
		}
		out = append(out, iv)
	}
	return out
}

func total(ivs []interval) time.Duration {
	var d time.Duration
	for _, iv := range ivs {
		d += iv.end.Sub(iv.start)
	}
	return d
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// freshStore opens a new, empty store in a directory of its own under dir.
func freshStore(dir string, reg *engine.Registry) (*engine.Engine, error) {
	sub, err := os.MkdirTemp(dir, "store-")
	if err != nil {
		return nil, err
	}
	s, err := engine.Open(sub, engine.Options{Create: true, Embedders: reg})
	if err != nil {
		return nil, fmt.Errorf("open a store in %s: %w", sub, err)
	}
	return s, nil
}

// startTrace starts an execution trace into path when path is set and on
// is true; the returned function (nil otherwise) stops and closes it.
func startTrace(path string, on bool) (func(), error) {
	return startInto(path, on, trace.Start, trace.Stop)
}

// startInto creates path and starts begin writing into it when path is set
// and on is true; the returned function (nil otherwise) calls end and
// closes the file.
func startInto(path string, on bool, begin func(io.Writer) error, end func()) (func(), error) {
	if path == "" || !on {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := begin(f); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return func() { end(); f.Close() }, nil
}

// firstDevice is the first of -devices (unparsed devices compare unequal).
func firstDevice(o options) runtime.Device {
	d, _ := runtime.ParseDevice(strings.Split(o.devices, ",")[0])
	return d
}

// startProfile starts a CPU profile into path when path is set and on is
// true; the returned function (nil otherwise) stops and closes it.
func startProfile(path string, on bool) (func(), error) {
	return startInto(path, on, pprof.StartCPUProfile, pprof.StopCPUProfile)
}

// engineIngest stores docs into a fresh store under dir through
// engine.AddBatch in calls of 512, from writers goroutines taking the next
// call in turn: with two, one call's fingerprint (the GPU) overlaps the
// other's write (the CPU), as two clients of a server would.
func engineIngest(ctx context.Context, dir, what string, reg *engine.Registry, docs []string, writers int) (span, *writeSteps, error) {
	s, err := freshStore(dir, reg)
	if err != nil {
		return span{}, nil, err
	}
	var next atomic.Int64
	errs := make([]error, writers)
	var wg sync.WaitGroup
	t := time.Now()
	for w := range writers {
		wg.Go(func() {
			for start := int(next.Add(512) - 512); start < len(docs); start = int(next.Add(512) - 512) {
				batch := make([]record.NewMemory, 0, 512)
				for _, d := range docs[start:min(start+512, len(docs))] {
					batch = append(batch, record.NewMemory{Content: d, Type: record.TypeCode, Session: "gpucheck"})
				}
				if _, err := s.AddBatch(ctx, batch); err != nil {
					errs[w] = fmt.Errorf("AddBatch: %w", err)
					return
				}
			}
		})
	}
	wg.Wait()
	sp := since(t)
	return sp, writeStepsOf(s.WriteStats()), errors.Join(errors.Join(errs...), s.Close())
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// fixedQueries are short search queries (about 8–16 tokens).
var fixedQueries = []string{
	"why did the build fail after the rocksdb upgrade",
	"parse a duration from a config string",
	"retry an http request with exponential backoff",
	"close the column family handles before the database",
	"how is the bm25 length normalisation computed",
	"read a jsonl file line by line in go",
	"mutex held while writing to the map",
	"convert camelCase identifiers to snake_case",
	"where is the onnx session created",
	"sort results by score then by id",
	"decode a varint from a byte slice",
	"timeout when the server does not answer",
	"what does the e5 prefix query mean",
	"compute cosine similarity of two vectors",
	"list files changed since the last commit",
	"the test fails only under the race detector",
}

// loadCorpus reads one JSON string per line, or cuts Go functions of
// 350–750 bytes (about 200 e5 tokens on average) out of $GOROOT/src.
//
// saveCorpus writes what loadCorpus reads: a machine without Go's sources
// (a GPU machine) then measures the same texts.
func saveCorpus(path string, o options) error {
	docs, _, err := loadCorpus(o.corpus, max(o.gpuDocs, o.cpuDocs))
	if err != nil {
		return err
	}
	var buf []byte
	for _, d := range docs {
		b, err := json.Marshal(d)
		if err != nil {
			return err
		}
		buf = append(append(buf, b...), '\n')
	}
	return os.WriteFile(path, buf, 0o644)
}

func loadCorpus(path string, n int) ([]string, string, error) {
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		var out []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() && len(out) < n {
			var s string
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				return nil, "", fmt.Errorf("%s: %w", path, err)
			}
			out = append(out, s)
		}
		if err := sc.Err(); err != nil {
			return nil, "", err
		}
		if len(out) < n {
			return nil, "", fmt.Errorf("%s holds %d texts, %d needed", path, len(out), n)
		}
		return out, path, nil
	}
	root := filepath.Join(goruntime.GOROOT(), "src")
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= n {
			return cmp.Or(err, fs.SkipAll)
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, fn := range strings.Split(string(data), "\nfunc ")[1:] {
			if end := strings.Index(fn, "\n}\n"); end > 0 {
				fn = "func " + fn[:end+2]
				if len(fn) >= 350 && len(fn) <= 750 && len(out) < n {
					out = append(out, fn)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if len(out) < n {
		return nil, "", fmt.Errorf("only %d Go functions under %s; give -corpus", len(out), root)
	}
	return out, root + " (Go functions of 350–750 bytes)", nil
}

func printTable(r Result) {
	fmt.Printf("\nparity (cosine per text, cuda vs cpu, %s):\n", r.Library)
	for _, p := range r.Parity {
		fmt.Printf("  %-22s %-12s %3d texts  min %.6f  mean %.6f\n", p.Model, p.What, p.Texts, p.MinCosine, p.MeanCosine)
	}
	if len(r.Parity) == 0 {
		fmt.Printf("  not run: parity needs both devices (-devices cuda,cpu, the default)\n")
	}
	fmt.Printf("\nquery encoding (one text per call):\n")
	for _, q := range r.Queries {
		fmt.Printf("  %-22s %-5s p50 %7.2f ms  p95 %7.2f ms  (%d calls)\n", q.Model, short(q.Device), q.P50MS, q.P95MS, q.Calls)
	}
	fmt.Printf("\nmodel ingest (calls of 512 docs, mean %.0f tokens per doc):\n", r.Corpus.MeanTokens)
	for _, g := range r.Ingest {
		fmt.Printf("  %-22s %-29s pinned=%-5v %-5s %8.1f docs/s  %4d docs  batches %3d fill %.2f  tokenize %7.1f  pack %6.1f  run %8.1f  unpack %7.1f  wall %8.1f ms\n",
			g.Model, g.Call, g.Pinned, short(g.Device), g.DocsPerS, g.Docs, g.Batches, g.Fill, g.TokenizeMS, g.PackMS, g.RunMS, g.UnpackMS, g.WallMS)
	}
	for _, v := range r.Overlap {
		fmt.Printf("\nmodels at once on %s (%v, %d docs, token passes): one after another %.0f ms, all at once %.0f ms: %.2f×\n",
			v.Device, v.Models, v.Docs, v.SequentialMS, v.ConcurrentMS, v.Speedup)
	}
	fmt.Printf("\nfull fingerprint (13 slots):\n")
	for _, f := range r.Full {
		fmt.Printf("  %-42s %-5s %8.1f docs/s  %4d docs  %v\n", f.What, f.Device, f.DocsPerS, f.Docs, f.Devices)
		if len(f.SlotMS) > 0 {
			fmt.Printf("           each slot alone:")
			for _, slot := range fingerprint.Slots() {
				fmt.Printf(" %s %.0f", slot, f.SlotMS[slot.String()])
			}
			fmt.Printf(" ms\n")
		}
		if len(f.InRunMS) > 0 {
			fmt.Printf("           in the run, all at once:")
			for _, slot := range fingerprint.Slots() {
				fmt.Printf(" %s %.0f", slot, f.InRunMS[slot.String()])
			}
			fmt.Printf(" ms\n")
		}
		if h := f.Halves; h != nil {
			fmt.Printf("           %d batches: prepare %.0f ms (wall %.0f), store %.0f ms (wall %.0f), both at once %.0f ms\n",
				h.Batches, h.PrepareMS, h.PrepareWallMS, h.StoreMS, h.StoreWallMS, h.BothMS)
		}
		if w := f.Writes; w != nil {
			fmt.Printf("           writes, ms a document: stage %.3f, commit %.3f, write %.3f, index %.3f, total %.3f (%d batches)\n",
				w.StageMS, w.CommitMS, w.WriteMS, w.IndexMS, w.TotalMS, w.Batches)
		}
		for _, u := range f.Unavailable {
			fmt.Printf("           not computed: %s\n", u)
		}
	}
	fmt.Printf("\n%.0f s in all\n", r.Seconds)
}

func short(d string) string {
	if strings.HasPrefix(d, "cpu (fallback") {
		return "cpu!"
	}
	return d
}
