package pipeline

import (
	"slices"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
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
	Contribution float64 // what the fusion gave it: Weight / (RRFK + Rank) under WRRF
}

// Fused is one document after fusion. Parts are in input-list order.
type Fused struct {
	Doc   record.DocNum
	Score float64
	Parts []Part
}

// WRRF fuses ranked lists with weighted reciprocal rank fusion:
// score(d) = Σ_i w_i / (RRFK + rank_i(d)), rank 0-indexed, over the lists that
// contain d. Raw scores are carried for explain but never summed, so lists on
// different scales (cosine, BM25, Jaccard) fuse safely. A list with weight 0
// still records its ranks (contribution 0). Hits with equal scores share a
// rank (the rank of the first of them; see tiedRank). The result is sorted by score
// descending, ties by record.DocNum ascending. A document listed twice in one list
// counts at its best rank only.
//
// Cost: O(H + D log D) for H hits in all lists and D distinct documents, one
// map and one backing array for all parts.
func WRRF(lists []RankedList) []Fused { return Fuse(lists, FusionRRF) }

// Fuse fuses ranked lists as WRRF does, each hit contributing what fusion f
// gives it (Contributions): score(d) = Σ_i contribution_i(d) over the lists
// that contain d. Parts carry each list's rank, raw score and contribution.
func Fuse(lists []RankedList, f Fusion) []Fused {
	total := 0
	for _, l := range lists {
		total += len(l.Hits)
	}
	// Pass 1: one lookup per hit; remember each hit's document index so pass 2
	// needs none. Lookups use a dense table when document numbers are dense
	// (the usual case: DocNums count up from 0) and a map otherwise. Sorting
	// works on 16-byte pointer-free keys.
	type key struct {
		score float64
		doc   record.DocNum
		i     int32
	}
	idx := newDocIndex(lists, total)
	keys := make([]key, 0, total)
	last := make([]int32, 0, total) // last list index that counted the doc
	count := make([]int32, 0, total)
	hitDoc := make([]int32, total) // -1: duplicate within its list
	h := 0
	for li, l := range lists {
		c, rank := newContributor(f, l.Hits, l.Weight), 0
		for pos, hit := range l.Hits {
			rank = tiedRank(l.Hits, pos, rank)
			i, ok := idx.get(hit.Doc)
			if !ok {
				i = int32(len(keys))
				idx.put(hit.Doc, i)
				keys = append(keys, key{doc: hit.Doc, i: i})
				last = append(last, -1)
				count = append(count, 0)
			}
			if last[i] == int32(li) {
				hitDoc[h] = -1 // duplicate in the same list: keep the better rank
				h++
				continue
			}
			last[i] = int32(li)
			count[i]++
			keys[i].score += c.of(hit.Score, rank)
			hitDoc[h] = i
			h++
		}
	}
	off := make([]int32, len(keys)+1)
	for i, c := range count {
		off[i+1] = off[i] + c
	}
	backing := make([]Part, off[len(keys)])
	fill := make([]int32, len(keys))
	copy(fill, off[:len(keys)])
	h = 0
	for _, l := range lists {
		c, rank := newContributor(f, l.Hits, l.Weight), 0
		for pos, hit := range l.Hits {
			rank = tiedRank(l.Hits, pos, rank)
			i := hitDoc[h]
			h++
			if i < 0 {
				continue
			}
			backing[fill[i]] = Part{Slot: l.Slot, Rank: rank, Score: hit.Score, Contribution: c.of(hit.Score, rank)}
			fill[i]++
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return byScoreThenDoc(a.score, b.score, a.doc, b.doc) })
	out := make([]Fused, len(keys))
	for j, k := range keys {
		out[j] = Fused{Doc: k.doc, Score: k.score, Parts: backing[off[k.i]:off[k.i+1]:off[k.i+1]]}
	}
	return out
}

// tiedRank is the 0-indexed rank of hs[pos] under standard competition
// ranking: a hit whose score equals the one before it shares that hit's rank,
// so equal scores contribute equally and the order in which an index lists
// ties (by doc number) never becomes a ranking signal. A temporal slot that
// scores every document alike (all memories created at once) then adds the
// same contribution to each and reorders nothing. prev is the rank of
// hs[pos-1]; walking a list in order makes it O(1) per hit.
func tiedRank(hs []Hit, pos, prev int) int {
	if pos > 0 && hs[pos-1].Score == hs[pos].Score {
		return prev
	}
	return pos
}

func sortFused(fs []Fused) {
	slices.SortFunc(fs, func(a, b Fused) int { return byScoreThenDoc(a.Score, b.Score, a.Doc, b.Doc) })
}

// sortHits orders hits by score descending, ties by record.DocNum ascending, so that
// a list's ranks do not depend on how an index orders ties.
func sortHits(hs []Hit) {
	slices.SortFunc(hs, func(a, b Hit) int { return byScoreThenDoc(a.Score, b.Score, a.Doc, b.Doc) })
}

// byScoreThenDoc orders by score descending, then record.DocNum ascending. Scores are
// never NaN here (Run rejects NaN from indexes; WRRF sums finite weights).
func byScoreThenDoc(sa, sb float64, da, db record.DocNum) int {
	switch {
	case sa > sb:
		return -1
	case sa < sb:
		return 1
	case da < db:
		return -1
	case da > db:
		return 1
	}
	return 0
}

// docIndex maps record.DocNum → position: a slice when the largest record.DocNum is within a
// small multiple of the number of hits, a map otherwise.
type docIndex struct {
	dense  []int32 // position+1; 0 = absent
	sparse map[record.DocNum]int32
}

func newDocIndex(lists []RankedList, total int) docIndex {
	var hi record.DocNum
	for _, l := range lists {
		for _, h := range l.Hits {
			hi = max(hi, h.Doc)
		}
	}
	if int(hi) <= 16*total+1<<16 {
		return docIndex{dense: make([]int32, int(hi)+1)}
	}
	return docIndex{sparse: make(map[record.DocNum]int32, total)}
}

func (x docIndex) get(d record.DocNum) (int32, bool) {
	if x.dense != nil {
		v := x.dense[d]
		return v - 1, v != 0
	}
	v, ok := x.sparse[d]
	return v, ok
}

func (x docIndex) put(d record.DocNum, i int32) {
	if x.dense != nil {
		x.dense[d] = i + 1
		return
	}
	x.sparse[d] = i
}
