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
