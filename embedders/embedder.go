package embedders

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/fingerprint"
)

// Input is one memory to embed: its text and the metadata temporal slots use.
type Input struct {
	Text    string
	Created time.Time // creation time; zero means unknown (E2/E3 unavailable)
	Session string    // session the memory belongs to; "" means none (E4 unavailable)
	Seq     uint64    // 0-based position within Session
}

// Query is one search request as an embedder sees it.
type Query struct {
	Text string
	// Now is the time recency is measured against (E2) and whose hour and
	// weekday periodicity compares with (E3). Zero is an error for those slots.
	Now time.Time
	// Session and Seq anchor sequence navigation (E4): "memories near position
	// Seq of Session".
	Session string
	Seq     uint64
	// Direction chooses which stored side an asymmetric slot searches (E5, E8,
	// E10). DirectionDefault takes the slot's DefaultDirection.
	Direction Direction
}

// QueryView is a query's representation in one slot, ready for an index.
type QueryView struct {
	Slot  fingerprint.SlotID
	Value fingerprint.Value
	// Against is the stored side of an asymmetric slot this view is compared
	// with; 0 for symmetric slots. The view itself is the opposite side: a query
	// looking for causes is embedded as an effect and searches cause vectors.
	Against fingerprint.Side
}

// SlotStatus describes an embedder for `cgraph embedders` and explain output.
type SlotStatus struct {
	// State is StatusPresent ("ready"), StatusFallback or StatusUnavailable.
	State fingerprint.Status
	// Reason says why a slot is unavailable or which fallback it uses.
	Reason   string
	Producer fingerprint.Producer
	// Dims is the dense dimension the slot indexes (0 when it has none).
	Dims int
	// Representation says what is stored, e.g. "10,000-bit hypervector + 256-d projection".
	Representation string
}

// Embedder computes one slot's representation. Implementations are safe for
// concurrent use.
type Embedder interface {
	// Slot is the slot this embedder fills.
	Slot() fingerprint.SlotID
	// Status reports readiness; it is cheap and does no I/O.
	Status() SlotStatus
	// EmbedDocuments returns one entry per input, in order. A document the slot
	// cannot represent (no session for E4) gets a StatusUnavailable entry with
	// the reason; an error means the batch failed as a whole.
	EmbedDocuments(ctx context.Context, docs []Input) ([]fingerprint.Entry, error)
	// EmbedQuery returns the query's view. It fails with ErrUnavailable (wrapped)
	// when the slot cannot serve queries, and with a caller error when the query
	// lacks what the slot needs (Now for E2).
	EmbedQuery(ctx context.Context, q Query) (QueryView, error)
}

// ErrUnavailable marks a slot that has no producer installed.
var ErrUnavailable = errors.New("embedder unavailable")

// Direction says what an asymmetric search looks for. Each direction belongs to
// one slot and names the stored side searched; the query is embedded in the
// opposite side.
type Direction uint8

// Directions of the asymmetric slots.
const (
	DirectionDefault Direction = iota
	FindCauses                 // E5: query describes an effect; search cause vectors
	FindEffects                // E5: query describes a cause; search effect vectors
	FindSources                // E8: query is a target (imported/called); search source vectors
	FindTargets                // E8: query is a source (importer/caller); search target vectors
	FindIntents                // E10: query is a context; search intent vectors
	FindContexts               // E10: query is an intent; search context vectors
)

var directions = [...]struct {
	name    string
	slot    fingerprint.SlotID
	against fingerprint.Side
}{
	DirectionDefault: {"default", 0, 0},
	FindCauses:       {"causes", fingerprint.E5, fingerprint.SideA},
	FindEffects:      {"effects", fingerprint.E5, fingerprint.SideB},
	FindSources:      {"sources", fingerprint.E8, fingerprint.SideA},
	FindTargets:      {"targets", fingerprint.E8, fingerprint.SideB},
	FindIntents:      {"intents", fingerprint.E10, fingerprint.SideA},
	FindContexts:     {"contexts", fingerprint.E10, fingerprint.SideB},
}

// String returns the direction's name ("causes", "effects", …).
func (d Direction) String() string {
	if int(d) < len(directions) {
		return directions[d].name
	}
	return fmt.Sprintf("direction(%d)", uint8(d))
}

// DefaultDirection is the direction a plain search uses in an asymmetric slot:
// E5 finds causes (queries usually describe a symptom), E8 finds targets (what
// the query's code depends on), E10 finds contexts (the query is an intent).
func DefaultDirection(s fingerprint.SlotID) Direction {
	switch s {
	case fingerprint.E5:
		return FindCauses
	case fingerprint.E8:
		return FindTargets
	case fingerprint.E10:
		return FindContexts
	}
	return DirectionDefault
}

// Plan resolves d for slot s: the stored side to search and the side to embed
// the query in. It fails when d belongs to another slot, or when s is
// symmetric and d is not DirectionDefault.
func (d Direction) Plan(s fingerprint.SlotID) (against, queryAs fingerprint.Side, err error) {
	if d == DirectionDefault {
		d = DefaultDirection(s)
		if d == DirectionDefault {
			return 0, 0, nil
		}
	}
	if int(d) >= len(directions) || directions[d].slot != s {
		return 0, 0, fmt.Errorf("direction %s does not apply to %s: %s", d, s, directionsFor(s))
	}
	a := directions[d].against
	return a, a.Opposite(), nil
}

func directionsFor(s fingerprint.SlotID) string {
	var names []string
	for _, d := range directions[1:] {
		if d.slot == s {
			names = append(names, d.name)
		}
	}
	if names == nil {
		return s.String() + " is symmetric and takes no direction"
	}
	return fmt.Sprintf("%s takes %v", s, names)
}

// ModelFree returns the producer identity of an algorithm without model
// weights: id names the algorithm and its version, and the sha256 covers the
// parameters that change its output, so that a store built with other
// parameters is refused rather than mixed.
func ModelFree(id string, params ...any) fingerprint.Producer {
	return fingerprint.Producer{Model: id, SHA256: sha256.Sum256(fmt.Appendf(nil, "%#v", params))}
}
