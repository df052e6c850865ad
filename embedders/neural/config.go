package neural

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/runtime"
)

// Config chooses the models directory, the execution provider and the
// variants the model-backed slots use.
type Config struct {
	// ModelsDir holds <model-id>/{model.onnx,tokenizer.json}; "" means
	// DefaultModelsDir().
	ModelsDir string
	// Device is the execution provider ("" = cpu). AllowCPUFallback runs on the
	// CPU when the CUDA provider cannot load (and says so in the status).
	Device           runtime.Device
	AllowCPUFallback bool
	// Precision picks the weights. The default takes the "-q" dynamic-int8
	// builds of the 12-layer encoders (e5-small-v2, bge-small-en-v1.5: cosine
	// 0.997 to fp32, 1.8× faster end to end) and fp32 all-MiniLM-L6-v2 (its
	// int8 build drifts to a mean cosine of 0.989 to fp32, worst 0.969, on the
	// runtime's parity texts, and it is the cheapest model anyway).
	// PrecisionInt8 takes every int8 build, PrecisionFP32 none. A variant that
	// is not installed makes its slots unavailable, naming the `cgraph models
	// pull` that fixes it.
	Precision Precision
	// IntraOpThreads is ONNX Runtime's thread count per run (0: one per core).
	IntraOpThreads int
	// BatchSize is the most texts per ONNX run and MaxBatchTokens the most
	// padded tokens per run (0: the runtime's defaults for the device, except
	// that a dynamic-int8 model runs each text alone on the CPU; int8Dynamic).
	BatchSize, MaxBatchTokens int
	// ConcurrentRuns is how many runs of one model's session may execute at
	// once (0: the runtime's default, 1); the slots sharing a model (E7, E8,
	// E10, E11 on MiniLM) otherwise queue for it.
	ConcurrentRuns int
	// Sessions is how many sessions of each model are open (0: the
	// runtime's default, 1): with more, the slots sharing a model run side by
	// side instead of queueing (runtime.Config.Sessions).
	Sessions int
	// CPUPooling pools on the CPU even where a model file has its own pooled
	// output (runtime.Config.CPUPooling; an A/B baseline).
	CPUPooling bool
	// PageableOutputs keeps cuda outputs in Go memory instead of pinned
	// buffers (runtime.Config.PageableOutputs; an A/B baseline).
	PageableOutputs bool
	// HostE12Projection projects e5's token states for E12 on the host even
	// where the model file has E12Projection's output in its graph (an A/B
	// baseline: the token states then leave the device as before).
	HostE12Projection bool
	// CUDAOptions are extra ONNX Runtime CUDA provider options (cuda only).
	CUDAOptions map[string]string
	// OpenNow opens every model's session while Registry builds and runs one
	// short text through it, so that a device that cannot serve fails there,
	// naming what is missing, instead of on the first add or search; each
	// slot's Status().Device then says where it really runs. Default: sessions
	// open on first use (a keyword search loads no model).
	OpenNow bool
	// Manifest is the model manifest (nil: models.Default()).
	Manifest *models.Manifest
	// ModelFree configures the model-free slots (E2, E3, E4, E6, E9).
	ModelFree modelfree.Config

	// fp32Dir is, once PrecisionFP16 is resolved (fp16), the models
	// directory of the fp32 files under the built-in manifest: E7 encodes
	// its queries with the fp32 all-MiniLM-L6-v2 there fine-tuned for code
	// (e7tune.bin fits that file only), beside the fp16 documents.
	fp32Dir string
}

// Precision names the weight variant of the model-backed slots.
type Precision string

// Precisions.
const (
	PrecisionDefault Precision = "" // cpu: int8 e5-small-v2 and bge-small-en-v1.5, fp32 MiniLM; cuda: all fp32
	PrecisionFP32    Precision = "fp32"
	PrecisionInt8    Precision = "int8"
	// PrecisionFP16 runs, on cuda only, the packed fp16 files (fused, padding
	// removed, their own pooled outputs) that `make setup-cuda-fp16`
	// (scripts/fp16/cuda.sh) builds into <ModelsDir>/FP16Dir with a manifest
	// pinning them under the default ids, in batches of FP16BatchSize: on
	// one H100 a query encodes in 0.8 instead of 3.2-3.5 ms and the full
	// fingerprint runs 1,485-1,672 instead of 1,157-1,230 documents/s
	// (docs/CUDA.md, runs 19-21). Their operators have no CPU kernels.
	PrecisionFP16 Precision = "fp16"
)

