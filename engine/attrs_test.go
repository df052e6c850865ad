package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/record"
)

// attrsOf builds an attribute table of n memories: types round-robin, one
// project in 50 not the default, tags t0–t9, every tenth importance 0.9.
func attrsOf(n int) (*attrs, *roaring.Bitmap) {
	a, live := newAttrs(), roaring.New()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	types := record.Types()
	for i := range n {
		m := record.Memory{DocNum: record.DocNum(i), Type: types[i%len(types)], Tags: []string{fmt.Sprintf("t%d", i%10)},
			CreatedAt: base.Add(time.Duration(i) * time.Minute), Importance: 0.5}
		if i%50 == 0 {
			m.Project = "other"
		}
		if i%10 == 0 {
			m.Importance = 0.9
		}
		a.set(m)
		live.Add(uint32(i))
	}
	return a, live
}

// TestAttrsAgreeWithMatch: the bitmap a filter gives is exactly the docs
// record.Filter.Match keeps, for each kind of field, and the filter that
// keeps everything gives nil (no restriction).
func TestAttrsAgreeWithMatch(t *testing.T) {
	a, live := attrsOf(500)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, f := range map[string]record.Filter{
		"default":    {},
		"all":        {AllProjects: true},
		"type":       {Types: []record.Type{record.TypeError, record.TypeNote}},
		"tags":       {TagsAny: []string{"t1", "t2"}, TagsAll: []string{"t1"}},
		"time":       {AllProjects: true, CreatedAfter: base.Add(100 * time.Minute), CreatedBefore: base.Add(200 * time.Minute)},
		"importance": {MinImportance: 0.8},
		"none":       {Project: "nowhere"},
	} {
		got := a.allow(f, live)
		n := 0
		for d := range 500 {
			r := a.rows[d]
			m := record.Memory{Type: r.typ, Tags: r.tags, Project: r.project, CreatedAt: time.Unix(0, r.created).UTC(), Importance: r.importance}
			want := f.Match(m, false)
			if want {
				n++
			}
			if in := got == nil || got.Contains(uint32(d)); in != want {
				t.Fatalf("%s: doc %d in the bitmap %v, Match says %v", name, d, in, want)
			}
		}
		if (got == nil) != (n == 500) {
			t.Fatalf("%s: nil bitmap %v with %d of 500 matching", name, got == nil, n)
		}
	}
}

// BenchmarkAllow: the per-search cost of turning a filter into a bitmap at
// 100k memories (the default filter, a type, and a time window that scans
// rows).
func BenchmarkAllow(b *testing.B) {
	a, live := attrsOf(100_000)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		f    record.Filter
	}{{"default", record.Filter{}}, {"type", record.Filter{Types: []record.Type{record.TypeDecision}}},
		{"created_window", record.Filter{CreatedAfter: base.Add(1000 * time.Hour)}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				a.allow(c.f, live)
			}
		})
	}
}

// TestAttrsCode: the code bitmap marks exactly the memories that read as
// code (codeview.IsCode), follows a content change, and forgets a deleted
// memory.
func TestAttrsCode(t *testing.T) {
	a := newAttrs()
	docs := []struct {
		content string
		code    bool
	}{
		{"func (c *Cache) evictOldest() {\n\tdelete(c.items, c.order[0])\n}", true},
		{"def parse_header(line):\n    return line.split(':')", true},
		{"The cache was stale because the writer never flushed.", false},
		{"Decided: keep WRRF as the default fusion (ARCH-21).", false},
		{"@Override\npublic String toString() {\n  return name;\n}", true},
		{"function (a, b) {\n  return a + b;\n}", true}, // no name: read by its lines
	}
	for i, d := range docs {
		a.set(record.Memory{DocNum: record.DocNum(i), Content: d.content})
	}
	for i, d := range docs {
		if got := a.code.Contains(uint32(i)); got != d.code {
			t.Errorf("doc %d %q: code %v, want %v", i, d.content, got, d.code)
		}
	}
	a.set(record.Memory{DocNum: 0, Content: "now a note in words"})
	if a.code.Contains(0) {
		t.Error("doc 0 still marked code after its content became prose")
	}
	a.remove(1)
	if a.code.Contains(1) {
		t.Error("deleted doc 1 still marked code")
	}
	if got := a.code.GetCardinality(); got != 2 {
		t.Errorf("%d docs marked code, want 2 (docs 4 and 5)", got)
	}
}
