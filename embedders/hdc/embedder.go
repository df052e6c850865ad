package hdc

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// Embedder is the E9 embedder. It is stateless and safe for concurrent use.
type Embedder struct{}

var _ embedders.Embedder = Embedder{}

var producer = embedders.ModelFree("cgraph/e9-hdc-trigram/v1", nbits, N, ProjectionDims, uint64(seed))

// Slot returns E9.
func (Embedder) Slot() fingerprint.SlotID { return fingerprint.E9 }

// Status reports ready.
func (Embedder) Status() embedders.SlotStatus {
	return embedders.SlotStatus{State: fingerprint.StatusPresent, Producer: producer, Dims: ProjectionDims,
		Representation: fmt.Sprintf("%d-bit character %d-gram hypervector + %d-d projection", nbits, N, ProjectionDims)}
}

// value encodes text, or reports that it has nothing to encode.
func value(text string) (fingerprint.Hyper, bool) {
	if len(normalize(text)) < N {
		return fingerprint.Hyper{}, false
	}
	bits := Encode(text)
	return fingerprint.Hyper{Bits: bits, Projection: Project(bits)}, true
}

// EmbedDocuments encodes each text; a text without letters or digits is
// unavailable in E9.
func (Embedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("E9: %w", err)
	}
	out := make([]fingerprint.Entry, len(docs))
	embedders.ForEach(len(docs), func(i int) { // ~0.4 ms per 500-byte text
		v, ok := value(docs[i].Text)
		if !ok {
			out[i] = fingerprint.Entry{Status: fingerprint.StatusUnavailable, Note: "text has no letters or digits"}
			return
		}
		out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: producer, Value: v}
	})
	return out, nil
}

// EmbedQuery encodes the query text the same way as documents.
func (Embedder) EmbedQuery(_ context.Context, q embedders.Query) (embedders.QueryView, error) {
	v, ok := value(q.Text)
	if !ok {
		return embedders.QueryView{}, embedders.Nothing("E9: query %s has no letters or digits to match", embedders.Quote(q.Text))
	}
	return embedders.QueryView{Slot: fingerprint.E9, Value: v}, nil
}
