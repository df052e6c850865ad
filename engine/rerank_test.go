package engine

import (
	"context"
	"strings"
	"testing"
)

// TestSearchRerankWeight: SearchRequest.RerankWeight reaches the pipeline,
// which refuses a weight outside [0, 1] with a message naming it; 0 and an
// in-range weight search.
func TestSearchRerankWeight(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, dir, modelFreeRegistry(t))
	addAll(t, s, texts)
	for _, tc := range []struct {
		w       float64
		wantErr string
	}{
		{0, ""},
		{0.5, ""},
		{1.5, "rerank weight 1.5"},
		{-0.1, "rerank weight -0.1"},
	} {
		res, err := s.Search(ctx, SearchRequest{Query: "rocksdb build error", Mode: ModePipeline, RerankWeight: tc.w})
		switch {
		case tc.wantErr == "" && (err != nil || len(res.Hits) == 0):
			t.Errorf("weight %g: %v, %d hits; want results", tc.w, err, len(res.Hits))
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("weight %g: error %v, want one naming %q", tc.w, err, tc.wantErr)
		}
	}
}

// TestFallbackRerankSkip: with the real models E12 is the e5 token-state
// fallback, so pipeline mode skips S4 for a profile that weighs E12 0 and
// says why; an explicit rerank weight, or a profile that weighs E12,
// reranks with it.
func TestFallbackRerankSkip(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds memories with real models")
	}
	ctx := context.Background()
	reg := neuralRegistry(t)
	if st := reg.Get(E12).Status(); st.State != SlotFallback {
		t.Skipf("E12 is %v here, not the fallback", st.State)
	}
	s := openStore(t, t.TempDir(), reg)
	addAll(t, s, texts)
	s4 := func(res SearchResult) string {
		for _, st := range res.Trace {
			if st.Stage == "S4 rerank" {
				return st.Note
			}
		}
		return ""
	}
	semantic, err := LookupProfile("semantic_search")
	if err != nil {
		t.Fatal(err)
	}
	typo, err := LookupProfile("typo_tolerant") // weighs E12 itself
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  SearchRequest
		want string
	}{
		{"fallback, profile weighs E12 0", SearchRequest{Query: "rocksdb build error", Mode: ModePipeline, Profile: semantic}, "skipped: E12 is the e5 token-state fallback"},
		{"explicit weight", SearchRequest{Query: "rocksdb build error", Mode: ModePipeline, Profile: semantic, RerankWeight: 0.15}, "E12 MaxSim weight 0.15"},
		{"profile weighs E12", SearchRequest{Query: "rocksdb build error", Mode: ModePipeline, Profile: typo}, "(profile)"},
	} {
		res, err := s.Search(ctx, tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := s4(res); !strings.Contains(n, tc.want) || len(res.Hits) == 0 {
			t.Errorf("%s: S4 note %q, %d hits; want %q", tc.name, n, len(res.Hits), tc.want)
		}
	}
}
