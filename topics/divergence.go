package topics

import (
	"sort"

	"github.com/cgraph/cgraph/fingerprint"
)

// Divergence thresholds (ARCH-10): a similarity below HighBelow is a high
// severity alert, below MediumBelow a medium one.
const (
	HighBelow   = 0.10
	MediumBelow = 0.20
)

// Severities of a divergence check.
const (
	SeverityHigh   = "high"
	SeverityMedium = "medium"
	SeverityNone   = ""
)

// SemanticSlots returns the slots divergence is measured in: the semantic
// category only (ARCH-10): E1, E5, E6, E7, E10, E12, E13.
func SemanticSlots() []fingerprint.SlotID {
	var out []fingerprint.SlotID
	for _, s := range fingerprint.Slots() {
		if s.Category() == fingerprint.Semantic {
			out = append(out, s)
		}
	}
	return out
}

// Check is one memory measured against the reference in one semantic slot.
type Check struct {
	Memory int // index into the input
	Slot   fingerprint.SlotID
	// Similarity is the best similarity of Memory to any reference memory
	// in Slot's view (the space used for clustering: cosine of the dense
	// view, TF-IDF cosine for E6, sparse cosine for E13).
	Similarity float64
	// Nearest is the reference memory that gave Similarity.
	Nearest  int
	Severity string // SeverityHigh, SeverityMedium or SeverityNone
}

// DivergenceReport lists every check made and which slots could not be
// measured.
type DivergenceReport struct {
	Checks []Check
	// Unmeasured are semantic slots where a memory or the whole reference
	// has no value (slot unavailable): no check, rather than a false alarm.
	Unmeasured []fingerprint.SlotID
}

// Alerts returns the checks with a severity, high first, then by similarity.
func (r DivergenceReport) Alerts() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Severity != SeverityNone {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].Severity == SeverityHigh) != (out[j].Severity == SeverityHigh) {
			return out[i].Severity == SeverityHigh
		}
		return out[i].Similarity < out[j].Similarity
	})
	return out
}

// Severity grades a similarity: high below HighBelow, medium below
// MediumBelow, none otherwise.
func Severity(sim float64) string {
	switch {
	case sim < HighBelow:
		return SeverityHigh
	case sim < MediumBelow:
		return SeverityMedium
	}
	return SeverityNone
}

// Divergence measures how far each target memory departs from the reference
// memories (ARCH-10): in each of the 7 semantic slots, the target's best
// similarity to any reference memory other than itself; a similarity below
// 0.20 is a medium alert, below 0.10 a high one. A memory that says what no
// reference memory says in a slot's terms diverges there. The relational,
// structural and temporal slots are never consulted. Cost O(targets ·
// reference) similarities per slot.
func Divergence(fps []*fingerprint.Fingerprint, targets, reference []int) DivergenceReport {
	var r DivergenceReport
	for _, s := range SemanticSlots() {
		sp := newSpace(s, fps)
		measured := false
		for _, t := range targets {
			if !sp.has[t] {
				continue
			}
			c := Check{Memory: t, Slot: s, Nearest: -1}
			for _, ref := range reference {
				if ref == t || !sp.has[ref] {
					continue
				}
				if sim := sp.sim(t, ref); c.Nearest < 0 || sim > c.Similarity {
					c.Similarity, c.Nearest = sim, ref
				}
			}
			if c.Nearest < 0 {
				continue
			}
			measured = true
			c.Severity = Severity(c.Similarity)
			r.Checks = append(r.Checks, c)
		}
		if !measured {
			r.Unmeasured = append(r.Unmeasured, s)
		}
	}
	return r
}
