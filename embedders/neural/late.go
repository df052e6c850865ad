package neural

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/keywords"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/convert"
	"github.com/cgraph/cgraph/models/runtime"
	"github.com/viterin/vek/vek32"
)

// E12 without a ColBERT model: E1's e5-small-v2 token states (from the same
// ONNX run as E1's pooled vector) projected to 128 dims by a PCA fitted
// offline on the token states of testdata/e12corpus.txt (TestUpdateE12PCA),
// then L2-normalised per token as ColBERT does. Every value says so.
const e12FallbackNote = "fallback: no ColBERT model installed (colbertv2.0 is hub-only); e5-small-v2 token states projected to 128-d by PCA (e12pca.bin)"

// e12PCA is the projection, in the format of projection.MarshalBinary.
//
//go:embed e12pca.bin
var e12PCA []byte

var e12PCASHA256 = sha256.Sum256(e12PCA)

// e12Output names the output a model file gets for E12's projection in the
// graph (E12Projection): the PCA's sha256 in the name, so that a file built
// with another PCA is never read as this one.
var e12Output = fmt.Sprintf("tokens_e12pca_%x", e12PCASHA256[:4])

// E12Projection is E12's fallback projection (e12pca.bin) and the name of
// the output convert.AddProjection should give it in an e5-small-v2 file
// ("last_hidden_state" its input): a file that has it beside its own
// pooled output (scripts/pooled) hands E1 and E12 the pooled vector and
// the projected tokens from one run, the token states staying on the
// device (issue 33; scripts/e12graph). E12's values are the same up to
// float rounding, so its producer does not change.
func E12Projection() (output string, p convert.Projection, err error) {
	proj, err := parseProjection(e12PCA)
	if err != nil {
		return "", convert.Projection{}, fmt.Errorf("neural: embedded e12pca.bin: %w", err)
	}
	return e12Output, convert.Projection{In: proj.In, Out: proj.Out, Mean: proj.Mean, Components: proj.Components}, nil
}

// projection maps an In-dim vector x to Out dims: Components·(x − Mean).
// E12's PCA (rows orthonormal, Out < In) and E7's query head (a square
// learned map, e7head.bin) share it.
type projection struct {
	In, Out    int
	Mean       []float32 // In
	Components []float32 // Out×In, row-major (orthonormal rows for a PCA)
}

const projectionMagic = "CGPCA\x01"

