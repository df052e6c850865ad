package bench

import (
	"strings"
	"testing"
)

func TestPlanRuns(t *testing.T) {
	runs, err := PlanRuns(PlanOptions{
		Modes: []string{"pipeline", "e1_only", "embedder_first", "multi_space"}, Profiles: []string{"code_search", "typo_tolerant"},
		Embedders: []string{"E6", "E7"}, Direction: "causes", Baselines: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.DisplayName())
		if r.Direction != "causes" {
			t.Errorf("run %s lost the direction", r.DisplayName())
		}
	}
	// e1_only and embedder_first:E6 equal baselines and are not repeated.
	want := "bm25_only e1_only rrf_e1_e6 pipeline:code_search pipeline:typo_tolerant embedder_first:E7 multi_space:code_search multi_space:typo_tolerant"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("runs\n%s\nwant\n%s", got, want)
	}
	for _, tc := range []struct {
		o    PlanOptions
		want string
	}{
		{PlanOptions{Modes: []string{"fast"}}, `unknown mode "fast": valid modes are e1_only, multi_space, embedder_first, pipeline`},
		{PlanOptions{Modes: []string{"pipeline"}}, "needs at least one profile"},
		{PlanOptions{Modes: []string{"embedder_first"}}, "needs --embedders"},
		{PlanOptions{Direction: "up"}, `direction "up"`},
	} {
		if _, err := PlanRuns(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.o, err, tc.want)
		}
	}
	if (RunSpec{Mode: "e1_only"}).DisplayName() != "e1_only" || (RunSpec{Mode: "m", Profile: "p"}).DisplayName() != "m:p" {
		t.Error("DisplayName defaults")
	}
}
