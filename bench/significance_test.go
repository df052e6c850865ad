package bench

import (
	"math"
	"strings"
	"testing"
)

// TestHolmHandComputed checks Holm's step-down adjustment against values
// worked out by hand: sort ascending, multiply the i-th smallest by
// (m − i + 1), carry the running maximum, cap at 1, return in input order.
func TestHolmHandComputed(t *testing.T) {
	for _, tc := range []struct {
		name string
		ps   []float64
		want []float64
	}{
		// sorted: .005×4=.02, .01×3=.03, .03×2=.06, .04×1=.04→max .06
		{"four", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// .5×2=1 (capped), .6×1=.6→max 1
		{"capped", []float64{0.6, 0.5}, []float64{1, 1}},
		// ties keep input order among themselves: .01×3, .01×2→max .03, .2×1→.2
		{"ties", []float64{0.01, 0.2, 0.01}, []float64{0.03, 0.2, 0.03}},
		{"one", []float64{0.04}, []float64{0.04}},
		{"none", nil, []float64{}},
		// a NaN counts as 1: .001×3=.003, .02×2=.04, NaN→1
		{"nan", []float64{math.NaN(), 0.02, 0.001}, []float64{1, 0.04, 0.003}},
	} {
		got := Holm(tc.ps)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %v", tc.name, got)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s: Holm(%v) = %v, want %v", tc.name, tc.ps, got, tc.want)
				break
			}
		}
	}
}

// TestSignificanceAgainstBaseline: the default baseline is the best
// single-slot run; a run identical to it is not significant (p = 1); the
// reversed ranking loses on every query and, after Holm over the two other
// runs, is a significant loss; the markdown and JSON carry it.
func TestSignificanceAgainstBaseline(t *testing.T) {
	rep := tinyRun(t, []RunSpec{{Name: "weak_slot", Mode: "embedder_first", Embedder: "reverse"}, {Name: "slot", Mode: "e1_only"},
		{Name: "reverse", Mode: "reverse"}, {Name: "same", Mode: "fused"}})
	if rep.Baseline != "slot" || rep.Alpha != DefaultAlpha {
		t.Fatalf("baseline %q alpha %v, want the best single-slot run", rep.Baseline, rep.Alpha)
	}
	get := func(run, metric string) Significance {
		r, err := rep.Run(run)
		if err != nil {
			t.Fatal(err)
		}
		return r.VsBaseline[metric]
	}
	if s := get("slot", "ndcg@10"); s.Verdict != VerdictBaseline {
		t.Errorf("baseline against itself: %+v", s)
	}
	if s := get("same", "ndcg@10"); s.Verdict != VerdictTie || s.P != 1 || s.Delta != 0 || s.Family != 3 {
		t.Errorf("identical run: %+v", s)
	}
	rev := get("reverse", "mrr@10")
	if rev.Delta >= 0 || rev.Paired != 8 || !rev.Exact {
		t.Fatalf("reversed run: %+v", rev)
	}
	ps := []float64{get("weak_slot", "mrr@10").P, rev.P, get("same", "mrr@10").P}
	if want := Holm(ps)[1]; rev.PHolm != want || rev.PHolm < rev.P {
		t.Errorf("p_holm %v, want %v (Holm over the three runs)", rev.PHolm, want)
	}
	if (rev.PHolm < DefaultAlpha) != (rev.Verdict == VerdictLoss) {
		t.Errorf("verdict %q with p_holm %v", rev.Verdict, rev.PHolm)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Significance against slot", "Holm", "| slot | baseline |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := rep.TestSignificance("nope", 0, 1); err == nil || !strings.Contains(err.Error(), `no run named "nope"`) {
		t.Errorf("unknown baseline: %v", err)
	}
}

func TestDefaultBaselineWithoutSingleSlots(t *testing.T) {
	rep := &Report{Runs: []RunResult{{Name: "a", Mode: "pipeline", Metrics: Metrics{"ndcg@10": 0.2}}, {Name: "b", Mode: "multi_space", Metrics: Metrics{"ndcg@10": 0.9}}}}
	if b := rep.DefaultBaseline("ndcg@10"); b != "a" {
		t.Errorf("baseline %q, want the first run when no run is a single slot", b)
	}
	rep.Runs = append(rep.Runs, RunResult{Name: "e6", Mode: "embedder_first", Metrics: Metrics{"ndcg@10": 0.1}}, RunResult{Name: "e1", Mode: "e1_only", Metrics: Metrics{"ndcg@10": 0.3}})
	if b := rep.DefaultBaseline("ndcg@10"); b != "e1" {
		t.Errorf("baseline %q, want the best single slot e1", b)
	}
}
