package neural

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/runtime"
	"github.com/cgraph/cgraph/models/tokenizer"
)

// loader opens each model file once and hands the same *runtime.Model to
// every slot that uses it. It is used only while Registry builds (one
// goroutine); close releases every session.
type loader struct {
	cfg  Config
	dir  string
	mf   *models.Manifest
	open map[models.ModelID]*loaded
	// why holds the unavailability reason of a model that could not be
	// opened for a reason other than a bad file (not installed, no runtime).
	why map[models.ModelID]string
}

// loaded is one installed model and the identity of its weights. Its ONNX
// Runtime session is opened on first use (model), not when the registry is
// built: a command that needs no model view (a keyword search, list, get)
// loads no model, and one that needs a few loads those few.
type loaded struct {
	id   models.ModelID
	meta *models.Model
	onnx string // pinned sha256 of the ONNX file, hex
	rc   runtime.Config

	// build, for a model derived in memory (E7's fine-tuned query encoder),
	// turns the bytes of the installed file rc.ONNXPath (read, and checked
	// against onnx, when the model opens; sum is their sha256) into its
	// graph, in place.
	build func(model []byte, sum [32]byte) error

	once   sync.Once
	m      *runtime.Model
	err    error
	opened atomic.Pointer[runtime.Model] // m, once it is open (read by Status)

	memoMu    sync.Mutex
	memo      map[passKey]*passEntry // onePass
	memoOrder []passKey              // oldest first
}

// errClosed is the error of a model used after its registry closed.
var errClosed = errors.New("neural: the embedder registry is closed")

// model opens the session on first use; an error (a file that passes the
// quick size/mtime check but does not load) is returned to every caller.
func (lm *loaded) model() (*runtime.Model, error) {
	lm.once.Do(func() {
		rc := lm.rc
		if lm.build != nil {
			data, err := lm.derive()
			if err != nil {
				lm.err = fmt.Errorf("neural: %s: %w", lm.id, err)
				return
			}
			rc.ONNXData = data
		}
		m, err := runtime.Open(rc)
		if err != nil {
			lm.err = fmt.Errorf("neural: %w", err)
			return
		}
		lm.m = m
		lm.opened.Store(m)
		if rc.ONNXData != nil {
			// The derived graph's bytes (a whole model file, 90-133 MB) are
			// ONNX Runtime's now: hand their pages back at once rather than
			// when the scavenger gets to them, or a long-lived process
			// keeps them as its own memory.
			rc.ONNXData = nil
			debug.FreeOSMemory()
		}
	})
	return lm.m, lm.err
}

// derive reads the installed file lm is derived from, checks it is the
// one the manifest pins, and builds lm's graph from it.
func (lm *loaded) derive() ([]byte, error) {
	data, err := os.ReadFile(lm.rc.ONNXPath)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if got := fmt.Sprintf("%x", sum); got != lm.onnx {
		return nil, fmt.Errorf("%s has sha256 %s, the manifest pins %s; reinstall it with `cgraph models pull`", lm.rc.ONNXPath, got, lm.onnx)
	}
	if err := lm.build(data, sum); err != nil {
		return nil, err
	}
	return data, nil
}

// device is where the model runs: the open session's device, or the requested
// one before the first run. Cheap: no session is opened.
func (lm *loaded) device() string {
	if m := lm.opened.Load(); m != nil {
		return m.Device()
	}
	d := lm.rc.Device
	if d == "" {
		d = runtime.DeviceCPU
	}
	return string(d) + " (not loaded yet)"
}

// withDevice is st with the model's device filled in.
func (lm *loaded) withDevice(st embedders.SlotStatus) embedders.SlotStatus {
	st.Device = lm.device()
	return st
}

// The model's runs, opening it first. A single text (a query) goes through
// onePass, so the slots that read the same run of one query — E1 and E12
// (e5, "query: "), E7 and E10 (MiniLM, no prefix) — share one inference
// instead of running the model once each.

