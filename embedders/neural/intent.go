package neural

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/runtime"
)

// Intent and context (E10). The intent of a memory is what it is for: its
// goal and imperative sentences ("Add retries so that…", "We need to…",
// "TODO: …"); the context is the rest (what happened, what the code is). A
// memory with no such sentence takes its first sentence as the intent (the
// summary line); a one-sentence memory has the same span for both.
//
// E10 reads the token states of the all-MiniLM-L6-v2 run E7 already makes
// over the whole text and mean-pools them over the intent sentences' tokens
// and over the context sentences' tokens (span pooling: each span's tokens
// carry the rest of the text as context). It is a different model than E1
// and a different input than E7 (spans, not the whole text), so it is a copy
// of neither. When the sentences do not align with the run's tokens (text
// longer than MiniLM's 256 tokens, or an unusual split), the two span texts
// are embedded on their own instead, and the note says so. A text longer than
// MiniLM's 256 tokens is pooled over what the run saw (noted as truncated)
// when an intent sentence starts within it.
var (
	sentencePunct = regexp.MustCompile(`([.!?])\s+`)
	paragraphEnd  = regexp.MustCompile(`\n\s*\n`)
	listItem      = regexp.MustCompile(`\n([-*] )`)
	intentCue     = regexp.MustCompile(`(?i)^(?:(?:please|let's|we|i|you)\s+(?:need|want|should|must|have)\b|(?:add|fix|make|implement|use|avoid|ensure|allow|support|remove|replace|refactor|rename|move|update|improve|handle|prevent|reduce|speed up|document|test|check|build|create|write|set|enable|disable|migrate|split|keep|stop|find|get|return|search|store)\b|todo\b|goal\b|in order to\b|the (?:aim|goal|purpose|point) )|\b(?:so that|in order to|we want to|we need to|the goal is|the aim is|should be able to)\b`)
)

// separateNote marks an E10 value whose spans were embedded on their own.
const separateNote = "intent and context embedded as separate texts (the spans did not align with the shared run's tokens)"

// splitSentences cuts text into sentences at ., !, ? followed by space, at
// blank lines and before list items. Cuts fall on whitespace only, so the
// sentences' tokens, in order, are the text's tokens.
func splitSentences(text string) []string {
	marked := sentencePunct.ReplaceAllString(text, "$1\x00")
	marked = paragraphEnd.ReplaceAllString(marked, "\x00")
	marked = listItem.ReplaceAllString(marked, "\x00$1")
	var out []string
	for _, s := range strings.Split(marked, "\x00") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// intentMask returns the sentences of text and which are intent.
func intentMask(text string) (ss []string, intent []bool) {
	ss = splitSentences(text)
	intent = make([]bool, len(ss))
	any := false
	for i, s := range ss {
		intent[i] = intentCue.MatchString(s)
		any = any || intent[i]
	}
	if !any && len(ss) > 0 {
		intent[0] = true
	}
	return ss, intent
}

// e10Sides returns the intent text and the context text (used when span
// pooling cannot be).
func e10Sides(text string) (intent, context string) {
	ss, mask := intentMask(text)
	var in, ctx []string
	for i, s := range ss {
		if mask[i] {
			in = append(in, s)
		} else {
			ctx = append(ctx, s)
		}
	}
	if len(ctx) == 0 {
		ctx = in
	}
	return strings.Join(in, " "), strings.Join(ctx, " ")
}

// intentEmbedder is E10.
type intentEmbedder struct {
	lm     *loaded
	pass   *sharedPass[spanPools]
	status embedders.SlotStatus
}

// spanPools is one memory's E10 vectors pooled from its token states (ok
// false when its sentences do not line up with the tokens: it is then
// embedded as two separate texts).
type spanPools struct {
	a, b []float32
	ok   bool
	// head is E7's document vector (headPooled) when E7 reads this run.
	head []float32
}

var _ embedders.Embedder = (*intentEmbedder)(nil)

func (e *intentEmbedder) Slot() fingerprint.SlotID     { return fingerprint.E10 }
func (e *intentEmbedder) Status() embedders.SlotStatus { return e.lm.withDevice(e.status) }

// spans pools tm's rows over the intent and the context sentences, or
// reports false when the sentences' tokens do not line up with tm's.
func (e *intentEmbedder) spans(text string, tm runtime.TokenMatrix) (a, b []float32, ok bool) {
	ss, mask := intentMask(text)
	tok := e.lm.Tokenizer()
	special := tok.SpecialCount()
	first := 0
	for first < len(tm.Special) && tm.Special[first] {
		first++
	}
	end := len(tm.IDs) - (special - first) // the text's tokens are [first, end)
	pos := first
	inRows, ctxRows := []int{}, []int{}
sentences:
	for i, s := range ss {
		enc, err := tok.Encode(s, 0)
		if err != nil {
			return nil, nil, false
		}
		n := len(enc.IDs) - special
		for k := range n {
			if pos+k >= end {
				if tm.Truncated { // the run saw only the head: pool what it saw
					break sentences
				}
				return nil, nil, false
			}
			if tm.Special[pos+k] || tm.IDs[pos+k] != enc.IDs[k+first] {
				return nil, nil, false
			}
			if mask[i] {
				inRows = append(inRows, pos+k)
			} else {
				ctxRows = append(ctxRows, pos+k)
			}
		}
		pos += n
	}
	if (!tm.Truncated && pos != end) || len(inRows) == 0 {
		return nil, nil, false
	}
	if len(ctxRows) == 0 {
		ctxRows = inRows
	}
	return meanRows(tm, inRows), meanRows(tm, ctxRows), true
}

// meanRows is the L2-normalised mean of the given rows of tm.
func meanRows(tm runtime.TokenMatrix, rows []int) []float32 {
	v := make([]float32, tm.Dim)
	for _, r := range rows {
		for k, x := range tm.Row(r) {
			v[k] += x
		}
	}
	normalize(v)
	return v
}

func (e *intentEmbedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	texts, idx := readTexts(docs)
	res, err := e.pass.run(ctx, docs, texts)
	if err != nil {
		return nil, fmt.Errorf("E10: %w", err)
	}
	out := emptyEntries(len(docs))
	var sep []string
	var sepAt []int
	for k, r := range res {
		a, b, ok := r.Derived.a, r.Derived.b, r.Derived.ok
		if !ok {
			in, cx := e10Sides(texts[k])
			sep, sepAt = append(sep, in, cx), append(sepAt, idx[k])
			continue
		}
		out[idx[k]] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: e.status.Producer,
			Note: truncNote(r.Meta, e.lm), Value: fingerprint.Pair{A: a, B: b}}
	}
	if len(sep) > 0 {
		vs, err := e.lm.EmbedPrefixed(ctx, "", sep)
		if err != nil {
			return nil, fmt.Errorf("E10: %w", err)
		}
		for j, i := range sepAt {
			out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: e.status.Producer,
				Note: joinNote(separateNote, truncNote(vs[2*j].Meta, e.lm)), Value: fingerprint.Pair{A: vs[2*j].Vector, B: vs[2*j+1].Vector}}
		}
	}
	return out, nil
}

