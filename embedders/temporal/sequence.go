package temporal

import (
	"context"
	"fmt"
	"math"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// SequenceDims is the length of an E4 position code.
const SequenceDims = 32

// sequenceStretch divides every frequency of the position code. The
// Transformer code (stretch 1) has a fastest frequency of 1 radian per step,
// which makes similarity oscillate between neighbours 3 and 6 apart; with 8 the
// similarity falls strictly for distances up to 25 (pinned by a test) and keeps
// falling on average beyond.
const sequenceStretch = 8

// SequenceFeatures returns the sinusoidal encoding of a session position
// (Transformer style): for i < SequenceDims/2, sin and cos of pos·ω_i with
// ω_i = 10000^(-2i/SequenceDims)/8, scaled to unit length. The dot product of
// two codes is mean_i cos(Δ·ω_i): it depends only on the distance Δ between the
// positions, is 1 at Δ = 0 and falls as Δ grows. Cost O(SequenceDims).
func SequenceFeatures(pos uint64) []float32 {
	const half = SequenceDims / 2
	out := make([]float32, SequenceDims)
	norm := 1 / math.Sqrt(half)
	p := float64(pos)
	for i := range half {
		w := math.Pow(10000, -2*float64(i)/SequenceDims) / sequenceStretch
		out[2*i] = float32(math.Sin(p*w) * norm)
		out[2*i+1] = float32(math.Cos(p*w) * norm)
	}
	return out
}

// SequenceEmbedder is the E4 embedder. Memories outside a session are
// unavailable in E4.
type SequenceEmbedder struct{}

var _ embedders.Embedder = SequenceEmbedder{}

var sequenceProducer = embedders.ModelFree("cgraph/e4-sequence/v1", SequenceDims, 10000, sequenceStretch)

// Slot returns E4.
func (SequenceEmbedder) Slot() fingerprint.SlotID { return fingerprint.E4 }

// Status reports ready.
func (SequenceEmbedder) Status() embedders.SlotStatus {
	return embedders.SlotStatus{State: fingerprint.StatusPresent, Producer: sequenceProducer, Dims: SequenceDims,
		Representation: fmt.Sprintf("%d-d sinusoidal code of the position in the session", SequenceDims)}
}

// EmbedDocuments encodes each document's session position.
func (SequenceEmbedder) EmbedDocuments(_ context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out := make([]fingerprint.Entry, len(docs))
	for i, d := range docs {
		if d.Session == "" {
			out[i] = fingerprint.Entry{Status: fingerprint.StatusUnavailable, Note: "memory has no session"}
			continue
		}
		out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: sequenceProducer,
			Value: fingerprint.Sequence{Position: d.Seq, Features: SequenceFeatures(d.Seq)}}
	}
	return out, nil
}

// EmbedQuery encodes the query's anchor position; it needs a session.
func (SequenceEmbedder) EmbedQuery(_ context.Context, q embedders.Query) (embedders.QueryView, error) {
	if q.Session == "" {
		return embedders.QueryView{}, embedders.Nothing("E4: the query names no session (sequence navigation needs a session and a position to measure from)")
	}
	return embedders.QueryView{Slot: fingerprint.E4,
		Value: fingerprint.Sequence{Position: q.Seq, Features: SequenceFeatures(q.Seq)}}, nil
}

// Score is the E4 proximity of a stored value to the query's anchor, in
// [0, 1]: (1 + cosine of the position codes)/2 — 1 at the anchor, about 0.9997
// one step away, 0.97 ten steps, 0.86 a hundred; it does not know sessions, so
// callers compare only memories of the query's session.
func (SequenceEmbedder) Score(doc, query fingerprint.Sequence) float64 {
	return unitScore(Similarity(doc.Features, query.Features))
}
