// Package temporal holds the model-free temporal slots: E2 recency, E3
// periodicity and E4 sequence. Their values are computed from a memory's
// creation time and session position, never from its text, and they act after
// retrieval only (ARCH-25): badges and tie-breaks, never candidate recall in
// semantic profiles. Every function here is pure and safe for concurrent use.
package temporal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// Recency is E2: exp(-age·ln2/halfLife), 1 for a memory created now (or in the
// future: clock skew is not punished), 0.5 at one half-life. halfLife must be
// positive. Cost O(1).
func Recency(created, now time.Time, halfLife time.Duration) float64 {
	age := now.Sub(created)
	if age <= 0 {
		return 1
	}
	return math.Exp(-float64(age) * math.Ln2 / float64(halfLife))
}

// RecencyEmbedder is the E2 embedder. Documents store their creation time;
// the half-life is applied at query time, so changing it needs no re-embedding
// (and is not part of the producer identity).
type RecencyEmbedder struct {
	HalfLife time.Duration
}

var _ embedders.Embedder = (*RecencyEmbedder)(nil)

// DefaultHalfLife is the E2 half-life when none is configured.
const DefaultHalfLife = 7 * 24 * time.Hour

// NewRecency returns an E2 embedder; halfLife 0 means DefaultHalfLife.
func NewRecency(halfLife time.Duration) (*RecencyEmbedder, error) {
	if halfLife < 0 {
		return nil, fmt.Errorf("E2 half-life %v is negative; give a positive duration such as 168h", halfLife)
	}
	if halfLife == 0 {
		halfLife = DefaultHalfLife
	}
	return &RecencyEmbedder{HalfLife: halfLife}, nil
}

var recencyProducer = embedders.ModelFree("cgraph/e2-recency/v1", "unix-millis")

// Slot returns E2.
func (*RecencyEmbedder) Slot() fingerprint.SlotID { return fingerprint.E2 }

// Status reports ready.
func (r *RecencyEmbedder) Status() embedders.SlotStatus {
	return embedders.SlotStatus{State: fingerprint.StatusPresent, Producer: recencyProducer,
		Representation: fmt.Sprintf("creation time; recency exp(-age·ln2/%v) at query time", r.HalfLife)}
}

// EmbedDocuments stores each creation time; a document without one is
// unavailable in E2.
func (r *RecencyEmbedder) EmbedDocuments(_ context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out := make([]fingerprint.Entry, len(docs))
	for i, d := range docs {
		if d.Created.IsZero() {
			out[i] = noCreated
			continue
		}
		out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: recencyProducer,
			Value: fingerprint.Timestamp{UnixMilli: d.Created.UnixMilli()}}
	}
	return out, nil
}

var noCreated = fingerprint.Entry{Status: fingerprint.StatusUnavailable, Note: "memory has no creation time"}

var errNoNow = errors.New("query has no time (Now): temporal slots measure against it; set it to the current time")

// EmbedQuery returns the query time as a Timestamp view.
func (r *RecencyEmbedder) EmbedQuery(_ context.Context, q embedders.Query) (embedders.QueryView, error) {
	if q.Now.IsZero() {
		return embedders.QueryView{}, fmt.Errorf("E2: %w", errNoNow)
	}
	return embedders.QueryView{Slot: fingerprint.E2, Value: fingerprint.Timestamp{UnixMilli: q.Now.UnixMilli()}}, nil
}

// Score is the recency of a stored E2 value relative to a query view.
func (r *RecencyEmbedder) Score(doc, query fingerprint.Timestamp) float64 {
	return Recency(time.UnixMilli(doc.UnixMilli), time.UnixMilli(query.UnixMilli), r.HalfLife)
}
