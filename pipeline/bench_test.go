package pipeline

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
)

// benchSpaces gives every probe a random full ranking of n documents, so that
// the pipeline's own work (bitmaps, fusion, explain) can be measured. The
// fake's filtering (a bitmap test per listed doc) is included in the figures.
func benchSpaces(n int) *fakeSpaces {
	rng := rand.New(rand.NewPCG(5, 6))
	f := newFake()
	probes := []Probe{{fp.E13, 0}, {fp.E6, 0}, {fp.E1, ViewMatryoshka128}, {fp.E11, ViewEntitySet}}
	for _, s := range fp.Slots() {
		probes = append(probes, Probe{Slot: s})
	}
	for _, s := range []fp.SlotID{fp.E5, fp.E8, fp.E10} {
		probes = append(probes, Probe{s, ViewForward}, Probe{s, ViewBackward})
	}
	for _, p := range probes {
		hs := make([]Hit, n)
		for i, d := range rng.Perm(n) {
			hs[i] = Hit{Doc: DocNum(d), Score: 0.3 + 0.7*rng.Float64()}
		}
		sortHits(hs)
		f.lists[p] = hs
	}
	return f
}

// BenchmarkRun runs each mode with pipeline_full (semantic_search for
// multi_space) over 10,000 documents with default stage sizes.
func BenchmarkRun(b *testing.B) {
	f := benchSpaces(10_000)
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
				f.calls = f.calls[:0]
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
	_, err := Run(c, newFake(), Request{Profile: p, Mode: ModeMultiSpace})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// FuzzParseModeDirection: the flag parsers never panic and accept only what
// round-trips through String.
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
	})
}
