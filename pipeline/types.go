package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Hit is one document and its raw score in one space. The indexes answer
// indexes.Hit (a float32 score, the precision their vectors hold); the
// engine's toPipeline (engine/spaces.go) is the one conversion into this
// float64 form, the precision fusion sums in.
type Hit struct {
	Doc   record.DocNum
	Score float64
}

// View selects which representation of the query is compared with which
// representation of the documents in one slot.
type View uint8

// Views. For the asymmetric slots the first role is cause (E5), source (E8),
// intent (E10) and the second role is effect, target, context.
const (
	// ViewSymmetric compares the slot's one query vector with the documents'
	// one vector (for E9 and E11 the index picks its retrieving form).
	ViewSymmetric View = iota
	// ViewForward compares the query's first-role view with the documents'
	// second-role vectors: the query is a cause and seeks effects (E5), a
	// source seeking targets (E8), an intent seeking contexts (E10).
	ViewForward
	// ViewBackward compares the query's second-role view with the documents'
	// first-role vectors: the query is an effect and seeks causes (E5,
	// search_causes), a target seeking sources (E8).
	ViewBackward
	// ViewMatryoshka128 is E1's first 128 dimensions, scanned flat (S2).
	ViewMatryoshka128
	// ViewEntitySet is E11's Jaccard overlap of entity sets (exact names).
	ViewEntitySet
)

var viewNames = [...]string{"symmetric", "forward", "backward", "matryoshka128", "entity_set"}

// String returns the view's name.
func (v View) String() string {
	if int(v) < len(viewNames) {
		return viewNames[v]
	}
	return fmt.Sprintf("view(%d)", uint8(v))
}

// MarshalText makes views readable in JSON.
func (v View) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads a view's name.
func (v *View) UnmarshalText(b []byte) error {
	for i, name := range viewNames {
		if string(b) == name {
			*v = View(i)
			return nil
		}
	}
	return fmt.Errorf("unknown view %q: valid views are %s", b, strings.Join(viewNames[:], ", "))
}

func roles(s fingerprint.SlotID) (first, second string) {
	first, second, _ = fingerprint.PairRoles(s)
	return first, second
}

// QueryRole names the query view used by v in slot s ("effect" for E5
// backward), or "" for symmetric slots.
func (v View) QueryRole(s fingerprint.SlotID) string {
	first, second := roles(s)
	switch v {
	case ViewForward:
		return first
	case ViewBackward:
		return second
	}
	return ""
}

// DocRole names the document vectors v searches in slot s ("cause" for E5
// backward), or "" for symmetric slots.
func (v View) DocRole(s fingerprint.SlotID) string {
	first, second := roles(s)
	switch v {
	case ViewForward:
		return second
	case ViewBackward:
		return first
	}
	return ""
}

// Sides maps an asymmetric view to fingerprint sides: the side the query is
// embedded as and the stored side it is compared against. ViewForward is
// (SideA, SideB) — embedders.FindEffects / FindTargets / FindContexts;
// ViewBackward is (SideB, SideA) — FindCauses / FindSources / FindIntents.
// ok is false for the other views.
func (v View) Sides() (queryAs, against fingerprint.Side, ok bool) {
	switch v {
	case ViewForward:
		return fingerprint.SideA, fingerprint.SideB, true
	case ViewBackward:
		return fingerprint.SideB, fingerprint.SideA, true
	}
	return 0, 0, false
}

// Probe is one search in one space: a slot and the view to use.
type Probe struct {
	Slot fingerprint.SlotID
	View View
}

func (p Probe) String() string {
	if r := p.View.QueryRole(p.Slot); r != "" {
		return fmt.Sprintf("%s (query %s → document %s)", p.Slot, r, p.View.DocRole(p.Slot))
	}
	if p.View == ViewSymmetric {
		return p.Slot.String()
	}
	return p.Slot.String() + " " + p.View.String()
}

// ErrUnavailable marks a slot that cannot be searched here (no model
// installed, no index built). Spaces wrap it with the reason; the pipeline
// then applies the slot's documented fallback and reports it.
var ErrUnavailable = errors.New("slot unavailable")

// ErrNothingToSearch marks a slot that works but has nothing to search for
// this query (no keyword for E6, no entity for E11). Spaces wrap it with
// the reason; the pipeline reports the slot empty, with that reason.
var ErrNothingToSearch = errors.New("nothing to search")

// NothingToSearch wraps reason so that errors.Is(err, ErrNothingToSearch)
// holds while the text stays the reason alone.
func NothingToSearch(reason error) error { return nothingErr{reason} }

type nothingErr struct{ error }

func (n nothingErr) Is(target error) bool { return target == ErrNothingToSearch }
func (n nothingErr) Unwrap() error        { return n.error }