// MarshalBinary: magic "CGPCA\x01", uint32 In, uint32 Out (little endian),
// then In float32 means and Out×In float32 components, little endian.
func (p projection) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(projectionMagic)
	for _, v := range []any{uint32(p.In), uint32(p.Out), p.Mean, p.Components} {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

func parseProjection(data []byte) (projection, error) {
	var p projection
	if !bytes.HasPrefix(data, []byte(projectionMagic)) {
		return p, fmt.Errorf("projection: bad magic")
	}
	r := bytes.NewReader(data[len(projectionMagic):])
	var in, out uint32
	if err := binary.Read(r, binary.LittleEndian, &in); err != nil {
		return p, fmt.Errorf("projection: %w", err)
	}
	if err := binary.Read(r, binary.LittleEndian, &out); err != nil {
		return p, fmt.Errorf("projection: %w", err)
	}
	if in == 0 || out == 0 || in > 1<<16 || out > in || r.Len() != int(in+in*out)*4 {
		return p, fmt.Errorf("projection: %d×%d does not fit %d bytes", out, in, r.Len())
	}
	p.In, p.Out = int(in), int(out)
	p.Mean, p.Components = make([]float32, in), make([]float32, in*out)
	if err := binary.Read(r, binary.LittleEndian, p.Mean); err != nil {
		return p, fmt.Errorf("projection: %w", err)
	}
	if err := binary.Read(r, binary.LittleEndian, p.Components); err != nil {
		return p, fmt.Errorf("projection: %w", err)
	}
	return p, nil
}

// tokens projects every row of a token matrix and normalises it; rows the
// model already projected (tm.Output set: a file with E12Projection's
// output, the only one the loader asks for) are only normalised.
// BenchmarkProjection: ~0.64 ms for 200 tokens on one core (the 128 dot
// products per token; blocking rows to reuse each component row from L1
// measured no faster).
func (p projection) tokens(tm runtime.TokenMatrix) fingerprint.Tokens {
	rows := len(tm.IDs)
	if tm.Output != "" { // the runtime checked its width: TokenOutputDims
		out := slices.Clone(tm.Data[:rows*p.Out])
		for r := range rows {
			normalize(out[r*p.Out : (r+1)*p.Out])
		}
		return fingerprint.Tokens{Dim: uint32(p.Out), Data: out}
	}
	out := make([]float32, rows*p.Out)
	x := make([]float32, p.In)
	for r := range rows {
		p.projectInto(out[r*p.Out:(r+1)*p.Out], tm.Row(r), x)
	}
	return fingerprint.Tokens{Dim: uint32(p.Out), Data: out}
}

// apply projects one vector into a new, L2-normalised slice.
func (p projection) apply(v []float32) []float32 {
	out := make([]float32, p.Out)
	p.projectInto(out, v, make([]float32, p.In))
	return out
}

// projectInto writes the normalised projection of row into dst (Out long),
// using x (In long) as scratch. Cost: Out·In multiply-adds.
func (p projection) projectInto(dst, row, x []float32) {
	for k := range x {
		x[k] = row[k] - p.Mean[k]
	}
	for j := range dst {
		dst[j] = vek32.Dot(p.Components[j*p.In:(j+1)*p.In], x)
	}
	normalize(dst)
}

// normalize scales v to unit L2 norm (a zero vector stays zero), the norm
// summed in float64.
func normalize(v []float32) {
	var ss float64
	for _, s := range v {
		ss += float64(s) * float64(s)
	}
	if ss > 0 {
		inv := float32(1 / math.Sqrt(ss))
		for j := range v {
			v[j] *= inv
		}
	}
}

// sharedPass runs e5-small-v2 once per document batch for both E1 (pooled
// vector) and E12 (token states), or MiniLM for both E7 and E10: the
// registry calls both slots with the same docs slice at the same time; the
// first caller runs the model, the other waits for its result. derive
// reduces a text's token states to what the token slot keeps (X: E12's
// projected tokens, E10's span vectors) while its batch is still in the
// run's buffer (mapTokens), so that work overlaps the next batch's run and
// no full token matrix is kept for the call. Results are kept for at most
// maxPending batches (a batch only one slot asks for, as in a one-slot
// re-embed, is dropped when newer ones arrive). Safe for concurrent use.
type sharedPass[X any] struct {
	lm     *loaded
	prefix string
	derive func(text string, p runtime.Pooled) X
	// consumers is how many slots read each run (0 means 2); a run is
	// dropped once they all have.
	consumers int

	mu      sync.Mutex // guards pending
	pending []*passRun[X]
}

// maxPending bounds the runs kept for a consumer that has not taken them
// yet. It exceeds the batches fingerprinted side by side (bulkimport's
// GPUInFlight, 3), so that a run is not dropped between its two slots'
// calls while other batches start, which would make the second run the
// model again; a run's results are small now (vectors and derived values).
const maxPending = 4

// passOut is one text's result of a shared pass: its pooled vector and
// what derive made of its token states.
type passOut[X any] struct {
	runtime.Dense
	Derived X
}

type passRun[X any] struct {
	key   *embedders.Input
	texts []string
	done  chan struct{}
	res   []passOut[X]
	err   error
	taken int
}

// want is the number of slots that read each run.
func (p *sharedPass[X]) want() int {
	if p.consumers <= 0 {
		return 2
	}
	return p.consumers
}

// run returns the pooled vectors and derived values of texts (the
// non-empty texts of docs, in order).
func (p *sharedPass[X]) run(ctx context.Context, docs []embedders.Input, texts []string) ([]passOut[X], error) {
	if len(texts) == 0 {
		return nil, nil
	}
	p.mu.Lock()
	var r *passRun[X]
	for _, c := range p.pending {
		if c.key == &docs[0] && slices.Equal(c.texts, texts) {
			r = c
			break
		}
	}
	owner := r == nil
	if owner {
		r = &passRun[X]{key: &docs[0], texts: texts, done: make(chan struct{})}
		p.pending = append(p.pending, r)
		if len(p.pending) > maxPending {
			p.pending = p.pending[1:]
		}
	}
	p.mu.Unlock()
	if owner {
		r.res, r.err = mapTokens(ctx, p.lm, p.prefix, texts, func(i int, pp runtime.Pooled) passOut[X] {
			return passOut[X]{Dense: pp.Dense, Derived: p.derive(texts[i], pp)}
		})
		close(r.done)
	} else {
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.mu.Lock()
	r.taken++
	if r.taken >= p.want() || r.err != nil {
		p.pending = slices.DeleteFunc(p.pending, func(c *passRun[X]) bool { return c == r })
	}
	p.mu.Unlock()
	return r.res, r.err
}

// sharedDense is a dense slot (E1, E7) reading its pooled vectors from the
// run it shares with a token slot (E12, E10).
type sharedDense[X any] struct {
	*denseEmbedder
	pass *sharedPass[X]
	// vector, when set, is a document's vector from its run (E7's
	// headPooled, made by the pass's derive); else the pooled vector.
	vector func(passOut[X]) []float32
}

// e1Shared is E1 on e5-small-v2's run shared with E12; e7Shared is E7 on
// MiniLM's run shared with E10.
type (
	e1Shared = sharedDense[fingerprint.Tokens]
	e7Shared = sharedDense[spanPools]
)

func (e *sharedDense[X]) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	texts, idx := readTexts(docs)
	res, err := e.pass.run(ctx, docs, texts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.slot, err)
	}
	out := emptyEntries(len(docs))
	for k, v := range res {
		vec := v.Vector
		if e.vector != nil {
			vec = e.vector(v)
		}
		out[idx[k]] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: e.status.Producer,
			Note: truncNote(v.Meta, e.lm), Value: fingerprint.Dense(vec)}
	}
	return out, nil
}

