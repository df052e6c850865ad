package benchstore

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/cgraph/cgraph/bench"
)

// TestWithCorrectScopes: one scope is set on every run under its own name;
// several multiply the runs, each named RUN/correct=SCOPE.
func TestWithCorrectScopes(t *testing.T) {
	plan := func() []bench.RunSpec {
		return []bench.RunSpec{{Mode: "pipeline", Profile: "code_search"}, {Mode: "e1_only"}}
	}
	names := func(runs []bench.RunSpec) (out []string) {
		for _, r := range runs {
			out = append(out, r.DisplayName()+"|"+r.Correct)
		}
		return out
	}
	for _, c := range []struct {
		scopes []string
		want   []string
	}{
		{[]string{CorrectEvery}, []string{"pipeline:code_search|every", "e1_only|every"}},
		{[]string{"off", "every"}, []string{"pipeline:code_search/correct=off|off", "pipeline:code_search/correct=every|every",
			"e1_only/correct=off|off", "e1_only/correct=every|every"}},
	} {
		if got := names(WithCorrectScopes(plan(), c.scopes)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("scopes %v: runs %v, want %v", c.scopes, got, c.want)
		}
	}
}

// TestWithFeedback: one depth is set on every run under its own name;
// several multiply the runs, each named RUN/feedback=N.
func TestWithFeedback(t *testing.T) {
	plan := func() []bench.RunSpec {
		return []bench.RunSpec{{Mode: "pipeline", Profile: "auto"}, {Mode: "e1_only"}}
	}
	names := func(runs []bench.RunSpec) (out []string) {
		for _, r := range runs {
			out = append(out, fmt.Sprintf("%s|%d", r.DisplayName(), r.Feedback))
		}
		return out
	}
	for _, c := range []struct {
		depths []int
		want   []string
	}{
		{[]int{3}, []string{"pipeline:auto|3", "e1_only|3"}},
		{[]int{0, 3}, []string{"pipeline:auto/feedback=0|0", "pipeline:auto/feedback=3|3", "e1_only/feedback=0|0", "e1_only/feedback=3|3"}},
	} {
		if got := names(WithFeedback(plan(), c.depths)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("depths %v: runs %v, want %v", c.depths, got, c.want)
		}
	}
}

// TestHeldOut: the held-out queries are exactly those a bench run with
// --max-queries n --seed s evaluates, and the rest keep their order.
func TestHeldOut(t *testing.T) {
	var qs []bench.Query
	for _, id := range []string{"q1", "q2", "q3", "q4", "q5", "q6"} {
		qs = append(qs, bench.Query{ID: bench.QueryID(id), Text: id})
	}
	if got := heldOut(qs, 0, 1); len(got) != len(qs) {
		t.Fatalf("holdout 0 kept %d of %d", len(got), len(qs))
	}
	test := map[bench.QueryID]bool{}
	for _, q := range bench.SampleQueries(qs, 2, 7) {
		test[q.ID] = true
	}
	got := heldOut(qs, 2, 7)
	if len(got) != 4 {
		t.Fatalf("holdout 2 of 6 left %d", len(got))
	}
	for i, q := range got {
		if test[q.ID] || i > 0 && got[i-1].ID >= q.ID {
			t.Errorf("held-out list %v: %s is a test query or out of order", got, q.ID)
		}
	}
}
