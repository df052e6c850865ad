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

// Use says where in a search a slot acts (the design's invariants AP-73/74/75,
// ARCH-25): the one place this is written down.
type Use uint8

// Slot uses.
const (
	// UseSearch slots retrieve and are fused by weight: they can lead a
	// search (embedder_first) and take part in S3 fusion.
	UseSearch Use = iota + 1
	// UseBadge slots (temporal) act after retrieval only: badges and
	// temporal profiles' rescoring, never recall.
	UseBadge
	// UseRecall slots (E13) feed S1 recall only; they can lead an
	// embedder_first search but are not fused in S3.
	UseRecall
	// UseRerank slots (E12) rerank candidates in S4 only.
	UseRerank
)

// Info describes one slot: what it is for, how it is represented, where in
// a search it acts, and the similarity thresholds of the reference
// architecture. It is the slot-facts table: other packages ask it instead
// of listing slots themselves.
type Info struct {
	ID       SlotID
	Name     string // short machine name, e.g. "semantic"
	Role     string // one line for humans
	Category Category
	Use      Use
	// Sides name the two vectors of an asymmetric slot (E5, E8, E10), which
	// keeps a Pair per memory and gives the query the opposite view; both
	// empty for a symmetric slot.
	Sides [2]string
	// Thresholded slots score on a bounded scale, so High and Low apply:
	// a score at or above High is a strong match, below Low is no match.
	// BM25 (E6) and SPLADE (E13) scores are unbounded and are not thresholded.
	Thresholded bool
	High, Low   float64
}

// Asymmetric reports whether the slot keeps a Pair (two sides) per memory.
func (in Info) Asymmetric() bool { return in.Sides[0] != "" }

var infos = [NumSlots + 1]Info{
	E1:  {E1, "semantic", "semantic foundation; first 128 dims are E1-Matryoshka-128", Semantic, UseSearch, [2]string{}, true, 0.75, 0.30},
	E2:  {E2, "recency", "exp(-age·ln2/half_life); post-retrieval badge", Temporal, UseBadge, [2]string{}, false, 0.70, 0.30},
	E3:  {E3, "periodicity", "Fourier features of hour-of-day and day-of-week; badge", Temporal, UseBadge, [2]string{}, false, 0.70, 0.30},
	E4:  {E4, "sequence", "sinusoidal position within a session; badge", Temporal, UseBadge, [2]string{}, false, 0.70, 0.30},
	E5:  {E5, "causal", "as-cause and as-effect vectors; asymmetric", Semantic, UseSearch, [2]string{"cause", "effect"}, true, 0.70, 0.25},
	E6:  {E6, "keywords", "BM25 over code-aware tokens", Semantic, UseSearch, [2]string{}, false, 0.60, 0.20},
	E7:  {E7, "code", "dense vector from a code-trained encoder", Semantic, UseSearch, [2]string{}, true, 0.80, 0.28}, // Low: keeps ≥ 97% of dev relevant pairs and ~80% of off-topic queries' best hit below it with the fine-tuned query encoder (docs/BENCHMARKS.md "E7's Low threshold")
	E8:  {E8, "graph", "as-source and as-target vectors of imports, calls, paths", Relational, UseSearch, [2]string{"source", "target"}, true, 0.70, 0.30},
	E9:  {E9, "typo", "character n-gram hypervector with a dense projection", Structural, UseSearch, [2]string{}, true, 0.70, 0.30},
	E10: {E10, "intent", "as-intent and as-context vectors; multiplicative boost on E1", Semantic, UseSearch, [2]string{"intent", "context"}, true, 0.70, 0.30},
	E11: {E11, "entities", "entity set and entity vector", Relational, UseSearch, [2]string{}, true, 0.70, 0.30},
	E12: {E12, "late_interaction", "128-d token vectors; MaxSim rerank only", Semantic, UseRerank, [2]string{}, true, 0.70, 0.30},
	E13: {E13, "splade", "learned sparse SPLADE terms; recall only", Semantic, UseRecall, [2]string{}, false, 0.60, 0.20},
}

// CanLead reports whether s can be the primary slot of a search (retrieve
// on its own): every slot but the temporal badges and the E12 reranker.
func (s SlotID) CanLead() bool {
	u := s.Info().Use
	return u == UseSearch || u == UseRecall
}

// Fused reports whether s takes part in weighted fusion (S3): the slots
// that are neither temporal nor stage-only.
func (s SlotID) Fused() bool { return s.Info().Use == UseSearch }

// Temporal reports whether s is one of the temporal badge slots E2–E4.
func (s SlotID) Temporal() bool { return s.Info().Use == UseBadge }

// StageOnly reports whether s acts in one pipeline stage only (E12 rerank,
// E13 recall).
func (s SlotID) StageOnly() bool {
	u := s.Info().Use
	return u == UseRecall || u == UseRerank
}

// SideName names side of s's pair ("cause" for E5 SideA), or "" for a
// symmetric slot or an invalid side.
func (s SlotID) SideName(side Side) string {
	if side != SideA && side != SideB {
		return ""
	}
	return s.Info().Sides[side-1]
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