// lateEmbedder is E12: token matrices for MaxSim reranking.
type lateEmbedder struct {
	status embedders.SlotStatus
	note   string // the fallback note; "" for a real ColBERT model
	docs   func(ctx context.Context, docs []embedders.Input, texts []string) ([]fingerprint.Tokens, []runtime.Meta, error)
	query  func(ctx context.Context, text string) (fingerprint.Tokens, error)
	lm     *loaded
}

var _ embedders.Embedder = (*lateEmbedder)(nil)

func (e *lateEmbedder) Slot() fingerprint.SlotID     { return fingerprint.E12 }
func (e *lateEmbedder) Status() embedders.SlotStatus { return e.lm.withDevice(e.status) }

func (e *lateEmbedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	texts, idx := readTexts(docs)
	ts, metas, err := e.docs(ctx, docs, texts)
	if err != nil {
		return nil, fmt.Errorf("E12: %w", err)
	}
	out := emptyEntries(len(docs))
	state := fingerprint.StatusPresent
	if e.note != "" {
		state = fingerprint.StatusFallback
	}
	for k, t := range ts {
		note := e.note
		if tn := truncNote(metas[k], e.lm); tn != "" {
			note = joinNote(note, tn)
		}
		out[idx[k]] = fingerprint.Entry{Status: state, Note: note, Producer: e.status.Producer, Value: t}
	}
	return out, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func (e *lateEmbedder) EmbedQuery(ctx context.Context, q embedders.Query) (embedders.QueryView, error) {
	if err := symmetric(fingerprint.E12, q); err != nil {
		return embedders.QueryView{}, err
	}
	t, err := e.query(ctx, q.Text)
	if err != nil {
		return embedders.QueryView{}, fmt.Errorf("E12: %w", err)
	}
	return embedders.QueryView{Slot: fingerprint.E12, Value: t}, nil
}

// buildE1E12 builds E1 and E12 together, because without ColBERT they share
// e5-small-v2's run.
func buildE1E12(l *loader) ([]embedders.Embedder, error) {
	e1, err := buildE1(l)
	if err != nil {
		return nil, err
	}
	if l.installed(modelColBERT) {
		e12, err := buildColBERT(l)
		if err != nil {
			return nil, err
		}
		return []embedders.Embedder{e1, e12}, nil
	}
	d, ok := e1.(*denseEmbedder)
	if !ok { // E1 unavailable: so is the fallback
		return []embedders.Embedder{e1, unavailable(fingerprint.E12,
			"no ColBERT model installed (colbertv2.0 is hub-only) and its fallback, e5-small-v2 token states, is missing too: "+e1.Status().Reason)}, nil
	}
	proj, err := parseProjection(e12PCA)
	if err != nil {
		return nil, fmt.Errorf("neural: embedded e12pca.bin: %w", err)
	}
	if proj.In != d.lm.meta.Dims {
		return nil, fmt.Errorf("neural: e12pca.bin projects %d dims, %s gives %d", proj.In, d.lm.id, d.lm.meta.Dims)
	}
	// A file with the projection in its graph (E12Projection) runs E1 and
	// E12 from its pooled and projected outputs; others give token states.
	if !l.cfg.HostE12Projection {
		d.lm.rc.TokenOutput, d.lm.rc.TokenOutputDims = e12Output, proj.Out
	}
	// The projection (~0.5 ms per 200-token document) runs per batch, as
	// each batch's token states come out of the run.
	pass := &sharedPass[fingerprint.Tokens]{lm: d.lm, prefix: d.docPrefix,
		derive: func(_ string, p runtime.Pooled) fingerprint.Tokens { return proj.tokens(p.Tokens) }}
	e12 := &lateEmbedder{lm: d.lm, note: e12FallbackNote,
		docs: func(ctx context.Context, docs []embedders.Input, texts []string) ([]fingerprint.Tokens, []runtime.Meta, error) {
			res, err := pass.run(ctx, docs, texts)
			if err != nil {
				return nil, nil, err
			}
			ts, ms := make([]fingerprint.Tokens, len(res)), make([]runtime.Meta, len(res))
			for i, r := range res {
				ts[i], ms[i] = r.Derived, r.Meta
			}
			return ts, ms, nil
		},
		query: func(ctx context.Context, text string) (fingerprint.Tokens, error) {
			if err := nonEmptyQuery(text); err != nil {
				return fingerprint.Tokens{}, err
			}
			res, err := d.lm.EmbedWithTokens(ctx, d.queryPrefix, []string{text})
			if err != nil {
				return fingerprint.Tokens{}, err
			}
			return proj.tokens(res[0].Tokens), nil
		},
		status: embedders.SlotStatus{State: fingerprint.StatusFallback, Reason: e12FallbackNote, Dims: proj.Out,
			Producer: d.lm.producer("E12 e5 token states PCA v1", d.docPrefix, d.queryPrefix, e12PCASHA256, codeViewRecipe),
			Representation: fmt.Sprintf("one %d-d L2-normalised vector per token (MaxSim): %s token states (same run as E1) × PCA (e12pca.bin sha256 %x); "+codeViewNote+"; onnx sha256 %s",
				proj.Out, d.lm.id, e12PCASHA256[:6], d.lm.short())}}
	return []embedders.Embedder{&e1Shared{denseEmbedder: d, pass: pass}, e12}, nil
}

func nonEmptyQuery(text string) error {
	for _, r := range text {
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
			return nil
		}
	}
	return fmt.Errorf("empty query: give some text to search for")
}

