package neural

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/runtime"
)

// denseEmbedder fills a dense slot (E1, E7) with one pooled vector per memory
// from one model, with a fixed prefix per view. queryLM, when set, encodes
// queries instead of lm (E7's fine-tuned query encoder), and queryHead maps
// the query's pooled vector (E7's learned linear head, where the fine-tuned
// encoder does not fit the installed file); documents always go through lm
// unmapped, so their stored vectors are the model's own.
type denseEmbedder struct {
	slot                   fingerprint.SlotID
	lm, queryLM            *loaded
	docPrefix, queryPrefix string
	queryHead              *projection
	// headTokens, when positive, makes a document's vector headPooled: its
	// pooled vector plus the mean of its first headTokens token states
	// (E7 on MiniLM).
	headTokens int
	status     embedders.SlotStatus
}

var (
	_ embedders.Embedder     = (*denseEmbedder)(nil)
	_ embedders.TunedQueries = (*denseEmbedder)(nil)
)

func (e *denseEmbedder) Slot() fingerprint.SlotID     { return e.slot }
func (e *denseEmbedder) Status() embedders.SlotStatus { return e.lm.withDevice(e.status) }

// EmbedDocuments embeds every non-empty text in one batched call; an empty
// text gets an unavailable entry (there is nothing to embed).
func (e *denseEmbedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	texts, idx := readTexts(docs)
	var vs []runtime.Dense
	var err error
	if e.headTokens > 0 {
		vs, err = mapTokens(ctx, e.lm, e.docPrefix, texts, func(_ int, p runtime.Pooled) runtime.Dense {
			return runtime.Dense{Vector: headPooled(p, e.headTokens, e7HeadWeight), Meta: p.Meta}
		})
	} else {
		vs, err = e.lm.EmbedPrefixed(ctx, e.docPrefix, texts)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.slot, err)
	}
	out := emptyEntries(len(docs))
	for k, v := range vs {
		out[idx[k]] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: e.status.Producer,
			Note: truncNote(v.Meta, e.lm), Value: fingerprint.Dense(v.Vector)}
	}
	return out, nil
}

// headPooled is a document vector that leans on the text's start: the unit
// sum of p's pooled vector and w times the mean of its first k token states
// ([CLS] included), each made unit first. The code view puts a function's
// name and signature there, and MiniLM's mean over a long body dilutes
// them: for E7 (k 32, w 2) this lifts E7 alone on every code set measured
// (docs/BENCHMARKS.md "E7 reads a function's head"). A text of at most k
// tokens gets its pooled vector back (both means agree). It returns a new
// slice; p is only read.
func headPooled(p runtime.Pooled, k int, w float32) []float32 {
	t := p.Tokens
	n := min(k, len(t.IDs))
	head := make([]float32, t.Dim)
	for r := range n {
		for j, x := range t.Data[r*t.Dim : (r+1)*t.Dim] {
			head[j] += x
		}
	}
	normalize(head)
	out := slices.Clone(p.Vector)
	normalize(out) // a model without Normalize pools an unnormalised vector
	for j := range out {
		out[j] += w * head[j]
	}
	normalize(out)
	return out
}

// Tuned reports whether queries run through a query encoder or head of
// their own (embedders.TunedQueries).
func (e *denseEmbedder) Tuned() bool { return e.queryLM != nil || e.queryHead != nil }

// EmbedQuery embeds the query with the query prefix, by the query encoder
// or through the query head where the slot has one — unless q.Raw asks for
// the documents' own model.
func (e *denseEmbedder) EmbedQuery(ctx context.Context, q embedders.Query) (embedders.QueryView, error) {
	if err := symmetric(e.slot, q); err != nil {
		return embedders.QueryView{}, err
	}
	lm := e.lm
	if e.queryLM != nil && !q.Raw {
		lm = e.queryLM
	}
	v, err := embedOne(ctx, lm, e.queryPrefix, queryView(q.Text), e.slot)
	if err != nil {
		return embedders.QueryView{}, err
	}
	if e.queryHead != nil && !q.Raw {
		v = e.queryHead.apply(v)
	}
	return embedders.QueryView{Slot: e.slot, Value: fingerprint.Dense(v)}, nil
}

// emptyText is the note of a memory with no text to embed.
const emptyText = "empty text: nothing to embed"

// readTexts returns the texts worth embedding as the dense and token slots
// (E1, E7, E10, E12) read them — through codeview.View (viewOf) — and their
// positions in docs.
func readTexts(docs []embedders.Input) (texts []string, idx []int) {
	texts, idx = nonEmpty(docs)
	for i, t := range texts {
		texts[i] = viewOf(t)
	}
	return texts, idx
}

// nonEmpty returns the texts worth embedding and their positions in docs.
func nonEmpty(docs []embedders.Input) (texts []string, idx []int) {
	for i, d := range docs {
		if strings.TrimSpace(d.Text) != "" {
			texts = append(texts, d.Text)
			idx = append(idx, i)
		}
	}
	return texts, idx
}

// emptyEntries returns n unavailable entries noting empty text; callers
// overwrite those they embed.
func emptyEntries(n int) []fingerprint.Entry {
	out := make([]fingerprint.Entry, n)
	for i := range out {
		out[i] = fingerprint.Entry{Status: fingerprint.StatusUnavailable, Note: emptyText}
	}
	return out
}

// truncNote says when the model saw only the head of a text.
func truncNote(m runtime.Meta, lm *loaded) string {
	if !m.Truncated {
		return ""
	}
	return fmt.Sprintf("truncated to %d tokens (%s max length)", m.Tokens, lm.id)
}

// symmetric refuses a query side on a symmetric slot.
func symmetric(s fingerprint.SlotID, q embedders.Query) error {
	_, err := embedders.QuerySide(s, q)
	return err
}

// embedOne embeds one query text, refusing an empty one with a caller error.
func embedOne(ctx context.Context, lm *loaded, prefix, text string, s fingerprint.SlotID) ([]float32, error) {
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("%s: empty query: give some text to search for", s)
	}
	vs, err := lm.EmbedPrefixed(ctx, prefix, []string{text})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	return vs[0].Vector, nil
}
