package runtime

import "fmt"

// Pooling says how token vectors become one sentence vector.
type Pooling int

const (
	// PoolMean averages the token vectors whose attention mask is 1.
	PoolMean Pooling = iota + 1
	// PoolCLS takes the first token's vector.
	PoolCLS
)

// ParsePooling reads a manifest's pooling name ("mean" or "cls").
func ParsePooling(s string) (Pooling, error) {
	switch s {
	case "mean":
		return PoolMean, nil
	case "cls":
		return PoolCLS, nil
	}
	return 0, fmt.Errorf("unknown pooling %q (want \"mean\" or \"cls\")", s)
}

func (p Pooling) String() string {
	switch p {
	case PoolMean:
		return "mean"
	case PoolCLS:
		return "cls"
	}
	return fmt.Sprintf("Pooling(%d)", int(p))
}

// Device is the execution provider a session runs on.
type Device string

const (
	DeviceCPU  Device = "cpu"
	DeviceCUDA Device = "cuda"
)

// CUDA batching defaults: batches of 64 texts, cut by padded tokens (see
// Config). On an H100/H200 runs of 64 gave the full fingerprint 8–12% more
// documents/s than 256 in three calls (docs/CUDA.md, runs 8–10).
const (
	CUDABatchSize   = 64
	CUDABatchTokens = 256 * 256
)

// ParseDevice reads a --device value ("" means cpu).
func ParseDevice(s string) (Device, error) {
	switch Device(s) {
	case "", DeviceCPU:
		return DeviceCPU, nil
	case DeviceCUDA:
		return DeviceCUDA, nil
	}
	return "", fmt.Errorf("unknown device %q (want \"cpu\" or \"cuda\")", s)
}

// Task is what the model's output is.
type Task int

const (
	// TaskEncoder: the output is a last hidden state [batch, tokens, hidden]; serves
	// pooled sentence vectors (Embed) and token vectors (TokenVectors).
	TaskEncoder Task = iota
	// TaskMaskedLM: the output is masked-LM logits [batch, tokens, vocab]; serves SPLADE
	// sparse vectors (Sparse).
	TaskMaskedLM
)

func (t Task) String() string {
	if t == TaskMaskedLM {
		return "masked-lm"
	}
	return "encoder"
}

// View is the side of an asymmetric model a text is embedded as; it selects the prefix.
type View int

const (
	// ViewPassage embeds a stored document (Config.PassagePrefix).
	ViewPassage View = iota
	// ViewQuery embeds a search query (Config.QueryPrefix).
	ViewQuery
)

