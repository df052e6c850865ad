package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cgraph/cgraph/fingerprint"
)

// SumTolerance is how far a profile's weights may sum away from 1.
const SumTolerance = 0.01

// MaxE10Boost bounds Profile.E10Boost. The boost multiplier itself is clamped
// to [0.8, 1.2] by the pipeline whatever the strength.
const MaxE10Boost = 4.0

// Weights holds one weight per slot, indexed by SlotID.Index(). The zero value
// weighs nothing. Use Get and Set rather than raw indexes.
type Weights [fingerprint.NumSlots]float64

// Get returns the weight of slot s. It panics on an invalid slot.
func (w Weights) Get(s fingerprint.SlotID) float64 { return w[s.Info().ID.Index()] }

// Set sets the weight of slot s. It panics on an invalid slot.
func (w *Weights) Set(s fingerprint.SlotID, v float64) { w[s.Info().ID.Index()] = v }

// Sum returns the sum of all weights.
func (w Weights) Sum() float64 {
	var s float64
	for _, v := range w {
		s += v
	}
	return s
}

// Active returns the slots with a weight above zero, in slot order.
func (w Weights) Active() []fingerprint.SlotID {
	var out []fingerprint.SlotID
	for _, s := range fingerprint.Slots() {
		if w.Get(s) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// MarshalJSON writes {"E1": w1, …, "E13": w13} in slot order, every slot
// present, so that `cgraph profiles --json` is stable.
func (w Weights) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, s := range fingerprint.Slots() {
		if i > 0 {
			b.WriteByte(',')
		}
		v := w.Get(s)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("weight of %s is %v: not representable in JSON", s, v)
		}
		fmt.Fprintf(&b, "%q:%s", s.String(), strconv.FormatFloat(v, 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object MarshalJSON writes; a slot it leaves out
// weighs 0.
func (w *Weights) UnmarshalJSON(b []byte) error {
	var byName map[string]float64
	if err := json.Unmarshal(b, &byName); err != nil {
		return err
	}
	var out Weights
	for name, v := range byName {
		slot, err := fingerprint.ParseSlot(name)
		if err != nil {
			return fmt.Errorf("weights: %w", err)
		}
		out.Set(slot, v)
	}
	*w = out
	return nil
}

// Profile is a named weight profile. Profiles are values: copying one is cheap
// and the copy is independent (ExtraRecall is copied by Clone). A Profile is
// safe for concurrent reads.
type Profile struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Weights     Weights `json:"weights"`
	// Temporal marks a profile in which E2–E4 may weigh; they re-order results
	// after retrieval and never retrieve.
	Temporal bool `json:"temporal"`
	// Staged marks a profile written for the five-stage pipeline; only a staged
	// profile may weigh E12 (S4 rerank) or E13 (S1 recall).
	Staged bool `json:"staged"`
	// E10Boost is the strength of the E10 multiplicative boost on E1 scores:
	// 0 applies no boost, 1 the standard 5/10/15 % bands, 2 twice that (the
	// multiplier is clamped to [0.8, 1.2] by the pipeline).
	E10Boost float64 `json:"e10_boost"`
	// ExtraRecall lists slots that also supply candidates in S1 next to
	// E13 (typo_tolerant: E9), whatever their fusion weight.
	ExtraRecall []fingerprint.SlotID `json:"extra_recall,omitempty"`
	// Adaptive marks the built-in auto profile: the pipeline sets the fusion
	// weights per query from the query and from what each space returned
	// (pipeline.AutoModel), and Weights are only the typical weights it
	// starts from, which say which slots are searched. Custom files cannot
	// declare it, and per-query overrides are refused on it.
	Adaptive bool `json:"adaptive,omitempty"`
}

// Clone returns a deep copy of p.
func (p Profile) Clone() Profile {
	p.ExtraRecall = append([]fingerprint.SlotID(nil), p.ExtraRecall...)
	return p
}

// ValidationError lists every rule a profile breaks. Each problem says what is
// wrong and how to fix it.
type ValidationError struct {
	Profile  string
	Problems []string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("profile %q is invalid: %s", e.Profile, strings.Join(e.Problems, "; "))
}

// Validate checks p against the rules in the package doc and returns a
// *ValidationError naming every broken rule, or nil.
func (p Profile) Validate() error {
	var probs []string
	add := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	if err := checkName(p.Name); err != nil {
		add("%v", err)
	}
	finite := true
	for _, s := range fingerprint.Slots() {
		v := p.Weights.Get(s)
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			add("weight of %s is %v: give a number in [0, 1]", s, v)
			finite = false
		case v < 0 || v > 1:
			add("weight of %s is %g: weights must be in [0, 1]", s, v)
		}
		if v != 0 && s.Temporal() && !p.Temporal {
			add("temporal slot %s weighs %g in a semantic profile: set it to 0, or declare the profile temporal (temporal slots act after retrieval only)", s, v)
		}
		if v != 0 && s.StageOnly() && !p.Staged {
			add("%s weighs %g but only staged (pipeline) profiles may weigh E12/E13: set it to 0, or declare the profile staged", s, v)
		}
	}
	if sum := p.Weights.Sum(); finite && math.Abs(sum-1) > SumTolerance {
		add("weights sum to %.4g, want 1 ± %g: scale them so they add up to 1", sum, SumTolerance)
	}
	if math.IsNaN(p.E10Boost) || p.E10Boost < 0 || p.E10Boost > MaxE10Boost {
		add("e10_boost is %v: give a strength in [0, %g] (1 is the standard boost)", p.E10Boost, MaxE10Boost)
	}
	seen := map[fingerprint.SlotID]bool{}
	for _, s := range p.ExtraRecall {
		switch {
		case !s.Valid():
			add("extra_recall names invalid slot %s", s)
		case s.Temporal() || s == fingerprint.E12:
			add("extra_recall names %s, which cannot retrieve: name a searchable slot such as E9", s)
		case seen[s]:
			add("extra_recall names %s twice", s)
		}
		seen[s] = true
	}
	if len(probs) > 0 {
		return &ValidationError{Profile: p.Name, Problems: probs}
	}
	return nil
}

func checkName(name string) error {
	if name == "" {
		return errors.New("name is empty: give the profile a name such as my_profile")
	}
	if len(name) > 64 {
		return fmt.Errorf("name %.20q… is %d bytes: use at most 64", name, len(name))
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("name %q has %q: use lower-case letters, digits, '_' and '-'", name, r)
		}
	}
	return nil
}
