// Package runtime runs ONNX models through ONNX Runtime (github.com/yalue/onnxruntime_go)
// and turns their outputs into what the embedders store: pooled sentence vectors (mean
// or CLS, optionally L2-normalised), per-token vectors for late interaction, and SPLADE
// sparse vectors from masked-LM logits.
//
// Texts are tokenized by package tokenizer, sorted by length, and run in batches padded
// to the longest text of each batch, so a batch of short texts does not pay for a long
// one. Texts longer than Config.MaxLength are truncated and say so in Meta.Truncated.
//
// It owns the process-wide ONNX Runtime environment (see LibraryPath). It must not know
// about fingerprint slots or the manifest: callers pass a plain Config.
package runtime

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cgraph/cgraph/internal/parallel"
	"github.com/cgraph/cgraph/models/tokenizer"
	ort "github.com/yalue/onnxruntime_go"
)

// Meta is what happened to one text on its way through the model.
type Meta struct {
	// Tokens is the number of tokens the model saw, special tokens included.
	Tokens int
	// Truncated says the text had more than Config.MaxLength tokens; the tail was dropped.
	Truncated bool
}

// Dense is one pooled sentence vector.
type Dense struct {
	Vector []float32
	Meta
}

// TokenMatrix holds one vector per token (the model's last hidden state, unpooled).
type TokenMatrix struct {
	// IDs are the tokens, special ones included; Special marks those.
	IDs     []tokenizer.TokenID
	Special []bool
	// Dim is the vector size; Data holds len(IDs) rows of Dim values, row-major.
	Dim  int
	Data []float32
	// Output is "" for the model's token states, or the name of the
	// projected token output (Config.TokenOutput) the rows come from.
	Output string
	Meta
}

// Row returns token i's vector (a view into Data; do not modify it).
func (m TokenMatrix) Row(i int) []float32 { return m.Data[i*m.Dim : (i+1)*m.Dim] }

// Sparse is a SPLADE vector: Terms ascending, Weights > 0 parallel to them.
type Sparse struct {
	Terms   []tokenizer.TokenID
	Weights []float32
	Meta
}

// Model is one loaded model: a tokenizer and its ONNX Runtime session (Config.Sessions
// of them when asked).
//
// Safe for concurrent use. ONNX Runtime's Run is thread-safe on a shared session, and
// every call here allocates its own input and output tensors; at most
// Config.ConcurrentRuns runs execute at once (the rest wait), which keeps intra-op thread
// pools from oversubscribing the cores. Close waits for running calls.
type Model struct {
	cfg     Config
	tok     *tokenizer.Tokenizer
	inputs  []string // model inputs, in the order fed
	outName string
	outDim  int // static size of the output's last axis, or -1 when dynamic
	// pooledName is the model's own pooled output of Config.Pooling
	// ("pooled_mean" or "pooled_cls", [batch, hidden], scripts/pooled), ""
	// when it has none. Embed then fetches it alone (psess), so a batch's
	// token states never leave the device: on a GPU, ~50 MB less to copy
	// to the host per batch of 170 texts of 200 tokens.
	pooledName string
	// projName is Config.TokenOutput when the model has it ([batch, tokens,
	// projDim]) beside pooledName, else "": MapTokens then fetches the two
	// alone (jsess), so the token states stay on the device.
	projName string
	projDim  int
	device   string // what the session runs on, with the fallback reason if any
	runs     chan struct{}
	stats    stageCounters

	// mu guards sess, psess, jsess and pin: a batch holds it for reading from
	// packing to unpacking (runBatch), Close for writing.
	mu   sync.RWMutex
	sess []*ort.DynamicAdvancedSession // Config.Sessions of them; nil after Close
	// free holds the indices of the sessions no run is using.
	free chan int
	// psess fetch pooledName alone (nil without one); pfree as free.
	psess []*ort.DynamicAdvancedSession
	pfree chan int
	// jsess fetch pooledName and projName together (nil without them);
	// jfree as free.
	jsess []*ort.DynamicAdvancedSession
	jfree chan int
	// pin holds the page-locked buffers cuda runs write token states into
	// (nil on the CPU, or where no CUDA runtime is loaded).
	pin *pinned
}

var supportedInputs = []string{"input_ids", "attention_mask", "token_type_ids"}

