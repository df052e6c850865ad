package fingerprint

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// Kind names the representation a slot value has. The numbers are part of the
// binary format (FORMAT.md) and never change; new kinds are appended.
type Kind uint8

// The representations of slot values. See the Value types of the same name.
const (
	KindDense     Kind = 1  // one dense float32 vector
	KindPair      Kind = 2  // two dense vectors of one asymmetric slot
	KindTermFreqs Kind = 3  // term → count, for BM25
	KindSparse    Kind = 4  // vocabulary index → weight (SPLADE)
	KindTokens    Kind = 5  // one vector per token (late interaction)
	KindHyper     Kind = 6  // 10,000-bit hypervector and its dense projection
	KindTimestamp Kind = 7  // creation time, for recency computed at query time
	KindPeriodic  Kind = 8  // Fourier features of hour-of-day and day-of-week
	KindSequence  Kind = 9  // position in a session and its sinusoidal code
	KindEntities  Kind = 10 // entity set and an optional entity vector
	numKinds           = 11
)

var kindNames = [numKinds]string{
	KindDense: "dense", KindPair: "pair", KindTermFreqs: "term_freqs", KindSparse: "sparse",
	KindTokens: "tokens", KindHyper: "hypervector", KindTimestamp: "timestamp",
	KindPeriodic: "periodic", KindSequence: "sequence", KindEntities: "entities",
}