func (lm *loaded) EmbedPrefixed(ctx context.Context, prefix string, texts []string) ([]runtime.Dense, error) {
	if len(texts) == 1 {
		p, err := lm.onePass(ctx, prefix, texts[0])
		if err != nil {
			return nil, err
		}
		d := p.Dense
		d.Vector = slices.Clone(d.Vector) // callers may modify their vector
		return []runtime.Dense{d}, nil
	}
	m, err := lm.model()
	if err != nil {
		return nil, err
	}
	return m.EmbedPrefixed(ctx, prefix, texts)
}

func (lm *loaded) EmbedWithTokens(ctx context.Context, prefix string, texts []string) ([]runtime.Pooled, error) {
	// A batch's token states live in its run's buffer and are copied out;
	// one text's are onePass's shared matrix, which callers only read.
	batch := len(texts) > 1
	return mapTokens(ctx, lm, prefix, texts, func(_ int, p runtime.Pooled) runtime.Pooled {
		if batch {
			p.Tokens.Data = slices.Clone(p.Tokens.Data)
		}
		return p
	})
}

// mapTokens is runtime.MapTokens through lm: a single text goes through
// onePass (its token matrix is the shared one, which fn only reads).
func mapTokens[R any](ctx context.Context, lm *loaded, prefix string, texts []string, fn func(i int, p runtime.Pooled) R) ([]R, error) {
	if len(texts) == 1 {
		p, err := lm.onePass(ctx, prefix, texts[0])
		if err != nil {
			return nil, err
		}
		p.Vector = slices.Clone(p.Vector)
		return []R{fn(0, p)}, nil
	}
	m, err := lm.model()
	if err != nil {
		return nil, err
	}
	return runtime.MapTokens(ctx, m, prefix, texts, fn)
}

// sharePasses is off only in BenchmarkQueryViews/separate, the baseline.
var sharePasses = true

// passMemoSize bounds the recent single-text runs a model keeps.
const passMemoSize = 64

// onePass is one single-text run (pooled vector and token states), shared
// by every concurrent and recent caller asking for the same prefix and
// text: the first runs the model, the others wait for its result. Errors
// are not kept. A batch of one gives the same values as before (int8
// activations are quantised per batch, so sharing never changes a batch).
func (lm *loaded) onePass(ctx context.Context, prefix, text string) (runtime.Pooled, error) {
	if !sharePasses { // BenchmarkQueryViews/separate: every caller runs the model
		m, err := lm.model()
		if err != nil {
			return runtime.Pooled{}, err
		}
		res, err := m.EmbedWithTokens(ctx, prefix, []string{text})
		if err != nil {
			return runtime.Pooled{}, err
		}
		return res[0], nil
	}
	k := passKey{prefix, text}
	lm.memoMu.Lock()
	if lm.memo == nil {
		lm.memo = map[passKey]*passEntry{}
	}
	e, ok := lm.memo[k]
	if !ok {
		e = &passEntry{done: make(chan struct{})}
		lm.memo[k] = e
		lm.memoOrder = append(lm.memoOrder, k)
		if len(lm.memoOrder) > passMemoSize {
			delete(lm.memo, lm.memoOrder[0])
			lm.memoOrder = lm.memoOrder[1:]
		}
	}
	lm.memoMu.Unlock()
	if ok {
		select {
		case <-e.done:
			return e.res, e.err
		case <-ctx.Done():
			return runtime.Pooled{}, ctx.Err()
		}
	}
	m, err := lm.model()
	var res []runtime.Pooled
	if err == nil {
		res, err = m.EmbedWithTokens(ctx, prefix, []string{text})
	}
	if err == nil {
		e.res = res[0]
	}
	e.err = err
	close(e.done)
	if err != nil {
		lm.memoMu.Lock()
		if lm.memo[k] == e {
			delete(lm.memo, k)
		}
		lm.memoMu.Unlock()
	}
	return e.res, e.err
}

type passKey struct{ prefix, text string }

