package benchstore

import (
	"testing"

	"github.com/cgraph/cgraph/bench"
)

// TestRequestCorrectScope: a run's correction scope reaches the engine
// request (every and "" are the engine's default); an unknown one is
// refused.
func TestRequestCorrectScope(t *testing.T) {
	r := &Retriever{}
	for _, c := range []struct {
		scope                   string
		noCorrect, keywordsOnly bool
		bad                     bool
	}{
		{"", false, false, false},
		{CorrectEvery, false, false, false},
		{CorrectOff, true, false, false},
		{CorrectKeywords, false, true, false},
		{"sometimes", false, false, true},
	} {
		req, err := r.request(bench.SearchRequest{Query: bench.Query{ID: "q", Text: "stirng"}, K: 10,
			Run: bench.RunSpec{Mode: "multi_space", Profile: "typo_tolerant", Correct: c.scope}})
		if (err != nil) != c.bad {
			t.Errorf("scope %q: error %v", c.scope, err)
			continue
		}
		if !c.bad && (req.NoCorrect != c.noCorrect || req.CorrectKeywordsOnly != c.keywordsOnly) {
			t.Errorf("scope %q: NoCorrect %v, CorrectKeywordsOnly %v", c.scope, req.NoCorrect, req.CorrectKeywordsOnly)
		}
	}
}

// TestRequestFeedback: a run's feedback depth reaches the engine request.
func TestRequestFeedback(t *testing.T) {
	r := &Retriever{}
	for _, n := range []int{0, 3} {
		req, err := r.request(bench.SearchRequest{Query: bench.Query{ID: "q", Text: "x"}, K: 10,
			Run: bench.RunSpec{Mode: "pipeline", Profile: "semantic_search", Feedback: n}})
		if err != nil || req.Feedback != n {
			t.Errorf("feedback %d: request feedback %d, error %v", n, req.Feedback, err)
		}
	}
}

// TestRequestFusion: a run's fusion reaches the engine request; an unknown
// one is an error.
func TestRequestFusion(t *testing.T) {
	r := &Retriever{}
	for name, want := range map[string]string{"": "default", "rrf": "rrf", "minmax": "minmax"} {
		req, err := r.request(bench.SearchRequest{Query: bench.Query{ID: "q", Text: "x"}, K: 10,
			Run: bench.RunSpec{Mode: "multi_space", Profile: "semantic_search", Fusion: name}})
		if err != nil || req.Fusion.String() != want {
			t.Errorf("fusion %q: request fusion %v, error %v", name, req.Fusion, err)
		}
	}
	if _, err := r.request(bench.SearchRequest{Query: bench.Query{ID: "q", Text: "x"}, K: 10,
		Run: bench.RunSpec{Mode: "multi_space", Profile: "semantic_search", Fusion: "sum"}}); err == nil {
		t.Error("an unknown fusion must be an error")
	}
}
