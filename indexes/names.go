package indexes

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// NameSets keeps each document's E11 entity names as sorted ids into one
// dictionary, for exact-name Jaccard scoring. It is not safe for concurrent
// use: the caller locks.
type NameSets struct {
	sets   map[record.DocNum][]uint32
	nameID map[string]uint32
	names  []string // names[id]; id 0 is unused
}

// NewNameSets returns an empty set index.
func NewNameSets() *NameSets {
	return &NameSets{sets: map[record.DocNum][]uint32{}, nameID: map[string]uint32{}, names: []string{""}}
}

// Set gives doc the names (replacing any it had).
func (n *NameSets) Set(doc record.DocNum, names []string) {
	ids := make([]uint32, len(names))
	for i, name := range names {
		id, ok := n.nameID[name]
		if !ok {
			id = uint32(len(n.names))
			n.names = append(n.names, name)
			n.nameID[name] = id
		}
		ids[i] = id
	}
	slices.Sort(ids)
	n.sets[doc] = slices.Compact(ids)
}

// Remove drops doc's set (its names stay in the dictionary).
func (n *NameSets) Remove(doc record.DocNum) { delete(n.sets, doc) }

// Jaccard scores every document with a set (those in within when non-nil)
// by the Jaccard overlap of its names with names, zeros included. Names no
// document has count in the union. Cost O(docs scored × set size).
func (n *NameSets) Jaccard(names []string, within *roaring.Bitmap) []Hit {
	qids := n.queryIDs(names)
	var out []Hit
	score := func(doc record.DocNum) {
		if set, ok := n.sets[doc]; ok {
			out = append(out, Hit{Doc: doc, Score: float32(fingerprint.SortedJaccard(qids, set))})
		}
	}
	if within != nil {
		it := within.Iterator()
		for it.HasNext() {
			score(record.DocNum(it.Next()))
		}
	} else {
		for doc := range n.sets {
			score(doc)
		}
	}
	return out
}

// queryIDs maps names to ids; a name no document has gets a fresh id above
// every stored one, so that it counts in the union.
func (n *NameSets) queryIDs(names []string) []uint32 {
	out := make([]uint32, 0, len(names))
	next := uint32(len(n.names))
	for _, name := range names {
		if id, ok := n.nameID[name]; ok {
			out = append(out, id)
		} else {
			out = append(out, next)
			next++
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Bytes estimates the heap size.
func (n *NameSets) Bytes() int64 {
	var b int64
	for _, s := range n.sets {
		b += int64(4*len(s)) + 24 + 16 // ids, slice header, map entry
	}
	for _, name := range n.names {
		b += int64(len(name)) + 16 + 24 // bytes, string header, dictionary entry
	}
	return b
}