type passEntry struct {
	done chan struct{}
	res  runtime.Pooled
	err  error
}

func (lm *loaded) Sparse(ctx context.Context, view runtime.View, texts []string) ([]runtime.Sparse, error) {
	m, err := lm.model()
	if err != nil {
		return nil, err
	}
	return m.Sparse(ctx, view, texts)
}

// Tokenizer is the model's tokenizer. It must be called only after a run of
// the model succeeded (the session, and with it the tokenizer, is open).
func (lm *loaded) Tokenizer() *tokenizer.Tokenizer {
	m, err := lm.model()
	if err != nil {
		panic(fmt.Sprintf("neural: Tokenizer of %s before a successful run: %v", lm.id, err))
	}
	return m.Tokenizer()
}

func newLoader(cfg Config) (*loader, error) {
	mf := cfg.Manifest
	if mf == nil {
		var err error
		if mf, err = models.Default(); err != nil {
			return nil, fmt.Errorf("neural: manifest: %w", err)
		}
	}
	dir := cfg.ModelsDir
	if dir == "" {
		dir = DefaultModelsDir()
	}
	return &loader{cfg: cfg, dir: dir, mf: mf, open: map[models.ModelID]*loaded{}, why: map[models.ModelID]string{}}, nil
}

// installed reports whether id is in the manifest and on disk, intact or
// not: a slot that prefers an optional model (ColBERT, a code model, SPLADE)
// uses it when installed, and a corrupt one makes the slot unavailable with
// that reason (through get) instead of falling back to another model.
func (l *loader) installed(id models.ModelID) bool {
	c, err := l.mf.Check(l.dir, id)
	return err == nil && c.Status != models.StatusMissing
}

// get returns the open model id. When it cannot serve, reason says why in
// the words a slot's status uses (models.FileCheck.Problem: not installed, or
// corrupt with both sha256 digests, and the `cgraph models pull` that fixes
// it); err is reserved for failures to read the installation.
func (l *loader) get(id models.ModelID) (lm *loaded, reason string, err error) {
	if lm := l.open[id]; lm != nil {
		return lm, "", nil
	}
	if why, ok := l.why[id]; ok {
		return nil, why, nil
	}
	lm, why, err := l.resolve(l.dir, l.mf, id)
	switch {
	case err != nil:
		return nil, "", err
	case lm == nil:
		l.why[id] = why
		return nil, why, nil
	}
	l.open[id] = lm
	return lm, "", nil
}

// int8Dynamic is the manifest's quantization of the registry's int8 graphs
// (e5-small-v2-q, bge-small-en-v1.5-q, …): DynamicQuantizeLinear before
// every MatMulInteger, which takes one scale per tensor, over the whole
// batch. A text's vector then depends on the texts it runs with and on their
// padding (E1: cosine 0.9968 for a one-line function batched beside a
// longer text, TestInt8DocumentAloneOrBatched), so a stored document would
// not match what the same text gives alone, as a query or a later reembed
// runs it. Unless
// Config.BatchSize says otherwise, such a model runs each text alone on the
// CPU. On 2 cores the whole fingerprint is no slower for it
// (BenchmarkInt8Batching: medians 19.7 memories/s alone against 18.2 in
// eights at ~100 tokens); E5 alone is 8-22% slower, E1 within noise.
const int8Dynamic = "int8"

