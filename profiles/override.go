package profiles

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cgraph/cgraph/fingerprint"
)

// Override pins one slot's weight for one query, e.g. "E5=0.6".
type Override struct {
	Slot   fingerprint.SlotID
	Weight float64
}

// String returns the override as "E5=0.6", the form ParseOverride accepts.
func (o Override) String() string {
	return o.Slot.String() + "=" + strconv.FormatFloat(o.Weight, 'g', -1, 64)
}

// ParseOverride parses "Ek=w" where Ek is anything fingerprint.ParseSlot
// accepts ("E5", "5", "causal") and w is a number in [0, 1].
func ParseOverride(s string) (Override, error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return Override{}, fmt.Errorf("weight override %q: want SLOT=WEIGHT, e.g. E5=0.6", s)
	}
	slot, err := fingerprint.ParseSlot(name)
	if err != nil {
		return Override{}, fmt.Errorf("weight override %q: %w", s, err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Override{}, fmt.Errorf("weight override %q: %q is not a number: give a weight in [0, 1], e.g. %s=0.6", s, val, slot)
	}
	if v < 0 || v > 1 {
		return Override{}, fmt.Errorf("weight override %q: weight %g is outside [0, 1]", s, v)
	}
	return Override{Slot: slot, Weight: v}, nil
}

// ParseOverrides parses each string with ParseOverride and rejects a slot named
// twice.
func ParseOverrides(ss []string) ([]Override, error) {
	out := make([]Override, 0, len(ss))
	seen := map[fingerprint.SlotID]string{}
	for _, s := range ss {
		o, err := ParseOverride(s)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[o.Slot]; dup {
			return nil, fmt.Errorf("weight overrides %q and %q both set %s: give it once", prev, s, o.Slot)
		}
		seen[o.Slot] = s
		out = append(out, o)
	}
	return out, nil
}

// WithOverrides returns a copy of p with each override's slot pinned to its
// weight and the other slots re-normalised proportionally so that the weights
// sum to 1 (see the package doc). The result is validated; p is not modified.
func (p Profile) WithOverrides(ovs ...Override) (Profile, error) {
	if len(ovs) == 0 {
		return p.Clone(), nil
	}
	if p.Adaptive {
		return Profile{}, fmt.Errorf("profile %s sets its weights per query, so overrides %v cannot pin them: name a static profile (e.g. semantic_search) with the overrides, or drop them", p.Name, ovs)
	}
	out := p.Clone()
	pinned := map[fingerprint.SlotID]bool{}
	var pinnedSum float64
	for _, o := range ovs {
		if !o.Slot.Valid() {
			return Profile{}, fmt.Errorf("override names invalid slot %s", o.Slot)
		}
		if pinned[o.Slot] {
			return Profile{}, fmt.Errorf("override sets %s twice: give it once", o.Slot)
		}
		if math.IsNaN(o.Weight) || o.Weight < 0 || o.Weight > 1 {
			return Profile{}, fmt.Errorf("override %s: weight outside [0, 1]", o)
		}
		pinned[o.Slot] = true
		pinnedSum += o.Weight
		out.Weights.Set(o.Slot, o.Weight)
	}
	if pinnedSum > 1+SumTolerance {
		return Profile{}, fmt.Errorf("overrides of profile %s pin weights summing to %.4g: they must leave at most 1 in total", p.Name, pinnedSum)
	}
	var others float64
	for _, s := range fingerprint.Slots() {
		if !pinned[s] {
			others += out.Weights.Get(s)
		}
	}
	rest := math.Max(0, 1-pinnedSum)
	switch {
	case others > 0:
		f := rest / others
		for _, s := range fingerprint.Slots() {
			if !pinned[s] {
				out.Weights.Set(s, out.Weights.Get(s)*f)
			}
		}
	case rest > SumTolerance:
		return Profile{}, fmt.Errorf("overrides of profile %s leave %.4g to share but every other slot weighs 0: give overrides summing to 1", p.Name, rest)
	}
	if err := out.Validate(); err != nil {
		return Profile{}, fmt.Errorf("apply overrides %v: %w", ovs, err)
	}
	return out, nil
}
