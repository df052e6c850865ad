package neural

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// pairEmbedder fills an asymmetric slot (E5, E8, E10): two vectors per memory
// and a query view per direction. sides turns a memory's text into the texts
// embedded as side A and side B (or a reason it has none); view turns one
// embedded vector into a side's vector (E5's head; identity elsewhere).
type pairEmbedder struct {
	slot fingerprint.SlotID
	lm   *loaded
	// queryLM, when set, encodes queries (E5's fine-tuned bge); documents
	// stay lm's.
	queryLM *loaded
	status  embedders.SlotStatus
	// docSides returns the texts embedded for side A and side B of a memory;
	// ok false with a reason when the memory has nothing this slot reads.
	docSides func(text string) (a, b string, reason string)
	// querySide returns the text a query is embedded as on side s.
	querySide func(text string, s fingerprint.Side) string
	// view maps an embedded side text to its stored vector (nil: unchanged).
	view func(v []float32, s fingerprint.Side) []float32
}

var _ embedders.Embedder = (*pairEmbedder)(nil)

func (e *pairEmbedder) Slot() fingerprint.SlotID     { return e.slot }
func (e *pairEmbedder) Status() embedders.SlotStatus { return e.lm.withDevice(e.status) }

func (e *pairEmbedder) apply(v []float32, s fingerprint.Side) fingerprint.Dense {
	if e.view == nil {
		return v
	}
	return e.view(v, s)
}

// pairSides is where one memory's two side texts sit in a batch's run.
type pairSides struct{ doc, a, b int }

// sideTexts lists the distinct side texts of docs in first-seen order (the
// one run EmbedDocuments makes; equal texts are embedded once) and, for each
// memory that has sides, where its two are; reasons[i] says why memory i has
// none. Blank memories have neither.
func (e *pairEmbedder) sideTexts(docs []embedders.Input) (texts []string, todo []pairSides, reasons map[int]string) {
	at := map[string]int{}
	pos := func(s string) int {
		if k, ok := at[s]; ok {
			return k
		}
		at[s] = len(texts)
		texts = append(texts, s)
		return len(texts) - 1
	}
	type sides struct{ a, b, reason string }
	all := make([]sides, len(docs))
	embedders.ForEach(len(docs), func(i int) { // E8's structure parse is ~0.5 ms per document
		if strings.TrimSpace(docs[i].Text) != "" {
			all[i].a, all[i].b, all[i].reason = e.docSides(docs[i].Text)
		}
	})
	for i, d := range docs {
		if strings.TrimSpace(d.Text) == "" {
			continue
		}
		a, b, reason := all[i].a, all[i].b, all[i].reason
		if reason != "" {
			if reasons == nil {
				reasons = map[int]string{}
			}
			reasons[i] = reason
			continue
		}
		todo = append(todo, pairSides{i, pos(a), pos(b)})
	}
	return texts, todo, reasons
}

// EmbedDocuments embeds every side text of the batch in one call (texts that
// are equal are embedded once).
func (e *pairEmbedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out := emptyEntries(len(docs))
	texts, todo, reasons := e.sideTexts(docs)
	for i, reason := range reasons {
		out[i] = fingerprint.Entry{Status: fingerprint.StatusUnavailable, Note: reason}
	}
	if len(texts) == 0 {
		return out, nil
	}
	vs, err := e.lm.EmbedPrefixed(ctx, "", texts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.slot, err)
	}
	for _, s := range todo {
		va, vb := vs[s.a], vs[s.b]
		note := truncNote(va.Meta, e.lm)
		if note == "" {
			note = truncNote(vb.Meta, e.lm)
		}
		out[s.doc] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: e.status.Producer, Note: note,
			Value: fingerprint.Pair{A: e.apply(va.Vector, fingerprint.SideA), B: e.apply(vb.Vector, fingerprint.SideB)}}
	}
	return out, nil
}

