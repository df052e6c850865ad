package temporal

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// Harmonics is the number of Fourier harmonics per cycle in E3 features.
const Harmonics = 3

// PeriodicDims is the length of an E3 feature vector: sin and cos of each
// harmonic of the day cycle and of the week cycle.
const PeriodicDims = 4 * Harmonics

// PeriodicFeatures returns the E3 features of t in loc: for k = 1…Harmonics,
// sin and cos of 2πk·(hour of day)/24 and of 2πk·(day of week)/7, with the
// hour and day continuous (10:30 is 10.5). The vector has unit length, so the
// dot product of two feature vectors is their cosine in [-1, 1]: 1 for the
// same hour and weekday. Cost O(Harmonics).
func PeriodicFeatures(t time.Time, loc *time.Location) []float32 {
	t = t.In(loc)
	hour := float64(t.Hour()) + float64(t.Minute())/60 + float64(t.Second())/3600
	week := float64(t.Weekday()) + hour/24
	out := make([]float32, 0, PeriodicDims)
	norm := 1 / math.Sqrt(2*Harmonics) // each (sin, cos) pair has unit length
	for k := 1; k <= Harmonics; k++ {
		d := 2 * math.Pi * float64(k) * hour / 24
		w := 2 * math.Pi * float64(k) * week / 7
		out = append(out, float32(math.Sin(d)*norm), float32(math.Cos(d)*norm),
			float32(math.Sin(w)*norm), float32(math.Cos(w)*norm))
	}
	return out
}

// PeriodicEmbedder is the E3 embedder. Hour and weekday are taken in Location,
// which is part of the producer identity.
type PeriodicEmbedder struct {
	loc      *time.Location
	producer fingerprint.Producer
}

var _ embedders.Embedder = (*PeriodicEmbedder)(nil)

// NewPeriodic returns an E3 embedder reading hours in loc (nil means UTC).
func NewPeriodic(loc *time.Location) *PeriodicEmbedder {
	if loc == nil {
		loc = time.UTC
	}
	return &PeriodicEmbedder{loc: loc, producer: embedders.ModelFree("cgraph/e3-periodic/v1", Harmonics, loc.String())}
}

// Slot returns E3.
func (*PeriodicEmbedder) Slot() fingerprint.SlotID { return fingerprint.E3 }

// Status reports ready.
func (p *PeriodicEmbedder) Status() embedders.SlotStatus {
	return embedders.SlotStatus{State: fingerprint.StatusPresent, Producer: p.producer, Dims: PeriodicDims,
		Representation: fmt.Sprintf("Fourier features, %d harmonics of hour-of-day and day-of-week (%s)", Harmonics, p.loc)}
}

// EmbedDocuments computes features of each creation time.
func (p *PeriodicEmbedder) EmbedDocuments(_ context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out := make([]fingerprint.Entry, len(docs))
	for i, d := range docs {
		if d.Created.IsZero() {
			out[i] = noCreated
			continue
		}
		out[i] = fingerprint.Entry{Status: fingerprint.StatusPresent, Producer: p.producer,
			Value: fingerprint.Periodic{UnixMilli: d.Created.UnixMilli(), Features: PeriodicFeatures(d.Created, p.loc)}}
	}
	return out, nil
}

// EmbedQuery returns the features of the query time.
func (p *PeriodicEmbedder) EmbedQuery(_ context.Context, q embedders.Query) (embedders.QueryView, error) {
	if q.Now.IsZero() {
		return embedders.QueryView{}, fmt.Errorf("E3: %w", errNoNow)
	}
	return embedders.QueryView{Slot: fingerprint.E3,
		Value: fingerprint.Periodic{UnixMilli: q.Now.UnixMilli(), Features: PeriodicFeatures(q.Now, p.loc)}}, nil
}

// Similarity is the cosine of two feature vectors of the same length (their
// dot product, as both have unit length), in [-1, 1]. It returns 0 for vectors
// of different lengths.
func Similarity(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// Score is the E3 badge score of a stored value against a query view, in
// [0, 1]: (1 + cosine of the feature vectors)/2, so 1 at the same hour and
// weekday and 0.5 for an unrelated time. Pipelines that mix it with recency
// use this, never the raw cosine.
func (p *PeriodicEmbedder) Score(doc, query fingerprint.Periodic) float64 {
	return unitScore(Similarity(doc.Features, query.Features))
}

// unitScore maps a cosine in [-1, 1] to [0, 1], clamping rounding error.
func unitScore(cos float64) float64 {
	return min(1, max(0, (1+cos)/2))
}