// Open loads the tokenizer and the ONNX model and checks that they fit the config.
// Errors name the file and what to do: a missing or corrupt ONNX file, a model whose
// inputs or output shape the runtime cannot serve, an output size other than cfg.Dims,
// a missing ONNX Runtime library (ErrNoRuntime), or a CUDA provider that cannot load.
// Cost: reads the whole model file and builds the session (about a second for 130 MB).
func Open(cfg Config) (*Model, error) {
	cfg = cfg.withDefaults()
	if cfg.ONNXData == nil {
		if err := checkFile(cfg.ONNXPath, "model"); err != nil {
			return nil, fmt.Errorf("open %s: %w", cfg.ID, err)
		}
	}
	if err := checkFile(cfg.TokenizerPath, "tokenizer"); err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.ID, err)
	}
	tok, err := tokenizer.Load(cfg.TokenizerPath)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.ID, err)
	}
	if cfg.MaxLength <= tok.SpecialCount() {
		return nil, fmt.Errorf("open %s: max length %d leaves no room for text besides %d special tokens", cfg.ID, cfg.MaxLength, tok.SpecialCount())
	}
	if err := initRuntime(cfg.LibraryPath); err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.ID, err)
	}
	m := &Model{cfg: cfg, tok: tok, runs: make(chan struct{}, cfg.ConcurrentRuns)}
	if err := m.readSignature(); err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.ID, err)
	}
	if err := m.openSession(); err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.ID, err)
	}
	m.openPinned()
	m.cfg.ONNXData = nil // the sessions hold the graph; the bytes are not needed again
	return m, nil
}

// openPinned gives a model running on cuda its pool of pinned output
// buffers: each holds the largest batch output (MaxBatchTokens, or
// BatchSize × MaxLength, tokens of outDim floats), two per batch a call
// has in flight (other calls of the same model, the slots sharing it, take
// them too; with all in use a run writes into Go memory): 4 × 50 MB per
// model with the cuda defaults. Without a CUDA runtime in the process (a
// CPU fallback) there is none.
func (m *Model) openPinned() {
	if m.device != string(DeviceCUDA) || m.outDim <= 0 || m.cfg.PageableOutputs {
		return
	}
	tokens := m.cfg.BatchSize * m.cfg.MaxLength
	if m.cfg.MaxBatchTokens > 0 {
		tokens = min(tokens, max(m.cfg.MaxBatchTokens, m.cfg.MaxLength))
	}
	m.pin, _ = newPinned(tokens*m.outDim, 2*m.pipelineDepth()) // errNoCUDART: outputs stay in Go memory
}

// PinnedOutputs says whether cuda runs write token states into pinned host
// buffers (see pinned).
func (m *Model) PinnedOutputs() bool { return m.pin != nil }

func checkFile(path, what string) error {
	if path == "" {
		return fmt.Errorf("no %s file configured", what)
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s file %s: %w; install the model with `cgraph models pull`", what, path, err)
	}
	if st.Size() == 0 {
		return fmt.Errorf("%s file %s is empty; reinstall the model with `cgraph models pull` (`cgraph models verify` checks every file)", what, path)
	}
	return nil
}

// readIO reads the graph's inputs and outputs from the model's bytes or
// file (signature: no ONNX Runtime session, so no kernel is needed).
func (m *Model) readIO() ([]ort.InputOutputInfo, []ort.InputOutputInfo, error) {
	if m.cfg.ONNXData != nil {
		return signature(bytes.NewReader(m.cfg.ONNXData), int64(len(m.cfg.ONNXData)))
	}
	f, err := os.Open(m.cfg.ONNXPath)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	return signature(f, st.Size())
}

