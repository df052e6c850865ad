package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
)

func TestAblations(t *testing.T) {
	p, err := profiles.Lookup("pipeline_full")
	if err != nil {
		t.Fatal(err)
	}
	abl, err := Ablations(p)
	if err != nil {
		t.Fatal(err)
	}
	var fused int
	for _, s := range p.Weights.Active() {
		if s.Fused() {
			fused++
		}
	}
	if len(abl) != fused {
		t.Fatalf("%d ablations for %d fused slots", len(abl), fused)
	}
	for _, a := range abl {
		q := a.Profile
		if q.Weights.Get(a.Slot) != 0 || q.Name != "pipeline_full-no-"+strings.ToLower(a.Slot.String()) {
			t.Errorf("%s: %s weighs %v", q.Name, a.Slot, q.Weights.Get(a.Slot))
		}
		if q.Weights.Get(fingerprint.E13) != p.Weights.Get(fingerprint.E13) {
			t.Errorf("%s: stage-only E13 changed", q.Name)
		}
		// The others keep their proportions.
		var sa, sb fingerprint.SlotID
		for _, s := range p.Weights.Active() {
			if s.Fused() && s != a.Slot {
				if sa == 0 {
					sa = s
				} else if sb == 0 {
					sb = s
				}
			}
		}
		if r0, r1 := p.Weights.Get(sa)/p.Weights.Get(sb), q.Weights.Get(sa)/q.Weights.Get(sb); math.Abs(r0-r1) > 1e-9 {
			t.Errorf("%s: %s/%s ratio %v, was %v", q.Name, sa, sb, r1, r0)
		}
	}
	one := profiles.Profile{Name: "one"}
	one.Weights.Set(fingerprint.E1, 1)
	if _, err := Ablations(one); err == nil {
		t.Error("a one-slot profile was ablated")
	}
}