// resolve is model id of mf installed in dir, with the loader's device
// settings, not yet open and not registered; or why it cannot serve.
func (l *loader) resolve(dir string, mf *models.Manifest, id models.ModelID) (lm *loaded, reason string, err error) {
	meta, err := mf.Model(id)
	if err != nil {
		return nil, "", fmt.Errorf("neural: %w", err)
	}
	c, err := mf.Check(dir, id)
	if err != nil {
		return nil, "", fmt.Errorf("neural: %w", err)
	}
	if c.Status != models.StatusOK {
		return nil, c.Problem(), nil
	}
	rc, err := meta.RuntimeConfig(dir)
	if err != nil {
		return nil, "", fmt.Errorf("neural: %w", err)
	}
	rc.Device, rc.AllowCPUFallback = l.cfg.Device, l.cfg.AllowCPUFallback
	rc.IntraOpThreads, rc.BatchSize, rc.MaxBatchTokens = l.cfg.IntraOpThreads, l.cfg.BatchSize, l.cfg.MaxBatchTokens
	if rc.BatchSize == 0 && meta.Quantization == int8Dynamic && rc.Device != runtime.DeviceCUDA {
		rc.BatchSize = 1 // see int8Dynamic
	}
	rc.CUDAOptions, rc.ConcurrentRuns, rc.Sessions = l.cfg.CUDAOptions, l.cfg.ConcurrentRuns, l.cfg.Sessions
	rc.CPUPooling, rc.PageableOutputs = l.cfg.CPUPooling, l.cfg.PageableOutputs
	lib := rc.LibraryPath
	if lib == "" {
		lib = runtime.LibraryPathFor(rc.Device)
	}
	if _, err := os.Stat(lib); err != nil { // the session opens later (model); a missing library is known now
		return nil, fmt.Sprintf("model %s installed but the ONNX Runtime library is missing (%s: %v): run make setup", id, lib, err), nil
	}
	f, _ := meta.File(models.RoleONNX)
	return &loaded{id: id, meta: meta, onnx: f.SHA256, rc: rc}, "", nil
}

// derived registers model id, built in memory from base's installed file
// by build, with base's tokenizer, pooling and device settings. Like every
// model it opens on first use.
func (l *loader) derived(base *loaded, id models.ModelID, build func(model []byte, sum [32]byte) error) *loaded {
	if lm := l.open[id]; lm != nil {
		return lm
	}
	lm := &loaded{id: id, meta: base.meta, onnx: base.onnx, rc: base.rc, build: build}
	l.open[id] = lm
	return lm
}

// openAll opens every model the slots use, in id order, and runs one short
// text through each: a CUDA provider that loads but cannot run (no GPU, a
// missing cuDNN) fails here. The first failure is returned, naming the model.
func (l *loader) openAll(ctx context.Context) error {
	ids := make([]models.ModelID, 0, len(l.open))
	for id := range l.open {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		lm := l.open[id]
		m, err := lm.model()
		if err != nil {
			return err // names the model and the device's problem
		}
		if lm.rc.Task == runtime.TaskMaskedLM {
			_, err = m.Sparse(ctx, runtime.ViewPassage, []string{probeText})
		} else {
			_, err = m.EmbedPrefixed(ctx, "", []string{probeText})
		}
		if err != nil {
			return fmt.Errorf("neural: open %s on %s: %w", id, lm.rc.Device, err)
		}
	}
	return nil
}

// probeText is what openAll runs through each model.
const probeText = "func main() { fmt.Println(\"probe\") }"

// close releases every session the loader opened.
func (l *loader) close() error {
	var errs []error
	for _, lm := range l.open {
		lm.once.Do(func() { lm.err = errClosed }) // never opened: stays closed
		if lm.m != nil {
			errs = append(errs, lm.m.Close())
		}
	}
	return errors.Join(errs...)
}

// producer is the identity of a slot's values: the model id, and a sha256
// over the ONNX file's pinned sha256, the slot's recipe name and every
// parameter that changes its output (prefixes, heads, projections), so that a
// change to any of them is a different producer.
func (lm *loaded) producer(recipe string, params ...any) fingerprint.Producer {
	h := sha256.New()
	fmt.Fprintf(h, "onnx sha256 %s\nrecipe %s\n%#v", lm.onnx, recipe, params)
	var p fingerprint.Producer
	p.Model = string(lm.id)
	copy(p.SHA256[:], h.Sum(nil))
	return p
}

// short is the first 12 hex digits of the ONNX sha256, for status lines.
func (lm *loaded) short() string {
	if len(lm.onnx) < 12 {
		return lm.onnx
	}
	return lm.onnx[:12]
}
