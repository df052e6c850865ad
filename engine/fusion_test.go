package engine

import (
	"context"
	"strings"
	"testing"
)

// TestStoreFusion: a store opened with Options.Fusion runs searches that
// name no fusion with it, a request's own fusion wins, single-slot modes
// report none, and a bad option is refused at open.
func TestStoreFusion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openStore(t, dir, modelFreeRegistry(t))
	addAll(t, w, texts)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{Embedders: modelFreeRegistry(t), Fusion: FusionMinMax})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s3 := func(res SearchResult) string {
		for _, st := range res.Trace {
			if st.Stage == "S3 fusion" {
				return st.Note
			}
		}
		return ""
	}
	for _, tc := range []struct {
		name string
		req  SearchRequest
		want Fusion
		note string
	}{
		{"store default", SearchRequest{Query: "rocksdb build error", Mode: ModeMultiSpace}, FusionMinMax, "min-max fusion"},
		{"pipeline", SearchRequest{Query: "rocksdb build error", Mode: ModePipeline}, FusionMinMax, "min-max fusion"},
		{"request wins", SearchRequest{Query: "rocksdb build error", Mode: ModeMultiSpace, Fusion: FusionRRF}, FusionRRF, "WRRF"},
		{"single slot", SearchRequest{Query: "rocksdb build error", Mode: ModeEmbedderFirst, Embedder: E6}, FusionDefault, ""},
	} {
		res, err := s.Search(ctx, tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Fusion != tc.want || !strings.Contains(s3(res), tc.note) || len(res.Hits) == 0 {
			t.Errorf("%s: fusion %v, S3 note %q, %d hits; want %v and %q", tc.name, res.Fusion, s3(res), len(res.Hits), tc.want, tc.note)
		}
	}
	if _, err := Open(dir, Options{Embedders: modelFreeRegistry(t), ReadOnly: true, Fusion: Fusion(7)}); err == nil || !strings.Contains(err.Error(), "invalid fusion") {
		t.Errorf("Open with fusion 7: %v", err)
	}
}
