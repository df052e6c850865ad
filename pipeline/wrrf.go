package pipeline

import (
	"cmp"
	"slices"

	"github.com/cgraph/cgraph/fingerprint"
)

// RRFK is the K of weighted reciprocal rank fusion (ARCH-21).
const RRFK = 60

// RankedList is one space's hits, best first, with the weight its slot has in
// the fusion.
type RankedList struct {
	Slot   fingerprint.SlotID
	Weight float64
	Hits   []Hit
}

// Part is one slot's share of a fused document's score.
type Part struct {
	Slot         fingerprint.SlotID
	Rank         int     // 0-indexed position in the slot's list
	Score        float64 // raw score in the slot's list
	Contribution float64 // Weight / (RRFK + Rank)
}

// Fused is one document after fusion. Parts are in input-list order.
type Fused struct {
	Doc   DocNum
	Score float64
	Parts []Part
}

// WRRF fuses ranked lists with weighted reciprocal rank fusion:
// score(d) = Σ_i w_i / (RRFK + rank_i(d)), rank 0-indexed, over the lists that
// contain d. Raw scores are carried for explain but never summed, so lists on
// different scales (cosine, BM25, Jaccard) fuse safely. A list with weight 0
// still records its ranks (contribution 0). The result is sorted by score
// descending, ties by DocNum ascending. A document listed twice in one list
// counts at its best rank only.
//
// Cost: O(H + D log D) for H hits in all lists and D distinct documents, one
// map and one backing array for all parts.
func WRRF(lists []RankedList) []Fused {
	total := 0
	for _, l := range lists {
		total += len(l.Hits)
	}
	idx := make(map[DocNum]int32, total)
	var out []Fused
	counts := make([]int32, 0, total)
	for _, l := range lists {
		for _, h := range l.Hits {
			i, ok := idx[h.Doc]
			if !ok {
				i = int32(len(out))
				idx[h.Doc] = i
				out = append(out, Fused{Doc: h.Doc})
				counts = append(counts, 0)
			}
			counts[i]++
		}
	}
	backing := make([]Part, total)
	off := 0
	for i := range out {
		out[i].Parts = backing[off : off : off+int(counts[i])]
		off += int(counts[i])
	}
	for _, l := range lists {
		for rank, h := range l.Hits {
			f := &out[idx[h.Doc]]
			if n := len(f.Parts); n > 0 && f.Parts[n-1].Slot == l.Slot {
				continue // duplicate in the same list: keep the better rank
			}
			c := l.Weight / float64(RRFK+rank)
			f.Parts = append(f.Parts, Part{Slot: l.Slot, Rank: rank, Score: h.Score, Contribution: c})
			f.Score += c
		}
	}
	sortFused(out)
	return out
}

func sortFused(fs []Fused) {
	slices.SortFunc(fs, func(a, b Fused) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
}

// sortHits orders hits by score descending, ties by DocNum ascending, so that
// a list's ranks do not depend on how an index orders ties.
func sortHits(hs []Hit) {
	slices.SortFunc(hs, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
}