// buildColBERT serves E12 from an installed ColBERT model: its token
// vectors with "[Q] " / "[D] " prefixes, L2-normalised per token (the
// manifest's dims; no projection).
func buildColBERT(l *loader) (embedders.Embedder, error) {
	lm, why, err := l.get(modelColBERT)
	if err != nil || lm == nil {
		return unavailable(fingerprint.E12, why), err
	}
	ident := projection{In: lm.meta.Dims, Out: lm.meta.Dims, Mean: make([]float32, lm.meta.Dims), Components: identity(lm.meta.Dims)}
	qp, dp := lm.meta.QueryPrefix, lm.meta.PassagePrefix
	return &lateEmbedder{lm: lm,
		docs: func(ctx context.Context, _ []embedders.Input, texts []string) ([]fingerprint.Tokens, []runtime.Meta, error) {
			type tokensMeta struct {
				t fingerprint.Tokens
				m runtime.Meta
			}
			res, err := mapTokens(ctx, lm, dp, texts, func(_ int, p runtime.Pooled) tokensMeta {
				return tokensMeta{ident.tokens(p.Tokens), p.Tokens.Meta}
			})
			if err != nil {
				return nil, nil, err
			}
			ts, ms := make([]fingerprint.Tokens, len(res)), make([]runtime.Meta, len(res))
			for i, r := range res {
				ts[i], ms[i] = r.t, r.m
			}
			return ts, ms, nil
		},
		query: func(ctx context.Context, text string) (fingerprint.Tokens, error) {
			if err := nonEmptyQuery(text); err != nil {
				return fingerprint.Tokens{}, err
			}
			res, err := lm.EmbedWithTokens(ctx, qp, []string{text})
			if err != nil {
				return fingerprint.Tokens{}, err
			}
			return ident.tokens(res[0].Tokens), nil
		},
		status: embedders.SlotStatus{State: fingerprint.StatusPresent, Dims: lm.meta.Dims,
			Producer:       lm.producer("E12 colbert v1", qp, dp, codeViewRecipe),
			Representation: fmt.Sprintf("one %d-d L2-normalised vector per token (MaxSim), %s; "+codeViewNote+"; onnx sha256 %s", lm.meta.Dims, lm.id, lm.short())}}, nil
}