// readSignature checks the model's inputs and output against what the runtime feeds
// and what the config expects.
func (m *Model) readSignature() error {
	ins, outs, err := m.readIO()
	if err != nil {
		return fmt.Errorf("model file %s is not a loadable ONNX model (truncated or corrupt?): %v; reinstall it with `cgraph models pull` (`cgraph models verify` checks sha256)", m.cfg.ONNXPath, err)
	}
	for _, in := range ins {
		if !slices.Contains(supportedInputs, in.Name) {
			return fmt.Errorf("model input %q is not supported (the runtime feeds %s)", in.Name, strings.Join(supportedInputs, ", "))
		}
		if in.DataType != ort.TensorElementDataTypeInt64 {
			return fmt.Errorf("model input %q has type %v; the runtime feeds int64", in.Name, in.DataType)
		}
		m.inputs = append(m.inputs, in.Name)
	}
	if !slices.Contains(m.inputs, "input_ids") {
		return fmt.Errorf("model has no input_ids input (inputs: %v)", m.inputs)
	}
	var out *ort.InputOutputInfo
	for i := range outs {
		if m.cfg.Output == "" || outs[i].Name == m.cfg.Output {
			out = &outs[i]
			break
		}
	}
	if out == nil {
		names := make([]string, len(outs))
		for i, o := range outs {
			names[i] = o.Name
		}
		return fmt.Errorf("model has no output %q (outputs: %v)", m.cfg.Output, names)
	}
	if out.OrtValueType != ort.ONNXTypeTensor || out.DataType != ort.TensorElementDataTypeFloat {
		return fmt.Errorf("model output %q is %v of %v; the runtime reads float32 tensors", out.Name, out.OrtValueType, out.DataType)
	}
	if len(out.Dimensions) != 3 {
		want := "[batch, tokens, hidden]"
		if m.cfg.Task == TaskMaskedLM {
			want = "[batch, tokens, vocab]"
		}
		return fmt.Errorf("model output %q has shape %v; %s %s needs %s", out.Name, out.Dimensions, m.cfg.Task, "pooling", want)
	}
	m.outName = out.Name
	m.outDim = int(out.Dimensions[2])
	if m.outDim > 0 {
		if err := m.checkDim(m.outDim); err != nil {
			return err
		}
	}
	return m.findPooled(outs)
}

// findPooled takes the model's pooled output when it has one of
// Config.Pooling ("pooled_mean" for PoolMean, "pooled_cls" for PoolCLS)
// beside token states of a static width, and checks its shape: [batch,
// that width], float32. A pooled output of another pooling is left
// unused (Embed pools on the CPU, as the config says).
func (m *Model) findPooled(outs []ort.InputOutputInfo) error {
	if m.cfg.Task != TaskEncoder || m.outDim <= 0 || m.outName == "" || m.cfg.CPUPooling {
		return nil
	}
	name := "pooled_" + m.cfg.Pooling.String()
	for _, o := range outs {
		if o.Name != name {
			continue
		}
		if o.OrtValueType != ort.ONNXTypeTensor || o.DataType != ort.TensorElementDataTypeFloat ||
			len(o.Dimensions) != 2 || o.Dimensions[1] != int64(m.outDim) {
			return fmt.Errorf("model output %q is %v of %v with shape %v; a pooled output must be float32 [batch, %d] like %q's rows (scripts/pooled/add_pooled.py writes it)",
				o.Name, o.OrtValueType, o.DataType, o.Dimensions, m.outDim, m.outName)
		}
		m.pooledName = name
	}
	return m.findProjected(outs)
}

// findProjected takes Config.TokenOutput when the model has it beside its
// pooled output, and checks its shape: float32 [batch, tokens, P], P fixed.
func (m *Model) findProjected(outs []ort.InputOutputInfo) error {
	if m.cfg.TokenOutput == "" || m.pooledName == "" {
		return nil
	}
	for _, o := range outs {
		if o.Name != m.cfg.TokenOutput {
			continue
		}
		if o.OrtValueType != ort.ONNXTypeTensor || o.DataType != ort.TensorElementDataTypeFloat ||
			len(o.Dimensions) != 3 || o.Dimensions[2] <= 0 {
			return fmt.Errorf("model output %q is %v of %v with shape %v; a projected token output must be float32 [batch, tokens, P] with P fixed (convert.AddProjection writes it)",
				o.Name, o.OrtValueType, o.DataType, o.Dimensions)
		}
		if d := m.cfg.TokenOutputDims; d > 0 && o.Dimensions[2] != int64(d) {
			return fmt.Errorf("model output %q has %d dims, the caller reads %d: the file was built with another projection; rebuild it", o.Name, o.Dimensions[2], d)
		}
		m.projName, m.projDim = o.Name, int(o.Dimensions[2])
	}
	return nil
}

// checkDim compares the output's last axis with the config and the vocabulary.
func (m *Model) checkDim(d int) error {
	if m.cfg.Dims > 0 && d != m.cfg.Dims {
		return fmt.Errorf("model output %q has %d dims, the config says %d; the model file does not match its manifest entry", m.outName, d, m.cfg.Dims)
	}
	if m.cfg.Task == TaskMaskedLM && d != m.tok.VocabSize() {
		return fmt.Errorf("masked-LM output %q has %d logits per token but the tokenizer has %d ids; tokenizer and model do not belong together", m.outName, d, m.tok.VocabSize())
	}
	return nil
}

