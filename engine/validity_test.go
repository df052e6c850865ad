package engine

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

// TestSearchAsOf: a search as of T shows the memories created at or
// before T and not ended at or before it, each with the revision it had
// then; the default search shows what is valid now; superseded include and
// only keep working beside as_of; a reader opened afterwards agrees.
func TestSearchAsOf(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s")
	s := openStore(t, dir, hashRegistry(t, ""))
	jan, feb := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	old, err := s.Add(ctx, record.NewMemory{Content: "Deploy releases with the blue-green script", CreatedAt: jan})
	if err != nil {
		t.Fatal(err)
	}
	newer, err := s.Add(ctx, record.NewMemory{Content: "Deploy releases with the canary pipeline", CreatedAt: feb})
	if err != nil {
		t.Fatal(err)
	}
	beforeEdit := time.Now().UTC()
	time.Sleep(2 * time.Millisecond) // the update's time must differ from beforeEdit
	if _, err := s.Update(ctx, old.ID, record.Change{Content: ptr("Deploy releases with the blue-green script v2")}); err != nil {
		t.Fatal(err)
	}
	link, err := s.Link(ctx, record.Relation{From: newer.ID, To: old.ID, Type: record.RelSupersedes})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, old.ID)
	if err != nil || !got.ValidUntil.Equal(link.CreatedAt) {
		t.Fatalf("the supersedes link did not end the old memory at its time: %v, %v (link %v)", got.ValidUntil, err, link.CreatedAt)
	}
	after := link.CreatedAt.Add(time.Second)
	type want struct {
		id      record.ID
		content string
	}
	for _, c := range []struct {
		name string
		f    record.Filter
		want []want
	}{
		{"now", record.Filter{}, []want{{newer.ID, newer.Content}}},
		{"before anything", record.Filter{AsOf: jan.Add(-time.Hour)}, nil},
		{"only the old one existed", record.Filter{AsOf: jan.Add(time.Hour)}, []want{{old.ID, old.Content}}},
		{"both valid, before the edit", record.Filter{AsOf: beforeEdit}, []want{{old.ID, old.Content}, {newer.ID, newer.Content}}},
		{"after the link", record.Filter{AsOf: after}, []want{{newer.ID, newer.Content}}},
		{"after the link, ended included", record.Filter{AsOf: after, Superseded: record.IncludeSuperseded},
			[]want{{old.ID, "Deploy releases with the blue-green script v2"}, {newer.ID, newer.Content}}},
		{"after the link, only ended", record.Filter{AsOf: after, Superseded: record.OnlySuperseded}, []want{{old.ID, "Deploy releases with the blue-green script v2"}}},
		{"before the link, only ended", record.Filter{AsOf: beforeEdit, Superseded: record.OnlySuperseded}, nil},
	} {
		for _, e := range []*Engine{s, reader(t, dir)} {
			res, err := e.Search(ctx, SearchRequest{Query: "deploy releases", TopK: 10, NoThresholds: true, Filter: c.f})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var gotW []want
			for _, m := range res.Memories {
				gotW = append(gotW, want{m.ID, m.Content})
			}
			slices.SortFunc(gotW, func(a, b want) int { return bytes.Compare(a.id[:], b.id[:]) })
			if !slices.Equal(gotW, c.want) {
				t.Errorf("%s (read-only %v): got %+v, want %+v", c.name, e.ro, gotW, c.want)
			}
		}
	}
	// Unlinking makes the old memory valid again, now and at any time.
	if _, err := s.Unlink(ctx, newer.ID, old.ID, record.RelSupersedes); err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, SearchRequest{Query: "deploy releases", TopK: 10, NoThresholds: true, Filter: record.Filter{AsOf: after}})
	if err != nil || len(res.Memories) != 2 {
		t.Fatalf("after unlink, as of after the old link: %d memories, %v", len(res.Memories), err)
	}
}

// reader opens dir read-only beside the writer, closed at the test's end.
func reader(t *testing.T, dir string) *Engine {
	t.Helper()
	ro, err := Open(dir, Options{ReadOnly: true, Embedders: hashRegistry(t, "")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ro.Close() })
	return ro
}
