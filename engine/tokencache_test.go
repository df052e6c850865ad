package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cgraph/cgraph/engine/internal/cellar"
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
	for d := range record.DocNum(4) {
		c.put(d, m)
	}
	if _, ok := c.get(0); ok {
		t.Fatal("the least recently used matrix was kept past the byte bound")
	}
	for d := record.DocNum(1); d < 4; d++ {
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

// TestWarmTokens: a reopened store's WarmTokens caches the matrices of the
// newest memories while they fit, the very bytes e12_late_interaction
// holds, never evicting; an update after the warm-up drops the stale one,
// and a store without a cache warms nothing.
func TestWarmTokens(t *testing.T) {
	ctx := context.Background()
	reg := hashRegistry(t, "warmtokens")
	dir := filepath.Join(t.TempDir(), "s")
	s := openStore(t, dir, reg)
	var ids []record.ID
	for _, m := range addAll(t, s, texts) {
		ids = append(ids, m.ID)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A budget for about half of the matrices.
	probe, err := Open(dir, Options{Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	n, err := probe.WarmTokens(ctx)
	if err != nil || n != len(texts) {
		t.Fatalf("warm with room for all: %d of %d, %v", n, len(texts), err)
	}
	_, all := probe.tokens.size()
	if err := probe.Close(); err != nil {
		t.Fatal(err)
	}
	w, err := Open(dir, Options{Embedders: reg, TokenCacheBytes: all / 2})
	if err != nil {
		t.Fatal(err)
	}
	n, err = w.WarmTokens(ctx)
	if err != nil || n == 0 || n >= len(texts) {
		t.Fatalf("warm with room for half: %d of %d, %v", n, len(texts), err)
	}
	entries, used := w.tokens.size()
	if entries != n || used > all/2 {
		t.Fatalf("%d entries, %d of %d bytes", entries, used, all/2)
	}
	// The newest memories are the ones cached, with their stored matrix.
	for i, id := range ids {
		m, err := w.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got, cached := w.tokens.get(m.DocNum)
		if newest := i >= len(ids)-n; cached != newest {
			t.Fatalf("memory %d of %d: cached %v, want %v", i, len(ids), cached, newest)
		}
		if !cached {
			continue
		}
		vals, err := w.cellar.Values(ctx, cellar.FamE12LateInteraction, [][]byte{docKey(m.DocNum)})
		if err != nil {
			t.Fatal(err)
		}
		want, err := indexes.DecodeTokenMatrix(vals[0])
		if err != nil {
			t.Fatal(err)
		}
		if got.Rows() != want.Rows() || got.Dim() != want.Dim() {
			t.Fatalf("memory %d: cached %d×%d, stored %d×%d", i, got.Rows(), got.Dim(), want.Rows(), want.Dim())
		}
	}
	// An update drops the warmed matrix of its memory.
	last := ids[len(ids)-1]
	m, _ := w.Get(ctx, last)
	if _, err := w.Update(ctx, last, record.Change{Content: ptr("a different text about RocksDB column families")}); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.tokens.get(m.DocNum); ok {
		t.Fatal("the updated memory's old matrix is still cached")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	off, err := Open(dir, Options{Embedders: reg, TokenCacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if n, err := off.WarmTokens(ctx); n != 0 || err != nil {
		t.Fatalf("no cache warmed %d, %v", n, err)
	}
}