func (m *Model) openSession() error {
	if m.cfg.Device != DeviceCUDA {
		m.device = string(DeviceCPU)
		return m.newSession(false)
	}
	cudaErr := m.newSession(true)
	switch {
	case cudaErr == nil:
		m.device = string(DeviceCUDA)
		return nil
	case !m.cfg.AllowCPUFallback:
		return cudaErr
	}
	m.device = "cpu (fallback: " + cudaErr.Error() + ")"
	return m.newSession(false)
}

// newSession creates the session on the CPU, or with the CUDA provider first.
func (m *Model) newSession(cuda bool) (err error) {
	opts, err := m.sessionOptions()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, opts.Destroy()) }()
	if cuda {
		if err := appendCUDA(opts, m.cfg.LibraryPath, m.cfg.CUDAOptions); err != nil {
			return err
		}
	}
	m.sess, m.free, err = m.sessions(opts, cuda, m.outName)
	if err != nil || m.pooledName == "" {
		return err
	}
	m.psess, m.pfree, err = m.sessions(opts, cuda, m.pooledName)
	if err == nil && m.projName != "" {
		m.jsess, m.jfree, err = m.sessions(opts, cuda, m.pooledName, m.projName)
	}
	if err != nil {
		err = errors.Join(err, destroySessions(m.sess), destroySessions(m.psess))
		m.sess, m.psess = nil, nil
	}
	return err
}

// sessions creates Config.Sessions sessions fetching outputs, and the
// channel of their free indices.
func (m *Model) sessions(opts *ort.SessionOptions, cuda bool, outputs ...string) ([]*ort.DynamicAdvancedSession, chan int, error) {
	sessions := make([]*ort.DynamicAdvancedSession, 0, m.cfg.Sessions)
	for range m.cfg.Sessions {
		var sess *ort.DynamicAdvancedSession
		var err error
		if m.cfg.ONNXData != nil {
			sess, err = ort.NewDynamicAdvancedSessionWithONNXData(m.cfg.ONNXData, m.inputs, outputs, opts)
		} else {
			sess, err = ort.NewDynamicAdvancedSession(m.cfg.ONNXPath, m.inputs, outputs, opts)
		}
		if err == nil {
			sessions = append(sessions, sess)
			continue
		}
		err = errors.Join(err, destroySessions(sessions))
		if cuda {
			return nil, nil, cudaError(m.cfg.LibraryPath, "cannot create a session for "+m.cfg.ONNXPath, err)
		}
		return nil, nil, fmt.Errorf("create session for %s on cpu: %w", m.cfg.ONNXPath, err)
	}
	free := make(chan int, len(sessions))
	for i := range sessions {
		free <- i
	}
	return sessions, free, nil
}

// destroySessions releases ss.
func destroySessions(ss []*ort.DynamicAdvancedSession) error {
	var err error
	for _, s := range ss {
		err = errors.Join(err, s.Destroy())
	}
	return err
}

func (m *Model) sessionOptions() (*ort.SessionOptions, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	if m.cfg.IntraOpThreads > 0 {
		if err := opts.SetIntraOpNumThreads(m.cfg.IntraOpThreads); err != nil {
			return nil, errors.Join(fmt.Errorf("set intra-op threads: %w", err), opts.Destroy())
		}
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, errors.Join(fmt.Errorf("set inter-op threads: %w", err), opts.Destroy())
	}
	spin := "0"
	if m.cfg.Spin {
		spin = "1"
	}
	if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", spin); err != nil {
		return nil, errors.Join(fmt.Errorf("set intra-op spinning: %w", err), opts.Destroy())
	}
	if m.cfg.ProfilePrefix != "" {
		if err := opts.EnableProfiling(m.cfg.ProfilePrefix); err != nil {
			return nil, errors.Join(fmt.Errorf("enable ONNX Runtime profiling: %w", err), opts.Destroy())
		}
	}
	return opts, nil
}

// appendCUDA adds the CUDA execution provider, or explains which piece is missing.
func appendCUDA(opts *ort.SessionOptions, libPath string, extra map[string]string) error {
	cudaOpts, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return fmt.Errorf("device cuda: %w", err)
	}
	defer cudaOpts.Destroy()
	if len(extra) > 0 {
		if err := cudaOpts.Update(extra); err != nil {
			return fmt.Errorf("device cuda: provider options %v: %w", extra, err)
		}
	}
	err = opts.AppendExecutionProviderCUDA(cudaOpts)
	if err == nil {
		return nil
	}
	return cudaError(libPath, "the CUDA execution provider cannot load", err)
}

