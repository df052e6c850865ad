package fingerprint

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// SlotSummary is a one-line view of one slot of a fingerprint, for
// `cgraph get ID --fingerprint` and explain output. Fields that do not apply
// to the slot's kind are zero.
type SlotSummary struct {
	Slot     SlotID
	Status   Status
	Note     string
	Producer Producer
	Kind     Kind
	// Dims is the dense dimension: of the vector, of each pair side, of each
	// token vector, of the E9 projection, of the E3/E4 features, of the E11
	// entity vector.
	Dims int
	// Norm is the L2 norm of the dense vector (pair: side A); NormB of pair side B.
	Norm, NormB float64
	// NNZ counts non-zero entries: sparse weights, distinct terms, entity
	// names, set bits of a hypervector.
	NNZ int
	// Tokens is the token count: rows of a token matrix, the BM25 document
	// length of term frequencies.
	Tokens int
}

// Summary summarises every slot that is not missing, in slot order. Cost
// O(size of f).
func (f *Fingerprint) Summary() []SlotSummary {
	var out []SlotSummary
	for _, s := range Slots() {
		en := f.Slots[s.Index()]
		if en.Status == StatusMissing {
			continue
		}
		sum := SlotSummary{Slot: s, Status: en.Status, Note: en.Note, Producer: en.Producer}
		if en.Value != nil {
			sum.Kind = en.Value.Kind()
			en.Value.summarize(&sum)
		}
		out = append(out, sum)
	}
	return out
}

// String renders the summary on one line, e.g.
// "E1 present dense dims=384 norm=1.000 (intfloat/e5-small-v2@sha256:…)".
func (s SlotSummary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", s.Slot, s.Status)
	if s.Kind != 0 {
		fmt.Fprintf(&b, " %s", s.Kind)
	}
	if s.Dims > 0 {
		fmt.Fprintf(&b, " dims=%d", s.Dims)
	}
	if s.Kind == KindDense || s.Kind == KindPair {
		fmt.Fprintf(&b, " norm=%.3f", s.Norm)
	}
	if s.Kind == KindPair {
		fmt.Fprintf(&b, " normB=%.3f", s.NormB)
	}
	if s.NNZ > 0 || s.Kind == KindSparse || s.Kind == KindTermFreqs || s.Kind == KindEntities {
		fmt.Fprintf(&b, " nnz=%d", s.NNZ)
	}
	if s.Tokens > 0 {
		fmt.Fprintf(&b, " tokens=%d", s.Tokens)
	}
	if s.Note != "" {
		fmt.Fprintf(&b, " — %s", s.Note)
	}
	if s.Producer.Model != "" {
		fmt.Fprintf(&b, " (%s)", s.Producer)
	}
	return b.String()
}

func norm(v []float32) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return math.Sqrt(ss)
}

func (v Dense) summarize(s *SlotSummary) { s.Dims, s.Norm = len(v), norm(v) }
func (v Pair) summarize(s *SlotSummary) {
	s.Dims, s.Norm, s.NormB = len(v.A), norm(v.A), norm(v.B)
}
func (v TermFreqs) summarize(s *SlotSummary) { s.NNZ, s.Tokens = len(v.Terms), int(v.DocLen()) }
func (v Sparse) summarize(s *SlotSummary) {
	for _, w := range v.Weights {
		if w != 0 {
			s.NNZ++
		}
	}
}
func (v Tokens) summarize(s *SlotSummary) { s.Dims, s.Tokens = int(v.Dim), v.Rows() }
func (v Hyper) summarize(s *SlotSummary) {
	s.Dims = len(v.Projection)
	for _, w := range v.Bits {
		s.NNZ += bits.OnesCount64(w)
	}
}
func (Timestamp) summarize(*SlotSummary)    {}
func (v Periodic) summarize(s *SlotSummary) { s.Dims = len(v.Features) }
func (v Sequence) summarize(s *SlotSummary) { s.Dims = len(v.Features) }
func (v Entities) summarize(s *SlotSummary) { s.NNZ, s.Dims = len(v.Names), len(v.Vector) }
