package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

func TestTokenCacheLRU(t *testing.T) {
	m, err := indexes.QuantizeTokens(4, []float32{1, 0, 0, 0, 0, 1, 0, 0}) // 2 rows: 8 + 8 + 64 bytes
	if err != nil {
		t.Fatal(err)
	}
	c := newTokenCache(3 * 80)
	for d := range uint32(4) {
		c.put(d, m)
	}
	if _, ok := c.get(0); ok {
		t.Fatal("the least recently used matrix was kept past the byte bound")
	}
	for d := uint32(1); d < 4; d++ {
		if _, ok := c.get(d); !ok {
			t.Fatalf("doc %d evicted too early", d)
		}
	}
	c.remove(2)
	if _, ok := c.get(2); ok || c.used != 2*80 {
		t.Fatalf("remove: bytes %d", c.used)
	}
	c.clear()
	if _, ok := c.get(1); ok || c.used != 0 {
		t.Fatal("clear kept entries")
	}
	var off *tokenCache // nil: every call is a no-op
	off.put(1, m)
	if _, ok := off.get(1); ok {
		t.Fatal("a nil cache returned a matrix")
	}
}

// TestTokenCacheSameResults: pipeline searches give the same ranking with
// the E12 cache as without it, the second time from the cache too.
func TestTokenCacheSameResults(t *testing.T) {
	ctx := context.Background()
	reg := hashRegistry(t, "tokencache")
	dir := filepath.Join(t.TempDir(), "s")
	s := openStore(t, dir, reg)
	for _, c := range texts {
		if _, err := s.Add(ctx, record.NewMemory{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := profiles.Lookup("pipeline_full")
	if err != nil {
		t.Fatal(err)
	}
	search := func(e *Engine) []record.ID {
		res, err := e.Search(ctx, SearchRequest{Query: "RocksDB error fix", Profile: p, Mode: pipeline.ModePipeline, TopK: 8, NoThresholds: true})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]record.ID, len(res.Memories))
		for i, m := range res.Memories {
			out[i] = m.ID
		}
		return out
	}
	first, second := search(s), search(s)
	if n, _ := s.tokens.size(); n == 0 {
		t.Fatal("S4 cached no matrix")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	uncached, err := Open(dir, Options{Embedders: reg, TokenCacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer uncached.Close()
	if uncached.tokens != nil {
		t.Fatal("TokenCacheBytes -1 kept a cache")
	}
	want := search(uncached)
	for i := range want {
		if first[i] != want[i] || second[i] != want[i] {
			t.Fatalf("rank %d: cached %v / %v, uncached %v", i, first, second, want)
		}
	}
}