// FP16BatchSize is the most texts per ONNX run of PrecisionFP16 when
// Config.BatchSize is 0. The packed graphs compute only a batch's real
// tokens, so longer batches cost no padding there: runs 19-20 measured the
// registry at 1,218-1,251 documents/s with runtime.CUDABatchSize (64),
// 1,421 with 128, 1,485-1,672 with 256 and 1,415 with 512 (the fp32 graphs
// stay at 64, where they were fastest in runs 8-10).
const FP16BatchSize = 256

// FP16Dir is the directory under the models directory that holds the
// weights of PrecisionFP16 and their manifest.json.
const FP16Dir = "cuda-fp16"

// fp16 resolves PrecisionFP16 into the models directory and manifest it
// names (the fp32 variant of each model there); other precisions are
// returned as they are. It refuses fp16 on the CPU and says how to build
// the files when they are missing.
func (c Config) fp16() (Config, error) {
	if c.Precision != PrecisionFP16 {
		return c, nil
	}
	if c.Device != runtime.DeviceCUDA {
		return c, fmt.Errorf("neural: fp16 weights run on cuda only (their fused operators are built for the GPU); use --device cuda, or --precision fp32 or the default on the CPU")
	}
	base := c.ModelsDir
	if base == "" {
		base = DefaultModelsDir()
	}
	dir := filepath.Join(base, FP16Dir)
	path := filepath.Join(dir, "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("neural: fp16 weights: %w: build them with `make setup-cuda-fp16` (scripts/fp16/cuda.sh)", err)
	}
	mf, err := models.ParseManifest(data)
	if err != nil {
		return c, fmt.Errorf("neural: fp16 weights: %s: %w: build them again with `make setup-cuda-fp16`", path, err)
	}
	c.fp32Dir = base
	c.ModelsDir, c.Manifest, c.Precision = dir, mf, PrecisionFP32
	if c.BatchSize == 0 {
		c.BatchSize = FP16BatchSize
	}
	return c, nil
}

// int8ByDefault are the models PrecisionDefault runs in int8; see Precision.
var int8ByDefault = map[models.ModelID]bool{modelE1: true, modelE5: true}

// DefaultModelsDir is $CGRAPH_MODELS, else $XDG_CACHE_HOME/cgraph/models,
// else ~/.cache/cgraph/models (where `make setup` installs the models).
func DefaultModelsDir() string {
	if d := os.Getenv("CGRAPH_MODELS"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "cgraph", "models")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".cache", "cgraph", "models")
	}
	return filepath.Join(home, ".cache", "cgraph", "models")
}

// variant returns the model id of base in the configured precision: the
// manifest's "<id>-q" entry for int8 when there is one. The default
// precision on cuda is fp32 everywhere: ONNX Runtime's CUDA provider has no
// kernels for the dynamic-int8 operators (they would run on the CPU between
// GPU nodes), and fp32 is what the CPU figures are compared with.
func (c Config) variant(mf *models.Manifest, base models.ModelID) models.ModelID {
	if c.Precision == PrecisionInt8 || (c.Precision == PrecisionDefault && c.Device != runtime.DeviceCUDA && int8ByDefault[base]) {
		if _, err := mf.Model(base + "-q"); err == nil {
			return base + "-q"
		}
	}
	return base
}

// Models returns the manifest ids the slot plan uses under cfg when only the
// default models are installed (E1's e5-small-v2, E5's bge-small-en-v1.5 and
// the MiniLM of E7, E8, E10, E11, each in cfg's precision), so that tests and
// checks ask for these instead of hard-coding variant ids.
func Models(cfg Config) ([]models.ModelID, error) {
	cfg, err := cfg.fp16()
	if err != nil {
		return nil, err
	}
	mf := cfg.Manifest
	if mf == nil {
		var err error
		if mf, err = models.Default(); err != nil {
			return nil, fmt.Errorf("neural: manifest: %w", err)
		}
	}
	return []models.ModelID{cfg.variant(mf, modelE1), cfg.variant(mf, modelE5), cfg.variant(mf, modelMiniLM)}, nil
}