// EmbedQuery embeds the query as side q.As; it is compared with the stored
// vectors of the other side.
func (e *pairEmbedder) EmbedQuery(ctx context.Context, q embedders.Query) (embedders.QueryView, error) {
	as, err := embedders.QuerySide(e.slot, q)
	if err != nil {
		return embedders.QueryView{}, err
	}
	lm := e.lm
	if e.queryLM != nil && !q.Raw {
		lm = e.queryLM
	}
	v, err := embedOne(ctx, lm, "", e.querySide(q.Text, as), e.slot)
	if err != nil {
		return embedders.QueryView{}, err
	}
	return embedders.QueryView{Slot: e.slot, Value: e.apply(v, as)}, nil
}

// Tuned reports whether queries run through a query encoder of their own
// (embedders.TunedQueries).
func (e *pairEmbedder) Tuned() bool { return e.queryLM != nil }

// e5HeadJSON is E5's learned head (see shiftHead), fitted by TestUpdateE5Head.
//
//go:embed e5head.json
var e5HeadJSON []byte

// e5HeadSHA256 identifies the head in E5's producer.
var e5HeadSHA256 = sha256.Sum256(e5HeadJSON)

func loadE5Head() (shiftHead, error) {
	var h shiftHead
	if err := json.Unmarshal(e5HeadJSON, &h); err != nil {
		return h, fmt.Errorf("neural: embedded e5head.json: %w", err)
	}
	if len(h.Mu) != len(h.D) || len(h.D) == 0 {
		return h, fmt.Errorf("neural: embedded e5head.json: mu has %d dims, d %d", len(h.Mu), len(h.D))
	}
	return h, nil
}

// buildE5: bge-small-en-v1.5 (a different model than E1), one pass per
// memory without instruction over its codeView, then the learned head gives the as-cause
// (side A) and as-effect (side B) vectors; a query looking for causes is an
// effect and gets the effect view, and the other way round.
func buildE5(l *loader) (embedders.Embedder, error) {
	id := l.cfg.variant(l.mf, modelE5)
	lm, why, err := l.get(id)
	if err != nil || lm == nil {
		return unavailable(fingerprint.E5, why), err
	}
	h, err := loadE5Head()
	if err != nil {
		return nil, err
	}
	if len(h.D) != lm.meta.Dims {
		return nil, fmt.Errorf("neural: E5 head has %d dims, %s gives %d", len(h.D), id, lm.meta.Dims)
	}
	sign := map[fingerprint.Side]float32{fingerprint.SideA: -1, fingerprint.SideB: +1}
	e := &pairEmbedder{slot: fingerprint.E5, lm: lm,
		docSides: func(text string) (string, string, string) {
			v := viewOf(text)
			return v, v, ""
		},
		querySide: func(text string, _ fingerprint.Side) string { return queryView(text) },
		view:      func(v []float32, s fingerprint.Side) []float32 { return h.apply(v, sign[s]) },
		status: embedders.SlotStatus{State: fingerprint.StatusPresent, Dims: lm.meta.Dims,
			Producer: lm.producer("E5 pair v1", e5HeadSHA256, codeViewRecipe),
			Representation: fmt.Sprintf("as-cause / as-effect %d-d vectors: %s (CLS, L2) through a learned direction head (e5head.json sha256 %x, fitted on mined cause→effect pairs); "+codeViewNote+"; onnx sha256 %s",
				lm.meta.Dims, id, e5HeadSHA256[:6], lm.short())}}
	tune, err := e5LowRank()
	if err != nil {
		return nil, err
	}
	base, where := l.fp32File(modelE5, fmt.Sprintf("%x", tune.Base), lm, true)
	if base == nil {
		e.status.Representation += fmt.Sprintf("; queries through raw bge: its fine-tuned query encoder (e5tune.bin sha256 %x) fits only the fp32 %s file (`cgraph models pull %s`)", e5TuneSHA256[:6], modelE5, modelE5)
		return e, nil
	}
	e.queryLM = l.derived(base, modelE5+"+e5tune", tune.merge)
	e.status.Representation += fmt.Sprintf("; queries encoded by bge fine-tuned for code%s (e5tune.bin sha256 %x: a rank-%d update of its %d weight matrices fitted through the head on doc-comment → code pairs of Python, Java and JavaScript against E5's stored effect vectors, which stay as stored)",
		where, e5TuneSHA256[:6], tune.Updates[0].Rank, len(tune.Updates))
	return e, nil
}