// ErrCUDAUnavailable marks a session that cannot run on cuda: a missing provider or
// CUDA library, no driver, no GPU. The message names what is missing.
var ErrCUDAUnavailable = errors.New("device cuda")

// cudaError is a CUDA failure with the diagnosis of what is missing and the way out.
func cudaError(libPath, what string, err error) error {
	return fmt.Errorf("%w: %s: %s; ONNX Runtime (%s) said: %v; run with --device cpu (or, in code, set AllowCPUFallback)", ErrCUDAUnavailable, what, describeMissing(DiagnoseCUDA(libPath)), libPath, err)
}

// Device says what the session runs on: "cpu", "cuda", or "cpu (fallback: why)".
func (m *Model) Device() string { return m.device }

// Tokenizer returns the model's tokenizer.
func (m *Model) Tokenizer() *tokenizer.Tokenizer { return m.tok }

// Config returns the configuration the model was opened with, defaults filled in.
func (m *Model) Config() Config { return m.cfg }

// Close releases the session after running calls finish; later calls fail.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sess == nil {
		return nil
	}
	err := errors.Join(destroySessions(m.sess), destroySessions(m.psess), destroySessions(m.jsess), m.pin.close())
	m.sess, m.psess, m.jsess, m.pin = nil, nil, nil, nil
	if err != nil {
		return fmt.Errorf("close %s: %w", m.cfg.ID, err)
	}
	return nil
}

// ErrClosed is returned by calls on a closed Model.
var ErrClosed = errors.New("model is closed")

// prefix is the text prefix Config gives view.
func (m *Model) prefix(view View) string {
	if view == ViewQuery {
		return m.cfg.QueryPrefix
	}
	return m.cfg.PassagePrefix
}

// rows is one text's part of a batch output: T × D values row-major, T the batch's padded
// length, and the mask of the text's real tokens. Data belongs to the output tensor and is
// only valid during the callback that receives it: copy what outlives it.
type rows struct {
	data []float32
	T, D int
	mask []int64
	// pooled is the text's row of the model's pooled output where the run
	// fetched it beside projected tokens (fetchProjected), else nil.
	pooled []float32
}

// fetch is what a run fetches from the model.
type fetch int

const (
	fetchTokens    fetch = iota // the token states (outName)
	fetchPooled                 // the pooled output alone (pooledName)
	fetchProjected              // the pooled output and the projected tokens (pooledName, projName)
)

// each is the one skeleton of every public call: it checks that the model serves call,
// tokenizes every text behind prefix (all before any inference, so a bad text fails the
// whole call and nothing is half-done), runs them in length-sorted batches, and returns
// fn's result per text in the order of texts.
func each[R any](ctx context.Context, m *Model, task Task, call, prefix string, texts []string, fn func(tokenizer.Encoding, rows) R) ([]R, error) {
	return eachOf(ctx, m, task, call, prefix, texts, fetchTokens, func(_ int, enc tokenizer.Encoding, r rows) R { return fn(enc, r) })
}

// eachOf is each, fetching what f says (with fetchPooled fn's rows are one
// row: T 1, no mask; with fetchProjected they are the projected tokens and
// the pooled row beside them), and handing fn the text's index too.
func eachOf[R any](ctx context.Context, m *Model, task Task, call, prefix string, texts []string, f fetch, fn func(int, tokenizer.Encoding, rows) R) ([]R, error) {
	if err := m.needTask(task, call); err != nil {
		return nil, err
	}
	t0 := time.Now()
	encs, err := m.encodePrefixed(prefix, texts)
	m.stats.tokenize.Add(int64(time.Since(t0)))
	if err != nil {
		return nil, err
	}
	res := make([]R, len(texts))
	err = m.run(ctx, encs, f, func(i int, r rows) { res[i] = fn(i, encs[i], r) })
	if err != nil {
		return nil, err
	}
	return res, nil
}

