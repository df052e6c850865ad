package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Result is the outcome of Run: ranked documents with their explanation and
// the trace of the stages. It is a value; the caller owns it.
type Result struct {
	Query   string        `json:"query"`
	Profile string        `json:"profile"`
	Mode    Mode          `json:"mode"`
	Hits    []ResultHit   `json:"results"`
	Spaces  []SpaceReport `json:"spaces"`
	Trace   []StageTrace  `json:"trace"`
	// Auto is what the auto profile chose for this query (nil for static
	// profiles and single-slot modes).
	Auto *AutoDecision `json:"auto,omitempty"`
	// Fusion is the fusion the fusion modes ran (absent in single-slot
	// modes): what Hits' scores and contributions are.
	Fusion Fusion `json:"fusion,omitempty"`
}

// ResultHit is one ranked document. The engine adds the memory id and content.
type ResultHit struct {
	Doc record.DocNum `json:"doc"`
	// Score is the fused score (Σ contributions, times Boosts; WRRF or
	// min-max, Request.Fusion) in fusion modes, and the primary slot's raw
	// score in single-slot modes.
	Score  float64    `json:"score"`
	Slots  SlotScores `json:"slots"`
	Boosts []Boost    `json:"boosts,omitempty"`
	Badges []string   `json:"badges"`
}

// SlotScore explains one slot's part in a result.
type SlotScore struct {
	Rank         int     `json:"rank"`  // 0-indexed rank in the slot's list (JSON: 1-based)
	Score        float64 `json:"score"` // raw score (after direction/E10 boosts)
	Contribution float64 `json:"contribution"`
	// Level is "high" (≥ the slot's High threshold), "low" (< Low) or "mid";
	// empty for slots without a similarity threshold (E6, E13 scores are
	// unbounded).
	Level string `json:"level,omitempty"`
}

// MarshalJSON writes the rank 1-based, as result ranks are: JSON is read by
// people and agents, and rank 0 reads as "none". The 0-indexed Rank stays
// what fusion computes with (Σ w / (K + rank)).
func (s SlotScore) MarshalJSON() ([]byte, error) {
	type plain SlotScore
	p := plain(s)
	p.Rank++
	return json.Marshal(p)
}

// UnmarshalJSON reads what MarshalJSON writes (a 1-based rank).
func (s *SlotScore) UnmarshalJSON(b []byte) error {
	type plain SlotScore
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	p.Rank--
	*s = SlotScore(p)
	return nil
}

// SlotScores maps slots to their explanation. It marshals as an object keyed
// "E1" … "E13" in slot order.
type SlotScores map[fingerprint.SlotID]SlotScore

// MarshalJSON writes the scores keyed by slot name in slot order.
func (s SlotScores) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, slot := range fingerprint.Slots() {
		v, ok := s[slot]
		if !ok {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("marshal %s score: %w", slot, err)
		}
		fmt.Fprintf(&b, "%q:%s", slot.String(), enc)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object MarshalJSON writes.
func (s *SlotScores) UnmarshalJSON(b []byte) error {
	var byName map[string]SlotScore
	if err := json.Unmarshal(b, &byName); err != nil {
		return err
	}
	out := make(SlotScores, len(byName))
	for name, v := range byName {
		slot, err := fingerprint.ParseSlot(name)
		if err != nil {
			return fmt.Errorf("slot scores: %w", err)
		}
		out[slot] = v
	}
	*s = out
	return nil
}

// Boost is a multiplicative factor applied to a result's score or to one
// slot's raw score, with the signal that produced it.
type Boost struct {
	Name   string  `json:"name"`   // "E10 on E1", "E11 exact names"
	Signal float64 `json:"signal"` // E10 cosine, Jaccard
	Factor float64 `json:"factor"`
}

// Space statuses.
const (
	StatusOK          = "ok"
	StatusEmpty       = "empty"       // searched, returned nothing
	StatusUnavailable = "unavailable" // no model or index: fallback applied
	StatusFailed      = "failed"      // index error (only with Request.Partial)
	StatusSkipped     = "skipped"     // weighted but not used in this mode
)

// SpaceReport says what happened to one probe of one slot. Every weighted
// slot appears, so nothing is silently dropped.
type SpaceReport struct {
	Stage  Stage              `json:"stage"`
	Slot   fingerprint.SlotID `json:"-"`
	Name   string             `json:"slot"`
	View   View               `json:"view"`
	Weight float64            `json:"weight"`
	Status string             `json:"status"`
	Hits   int                `json:"hits"`
	Note   string             `json:"note,omitempty"`
}

// StageTrace is one stage's line in the trace.
type StageTrace struct {
	Stage      Stage         `json:"stage"`
	Candidates int           `json:"candidates"` // documents after the stage
	Duration   time.Duration `json:"-"`
	Note       string        `json:"note,omitempty"`
}

// MarshalJSON adds "ms", the stage's duration in milliseconds.
func (t StageTrace) MarshalJSON() ([]byte, error) {
	type plain StageTrace
	return json.Marshal(struct {
		plain
		MS float64 `json:"ms"`
	}{plain(t), float64(t.Duration.Microseconds()) / 1000})
}

// UnmarshalJSON reads what MarshalJSON writes (the duration to the
// microsecond).
func (t *StageTrace) UnmarshalJSON(b []byte) error {
	type plain StageTrace
	var v struct {
		plain
		MS float64 `json:"ms"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = StageTrace(v.plain)
	t.Duration = time.Duration(math.Round(v.MS*1000)) * time.Microsecond
	return nil
}

// UnmarshalJSON reads a space report, its slot from its name.
func (r *SpaceReport) UnmarshalJSON(b []byte) error {
	type plain SpaceReport
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = SpaceReport(p)
	if slot, err := fingerprint.ParseSlot(r.Name); err == nil {
		r.Slot = slot
	}
	return nil
}
