package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
)

// countingEmbedder counts EmbedQuery calls of the embedder it wraps.
type countingEmbedder struct {
	embedders.Embedder
	calls *atomic.Int64
}

func (c countingEmbedder) EmbedQuery(ctx context.Context, q embedders.Query) (embedders.QueryView, error) {
	c.calls.Add(1)
	return c.Embedder.EmbedQuery(ctx, q)
}

// TestViewCache: a query asked again is answered from cached views — the
// same results, no model call for the text-only slots — while the temporal
// slots, which depend on the time, are encoded every time; a cache of size
// -1 is off.
func TestViewCache(t *testing.T) {
	ctx := context.Background()
	base := hashRegistry(t, "")
	var e1, e2 atomic.Int64
	var es []embedders.Embedder
	for _, sl := range fingerprint.Slots() {
		e := base.Get(sl)
		switch sl {
		case fingerprint.E1:
			e = countingEmbedder{e, &e1}
		case fingerprint.E2:
			e = countingEmbedder{e, &e2}
		}
		es = append(es, e)
	}
	reg, err := embedders.NewRegistry(es...)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{0, -1} {
		e1.Store(0)
		e2.Store(0)
		s, err := Open(t.TempDir(), Options{Create: true, Embedders: reg, ViewCacheSize: size})
		if err != nil {
			t.Fatal(err)
		}
		addAll(t, s, texts)
		req := SearchRequest{Query: "rocksdb build failed", Mode: pipeline.ModeMultiSpace, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
		first, err := s.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		second, err := s.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Hits) == 0 || len(first.Hits) != len(second.Hits) || first.Hits[0].Doc != second.Hits[0].Doc {
			t.Fatalf("cache %d: results differ: %v vs %v", size, first.Hits, second.Hits)
		}
		wantE1 := int64(1)
		if size < 0 {
			wantE1 = 2
		}
		if e1.Load() != wantE1 || e2.Load() != 2 {
			t.Errorf("cache %d: E1 encoded %d times (want %d), E2 %d (want 2)", size, e1.Load(), wantE1, e2.Load())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTypoCorrection: a query word that is one edit from a word of the
// store's vocabulary is replaced before encoding, reported, and the search
// then ranks like the clean query; NoCorrect searches the words as typed.
func TestTypoCorrection(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), hashRegistry(t, ""))
	addAll(t, s, texts)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clean, err := s.Search(ctx, SearchRequest{Query: "authentication failed for admin", Mode: pipeline.ModeMultiSpace, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	typo, err := s.Search(ctx, SearchRequest{Query: "authentcation failed for admin", Mode: pipeline.ModeMultiSpace, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(typo.Corrections) != 1 || typo.Corrections[0] != (Correction{"authentcation", "authentication"}) ||
		typo.Corrected != "authentication failed for admin" || typo.Query != "authentcation failed for admin" {
		t.Fatalf("corrections %+v, corrected %q, query %q", typo.Corrections, typo.Corrected, typo.Query)
	}
	if len(typo.Hits) == 0 || typo.Hits[0].Doc != clean.Hits[0].Doc {
		t.Errorf("corrected search ranks %v first, the clean query %v", typo.Hits, clean.Hits[0])
	}
	raw, err := s.Search(ctx, SearchRequest{Query: "authentcation failed for admin", Mode: pipeline.ModeMultiSpace, Now: now, NoCorrect: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.Corrections) != 0 || raw.Corrected != raw.Query {
		t.Errorf("NoCorrect corrected: %+v", raw.Corrections)
	}
}
