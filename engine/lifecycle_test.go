package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

func ptr[T any](v T) *T { return &v }

func mustProfile(t *testing.T, name string) profiles.Profile {
	t.Helper()
	p, err := profiles.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func hitIDs(res SearchResult) []record.ID {
	out := make([]record.ID, len(res.Memories))
	for i, m := range res.Memories {
		out[i] = m.ID
	}
	return out
}

func rawFingerprint(t *testing.T, s *Engine, id record.ID) []byte {
	t.Helper()
	var out []byte
	if err := s.cellar.Scan(context.Background(), cellar.FamFingerprints, id[:], func(_, v []byte) error { out = v; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUpdate: a content change re-fingerprints (search finds the new words,
// not the old), keeps the id and counts the revision, with the old content
// in History; a record-only change leaves the fingerprint's bytes alone; a
// change that changes nothing writes nothing; bad input is refused and
// writes nothing; the store checks clean after each.
func TestUpdate(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	ms := addAll(t, s, texts)
	target := ms[3] // the HNSW memory
	fp0 := rawFingerprint(t, s, target.ID)

	res, err := s.Update(ctx, target.ID, record.Change{AddTags: []string{"ann"}, SetMeta: map[string]string{"ticket": "CG-7"}, Importance: ptr(0.8)})
	if err != nil || !res.Changed || res.Reembedded || res.Memory.Revision != 2 || res.Memory.Meta["ticket"] != "CG-7" ||
		!slices.Contains(res.Memory.Tags, "ann") || res.Memory.Importance != 0.8 {
		t.Fatalf("record-only update: %+v, %v", res, err)
	}
	if !bytes.Equal(rawFingerprint(t, s, target.ID), fp0) {
		t.Fatal("a record-only update rewrote the fingerprint")
	}

	newText := "Quantization: int8 vectors with per-row scales cut dense RAM fourfold"
	res, err = s.Update(ctx, target.ID, record.Change{Content: ptr(newText)})
	if err != nil || !res.Changed || !res.Reembedded || res.Memory.Revision != 3 || res.Memory.ID != target.ID || res.Memory.DocNum != target.DocNum {
		t.Fatalf("content update: %+v, %v", res, err)
	}
	if bytes.Equal(rawFingerprint(t, s, target.ID), fp0) {
		t.Fatal("a content update kept the old fingerprint")
	}
	find := func(q string) []record.ID {
		r, err := s.Search(ctx, SearchRequest{Query: q, Profile: mustProfile(t, "pipeline_full"), TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		return hitIDs(r)
	}
	if got := find("int8 quantization per-row scales"); len(got) == 0 || got[0] != target.ID {
		t.Fatalf("search for the new content: %v, want %s first", got, target.ID)
	}
	if got := find("HNSW coder/hnsw wrong neighbours sign sketches"); len(got) > 0 && got[0] == target.ID {
		t.Fatal("the old content still finds the updated memory first")
	}
	h, err := s.History(ctx, target.ID)
	if err != nil || len(h) != 2 || h[0].Content != target.Content || h[0].Revision != 1 || h[1].Revision != 2 || h[1].Meta["ticket"] != "CG-7" {
		t.Fatalf("history: %+v, %v", h, err)
	}

	// Nothing to change, and changes to what is already there.
	var ve *record.ValidationError
	if _, err := s.Update(ctx, target.ID, record.Change{}); !errors.As(err, &ve) {
		t.Fatalf("empty change: %v", err)
	}
	res, err = s.Update(ctx, target.ID, record.Change{Content: ptr(newText), AddTags: []string{"ann"}})
	if err != nil || res.Changed || res.Memory.Revision != 3 {
		t.Fatalf("a change to the same values: %+v, %v", res, err)
	}
	for _, c := range []record.Change{{Importance: ptr(2.0)}, {Content: ptr("  ")}, {Type: ptr(record.Type("nope"))},
		{SetMeta: map[string]string{"bad key": "v"}}, {AddTags: []string{""}}} {
		if _, err := s.Update(ctx, target.ID, c); !errors.As(err, &ve) {
			t.Fatalf("bad change %+v: %v, want a validation error", c, err)
		}
	}
	if m, err := s.Get(ctx, target.ID); err != nil || m.Revision != 3 || m.Content != newText {
		t.Fatalf("after refused changes: %+v, %v", m, err)
	}
	if _, err := s.Update(ctx, record.NewID(), record.Change{Importance: ptr(0.1)}); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("update of a missing memory: %v", err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("check after updates: %v", err)
	}
	// Reopened, the update holds (indexes rebuilt from the families).
	dir := s.Dir()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir, hashRegistry(t, ""))
	if got := find("int8 quantization per-row scales"); len(got) == 0 || got[0] != target.ID {
		t.Fatalf("after reopening: %v", got)
	}
}

// TestFiltersKeepTopKFull: with most memories filtered out the search still
// returns min(k, matching) hits, every one matching; each filter field
// agrees with record.Filter.Match over the whole store.
func TestFiltersKeepTopKFull(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ns []record.NewMemory
	for i := range 60 {
		n := record.NewMemory{Content: fmt.Sprintf("%s (variant %d)", texts[i%len(texts)], i), CreatedAt: base.Add(time.Duration(i) * time.Hour),
			Type: record.TypeNote, Importance: 0.5, Tags: []string{fmt.Sprintf("t%d", i%3)}}
		if i%12 == 0 {
			n.Type = record.TypeDecision
			n.Tags = append(n.Tags, "arch")
			n.Meta = map[string]string{"team": "search"}
			n.Importance = 0.9
		}
		if i%20 == 0 {
			n.Project = "other"
		}
		ns = append(ns, n)
	}
	all, err := s.AddBatch(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	filters := map[string]record.Filter{
		"default project":    {},
		"type decision":      {Types: []record.Type{record.TypeDecision}},
		"tags any":           {TagsAny: []string{"arch", "t1"}},
		"tags all":           {TagsAll: []string{"arch", "t0"}},
		"meta":               {Meta: map[string]string{"team": "search"}},
		"created window":     {CreatedAfter: base.Add(10 * time.Hour), CreatedBefore: base.Add(14 * time.Hour)},
		"importance":         {MinImportance: 0.8},
		"project other":      {Project: "other"},
		"all projects":       {AllProjects: true, Types: []record.Type{record.TypeDecision}},
		"nothing matches":    {Meta: map[string]string{"team": "nobody"}},
		"updated after soon": {UpdatedAfter: time.Now().Add(time.Hour)},
	}
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			var want []record.ID
			for _, m := range all {
				if f.Match(m, false) {
					want = append(want, m.ID)
				}
			}
			res, err := s.Search(ctx, SearchRequest{Query: "errors and decisions about the build", Filter: f, TopK: 10, Mode: 0})
			if err != nil {
				t.Fatal(err)
			}
			if n := min(10, len(want)); len(res.Memories) != n {
				t.Fatalf("%d hits, want %d (of %d matching)", len(res.Memories), n, len(want))
			}
			for _, m := range res.Memories {
				if !slices.Contains(want, m.ID) {
					t.Fatalf("hit %s (%+v) does not match the filter", m.ID, m)
				}
			}
		})
	}
	if _, err := s.Search(ctx, SearchRequest{Query: "x", Filter: record.Filter{MinImportance: 3}}); err == nil {
		t.Fatal("a filter with importance 3 was accepted")
	}
}

// TestProjectsAndDedup: the same content in two projects is two memories;
// a search stays inside its project.
func TestProjectsAndDedup(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	a, err := s.Add(ctx, record.NewMemory{Content: texts[0]})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Add(ctx, record.NewMemory{Content: texts[0], Project: "p"})
	if err != nil || b.Duplicate || b.ID == a.ID {
		t.Fatalf("same content in another project: %+v, %v", b, err)
	}
	if c, err := s.Add(ctx, record.NewMemory{Content: texts[0], Project: "p"}); err != nil || !c.Duplicate || c.ID != b.ID {
		t.Fatalf("same content in the same project: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		f    record.Filter
		want []record.ID
	}{{record.Filter{}, []record.ID{a.ID}}, {record.Filter{Project: "p"}, []record.ID{b.ID}}, {record.Filter{AllProjects: true}, []record.ID{a.ID, b.ID}}} {
		res, err := s.Search(ctx, SearchRequest{Query: "grocksdb", Filter: tc.f})
		if err != nil {
			t.Fatal(err)
		}
		got := hitIDs(res)
		slices.SortFunc(got, func(x, y record.ID) int { return bytes.Compare(x[:], y[:]) })
		slices.SortFunc(tc.want, func(x, y record.ID) int { return bytes.Compare(x[:], y[:]) })
		if !slices.Equal(got, tc.want) {
			t.Fatalf("filter %+v: %v, want %v", tc.f, got, tc.want)
		}
	}
}

// TestRelations: links in both directions, Related by depth and type,
// supersede hides from default search and badges when included, unlink and
// deleting the newer memory bring the older back, and a relation goes with
// either end. The marks survive a reopen and reach a read-only reader.
func TestRelations(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s")
	s := openStore(t, dir, hashRegistry(t, ""))
	ms := addAll(t, s, texts)
	errMem, fixMem, cause := ms[1], ms[5], ms[7]
	link := func(from, to record.ID, typ record.RelationType) {
		t.Helper()
		if _, err := s.Link(ctx, record.Relation{From: from, To: to, Type: typ}); err != nil {
			t.Fatal(err)
		}
	}
	link(fixMem.ID, errMem.ID, record.RelFixes)
	link(cause.ID, errMem.ID, record.RelCauses)
	link(ms[0].ID, cause.ID, record.RelInforms)

	rel, err := s.Related(ctx, errMem.ID, RelatedOptions{})
	if err != nil || len(rel) != 2 || rel[0].Depth != 1 {
		t.Fatalf("related depth 1: %+v, %v", rel, err)
	}
	rel, err = s.Related(ctx, errMem.ID, RelatedOptions{Depth: 2})
	if err != nil || len(rel) != 3 || rel[2].Memory.ID != ms[0].ID || rel[2].Depth != 2 || rel[2].Via != cause.ID {
		t.Fatalf("related depth 2: %+v, %v", rel, err)
	}
	rel, err = s.Related(ctx, errMem.ID, RelatedOptions{Types: []record.RelationType{record.RelFixes}, Depth: 3})
	if err != nil || len(rel) != 1 || rel[0].Memory.ID != fixMem.ID || rel[0].Relation.Type != record.RelFixes {
		t.Fatalf("related by fixes: %+v, %v", rel, err)
	}
	if _, err := s.Related(ctx, errMem.ID, RelatedOptions{Depth: 4}); err == nil {
		t.Fatal("depth 4 accepted")
	}

	// Expand: a search that finds the error brings its fix along.
	res, err := s.Search(ctx, SearchRequest{Query: "authentication failed admin token", TopK: 1, Expand: []record.RelationType{record.RelFixes}})
	if err != nil || len(res.Memories) != 1 || res.Memories[0].ID != errMem.ID || len(res.Expanded) != 1 || res.Expanded[0].Memory.ID != fixMem.ID {
		t.Fatalf("expand: hits %v expanded %+v, %v", hitIDs(res), res.Expanded, err)
	}

	// The filter chooses the hits, not what their relations bring: errors
	// only, expanded by fixes, still brings a fix of another type.
	if _, err := s.Update(ctx, fixMem.ID, record.Change{Type: ptr(record.TypePattern)}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Search(ctx, SearchRequest{Query: "authentication failed admin token", TopK: 1, Filter: record.Filter{Types: []record.Type{record.TypeNote}},
		Expand: []record.RelationType{record.RelFixes}})
	if err != nil || len(res.Expanded) != 1 || res.Expanded[0].Memory.Type != record.TypePattern {
		t.Fatalf("expand under a type filter: %+v, %v", res.Expanded, err)
	}

	// Supersede: a new decision replaces ms[0].
	newer, err := s.Add(ctx, record.NewMemory{Content: "Decision: pin grocksdb at v1.8.0 now that Debian ships librocksdb 8"})
	if err != nil {
		t.Fatal(err)
	}
	link(newer.ID, ms[0].ID, record.RelSupersedes)
	inResults := func(s *Engine, f record.Filter) (bool, record.Memory) {
		t.Helper()
		res, err := s.Search(ctx, SearchRequest{Query: "pin grocksdb librocksdb", TopK: 10, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Memories {
			if m.ID == ms[0].ID {
				return true, m
			}
		}
		return false, record.Memory{}
	}
	if in, _ := inResults(s, record.Filter{}); in {
		t.Fatal("a superseded memory is in a default search")
	}
	if in, m := inResults(s, record.Filter{Superseded: record.IncludeSuperseded}); !in || !slices.Equal(m.SupersededBy, []record.ID{newer.ID}) {
		t.Fatalf("included superseded memory: in=%v superseded by %v", in, m.SupersededBy)
	}
	if m, err := s.Get(ctx, ms[0].ID); err != nil || len(m.SupersededBy) != 1 {
		t.Fatalf("get of a superseded memory: %+v, %v", m, err)
	}

	// A reader opened now, and the writer reopened, see the mark.
	ro, err := Open(dir, Options{ReadOnly: true, Embedders: hashRegistry(t, "")})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if in, _ := inResults(ro, record.Filter{}); in {
		t.Fatal("a reader shows a superseded memory")
	}
	// Unlinking on the writer reaches the reader at its next search.
	if ok, err := s.Unlink(ctx, newer.ID, ms[0].ID, record.RelSupersedes); err != nil || !ok {
		t.Fatalf("unlink: %v %v", ok, err)
	}
	if in, _ := inResults(s, record.Filter{}); !in {
		t.Fatal("unlinked memory still hidden")
	}
	if in, _ := inResults(ro, record.Filter{}); !in {
		t.Fatal("the reader did not follow the unlink")
	}
	link(newer.ID, ms[0].ID, record.RelSupersedes)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir, hashRegistry(t, ""))
	if in, _ := inResults(s, record.Filter{}); in {
		t.Fatal("the supersede mark did not survive a reopen")
	}
	// Deleting the newer memory frees the older one; deleting an end drops its relations.
	if err := s.Delete(ctx, newer.ID); err != nil {
		t.Fatal(err)
	}
	if in, _ := inResults(s, record.Filter{}); !in {
		t.Fatal("the memory stays hidden after its superseder was deleted")
	}
	if err := s.Delete(ctx, errMem.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []record.ID{fixMem.ID, cause.ID} {
		rel, err := s.Related(ctx, id, RelatedOptions{Types: []record.RelationType{record.RelFixes, record.RelCauses}})
		if err != nil || len(rel) != 0 {
			t.Fatalf("relations of %s to a deleted memory: %+v, %v", id, rel, err)
		}
	}
	if _, err := s.Link(ctx, record.Relation{From: fixMem.ID, To: errMem.ID, Type: record.RelFixes}); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("link to a deleted memory: %v", err)
	}
	if _, err := s.Link(ctx, record.Relation{From: fixMem.ID, To: cause.ID, Type: record.RelFixes, Weight: 1.5}); err == nil {
		t.Fatal("weight 1.5 accepted")
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("check: %v", err)
	}
}
