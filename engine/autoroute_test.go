package engine

import (
	"context"
	"math"
	"testing"
)

var codeTexts = []string{
	"func (c *Cache) evictOldest() {\n\tdelete(c.items, c.order[0])\n\tc.order = c.order[1:]\n}",
	"func parseHeader(line string) (string, string, error) {\n\tk, v, ok := strings.Cut(line, \":\")\n\treturn k, v, nil\n}",
	"def retry_with_backoff(fn, attempts=5):\n    for i in range(attempts):\n        time.sleep(2 ** i)",
	"public String toString() {\n    return name + \"=\" + value;\n}",
}

// TestAutoRoutesOnCode checks the auto profile's routing through the
// engine: the share of top hits that are code is what the store
// holds (derived from content on write and again on open), and a deleted
// function no longer counts.
func TestAutoRoutesOnCode(t *testing.T) {
	ctx := context.Background()
	auto, err := LookupProfile("auto")
	if err != nil {
		t.Fatal(err)
	}
	share := func(s *Engine) float64 {
		t.Helper()
		res, err := s.Search(ctx, SearchRequest{Query: "evict the oldest cache entry", Profile: auto, Mode: ModeMultiSpace})
		if err != nil {
			t.Fatal(err)
		}
		if res.Auto == nil {
			t.Fatal("no auto decision")
		}
		return res.Auto.CodeShare
	}
	dir := t.TempDir()
	s := openStore(t, dir, hashRegistry(t, "route"))
	code := addAll(t, s, codeTexts)
	if got := share(s); got != 1 {
		t.Errorf("store of functions: code share %g, want 1", got)
	}
	addAll(t, s, texts) // 8 notes beside 4 functions; every doc is in some top 10
	if got := share(s); math.Abs(got-4.0/12) > 1e-9 {
		t.Errorf("mixed store: code share %g, want 4/12", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir, hashRegistry(t, "route"))
	if got := share(s); math.Abs(got-4.0/12) > 1e-9 {
		t.Errorf("mixed store reopened: code share %g, want 4/12", got)
	}
	for _, m := range code[:2] {
		if err := s.Delete(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if got := share(s); math.Abs(got-2.0/10) > 1e-9 {
		t.Errorf("after deleting two functions: code share %g, want 2/10", got)
	}
}