// EmbedQuery embeds the query text whole, whichever side it plays (q.As
// only picks the stored side it is compared with: a query is usually an
// intent, searching context vectors).
func (e *intentEmbedder) EmbedQuery(ctx context.Context, q embedders.Query) (embedders.QueryView, error) {
	if _, err := embedders.QuerySide(fingerprint.E10, q); err != nil {
		return embedders.QueryView{}, err
	}
	v, err := embedOne(ctx, e.lm, "", queryView(q.Text), fingerprint.E10)
	if err != nil {
		return embedders.QueryView{}, err
	}
	return embedders.QueryView{Slot: fingerprint.E10, Value: fingerprint.Dense(v)}, nil
}

// buildE7E10 builds E7 and E10; when both run all-MiniLM-L6-v2 they share its
// run per batch.
func buildE7E10(l *loader) ([]embedders.Embedder, error) {
	e7, err := buildE7(l)
	if err != nil {
		return nil, err
	}
	id := l.cfg.variant(l.mf, modelMiniLM)
	lm, why, err := l.get(id)
	if err != nil {
		return nil, err
	}
	if lm == nil {
		return []embedders.Embedder{e7, unavailable(fingerprint.E10, why)}, nil
	}
	d, shared := e7.(*denseEmbedder)
	shared = shared && d.lm == lm && d.docPrefix == ""
	pass := &sharedPass[spanPools]{lm: lm, consumers: 2}
	if !shared { // E7 runs another model (jina): E10 reads the run alone
		pass.consumers = 1
	}
	e10 := &intentEmbedder{lm: lm, pass: pass, status: embedders.SlotStatus{State: fingerprint.StatusPresent, Dims: lm.meta.Dims,
		Producer: lm.producer("E10 intent/context span pool v2", intentCue.String(), sentencePunct.String(), paragraphEnd.String(), listItem.String(), codeViewRecipe),
		Representation: fmt.Sprintf("as-intent (goal and imperative sentences, else the first) / as-context (the rest) %d-d vectors: %s token states mean-pooled over each span — a different model and input than E1; "+codeViewNote+"; onnx sha256 %s",
			lm.meta.Dims, id, lm.short())}}
	// The span pooling (sentence split and re-tokenising, ~0.5 ms per
	// document) runs per batch, as each batch's token states come out of the run.
	head := 0
	if shared {
		head = d.headTokens
	}
	pass.derive = func(text string, p runtime.Pooled) spanPools {
		a, b, ok := e10.spans(text, p.Tokens)
		sp := spanPools{a: a, b: b, ok: ok}
		if head > 0 {
			sp.head = headPooled(p, head, e7HeadWeight)
		}
		return sp
	}
	if shared {
		s := &e7Shared{denseEmbedder: d, pass: pass}
		if head > 0 {
			s.vector = func(o passOut[spanPools]) []float32 { return o.Derived.head }
		}
		e7 = s
	}
	return []embedders.Embedder{e7, e10}, nil
}
