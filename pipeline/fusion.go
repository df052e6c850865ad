package pipeline

import (
	"fmt"
	"strings"
)

// Fusion is how S3 (and the S4 rerank and weighted temporal badges after it)
// turns one space's ranked list into each document's contribution to the
// fused score.
type Fusion uint8

// Fusion functions. The zero value asks for DefaultFusion.
const (
	// FusionDefault is DefaultFusion.
	FusionDefault Fusion = iota
	// FusionRRF is weighted reciprocal rank fusion: w / (RRFK + rank). It
	// reads only ranks, so lists on any scale fuse, and a list's confidence
	// (a clear winner against a flat list) is lost.
	FusionRRF
	// FusionMinMax is a convex combination of min-max normalised scores:
	// w · (s − floor) / (top − floor), clamped to [0, 1], where top is the
	// list's best score and floor its score at rank NormDepth (or its last
	// when shorter). Scores on different scales (cosine, BM25, Jaccard) land
	// on one scale per list, and a document far ahead in one space counts
	// more than one barely ahead. A list whose window is flat (top = floor)
	// gives every hit w, as RRF gives tied hits equal shares.
	FusionMinMax
)

// NormDepth is the window of FusionMinMax: a list's score at this rank maps
// to 0. It equals DefaultFusionK, so multi_space (each list its top FusionK)
// and pipeline (each list the whole filtered set) normalise alike.
const NormDepth = DefaultFusionK

// DefaultFusion is the fusion of a Request that names none.
const DefaultFusion = FusionRRF

var fusionNames = [...]string{"default", "rrf", "minmax"}

// String returns the fusion's name.
func (f Fusion) String() string {
	if int(f) < len(fusionNames) {
		return fusionNames[f]
	}
	return fmt.Sprintf("fusion(%d)", uint8(f))
}

// MarshalText makes fusions readable in JSON.
func (f Fusion) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads a fusion's name (ParseFusion).
func (f *Fusion) UnmarshalText(b []byte) error {
	v, err := ParseFusion(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// ParseFusion reads "rrf" or "minmax" ("" and "default" are FusionDefault),
// as ParseMode reads modes: case and surrounding space do not matter.
func ParseFusion(s string) (Fusion, error) {
	n := strings.TrimSpace(strings.ToLower(s))
	if n == "" {
		return FusionDefault, nil
	}
	for i, name := range fusionNames {
		if n == name {
			return Fusion(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fusion %q: valid fusions are %s", s, strings.Join(fusionNames[1:], ", "))
}

// Valid reports whether f is one of the fusions above (FusionDefault
// included).
func (f Fusion) Valid() bool { return int(f) < len(fusionNames) }

// Resolve returns the fusion a request with f runs: f, or DefaultFusion.
func (f Fusion) Resolve() Fusion {
	if f == FusionDefault {
		return DefaultFusion
	}
	return f
}

// Contributions returns, for each hit of a list (best first) with weight w,
// its contribution to the fused score under f: equal scores get equal
// contributions (tiedRank), so the order an index lists ties in is never a
// signal.
func Contributions(f Fusion, hits []Hit, w float64) []float64 {
	out := make([]float64, len(hits))
	c := newContributor(f, hits, w)
	rank := 0
	for pos, h := range hits {
		rank = tiedRank(hits, pos, rank)
		out[pos] = c.of(h.Score, rank)
	}
	return out
}

// contributor is one list's contribution function under a fusion: what
// Contributions and Fuse both compute, hit by hit, without a slice per list.
type contributor struct {
	minmax        bool
	w, top, floor float64
}

// newContributor reads what f needs of hits (best first): for min-max the
// top score and the floor at rank NormDepth.
func newContributor(f Fusion, hits []Hit, w float64) contributor {
	c := contributor{minmax: f.Resolve() == FusionMinMax, w: w}
	if c.minmax && len(hits) > 0 {
		c.top, c.floor = hits[0].Score, hits[min(NormDepth, len(hits))-1].Score
	}
	return c
}

// of is the contribution of a hit with this score at this (tied) rank.
func (c contributor) of(score float64, rank int) float64 {
	if c.minmax {
		return c.w * normalised(score, c.top, c.floor)
	}
	return c.w / float64(RRFK+rank)
}

// normalised maps s to [0, 1]: floor and below to 0, top to 1; in a flat
// window (top ≤ floor) the window's scores to 1 and lower ones to 0.
func normalised(s, top, floor float64) float64 {
	if top <= floor {
		if s >= floor {
			return 1
		}
		return 0
	}
	return min(1, max(0, (s-floor)/(top-floor)))
}

// note names the fusion in the S3 trace line.
func (f Fusion) note(lists int) string {
	if f.Resolve() == FusionMinMax {
		return fmt.Sprintf("min-max fusion (window %d) over %d lists", NormDepth, lists)
	}
	return fmt.Sprintf("WRRF K=%d over %d lists", RRFK, lists)
}
