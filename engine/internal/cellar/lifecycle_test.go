package cellar

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestDeleteDropsHistoryAndRelations: a memory's earlier revisions and its
// relations (both directions, both keys of each) go with it, in its batch,
// and the other end keeps none of them.
func TestDeleteDropsHistoryAndRelations(t *testing.T) {
	ctx := context.Background()
	e := openTest(t, filepath.Join(t.TempDir(), "store"), Options{Create: true})
	var ids []record.ID
	for _, c := range []string{"a", "b", "c"} {
		m, err := e.Add(ctx, record.NewMemory{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	a, bID, c := ids[0], ids[1], ids[2]
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ma, _ := b.Memory(a)
	ma.Content = "a, revised"
	if _, _, err := b.Replace(ma); err != nil {
		t.Fatal(err)
	}
	for _, r := range []record.Relation{{From: a, To: bID, Type: record.RelFixes, Weight: 1}, {From: c, To: a, Type: record.RelCauses, Weight: 0.5},
		{From: bID, To: c, Type: record.RelInforms, Weight: 1}} {
		if err := b.Link(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	rels, err := e.Relations(ctx, a)
	if err != nil || len(rels) != 2 || rels[0].To != bID || rels[0].Type != record.RelFixes || rels[1].From != c || rels[1].Weight != 0.5 {
		t.Fatalf("relations of a: %+v, %v", rels, err)
	}
	if h, err := e.History(ctx, a); err != nil || len(h) != 1 || h[0].Content != "a" || h[0].Revision != 1 {
		t.Fatalf("history of a: %+v, %v", h, err)
	}
	if err := e.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	if h, err := e.History(ctx, a); err != nil || len(h) != 0 {
		t.Fatalf("history after delete: %+v, %v", h, err)
	}
	for _, id := range []record.ID{bID, c} {
		rels, err := e.Relations(ctx, id)
		if err != nil || len(rels) != 1 || rels[0].Type != record.RelInforms {
			t.Fatalf("relations of %s after deleting a: %+v, %v; want only b informs c", id, rels, err)
		}
	}
	n := 0
	if err := e.Scan(ctx, FamRelations, nil, func(_, _ []byte) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("relations family holds %d keys, want 2 (one edge, two directions): %v", n, err)
	}
}

// TestLinkRefusals: a link needs two different stored memories and a known
// type; Unlink of a missing edge reports false and writes nothing.
func TestLinkRefusals(t *testing.T) {
	ctx := context.Background()
	e := openTest(t, filepath.Join(t.TempDir(), "store"), Options{Create: true})
	m, err := e.Add(ctx, record.NewMemory{Content: "x"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	var ve *record.ValidationError
	if err := b.Link(record.Relation{From: m.ID, To: m.ID, Type: record.RelFixes}); !errors.As(err, &ve) {
		t.Fatalf("self link: %v", err)
	}
	if err := b.Link(record.Relation{From: m.ID, To: record.NewID(), Type: record.RelFixes}); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("link to a missing memory: %v", err)
	}
	if err := b.Link(record.Relation{From: m.ID, To: record.NewID(), Type: 0}); !errors.As(err, &ve) {
		t.Fatalf("link of type 0: %v", err)
	}
	if ok, err := b.Unlink(m.ID, record.NewID(), record.RelFixes); ok || err != nil {
		t.Fatalf("unlink of nothing: %v %v", ok, err)
	}
}

// TestReplaceKeepsPlace: Replace refuses to move a memory in the record
// indexes and counts revisions.
func TestReplaceKeepsPlace(t *testing.T) {
	ctx := context.Background()
	e := openTest(t, filepath.Join(t.TempDir(), "store"), Options{Create: true})
	m, err := e.Add(ctx, record.NewMemory{Content: "x", Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	moved := m
	moved.Sequence = 9
	if _, _, err := b.Replace(moved); err == nil {
		t.Fatal("Replace moved a memory to another sequence number")
	}
	m2 := m
	m2.Meta = map[string]string{"k": "v"}
	got, old, err := b.Replace(m2)
	if err != nil || got.Revision != 2 || old.Revision != 1 || !reflect.DeepEqual(got.Meta, m2.Meta) {
		t.Fatalf("Replace: %+v (old %+v), %v", got, old, err)
	}
	got.Importance = 0.9
	if got, _, err = b.Replace(got); err != nil || got.Revision != 3 {
		t.Fatalf("second Replace in one batch: %+v, %v", got, err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	h, err := e.History(ctx, m.ID)
	if err != nil || len(h) != 2 || h[0].Revision != 1 || h[1].Revision != 2 || h[1].Meta["k"] != "v" {
		t.Fatalf("history: %+v, %v", h, err)
	}
}

// TestCheckFindsBrokenRelationsAndHistory: a relation without its mirror,
// a relation to a memory that is not stored and a history entry of no
// memory are each named by Check.
func TestCheckFindsBrokenRelationsAndHistory(t *testing.T) {
	ctx := context.Background()
	e := openTest(t, filepath.Join(t.TempDir(), "store"), Options{Create: true})
	a, err := e.Add(ctx, record.NewMemory{Content: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Add(ctx, record.NewMemory{Content: "b"})
	if err != nil {
		t.Fatal(err)
	}
	bt, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := bt.Link(record.Relation{From: a.ID, To: b.ID, Type: record.RelFixes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if err := bt.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("a clean store with a relation fails Check: %v", err)
	}
	ghost := record.NewID()
	kb := e.kv.newBatch()
	kb.del(FamRelations, relationKey(relInPrefix, b.ID, record.RelFixes, a.ID))
	kb.put(FamRelations, relationKey(relOutPrefix, a.ID, record.RelCauses, ghost), encodeRelation(record.Relation{Weight: 1}))
	kb.put(FamHistory, historyKey(ghost, 1), encodeRecord(nil, &a))
	if err := e.kv.write(kb, true); err != nil {
		t.Fatal(err)
	}
	kb.destroy()
	err = e.Check(ctx)
	for _, want := range []string{"mirror key", "names a memory that is not stored", "history/"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Check: %v; want a problem mentioning %q", err, want)
		}
	}
	rep, err := e.RepairLinks(ctx)
	if err != nil || rep.DroppedHistory != 1 || rep.DroppedRelations != 1 || rep.Mirrored != 1 {
		t.Fatalf("RepairLinks: %+v, %v", rep, err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("Check after RepairLinks: %v", err)
	}
	if rels, err := e.Relations(ctx, b.ID); err != nil || len(rels) != 1 || rels[0].From != a.ID {
		t.Fatalf("the repaired relation: %+v, %v", rels, err)
	}
	if rep, err := e.RepairLinks(ctx); err != nil || rep.Changed() {
		t.Fatalf("a second RepairLinks changed %+v, %v", rep, err)
	}
}

// TestAbortLeavesNoHalfState: a batch that replaced a record, linked two
// memories and deleted a third, then never committed (a crash between
// prepare and commit), leaves the store exactly as it was.
func TestAbortLeavesNoHalfState(t *testing.T) {
	ctx := context.Background()
	e := openTest(t, filepath.Join(t.TempDir(), "store"), Options{Create: true})
	var ms []record.Memory
	for _, c := range []string{"a", "b", "c"} {
		m, err := e.Add(ctx, record.NewMemory{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	snapshot := func() map[string]string {
		out := map[string]string{}
		for f := Family(0); f < numFamilies; f++ {
			if err := e.Scan(ctx, f, nil, func(k, v []byte) error { out[f.String()+"/"+string(k)] = string(v); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	before := snapshot()
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	m.Content = "a, revised"
	if _, _, err := b.Replace(m); err != nil {
		t.Fatal(err)
	}
	if err := b.Link(record.Relation{From: ms[0].ID, To: ms[1].ID, Type: record.RelSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Delete(ms[2].ID); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	if after := snapshot(); !reflect.DeepEqual(before, after) {
		t.Fatalf("an aborted batch changed the store: %d keys before, %d after", len(before), len(after))
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecodeRelation: a relations entry never panics the decoder, and one
// it accepts re-encodes to the same key and value.
func FuzzDecodeRelation(f *testing.F) {
	a, b := record.ID{1, 2, 3}, record.ID{4, 5, 6}
	f.Add(relationKey(relOutPrefix, a, record.RelFixes, b), encodeRelation(record.Relation{Weight: 0.5}))
	f.Add(relationKey(relInPrefix, a, record.RelRelatedTo, b), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, k, v []byte) {
		r, out, err := decodeRelation(k, v)
		if err != nil {
			if !errors.Is(err, record.ErrCorrupt) {
				t.Fatalf("error without ErrCorrupt: %v", err)
			}
			return
		}
		dir, x, y := byte(relOutPrefix), r.From, r.To
		if !out {
			dir, x, y = relInPrefix, r.To, r.From
		}
		if got := relationKey(dir, x, r.Type, y); !bytes.Equal(got, k) {
			t.Fatalf("key %x re-encodes to %x", k, got)
		}
		if got := encodeRelation(r); !bytes.Equal(got, v) {
			t.Fatalf("value %x re-encodes to %x", v, got)
		}
	})
}
