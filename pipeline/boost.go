package pipeline

import (
	"math"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Direction boosts (AP-77): a forward match (cause → effect, source → target)
// is multiplied by ForwardBoost, a backward match (effect → cause, target →
// source) by BackwardBoost.
const (
	ForwardBoost  = 1.2
	BackwardBoost = 0.8
)

// DirectionFactor returns the AP-77 factor for a view of an asymmetric slot
// (E5, E8), and 1 otherwise.
func DirectionFactor(p Probe) float64 {
	if p.Slot != fingerprint.E5 && p.Slot != fingerprint.E8 {
		return 1
	}
	switch p.View {
	case ViewForward:
		return ForwardBoost
	case ViewBackward:
		return BackwardBoost
	}
	return 1
}

// MergeDirections boosts each view's hits by its DirectionFactor and keeps, per
// document, the best boosted score. Both inputs are on the same cosine scale,
// so comparing them is sound. The result is sorted and holds at most k hits;
// a single list must already be sorted (Run sorts every index answer).
func MergeDirections(k int, lists map[View][]Hit, slot fingerprint.SlotID) []Hit {
	if len(lists) == 1 { // one view: scale, order unchanged
		for v, hs := range lists {
			f := DirectionFactor(Probe{Slot: slot, View: v})
			out := make([]Hit, min(k, len(hs)))
			for i := range out {
				out[i] = Hit{Doc: hs[i].Doc, Score: hs[i].Score * f}
			}
			return out
		}
	}
	best := map[record.DocNum]float64{}
	for v, hs := range lists {
		f := DirectionFactor(Probe{Slot: slot, View: v})
		for _, h := range hs {
			s := h.Score * f
			if old, ok := best[h.Doc]; !ok || s > old {
				best[h.Doc] = s
			}
		}
	}
	out := make([]Hit, 0, len(best))
	for d, s := range best {
		out = append(out, Hit{Doc: d, Score: s})
	}
	sortHits(out)
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// E10 boost bands and clamp (ARCH-17, AP-80/84).
const (
	E10BoostHigh = 0.05 // E1 > 0.8
	E10BoostMid  = 0.10 // 0.4 ≤ E1 ≤ 0.8
	E10BoostLow  = 0.15 // E1 < 0.4
	E10MinFactor = 0.8
	E10MaxFactor = 1.2
)

// E10Multiplier returns the factor E10 applies to an E1 score:
// clamp(1 + strength·band(e1)·e10, 0.8, 1.2), where band is 5/10/15 % for
// E1 > 0.8 / 0.4–0.8 / < 0.4 and e10 is the E10 intent→context cosine (clamped
// to [-1, 1]): agreement raises E1, disagreement lowers it, and a weak E1 gains
// most. E1 ≤ 0 returns 1: E10 adds nothing to a document E1 does not support.
// strength is the profile's E10Boost.
func E10Multiplier(e1, e10, strength float64) float64 {
	if e1 <= 0 || strength <= 0 || math.IsNaN(e10) {
		return 1
	}
	band := E10BoostLow
	switch {
	case e1 > 0.8:
		band = E10BoostHigh
	case e1 >= 0.4:
		band = E10BoostMid
	}
	e10 = math.Max(-1, math.Min(1, e10))
	return math.Max(E10MinFactor, math.Min(E10MaxFactor, 1+strength*band*e10))
}

// DefaultExactNameBoost is the E11 exact-name boost: a fused score is
// multiplied by 1 + DefaultExactNameBoost·Jaccard(query entities, document
// entities).
const DefaultExactNameBoost = 0.10

// ExactNameMultiplier returns 1 + beta·j with j clamped to [0, 1].
func ExactNameMultiplier(j, beta float64) float64 {
	if math.IsNaN(j) || j <= 0 {
		return 1
	}
	return 1 + beta*math.Min(1, j)
}
