package bench

import (
	"math"
	"testing"
)

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for _, tc := range []struct{ p, want float64 }{{0, 1}, {50, 3}, {100, 5}, {25, 2}, {95, 4.8}} {
		if got := Percentile(xs, tc.p); !near(got, tc.want) {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if xs[0] != 5 {
		t.Error("Percentile sorted its input")
	}
	if !math.IsNaN(Percentile(nil, 50)) {
		t.Error("empty input should be NaN")
	}
}

func TestBootstrapCI(t *testing.T) {
	same := []float64{0.5, 0.5, 0.5, 0.5}
	if ci := BootstrapCI(same, 1); ci.Lo != 0.5 || ci.Hi != 0.5 {
		t.Errorf("constant data: CI %+v, want [0.5, 0.5]", ci)
	}
	xs := make([]float64, 200)
	for i := range xs {
		xs[i] = float64(i % 2) // mean 0.5, sd 0.5 → se ≈ 0.035
	}
	ci := BootstrapCI(xs, 1)
	if !(ci.Lo < 0.5 && ci.Hi > 0.5) || ci.Hi-ci.Lo < 0.1 || ci.Hi-ci.Lo > 0.18 {
		t.Errorf("CI %+v: want ≈ 0.5 ± 0.069", ci)
	}
	if BootstrapCI(xs, 1) != ci {
		t.Error("not deterministic for one seed")
	}
}

func TestRandomizationTestKnownAnswers(t *testing.T) {
	// Identical runs: every sign flip ties the observed mean of 0 → p = 1.
	if p := RandomizationTest(make([]float64, 10), 1); p != 1 {
		t.Errorf("identical (exact): p = %v, want 1", p)
	}
	if p := RandomizationTest(make([]float64, 50), 1); p != 1 {
		t.Errorf("identical (sampled): p = %v, want 1", p)
	}
	// Five equal positive deltas: only all-plus and all-minus reach |mean| = 1,
	// so the exact two-sided p is 2/32.
	if p := RandomizationTest([]float64{1, 1, 1, 1, 1}, 1); !near(p, 2.0/32) {
		t.Errorf("five +1: p = %v, want 0.0625", p)
	}
	// Deltas {1, -1}: every assignment has |mean| ≥ 0 = observed → 1.
	if p := RandomizationTest([]float64{1, -1}, 1); p != 1 {
		t.Errorf("{1,-1}: p = %v, want 1", p)
	}
	// A large uniform shift over many queries: p at its floor 1/(N+1).
	shift := make([]float64, 40)
	for i := range shift {
		shift[i] = 0.3 + 0.01*float64(i%3)
	}
	if p := RandomizationTest(shift, 1); p > 1e-3 {
		t.Errorf("uniform shift: p = %v, want < 0.001", p)
	}
	if RandomizationTest(shift, 1) != RandomizationTest(shift, 1) {
		t.Error("not deterministic")
	}
	// Symmetric noise around 0: p should be large.
	noise := make([]float64, 40)
	for i := range noise {
		noise[i] = float64(i%5-2) * 0.1
	}
	if p := RandomizationTest(noise, 1); p < 0.5 {
		t.Errorf("zero-mean noise: p = %v, want large", p)
	}
}
