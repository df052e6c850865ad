package entities

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// Embedder is the E11 embedder without its model: it stores the entity set
// and marks the value as a fallback, because the entity vector needs a model
// that is not wired yet. It is stateless and safe for concurrent use.
type Embedder struct{}

var _ embedders.Embedder = Embedder{}

// extractorVersion changes whenever Extract's output changes.
const extractorVersion = 1

var producer = embedders.ModelFree("cgraph/e11-entity-set/v1", extractorVersion, ListSHA256)

// FallbackNote explains every E11 value this embedder produces.
const FallbackNote = "entity set only: no entity-vector model installed (set overlap works, vector search does not)"

// Slot returns E11.
func (Embedder) Slot() fingerprint.SlotID { return fingerprint.E11 }

// Status reports the fallback.
func (Embedder) Status() embedders.SlotStatus {
	return embedders.SlotStatus{State: fingerprint.StatusFallback, Reason: FallbackNote, Producer: producer,
		Representation: fmt.Sprintf("entity set (identifiers, calls, %d known names, paths, error codes, versions); Jaccard overlap", Names())}
}

// EmbedDocuments extracts each document's entity set.
func (Embedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out := make([]fingerprint.Entry, len(docs))
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("E11: %w", err)
		}
		out[i] = fingerprint.Entry{Status: fingerprint.StatusFallback, Note: FallbackNote, Producer: producer,
			Value: fingerprint.Entities{Names: Extract(d.Text)}}
	}
	return out, nil
}

// EmbedQuery extracts the query's entities; a query naming none is a caller
// error (entity search has nothing to match).
func (Embedder) EmbedQuery(_ context.Context, q embedders.Query) (embedders.QueryView, error) {
	names := Extract(q.Text)
	if len(names) == 0 {
		return embedders.QueryView{}, embedders.Nothing("E11: query %s names no entity (identifier, library, path, error code or version)", embedders.Quote(q.Text))
	}
	return embedders.QueryView{Slot: fingerprint.E11, Value: fingerprint.Entities{Names: names}}, nil
}