// Spaces is what the pipeline needs from the indexes: one search in one space
// for the query the implementation was built for (the engine encodes the query
// views before calling Run).
//
// Search returns at most k hits, best first. Scores are on the slot's own
// scale: cosine in [-1, 1] for dense slots and MaxSim (E12, mean over query
// tokens), [0, 1] for E9 Hamming similarity, Jaccard and the temporal slots,
// unbounded BM25 (E6) and SPLADE dot products (E13). within, when non-nil,
// restricts the search to those documents; when k ≥ within's size every
// document in within that has a representation must be scored. A slot with no
// model or index returns an error wrapping ErrUnavailable; any other error is
// an index failure and surfaces. Implementations must be safe for concurrent
// use: the pipeline searches spaces in parallel. within must not be modified.
type Spaces interface {
	Search(ctx context.Context, p Probe, k int, within *roaring.Bitmap) ([]Hit, error)
}

// Direction is the --direction of a query for the asymmetric slots E5 and E8.
type Direction uint8

// Directions.
const (
	// DirectionAny searches both views and keeps, per document, the better
	// boosted score.
	DirectionAny Direction = iota
	// DirectionEffects: the query describes a cause and seeks its effects
	// (search_effects). E5: the query's cause view against documents' effect
	// vectors, ×ForwardBoost. E8: source → target.
	DirectionEffects
	// DirectionCauses: the query describes an effect and seeks its causes
	// (search_causes). E5: the query's effect view against documents' cause
	// vectors, ×BackwardBoost. E8: target → source.
	DirectionCauses
)

var directionNames = [...]string{"any", "effects", "causes"}

// String returns "any", "effects" or "causes".
func (d Direction) String() string {
	if int(d) < len(directionNames) {
		return directionNames[d]
	}
	return fmt.Sprintf("direction(%d)", uint8(d))
}

// ParseDirection accepts "", "any", "effects" and "causes".
func ParseDirection(s string) (Direction, error) {
	n := strings.TrimSpace(strings.ToLower(s))
	if n == "" {
		return DirectionAny, nil
	}
	for i, name := range directionNames {
		if n == name {
			return Direction(i), nil
		}
	}
	return 0, fmt.Errorf("unknown direction %q: valid directions are %s", s, strings.Join(directionNames[:], ", "))
}

// MarshalText makes directions readable in JSON.
func (d Direction) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a direction's name (ParseDirection).
func (d *Direction) UnmarshalText(b []byte) error {
	v, err := ParseDirection(string(b))
	*d = v
	return err
}

// views returns the views an asymmetric slot is searched with.
func (d Direction) views() []View {
	switch d {
	case DirectionEffects:
		return []View{ViewForward}
	case DirectionCauses:
		return []View{ViewBackward}
	}
	return []View{ViewForward, ViewBackward}
}

// Mode is a search mode.
type Mode uint8

// Modes (DESIGN.md "Data flow").
const (
	// ModePipeline runs the five stages S1–S5.
	ModePipeline Mode = iota
	// ModeE1Only is one E1 search, then S5.
	ModeE1Only
	// ModeMultiSpace searches every weighted space in parallel and fuses
	// them with WRRF, then S5.
	ModeMultiSpace
	// ModeEmbedderFirst is one search in the Request's Primary slot, then S5.
	ModeEmbedderFirst
)

var modeNames = [...]string{"pipeline", "e1_only", "multi_space", "embedder_first"}

// String returns the mode's name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// MarshalText makes modes readable in JSON.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode's name (ParseMode).
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	*m = v
	return err
}

// ParseMode accepts a mode name; the error lists the valid ones.
func ParseMode(s string) (Mode, error) {
	n := strings.TrimSpace(strings.ToLower(s))
	for i, name := range modeNames {
		if n == name {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q: valid modes are %s", s, strings.Join(modeNames[:], ", "))
}

// Stage names one step of a search in the trace.
type Stage string

// Stages in trace order.
const (
	StagePrimary  Stage = "primary"     // single-slot search (e1_only, embedder_first)
	StageRecall   Stage = "S1 recall"   // E13 (or E6) inverted index, plus profile extra recall
	StageFilter   Stage = "S2 filter"   // E1 Matryoshka-128 flat scan
	StageFusion   Stage = "S3 fusion"   // WRRF over the profile's spaces
	StageFeedback Stage = "S3 feedback" // Request.Feedback: expanded E1/E5/E6, WRRF again
	StageRerank   Stage = "S4 rerank"   // E12 MaxSim
	StageValidate Stage = "S5 validate" // thresholds, temporal badges, top-k
)

// Stages returns the stages mode m runs, in order; a Request with Feedback
// adds StageFeedback after StageFusion in the fusion modes.
func (m Mode) Stages() []Stage {
	switch m {
	case ModePipeline:
		return []Stage{StageRecall, StageFilter, StageFusion, StageRerank, StageValidate}
	case ModeMultiSpace:
		return []Stage{StageFusion, StageValidate}
	}
	return []Stage{StagePrimary, StageValidate}
}
