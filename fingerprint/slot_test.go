package fingerprint

import "testing"

// TestSlotTable pins the slot numbering and walks every slot so that the info
// table cannot drift from the constants.
func TestSlotTable(t *testing.T) {
	for i, s := range Slots() {
		if int(s) != i+1 || s.Index() != i {
			t.Fatalf("slot %d has value %d, index %d", i, s, s.Index())
		}
		in := s.Info()
		if in.ID != s || in.Name == "" || in.Category == 0 {
			t.Errorf("%s: incomplete info %+v", s, in)
		}
		if in.High <= in.Low {
			t.Errorf("%s: high %v not above low %v", s, in.High, in.Low)
		}
		for _, name := range []string{s.String(), in.Name} {
			got, err := ParseSlot(name)
			if err != nil || got != s {
				t.Errorf("ParseSlot(%q) = %v, %v; want %s", name, got, err, s)
			}
		}
	}
}

func TestThresholdsAndWeights(t *testing.T) {
	cases := []struct {
		s         SlotID
		high, low float64
		weight    float64
	}{
		{E1, .75, .30, 1}, {E5, .70, .25, 1}, {E6, .60, .20, 1}, {E7, .80, .28, 1},
		{E13, .60, .20, 1}, {E2, .70, .30, 0}, {E8, .70, .30, .5}, {E9, .70, .30, .5}, {E11, .70, .30, .5},
	}
	for _, c := range cases {
		in := c.s.Info()
		if in.High != c.high || in.Low != c.low || c.s.TopicWeight() != c.weight {
			t.Errorf("%s: got high %v low %v weight %v", c.s, in.High, in.Low, c.s.TopicWeight())
		}
	}
}

func TestParseSlotRejects(t *testing.T) {
	for _, bad := range []string{"", "E0", "E14", "0", "x", "e-1", "semantics"} {
		if s, err := ParseSlot(bad); err == nil {
			t.Errorf("ParseSlot(%q) = %v, want error", bad, s)
		}
	}
}