// String returns the kind's lower-case name.
func (k Kind) String() string {
	if k > 0 && int(k) < numKinds {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// slotKinds is the one representation each slot stores.
var slotKinds = [NumSlots + 1]Kind{
	E1: KindDense, E2: KindTimestamp, E3: KindPeriodic, E4: KindSequence, E5: KindPair,
	E6: KindTermFreqs, E7: KindDense, E8: KindPair, E9: KindHyper, E10: KindPair,
	E11: KindEntities, E12: KindTokens, E13: KindSparse,
}

// Kind returns the representation the slot stores. It panics on an invalid slot.
func (s SlotID) Kind() Kind {
	if !s.Valid() {
		panic(fmt.Sprintf("fingerprint: invalid slot %d", uint8(s)))
	}
	return slotKinds[s]
}

// Value is one slot's representation of one memory. The set of implementations
// is closed (the types in this file); each knows its own payload encoding.
// Values are plain data: not safe for concurrent mutation, safe to read
// concurrently once built.
type Value interface {
	Kind() Kind
	// validate checks the invariants the codec relies on (sorted keys, equal
	// dimensions) so that what encodes also decodes to the same bytes.
	validate() error
	appendPayload(e *encbuf)
	// size is the exact payload length in bytes.
	size() int
	// summarize fills the kind-specific fields of a SlotSummary.
	summarize(s *SlotSummary)
}

// Dense is a dense float32 vector (E1, E7).
type Dense []float32

// Side picks one vector of an asymmetric pair. Which role a side plays depends
// on the slot: see PairRoles.
type Side uint8

// The two sides of a Pair.
const (
	SideA Side = 1 // E5 as-cause, E8 as-source, E10 as-intent
	SideB Side = 2 // E5 as-effect, E8 as-target, E10 as-context
)

// Opposite returns the other side.
func (s Side) Opposite() Side { return 3 - s }

// Pair holds the two views of an asymmetric slot (E5, E8, E10). Both vectors
// have the same dimension. A query in direction "find causes" is embedded in
// its effect view and compared against the stored SideA (cause) vectors.
type Pair struct {
	A, B Dense
}

// Get returns the vector of one side.
func (p Pair) Get(s Side) Dense {
	if s == SideA {
		return p.A
	}
	return p.B
}

// PairRoles names the two sides of an asymmetric slot's pair (from Info);
// ok is false for a symmetric slot.
func PairRoles(s SlotID) (a, b string, ok bool) {
	in := s.Info()
	return in.Sides[0], in.Sides[1], in.Asymmetric()
}

// TermFreqs is a bag of terms with their counts (E6). Terms are strictly
// ascending (byte order) and every count is at least 1.
type TermFreqs struct {
	Terms  []string
	Counts []uint32
}

// DocLen is the document length BM25 normalises by: the number of tokens, the
// sum of the counts. It costs O(len(Terms)).
func (t TermFreqs) DocLen() uint64 {
	var n uint64
	for _, c := range t.Counts {
		n += uint64(c)
	}
	return n
}

// Count returns the count of term, 0 if absent. It is O(log n).
func (t TermFreqs) Count(term string) uint32 {
	lo, hi := 0, len(t.Terms)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.Terms[m] < term {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.Terms) && t.Terms[lo] == term {
		return t.Counts[lo]
	}
	return 0
}

// Sparse is a learned sparse vector over a model's vocabulary (E13): strictly
// ascending indices with their weights.
type Sparse struct {
	Indices []uint32
	Weights []float32
}

// Tokens is a token matrix (E12): Rows()×Dim float32 values, row-major.
type Tokens struct {
	Dim  uint32
	Data []float32
}

// Rows returns the number of token vectors.
func (t Tokens) Rows() int {
	if t.Dim == 0 {
		return 0
	}
	return len(t.Data) / int(t.Dim)
}

// Row returns token vector i; the slice aliases Data and must not be modified.
func (t Tokens) Row(i int) []float32 { return t.Data[i*int(t.Dim) : (i+1)*int(t.Dim)] }

// HyperBits is the width of an E9 hypervector.
const HyperBits = 10000

// HyperWords is the number of uint64 words that hold HyperBits bits.
const HyperWords = (HyperBits + 63) / 64

// Hyper is an E9 hypervector: HyperBits bits in HyperWords little-endian words
// (bit i is word i/64, bit i%64; bits at and above HyperBits are zero), and a
// dense projection of it for ANN indexes.
type Hyper struct {
	Bits       []uint64
	Projection Dense
}

// Timestamp is the E2 value: the memory's creation time in Unix milliseconds.
// Recency is computed from it at query time, never stored, because it changes
// with the clock.
type Timestamp struct {
	UnixMilli int64
}

// Periodic is the E3 value: the creation time and its Fourier features
// (hour-of-day and day-of-week harmonics).
type Periodic struct {
	UnixMilli int64
	Features  Dense
}

// Sequence is the E4 value: the memory's 0-based position in its session and
// the sinusoidal encoding of that position.
type Sequence struct {
	Position uint64
	Features Dense
}

// Entities is the E11 value: the set of canonical entity names, strictly
// ascending, and an entity vector (empty until a model produces one).
type Entities struct {
	Names  []string
	Vector Dense
}

func (Dense) Kind() Kind     { return KindDense }
func (Pair) Kind() Kind      { return KindPair }
func (TermFreqs) Kind() Kind { return KindTermFreqs }
func (Sparse) Kind() Kind    { return KindSparse }
func (Tokens) Kind() Kind    { return KindTokens }
func (Hyper) Kind() Kind     { return KindHyper }
func (Timestamp) Kind() Kind { return KindTimestamp }
func (Periodic) Kind() Kind  { return KindPeriodic }
func (Sequence) Kind() Kind  { return KindSequence }
func (Entities) Kind() Kind  { return KindEntities }

func (Dense) validate() error     { return nil }
func (Timestamp) validate() error { return nil }
func (Periodic) validate() error  { return nil }
func (Sequence) validate() error  { return nil }

func (p Pair) validate() error {
	if len(p.A) != len(p.B) {
		return fmt.Errorf("pair sides have %d and %d dims; both views must have the same dimension", len(p.A), len(p.B))
	}
	return nil
}

func (t TermFreqs) validate() error {
	if len(t.Terms) != len(t.Counts) {
		return fmt.Errorf("%d terms but %d counts", len(t.Terms), len(t.Counts))
	}
	for i, c := range t.Counts {
		if c == 0 {
			return fmt.Errorf("term %q has count 0; leave absent terms out", t.Terms[i])
		}
		if i > 0 && t.Terms[i-1] >= t.Terms[i] {
			return fmt.Errorf("terms not strictly ascending at %d (%q then %q)", i, t.Terms[i-1], t.Terms[i])
		}
	}
	return nil
}

func (s Sparse) validate() error {
	if len(s.Indices) != len(s.Weights) {
		return fmt.Errorf("%d indices but %d weights", len(s.Indices), len(s.Weights))
	}
	for i := 1; i < len(s.Indices); i++ {
		if s.Indices[i-1] >= s.Indices[i] {
			return fmt.Errorf("indices not strictly ascending at %d (%d then %d)", i, s.Indices[i-1], s.Indices[i])
		}
	}
	return nil
}

func (t Tokens) validate() error {
	if t.Dim == 0 {
		return fmt.Errorf("token matrix has dimension 0")
	}
	if len(t.Data)%int(t.Dim) != 0 {
		return fmt.Errorf("token matrix has %d values, not a multiple of dimension %d", len(t.Data), t.Dim)
	}
	return nil
}

func (h Hyper) validate() error {
	if len(h.Bits) != HyperWords {
		return fmt.Errorf("hypervector has %d words, want %d (%d bits)", len(h.Bits), HyperWords, HyperBits)
	}
	if h.Bits[HyperWords-1]>>(HyperBits%64) != 0 {
		return fmt.Errorf("hypervector has bits set at or above bit %d", HyperBits)
	}
	return nil
}

func (e Entities) validate() error {
	for i := 1; i < len(e.Names); i++ {
		if e.Names[i-1] >= e.Names[i] {
			return fmt.Errorf("entity names not strictly ascending at %d (%q then %q)", i, e.Names[i-1], e.Names[i])
		}
	}
	return nil
}

// Matryoshka128 returns the E1-Matryoshka-128 view of v: its first 128
// dimensions re-normalised to unit length, in a new slice. It returns nil when
// v has fewer than 128 dimensions, and the zero vector unchanged (there is no
// direction to keep). Cost O(128).
func Matryoshka128(v []float32) []float32 {
	const d = 128
	if len(v) < d {
		return nil
	}
	out := make([]float32, d)
	copy(out, v[:d])
	var ss float64
	for _, x := range out {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i := range out {
		out[i] = float32(float64(out[i]) * inv)
	}
	return out
}

// HammingSimilarity is 1 − Hamming(a, b)/(64·len(a)) of two hypervectors of
// the same length: 1 for equal vectors, about 0.5 for unrelated ones (E9).
// Cost O(len(a)).
func HammingSimilarity(a, b []uint64) float64 {
	d := 0
	for i := range a {
		d += bits.OnesCount64(a[i] ^ b[i])
	}
	return 1 - float64(d)/float64(64*len(a))
}

// SortedJaccard returns |a ∩ b| / |a ∪ b| of two sorted, duplicate-free
// sets, in [0, 1]; 0 when both are empty (E11 names, or their interned ids).
// Cost O(len(a)+len(b)).
func SortedJaccard[T cmp.Ordered](a, b []T) float64 {
	i, j, inter := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
