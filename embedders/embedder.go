package embedders

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
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
	// As is the side an asymmetric slot (E5, E8, E10) embeds the query as;
	// the view is compared with the stored vectors of the other side: a
	// query that seeks causes is embedded as an effect (As SideB) and
	// searches cause vectors. It is 0 for symmetric slots. The caller (the
	// engine, from the pipeline's probe plan) always says which side.
	As fingerprint.Side
	// Raw asks a slot whose queries run through an encoder tuned for
	// ranking (TunedQueries) for the query as its documents' own model
	// encodes it: the cosine scale that calibrated evidence (the engine's
	// relevance model) was fitted on. Other slots ignore it.
	Raw bool
}

// TunedQueries is implemented by an embedder that may encode queries with
// another encoder than its documents (a fine-tune fitted for ranking, a
// learned head). Tuned reports whether it does: its query cosines are then
// on another scale than the documents' own model gives, and Query.Raw
// gives that model's.
type TunedQueries interface {
	Tuned() bool
}

// QueryView is a query's representation in one slot, ready for an index.
type QueryView struct {
	Slot  fingerprint.SlotID
	Value fingerprint.Value
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
	// Device is the execution provider the slot's model runs on: "cpu", "cuda",
	// "cpu (fallback: why)", or the requested one followed by "(not loaded yet)"
	// before its first run; "" for a model-free slot. Reports carry it so that a
	// figure is never mistaken for another device's.
	Device string
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

// ErrNothingToEmbed marks a query that holds nothing the slot represents: no
// keyword for E6, no entity for E11, no session for E4, no letter for E9.
// The slot is working; it just has nothing to say about this query, so a
// search reports it empty (with the reason) rather than unavailable.
var ErrNothingToEmbed = errors.New("nothing in the query for this slot")

// Nothing returns an error saying why a query holds nothing for the slot;
// its text is the reason alone and errors.Is(err, ErrNothingToEmbed) holds.
func Nothing(format string, args ...any) error {
	return nothing(fmt.Sprintf(format, args...))
}

type nothing string

// Quote is text quoted for a message, cut to its first 60 characters: a
// long query must not be echoed whole in every slot's note.
func Quote(text string) string {
	const max = 60
	if r := []rune(text); len(r) > max {
		return strconv.Quote(string(r[:max])) + "…"
	}
	return strconv.Quote(text)
}

func (n nothing) Error() string        { return string(n) }
func (n nothing) Is(target error) bool { return target == ErrNothingToEmbed }

// QuerySide checks q.As for slot s and returns it: a side for an
// asymmetric slot, 0 for a symmetric one.
func QuerySide(s fingerprint.SlotID, q Query) (fingerprint.Side, error) {
	switch {
	case s.Info().Asymmetric() && q.As != fingerprint.SideA && q.As != fingerprint.SideB:
		a, b, _ := fingerprint.PairRoles(s)
		return 0, fmt.Errorf("%s is asymmetric: say whether the query is embedded as %s or %s", s, a, b)
	case !s.Info().Asymmetric() && q.As != 0:
		return 0, fmt.Errorf("%s is symmetric: a query has no side in it", s)
	}
	return q.As, nil
}

// ModelFree returns the producer identity of an algorithm without model
// weights: id names the algorithm and its version, and the sha256 covers the
// parameters that change its output, so that a store built with other
// parameters is refused rather than mixed. cgraph's own algorithms name
// themselves "cgraph/…": that is how a store's refusal tells a changed
// algorithm (re-embed it, no model runs) from a changed model.
func ModelFree(id string, params ...any) fingerprint.Producer {
	return fingerprint.Producer{Model: id, SHA256: sha256.Sum256(fmt.Appendf(nil, "%#v", params))}
}