func identity(n int) []float32 {
	m := make([]float32, n*n)
	for i := range n {
		m[i*n+i] = 1
	}
	return m
}

// buildE13: a SPLADE model if installed (runtime Sparse), else unavailable.
// Never a copy of E6.
func buildE13(l *loader) (embedders.Embedder, error) {
	for _, id := range l.mf.Preferred(fingerprint.E13) {
		if !l.installed(id) {
			continue
		}
		lm, why, err := l.get(id)
		if err != nil || lm == nil {
			return unavailable(fingerprint.E13, why), err
		}
		return &sparseEmbedder{lm: lm, status: embedders.SlotStatus{State: fingerprint.StatusPresent,
			Producer:       lm.producer("E13 splade v2 (identifiers split)", lm.meta.QueryPrefix, lm.meta.PassagePrefix),
			Representation: fmt.Sprintf("SPLADE max_t log(1+ReLU(logits)) over the %s vocabulary, code identifiers split into words; onnx sha256 %s", id, lm.short())}}, nil
	}
	return unavailable(fingerprint.E13, "no SPLADE model installed (splade-pp-en-v1 is hub-only: cgraph models pull splade-pp-en-v1 where the hub is reachable)"), nil
}

// sparseEmbedder is E13 from a masked-LM model.
type sparseEmbedder struct {
	lm     *loaded
	status embedders.SlotStatus
}

var _ embedders.Embedder = (*sparseEmbedder)(nil)

func (e *sparseEmbedder) Slot() fingerprint.SlotID     { return fingerprint.E13 }
func (e *sparseEmbedder) Status() embedders.SlotStatus { return e.lm.withDevice(e.status) }

func toSparse(s runtime.Sparse) fingerprint.Sparse {
	idx := make([]uint32, len(s.Terms))
	for i, t := range s.Terms {
		idx[i] = uint32(t)
	}
	return fingerprint.Sparse{Indices: idx, Weights: s.Weights}
}

// EmbedDocuments splits code identifiers into their words first (as
// EmbedQuery does): the model's word-piece vocabulary knows words, not
// parseHTTPRequest.
func (e *sparseEmbedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	texts, idx := nonEmpty(docs)
	for i := range texts {
		texts[i] = keywords.SplitIdentifiers(texts[i])
	}
	res, err := e.lm.Sparse(ctx, runtime.ViewPassage, texts)
	if err != nil {
		return nil, fmt.Errorf("E13: %w", err)
	}
	out := emptyEntries(len(docs))
	for k, s := range res {
		out[idx[k]] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: e.status.Producer,
			Note: truncNote(s.Meta, e.lm), Value: toSparse(s)}
	}
	return out, nil
}

func (e *sparseEmbedder) EmbedQuery(ctx context.Context, q embedders.Query) (embedders.QueryView, error) {
	if err := symmetric(fingerprint.E13, q); err != nil {
		return embedders.QueryView{}, err
	}
	if err := nonEmptyQuery(q.Text); err != nil {
		return embedders.QueryView{}, fmt.Errorf("E13: %w", err)
	}
	res, err := e.lm.Sparse(ctx, runtime.ViewQuery, []string{keywords.SplitIdentifiers(q.Text)})
	if err != nil {
		return embedders.QueryView{}, fmt.Errorf("E13: %w", err)
	}
	return embedders.QueryView{Slot: fingerprint.E13, Value: toSparse(res[0])}, nil
}
