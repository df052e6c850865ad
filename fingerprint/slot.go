package fingerprint

import (
	"fmt"
	"strconv"
	"strings"
)

// SlotID names one embedder slot, E1 through E13. The numeric values are part of
// the on-disk format (they key per-slot data) and never change.
type SlotID uint8

// The thirteen slots of a fingerprint. Their roles are described by Info.
const (
	E1  SlotID = 1  // semantic foundation (dense)
	E2  SlotID = 2  // recency (temporal)
	E3  SlotID = 3  // periodicity (temporal)
	E4  SlotID = 4  // sequence position in a session (temporal)
	E5  SlotID = 5  // causality: as-cause and as-effect vectors
	E6  SlotID = 6  // keywords: BM25 over code-aware tokens
	E7  SlotID = 7  // code encoder (dense)
	E8  SlotID = 8  // graph: as-source and as-target vectors
	E9  SlotID = 9  // typo robustness: character n-gram hypervector
	E10 SlotID = 10 // intent: as-intent and as-context vectors
	E11 SlotID = 11 // entities: entity set and entity vector
	E12 SlotID = 12 // late interaction: token vectors, MaxSim
	E13 SlotID = 13 // learned sparse: SPLADE
)

// NumSlots is the number of slots in a fingerprint.
const NumSlots = 13

// Category groups slots for topic detection and profile validation.
type Category uint8

// Slot categories. Their topic weights are given by Category.TopicWeight.
const (
	Semantic Category = iota + 1
	Temporal
	Relational
	Structural
)

// String returns the lower-case category name.
func (c Category) String() string {
	switch c {
	case Semantic:
		return "semantic"
	case Temporal:
		return "temporal"
	case Relational:
		return "relational"
	case Structural:
		return "structural"
	}
	return "category(" + strconv.Itoa(int(c)) + ")"
}

// TopicWeight is the weight a slot of this category carries in topic agreement
// (ARCH-09): semantic 1.0, relational and structural 0.5, temporal 0.
func (c Category) TopicWeight() float64 {
	switch c {
	case Semantic:
		return 1.0
	case Relational, Structural:
		return 0.5
	}
	return 0
}

// Info describes one slot: what it is for, how it is represented and the
// similarity thresholds of the reference architecture.
type Info struct {
	ID       SlotID
	Name     string // short machine name, e.g. "semantic"
	Role     string // one line for humans
	Category Category
	// Asymmetric slots keep two vectors per memory (E5, E8, E10) and give the
	// query the opposite view.
	Asymmetric bool
	// High and Low are the per-slot similarity thresholds: a score at or above
	// High is a strong match, below Low is no match.
	High, Low float64
}

var infos = [NumSlots + 1]Info{
	E1:  {E1, "semantic", "semantic foundation; first 128 dims are E1-Matryoshka-128", Semantic, false, 0.75, 0.30},
	E2:  {E2, "recency", "exp(-age·ln2/half_life); post-retrieval badge", Temporal, false, 0.70, 0.30},
	E3:  {E3, "periodicity", "Fourier features of hour-of-day and day-of-week; badge", Temporal, false, 0.70, 0.30},
	E4:  {E4, "sequence", "sinusoidal position within a session; badge", Temporal, false, 0.70, 0.30},
	E5:  {E5, "causal", "as-cause and as-effect vectors; asymmetric", Semantic, true, 0.70, 0.25},
	E6:  {E6, "keywords", "BM25 over code-aware tokens", Semantic, false, 0.60, 0.20},
	E7:  {E7, "code", "dense vector from a code-trained encoder", Semantic, false, 0.80, 0.35},
	E8:  {E8, "graph", "as-source and as-target vectors of imports, calls, paths", Relational, true, 0.70, 0.30},
	E9:  {E9, "typo", "character n-gram hypervector with a dense projection", Structural, false, 0.70, 0.30},
	E10: {E10, "intent", "as-intent and as-context vectors; multiplicative boost on E1", Semantic, true, 0.70, 0.30},
	E11: {E11, "entities", "entity set and entity vector", Relational, false, 0.70, 0.30},
	E12: {E12, "late_interaction", "128-d token vectors; MaxSim rerank only", Semantic, false, 0.70, 0.30},
	E13: {E13, "splade", "learned sparse SPLADE terms; recall only", Semantic, false, 0.60, 0.20},
}

// Slots returns all slot IDs in order E1…E13. The caller may modify the slice.
func Slots() []SlotID {
	out := make([]SlotID, NumSlots)
	for i := range out {
		out[i] = SlotID(i + 1)
	}
	return out
}

// Valid reports whether s is one of E1…E13.
func (s SlotID) Valid() bool { return s >= E1 && s <= E13 }

// Info returns the slot's description. It panics on an invalid slot: callers
// parse untrusted names with ParseSlot first.
func (s SlotID) Info() Info {
	if !s.Valid() {
		panic(fmt.Sprintf("fingerprint: invalid slot %d", uint8(s)))
	}
	return infos[s]
}

// String returns "E1" … "E13", or "E?(n)" for an invalid value.
func (s SlotID) String() string {
	if !s.Valid() {
		return "E?(" + strconv.Itoa(int(s)) + ")"
	}
	return "E" + strconv.Itoa(int(s))
}

// Category returns the slot's category.
func (s SlotID) Category() Category { return s.Info().Category }

// TopicWeight returns the slot's weight in topic agreement.
func (s SlotID) TopicWeight() float64 { return s.Info().Category.TopicWeight() }

// Index returns s-1, the slot's position in a [NumSlots] array.
func (s SlotID) Index() int { return int(s) - 1 }

// ParseSlot accepts "E7", "e7", "7" or a slot name such as "code". The error
// lists the valid names.
func ParseSlot(name string) (SlotID, error) {
	n := strings.TrimSpace(strings.ToLower(name))
	num := strings.TrimPrefix(n, "e")
	if v, err := strconv.Atoi(num); err == nil {
		if s := SlotID(v); v > 0 && s.Valid() {
			return s, nil
		}
	} else {
		for _, in := range infos[1:] {
			if in.Name == n {
				return in.ID, nil
			}
		}
	}
	return 0, fmt.Errorf("unknown slot %q: valid slots are %s", name, validSlotNames())
}

func validSlotNames() string {
	parts := make([]string, 0, NumSlots)
	for _, in := range infos[1:] {
		parts = append(parts, in.ID.String()+" ("+in.Name+")")
	}
	return strings.Join(parts, ", ")
}