// Config describes one model to run. Package models' manifest fills it; the runtime
// takes only these plain fields.
type Config struct {
	// ID names the model in messages (e.g. "e5-small-v2").
	ID string
	// ONNXPath and TokenizerPath are the installed model files.
	ONNXPath, TokenizerPath string
	// ONNXData, when set, is the model itself (a graph derived in memory from
	// an installed one, such as E7's fine-tuned query encoder); ONNXPath then
	// only names it in messages and is not read.
	ONNXData []byte
	// Task is what the output holds (default TaskEncoder).
	Task Task
	// Output names the model output to read; "" takes the first output.
	Output string
	// Pooling for Embed (default PoolMean). Normalize L2-normalises pooled vectors.
	Pooling   Pooling
	Normalize bool
	// Dims is the expected size of the output's last axis (hidden size, or vocabulary
	// size for TaskMaskedLM); 0 skips the check. A model that differs is refused.
	Dims int
	// MaxLength is the most tokens per text, special tokens included (default 512).
	// Longer texts are truncated and say so in Meta.Truncated.
	MaxLength int
	// QueryPrefix and PassagePrefix are prepended per View (e.g. e5's "query: ").
	QueryPrefix, PassagePrefix string
	// Device is the execution provider (default cpu). With cuda, a CUDA provider that
	// cannot load is an error unless AllowCPUFallback, which runs on the CPU instead and
	// says so in Model.Device.
	Device           Device
	AllowCPUFallback bool
	// IntraOpThreads is ONNX Runtime's thread count per run (0: one per core).
	IntraOpThreads int
	// Spin lets ONNX Runtime's intra-op threads spin-wait between operators: a little
	// lower latency on an idle machine, but on a shared, busy one the spinning threads
	// steal the cores the work needs. Default off.
	Spin bool
	// BatchSize is the most texts per run (default 8 on the CPU: on 2 cores, batches
	// of 8 ran 10–20% faster than 32 and halved peak memory, see README.md;
	// CUDABatchSize on cuda, where a run of 8 leaves the GPU waiting).
	BatchSize int
	// MaxBatchTokens caps a run's padded size, texts × the longest text's tokens
	// (0: no cap on the CPU, CUDABatchTokens on cuda), so that a batch of long texts
	// is cut smaller than one of short texts. A single text always runs.
	MaxBatchTokens int
	// CUDAOptions are extra CUDA execution provider options (ONNX Runtime's names,
	// e.g. "use_tf32": "0"); only read on cuda.
	CUDAOptions map[string]string
	// ConcurrentRuns is how many runs may execute at once on the shared session
	// (default 1: on few cores one run with all intra-op threads is fastest). Above 1,
	// and always on cuda (ConcurrentRuns+1), one call's batches are processed on that
	// many goroutines, so packing and unpacking overlap the runs.
	ConcurrentRuns int
	// PageableOutputs keeps cuda outputs in ordinary Go memory instead of the
	// pinned buffers a cuda Model otherwise writes token states into (see
	// pinned): the baseline of an A/B.
	PageableOutputs bool
	// CPUPooling makes Embed fetch the token states and pool them on the CPU even
	// when the model has its own pooled output (see Model): the baseline of an A/B.
	CPUPooling bool
	// TokenOutput names a model output that holds a projection of the token
	// states, float32 [batch, tokens, P] (convert.AddProjection writes one:
	// E12's PCA in e5's fp16 files for cuda). When the file has it beside its
	// own pooled output, MapTokens and EmbedWithTokens fetch the two in one
	// run and hand out the projected rows (TokenMatrix.Output names them)
	// instead of the token states, which then never leave the device. A file
	// without it runs as before; "" never looks. TokenVectors always reads
	// the token states. TokenOutputDims, when set, is the width P the
	// output must have: a file whose output has another is refused at Open.
	TokenOutput     string
	TokenOutputDims int
	// Sessions is how many ONNX Runtime sessions of the model are open (default 1).
	// A run takes a free one, so with more than one, runs from concurrent calls (the
	// slots sharing a model) or from one call's pipeline execute side by side; on cuda
	// each session has its own CUDA stream, so one's kernels fill the gaps between
	// another's. Each session holds its own copy of the weights and, on cuda, its own
	// memory arena. ConcurrentRuns is raised to at least Sessions.
	Sessions int
	// ProfilePrefix, when set, turns on ONNX Runtime's own profiler: each
	// session writes a Chrome-trace JSON of every node it ran (operator,
	// execution provider, microseconds) to ProfilePrefix_<time>.json when it
	// is closed. For measurements (scripts/gpucheck -ort-profile), never on by
	// default: it slows every run.
	ProfilePrefix string
	// LibraryPath is the ONNX Runtime library ("" means LibraryPath()).
	LibraryPath string
}

func (c Config) withDefaults() Config {
	if c.Pooling == 0 {
		c.Pooling = PoolMean
	}
	if c.MaxLength == 0 {
		c.MaxLength = 512
	}
	if c.Device == "" {
		c.Device = DeviceCPU
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 8
		if c.Device == DeviceCUDA {
			c.BatchSize = CUDABatchSize
		}
	}
	if c.MaxBatchTokens <= 0 && c.Device == DeviceCUDA {
		c.MaxBatchTokens = CUDABatchTokens
	}
	if c.Sessions <= 0 {
		c.Sessions = 1
	}
	if c.ConcurrentRuns < c.Sessions {
		c.ConcurrentRuns = c.Sessions
	}
	if c.LibraryPath == "" {
		c.LibraryPath = LibraryPathFor(c.Device)
	}
	if c.ID == "" {
		c.ID = "model"
	}
	return c
}
