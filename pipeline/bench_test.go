package pipeline

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// benchSpaces is a fast fake index for benchmarks: each probe has a full
// ranking of n documents (sorted once) and a dense score per document, so an
// unrestricted search copies the first k and a restricted one scores each
// candidate — the work a real index does at least, so the figures are the
// pipeline's own cost plus that minimum.
type benchSpaces struct {
	ranked map[Probe][]Hit
	score  map[Probe][]float64
}

var _ Spaces = (*benchSpaces)(nil)

func newBenchSpaces(n int) *benchSpaces {
	rng := rand.New(rand.NewPCG(5, 6))
	b := &benchSpaces{ranked: map[Probe][]Hit{}, score: map[Probe][]float64{}}
	probes := []Probe{{fp.E13, 0}, {fp.E6, 0}, {fp.E1, ViewMatryoshka128}, {fp.E11, ViewEntitySet}}
	for _, s := range fp.Slots() {
		probes = append(probes, Probe{Slot: s})
	}
	for _, s := range []fp.SlotID{fp.E5, fp.E8, fp.E10} {
		probes = append(probes, Probe{s, ViewForward}, Probe{s, ViewBackward})
	}
	for _, p := range probes {
		hs := make([]Hit, n)
		sc := make([]float64, n)
		for d := range n {
			sc[d] = 0.3 + 0.7*rng.Float64()
			hs[d] = Hit{Doc: record.DocNum(d), Score: sc[d]}
		}
		sortHits(hs)
		b.ranked[p], b.score[p] = hs, sc
	}
	return b
}

func (b *benchSpaces) Search(_ context.Context, p Probe, k int, within *roaring.Bitmap) ([]Hit, error) {
	if within == nil {
		hs := b.ranked[p]
		return slices.Clone(hs[:min(k, len(hs))]), nil
	}
	sc := b.score[p]
	out := make([]Hit, 0, within.GetCardinality())
	it := within.Iterator()
	for it.HasNext() {
		d := it.Next()
		out = append(out, Hit{Doc: record.DocNum(d), Score: sc[d]})
	}
	sortHits(out)
	return out[:min(k, len(out))], nil
}

// BenchmarkRun runs each mode with pipeline_full (semantic_search for
// multi_space) over 10,000 documents with default stage sizes.
func BenchmarkRun(b *testing.B) {
	f := newBenchSpaces(10_000)
	full, _ := profiles.Lookup("pipeline_full")
	sem, _ := profiles.Lookup("semantic_search")
	for _, c := range []struct {
		name string
		req  Request
	}{
		{"e1_only", Request{Profile: sem, Mode: ModeE1Only}},
		{"multi_space", Request{Profile: sem, Mode: ModeMultiSpace}},
		{"pipeline", Request{Profile: full, Mode: ModePipeline}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(context.Background(), f, c.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestCanceledContext(t *testing.T) {
	c, cancel := context.WithCancel(context.Background())
	cancel()
	p, _ := profiles.Lookup("semantic_search")
	for _, partial := range []bool{false, true} {
		_, err := Run(c, newFake(), Request{Profile: p, Mode: ModeMultiSpace, Partial: partial})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("partial=%v: got %v, want context.Canceled", partial, err)
		}
	}
}

// FuzzParseModeDirection: the flag parsers (mode, direction, fusion) never
// panic and accept only what round-trips through String.
func FuzzParseModeDirection(f *testing.F) {
	for _, s := range []string{"pipeline", "e1_only", " Multi_Space ", "causes", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if m, err := ParseMode(s); err == nil && m.String() != strings.TrimSpace(strings.ToLower(s)) {
			t.Fatalf("ParseMode(%q) = %s", s, m)
		}
		if d, err := ParseDirection(s); err == nil {
			if back, err := ParseDirection(d.String()); err != nil || back != d {
				t.Fatalf("ParseDirection(%q) = %s does not round-trip", s, d)
			}
		}
		if f, err := ParseFusion(s); err == nil {
			if back, err := ParseFusion(f.String()); err != nil || back != f {
				t.Fatalf("ParseFusion(%q) = %s does not round-trip", s, f)
			}
		}
	})
}