// run feeds encs through the model in length-sorted batches and calls fn with each text's
// index and output rows. With pipelineDepth > 1 batches are processed on that many
// goroutines, so that one batch's packing and unpacking overlap another's Run (at most
// ConcurrentRuns Runs at once); fn is then called concurrently, for distinct texts.
func (m *Model) run(ctx context.Context, encs []tokenizer.Encoding, f fetch, fn func(i int, r rows)) error {
	bs := buckets(encs, m.cfg.BatchSize, m.cfg.MaxBatchTokens)
	workers := min(m.pipelineDepth(), len(bs))
	if workers <= 1 {
		for _, batch := range bs {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s: %w", m.cfg.ID, err)
			}
			if err := m.runBatch(ctx, encs, batch, f, fn); err != nil {
				return fmt.Errorf("%s: %w", m.cfg.ID, err)
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(bs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(bs); k = int(next.Add(1) - 1) {
				if errs[k] = ctx.Err(); errs[k] == nil {
					errs[k] = m.runBatch(ctx, encs, bs[k], f, fn)
				}
				if errs[k] != nil {
					cancel() // the others stop at their next batch
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs { // the first batch's error, not a later cancellation
		if err != nil {
			return fmt.Errorf("%s: %w", m.cfg.ID, err)
		}
	}
	return nil
}

// pipelineDepth is how many batches of one call are in flight: ConcurrentRuns, plus one
// on cuda so that the CPU packs and unpacks while the GPU runs.
func (m *Model) pipelineDepth() int {
	if m.cfg.Device == DeviceCUDA {
		return m.cfg.ConcurrentRuns + 1
	}
	return m.cfg.ConcurrentRuns
}

// buckets sorts the texts by token count (stable) and cuts the order into runs of at
// most maxTexts texts whose padded size, texts × the longest one's tokens, stays within
// maxTokens (0: no cap); a text longer than the cap runs alone. Each run is padded only
// to its own longest text. Callers map results back through the indices, so output
// order is the input's. Cost O(n log n).
func buckets(encs []tokenizer.Encoding, maxTexts, maxTokens int) [][]int {
	order := make([]int, len(encs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(encs[a].IDs), len(encs[b].IDs)) })
	var out [][]int
	start := 0
	for k := range order {
		n, longest := k-start+1, len(encs[order[k]].IDs) // sorted: the newest is the longest
		if k > start && (n > maxTexts || (maxTokens > 0 && n*longest > maxTokens)) {
			out = append(out, order[start:k])
			start = k
		}
	}
	if start < len(order) {
		out = append(out, order[start:])
	}
	return out
}

// runBatch runs one batch of texts: packs their tokens, runs the session and
// hands each text its output rows (fn, called with the text's index in encs):
// what f fetches.
//
// It holds m.mu for reading throughout, so Close (which frees the sessions
// and the pinned buffers) waits until no batch is packed, run or unpacked.
func (m *Model) runBatch(ctx context.Context, encs []tokenizer.Encoding, batch []int, f fetch, fn func(i int, r rows)) (err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.sess == nil {
		return ErrClosed
	}
	t0 := time.Now()
	p := m.pack(encs, batch)
	inputs, outputs, buf, err := m.tensors(p, f)
	defer func() {
		err = errors.Join(err, destroyAll(inputs), destroyAll(outputs))
		m.pin.give(buf) // after the tensor over it is gone
	}()
	if err != nil {
		return err
	}
	m.stats.pack.Add(int64(time.Since(t0)))
	if err := m.infer(ctx, f, inputs, outputs); err != nil {
		return err
	}
	switch f {
	case fetchPooled:
		return m.unpackPooled(outputs[0], p, encs, batch, fn)
	case fetchProjected:
		return m.unpack(outputs[1], outputs[0], m.projName, p, encs, batch, fn)
	}
	return m.unpack(outputs[0], nil, m.outName, p, encs, batch, fn)
}

// packed is one batch's inputs: B texts padded to the longest, T tokens.
type packed struct {
	B, T      int
	ids, mask []int64
}

// pack lays out the batch's token ids (padded with the tokenizer's pad id)
// and attention mask, row-major [B, T].
func (m *Model) pack(encs []tokenizer.Encoding, batch []int) packed {
	p := packed{B: len(batch)}
	for _, i := range batch {
		p.T = max(p.T, len(encs[i].IDs))
	}
	p.ids, p.mask = make([]int64, p.B*p.T), make([]int64, p.B*p.T)
	pad := int64(m.tok.PadID())
	for r, i := range batch {
		row := p.ids[r*p.T : (r+1)*p.T]
		for t := range row {
			row[t] = pad
		}
		for t, id := range encs[i].IDs {
			row[t] = int64(id)
			p.mask[r*p.T+t] = 1
		}
	}
	return p
}

// tensors wraps p as the model's input tensors (token_type_ids all zero)
// and, when the output has a static size, allocates the output tensor for
// ONNX Runtime to write into: over a pinned buffer (buf, to give back once
// the tensor is destroyed) where the model has them, else in Go memory;
// with a dynamic size ONNX Runtime allocates it and onnxruntime_go copies it
// into a new Go slice (one more pass over B×T×D floats). What it returns is
// the caller's to destroy, on error too.
func (m *Model) tensors(p packed, f fetch) (inputs, outputs []ort.Value, buf []float32, err error) {
	shape := ort.NewShape(int64(p.B), int64(p.T))
	inputs, outputs = make([]ort.Value, len(m.inputs)), []ort.Value{nil}
	if f == fetchProjected {
		outputs = append(outputs, nil)
	}
	for k, name := range m.inputs {
		data := p.ids
		switch name {
		case "attention_mask":
			data = p.mask
		case "token_type_ids":
			data = make([]int64, p.B*p.T)
		}
		if inputs[k], err = ort.NewTensor(shape, data); err != nil {
			return inputs, outputs, nil, fmt.Errorf("input %s: %w", name, err)
		}
	}
	if f != fetchTokens {
		if outputs[0], err = ort.NewEmptyTensor[float32](ort.NewShape(int64(p.B), int64(m.outDim))); err != nil {
			return inputs, outputs, nil, fmt.Errorf("output %s: %w", m.pooledName, err)
		}
	}
	k, name, width := 0, m.outName, m.outDim // where the token rows go
	switch f {
	case fetchPooled:
		return inputs, outputs, nil, nil
	case fetchProjected:
		k, name, width = 1, m.projName, m.projDim
	}
	if width > 0 {
		shape := ort.NewShape(int64(p.B), int64(p.T), int64(width))
		n := p.B * p.T * width
		if buf = m.pin.take(n); buf != nil {
			outputs[k], err = ort.NewTensor(shape, buf[:n])
		} else {
			outputs[k], err = ort.NewEmptyTensor[float32](shape)
		}
		if err != nil {
			return inputs, outputs, buf, fmt.Errorf("output %s: %w", name, err)
		}
	}
	return inputs, outputs, buf, nil
}

// unpackPooled hands each text its pooled row (T 1, no mask) of the
// [B, D] tensor v that tensors allocated.
func (m *Model) unpackPooled(v ort.Value, p packed, encs []tokenizer.Encoding, batch []int, fn func(i int, r rows)) error {
	t1 := time.Now()
	data, D := v.(*ort.Tensor[float32]).GetData(), m.outDim
	nreal := 0
	for r, i := range batch {
		nreal += len(encs[i].IDs)
		fn(i, rows{data: data[r*D : (r+1)*D], T: 1, D: D})
	}
	m.stats.unpack.Add(int64(time.Since(t1)))
	m.stats.count(p, nreal)
	return nil
}

// unpack checks the token output v's shape and hands each text its rows,
// with its row of the pooled output pv where the run fetched one (the
// [B, D] tensor tensors allocated; nil otherwise).
func (m *Model) unpack(v, pv ort.Value, name string, p packed, encs []tokenizer.Encoding, batch []int, fn func(i int, r rows)) error {
	out, ok := v.(*ort.Tensor[float32])
	if !ok {
		return fmt.Errorf("output %q is %T, want a float32 tensor", name, v)
	}
	s := out.GetShape()
	if len(s) != 3 || s[0] != int64(p.B) || s[1] != int64(p.T) {
		return fmt.Errorf("output %q has shape %v for input [%d %d]; want [%d %d D]", name, s, p.B, p.T, p.B, p.T)
	}
	D := int(s[2])
	var pooled []float32
	if pv != nil {
		pooled = pv.(*ort.Tensor[float32]).GetData()
		if D != m.projDim {
			return fmt.Errorf("output %q has %d dims, the model declares %d", name, D, m.projDim)
		}
	} else if err := m.checkDim(D); err != nil {
		return err
	}
	t1 := time.Now()
	data, T := out.GetData(), p.T
	nreal := 0
	for _, i := range batch {
		nreal += len(encs[i].IDs)
	}
	each := func(r int) {
		rs := rows{data: data[r*T*D : (r+1)*T*D], T: T, D: D, mask: p.mask[r*T : (r+1)*T]}
		if pooled != nil {
			rs.pooled = pooled[r*m.outDim : (r+1)*m.outDim]
		}
		fn(batch[r], rs)
	}
	if m.cfg.Device == DeviceCUDA {
		// The pooling and row copies of a GPU batch (tens of MB) would
		// otherwise hold the next batch's Run back; fn already runs
		// concurrently for distinct texts (run's pipeline).
		parallel.ForEach(len(batch), each)
	} else {
		for r := range batch {
			each(r)
		}
	}
	m.stats.unpack.Add(int64(time.Since(t1)))
	m.stats.count(p, nreal)
	return nil
}

// destroyAll releases the tensors vs holds (nil entries skipped).
func destroyAll(vs []ort.Value) error {
	var err error
	for _, v := range vs {
		if v != nil {
			err = errors.Join(err, v.Destroy())
		}
	}
	return err
}

// infer runs a session fetching what f says, waiting for a free run slot.
// The caller holds m.mu for reading and has seen the sessions open.
func (m *Model) infer(ctx context.Context, f fetch, inputs, outputs []ort.Value) error {
	select {
	case m.runs <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-m.runs }()
	sess, free := m.sess, m.free
	switch f {
	case fetchPooled:
		sess, free = m.psess, m.pfree
	case fetchProjected:
		sess, free = m.jsess, m.jfree
	}
	i := <-free // a run slot holds at most one session, and there are as many slots as sessions or more
	defer func() { free <- i }()
	t0 := time.Now()
	err := sess[i].Run(inputs, outputs)
	m.stats.run.Add(int64(time.Since(t0)))
	if err != nil {
		return fmt.Errorf("run on %s: %w", m.device, err)
	}
	return nil
}

func metaOf(enc tokenizer.Encoding) Meta {
	return Meta{Tokens: len(enc.IDs), Truncated: enc.Truncated}
}

func (m *Model) needTask(want Task, call string) error {
	if m.cfg.Task != want {
		return fmt.Errorf("%s: %s needs a %s model, this one is %s", m.cfg.ID, call, want, m.cfg.Task)
	}
	return nil
}

// Embed returns one pooled vector per text (Config.Pooling, Config.Normalize), in the
// order of texts. Any bad text (empty, whitespace only, invalid UTF-8) fails the whole
// call before the model runs, naming the text's index.
//
// A model with its own pooled output of Config.Pooling (see Model) runs with that output
// alone; its vectors agree with the CPU pooling of the token states to float32 rounding.
func (m *Model) Embed(ctx context.Context, view View, texts []string) ([]Dense, error) {
	if m.pooledName != "" {
		return eachOf(ctx, m, TaskEncoder, "Embed", m.prefix(view), texts, fetchPooled, func(_ int, enc tokenizer.Encoding, r rows) Dense { return m.densePooled(enc, r.data) })
	}
	return each(ctx, m, TaskEncoder, "Embed", m.prefix(view), texts, m.dense)
}

// densePooled is one text's vector from its row of the model's pooled
// output: a copy, then Config.Normalize.
func (m *Model) densePooled(enc tokenizer.Encoding, row []float32) Dense {
	v := slices.Clone(row)
	if m.cfg.Normalize {
		l2Normalize(v)
	}
	return Dense{Vector: v, Meta: metaOf(enc)}
}

// PooledOutput is the name of the model's own pooled output that Embed
// fetches, "" when it pools the token states on the CPU.
func (m *Model) PooledOutput() string { return m.pooledName }

// ProjectedOutput is the projected token output (Config.TokenOutput) that
// MapTokens fetches with the pooled one, "" when it fetches the token
// states.
func (m *Model) ProjectedOutput() string { return m.projName }

// TokenVectors returns every token's output vector per text (for late interaction),
// special tokens included and marked; padding is removed. Vectors are not normalised.
func (m *Model) TokenVectors(ctx context.Context, view View, texts []string) ([]TokenMatrix, error) {
	return each(ctx, m, TaskEncoder, "TokenVectors", m.prefix(view), texts, tokenMatrix)
}

// Sparse returns one SPLADE vector per text: max over the text's tokens (special tokens
// included, padding excluded) of log(1 + ReLU(logits)). Needs a TaskMaskedLM model.
// Cost per text O(tokens × vocabulary).
func (m *Model) Sparse(ctx context.Context, view View, texts []string) ([]Sparse, error) {
	return each(ctx, m, TaskMaskedLM, "Sparse", m.prefix(view), texts, func(enc tokenizer.Encoding, r rows) Sparse {
		terms, weights := spladePool(r.data, r.T, r.D, r.mask)
		return Sparse{Terms: terms, Weights: weights, Meta: metaOf(enc)}
	})
}
