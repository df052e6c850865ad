package keywords

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// Embedder is the E6 embedder: term frequencies of code-aware tokens for
// documents and queries alike. It is stateless and safe for concurrent use.
type Embedder struct{}

var _ embedders.Embedder = Embedder{}

// tokenizerVersion changes whenever Tokenize's output changes, so that stores
// built with another tokenizer are refused rather than mixed.
const tokenizerVersion = 5 // 2: plurals fold (Stem); 3: declared names count 3 times; 4: also DefinedName's (Java methods, …); 5: DefinedName reads Rust (pub(crate), <T>, attributes, fn new)

var producer = embedders.ModelFree("cgraph/e6-code-tokens/v1", tokenizerVersion)

// Slot returns E6.
func (Embedder) Slot() fingerprint.SlotID { return fingerprint.E6 }

// Status reports ready.
func (Embedder) Status() embedders.SlotStatus {
	return embedders.SlotStatus{State: fingerprint.StatusPresent, Producer: producer,
		Representation: fmt.Sprintf("BM25 term frequencies over code-aware tokens (k1 %.1f, b %.2f)", DefaultBM25.K1, DefaultBM25.B)}
}

// EmbedDocuments returns each document's term frequencies. A document without
// any term is present with an empty bag: it simply never matches.
func (Embedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("E6: %w", err)
	}
	out := make([]fingerprint.Entry, len(docs))
	embedders.ForEach(len(docs), func(i int) { // on all cores: on a GPU the fingerprint waits for the CPU slots
		out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: producer, Value: TermFreqs(docs[i].Text)}
	})
	return out, nil
}

// EmbedQuery returns the query's term frequencies; a query without terms is a
// caller error.
func (Embedder) EmbedQuery(_ context.Context, q embedders.Query) (embedders.QueryView, error) {
	tf := TermFreqs(q.Text)
	if len(tf.Terms) == 0 {
		return embedders.QueryView{}, embedders.Nothing("E6: query %s has no keywords (only stop words, punctuation or one-letter tokens)", embedders.Quote(q.Text))
	}
	return embedders.QueryView{Slot: fingerprint.E6, Value: tf}, nil
}
