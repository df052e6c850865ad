package profiles

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseOverride: never panics; an accepted override is in range and
// round-trips through String.
func FuzzParseOverride(f *testing.F) {
	for _, s := range []string{"E5=0.6", "causal=1", "13=.25", "E5", "=", "E1=1e-300", "E2=-0", "e7=0x1p-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOverride(s)
		if err != nil {
			return
		}
		if !o.Slot.Valid() || math.IsNaN(o.Weight) || o.Weight < 0 || o.Weight > 1 {
			t.Fatalf("accepted %q as %+v", s, o)
		}
		back, err := ParseOverride(o.String())
		if err != nil || back != o {
			t.Fatalf("round trip %q -> %v -> %v, %v", s, o, back, err)
		}
		p, _ := Lookup("pipeline_full")
		if q, err := p.WithOverrides(o); err == nil {
			if math.Abs(q.Weights.Sum()-1) > SumTolerance || q.Validate() != nil {
				t.Fatalf("override %v produced invalid profile %+v", o, q.Weights)
			}
		}
	})
}

// FuzzDecode: the file loader never panics, and whatever it accepts passes
// Validate.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		fm, _ := FormatOf(name)
		f.Add(data, uint8(fm))
	}
	f.Fuzz(func(t *testing.T, data []byte, fm uint8) {
		p, err := Decode(data, Format(fm%3))
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid profile: %v", err)
		}
	})
}
