package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

// memState is what an undo must bring back of a memory: its record
// (without the doc number, which is never reused), its earlier revisions
// and its relations, as JSON so a difference prints.
func memState(t *testing.T, s *Engine, id record.ID) string {
	t.Helper()
	ctx := context.Background()
	ms, found, err := s.Peek(ctx, []record.ID{id})
	if err != nil || !found[0] {
		t.Fatalf("peek %s: found %v, %v", id, found, err)
	}
	m := ms[0]
	m.DocNum = 0
	hist, err := s.History(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for i := range hist {
		hist[i].DocNum = 0
	}
	rels, err := s.Relations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{"memory": m, "history": hist, "relations": rels})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAuditUndoRoundTrip: maintain --apply prunes a superseded memory with
// history and relations, merges an exact copy (moving its links onto the
// memory kept) and links a near-duplicate; each action is in the audit log
// with its evidence; undoing each brings the memory, its history and its
// relations back as they were (only the doc number is new), its stored
// fingerprint byte for byte, searchable
// again, and not proposed again; the store checks clean after every step;
// a second undo is refused.
func TestAuditUndoRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	addAll(t, s, texts[4:])
	gone, err := s.Add(ctx, record.NewMemory{Content: texts[2], Tags: []string{"go"}, Meta: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	newText := texts[2] + " (revised)"
	if _, err := s.Update(ctx, gone.ID, record.Change{Content: &newText}); err != nil {
		t.Fatal(err)
	}
	newer, err := s.Add(ctx, record.NewMemory{Content: texts[3]})
	if err != nil {
		t.Fatal(err)
	}
	keep, err := s.Add(ctx, record.NewMemory{Content: texts[1]})
	if err != nil {
		t.Fatal(err)
	}
	dup, err := s.Add(ctx, record.NewMemory{Content: texts[1], AllowDuplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []record.Relation{
		{From: newer.ID, To: gone.ID, Type: record.RelSupersedes},
		{From: gone.ID, To: keep.ID, Type: record.RelInforms, Weight: 0.7},
		{From: dup.ID, To: newer.ID, Type: record.RelFixes, Weight: 0.4},
		{From: dup.ID, To: keep.ID, Type: record.RelRelatedTo}, // with the kept memory itself: not moved
	} {
		if _, err := s.Link(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	before := map[record.ID]string{gone.ID: memState(t, s, gone.ID), dup.ID: memState(t, s, dup.ID), keep.ID: memState(t, s, keep.ID), newer.ID: memState(t, s, newer.ID)}
	fpBefore := map[record.ID][]byte{gone.ID: rawFingerprint(t, s, gone.ID), dup.ID: rawFingerprint(t, s, dup.ID)}
	acts, err := s.Maintain(ctx, MaintainOptions{Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 2 {
		t.Fatalf("actions %+v, want a prune and a merge", acts)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("check after apply: %v", err)
	}
	// The merge moved the copy's fixes link onto the memory kept.
	rels, err := s.Relations(ctx, keep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rels, func(r record.Relation) bool {
		return r.From == keep.ID && r.To == newer.ID && r.Type == record.RelFixes && r.Weight == 0.4
	}) {
		t.Fatalf("the copy's link did not move onto the memory kept: %+v", rels)
	}
	log, err := s.AuditLog(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 {
		t.Fatalf("audit log %+v, want 2 entries", log)
	}
	for _, e := range log {
		if e.Evidence == "" || e.By != "maintain" || !e.Kept || e.Content == "" {
			t.Fatalf("entry without evidence: %+v", e)
		}
		found := slices.ContainsFunc(acts, func(a MaintainAction) bool { return a.ActionID == e.ID && a.ID == e.Memory })
		if !found {
			t.Fatalf("entry %+v names no applied action of %+v", e, acts)
		}
	}
	for _, e := range log {
		// By its last 8 hex digits, as a user types it.
		id, err := s.ResolveAction(ctx, e.ID.String()[len(e.ID.String())-8:])
		if err != nil || id != e.ID {
			t.Fatalf("resolve %s: %s, %v", e.ID, id, err)
		}
		if _, err := s.Undo(ctx, id); err != nil {
			t.Fatalf("undo %s: %v", e.ID, err)
		}
		if err := s.Check(ctx); err != nil {
			t.Fatalf("check after undo of %s: %v", e.Action, err)
		}
	}
	for id, want := range before {
		if got := memState(t, s, id); got != want {
			t.Fatalf("memory %s after undo:\n got %s\nwant %s", id, got, want)
		}
	}
	for id, want := range fpBefore {
		if got := rawFingerprint(t, s, id); !bytes.Equal(got, want) {
			t.Fatalf("memory %s: its stored fingerprint differs after undo", id)
		}
	}
	if again, err := s.Maintain(ctx, MaintainOptions{}); err != nil || len(again) != 0 {
		t.Fatalf("undone actions proposed again: %+v, %v", again, err)
	}
	res, err := s.Search(ctx, SearchRequest{Query: newText, TopK: 3, Filter: record.Filter{Superseded: record.IncludeSuperseded}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(hitIDs(res), gone.ID) {
		t.Fatalf("the restored memory is not searchable: %v", hitIDs(res))
	}
	var ve *record.ValidationError
	if _, err := s.Undo(ctx, log[0].ID); !errors.As(err, &ve) {
		t.Fatalf("a second undo: %v, want a validation error", err)
	}
	if after, _ := s.AuditLog(ctx, 1); len(after) != 1 || after[0].UndoneAt.IsZero() {
		t.Fatalf("log after undo: %+v", after)
	}
}

// TestUndoSurvivesReopenRecordsOnly: the kept memory is on disk, so a
// store reopened for records only (no model) undoes a prune, and a store
// opened with models afterwards finds the memory with its fingerprint.
func TestUndoSurvivesReopenRecordsOnly(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s")
	s := openStore(t, dir, hashRegistry(t, ""))
	ms := addAll(t, s, texts[:4])
	if _, err := s.Link(ctx, record.Relation{From: ms[1].ID, To: ms[0].ID, Type: record.RelSupersedes}); err != nil {
		t.Fatal(err)
	}
	acts, err := s.Maintain(ctx, MaintainOptions{Apply: true, Types: []record.Type{record.TypeNote}})
	if err != nil || len(acts) != 1 {
		t.Fatalf("apply: %+v, %v", acts, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Undo(ctx, acts[0].ActionID); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir, hashRegistry(t, ""))
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fingerprint(ctx, ms[0].ID); err != nil {
		t.Fatalf("restored without its fingerprint: %v", err)
	}
}

// FuzzDecodeAudit: the audit entry decoder never panics, and what it
// accepts encodes back to an entry that decodes the same.
func FuzzDecodeAudit(f *testing.F) {
	e := AuditEntry{ID: NewActionID(), At: time.Unix(1e9, 0).UTC(), Action: "prune", Memory: record.NewID(), Evidence: "x", By: "schedule", Kept: true}
	enc, err := encodeAudit(&e)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc)
	f.Add([]byte("CGAU\x01{}"))
	f.Add([]byte("CGAU\x02{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeAudit(b)
		if err != nil {
			if !errors.Is(err, record.ErrCorrupt) {
				t.Fatalf("error without ErrCorrupt: %v", err)
			}
			return
		}
		again, err := encodeAudit(&got)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeAudit(again)
		if err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		j1, _ := json.Marshal(got)
		j2, _ := json.Marshal(back)
		if string(j1) != string(j2) {
			t.Fatalf("round trip: %s != %s", j1, j2)
		}
	})
}

// TestNoMergeIntoAPrunedMemory: when the oldest of two exact copies is
// superseded, a run that prunes it does not merge the younger copy into
// it (both would go); a run that may not prune merges as usual.
func TestNoMergeIntoAPrunedMemory(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	ms := addAll(t, s, texts[:2])
	dup, err := s.Add(ctx, record.NewMemory{Content: texts[0], AllowDuplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, record.Relation{From: ms[1].ID, To: ms[0].ID, Type: record.RelSupersedes}); err != nil {
		t.Fatal(err)
	}
	acts, err := s.Maintain(ctx, MaintainOptions{})
	if err != nil || len(acts) != 1 || acts[0].Action != "prune" || acts[0].ID != ms[0].ID {
		t.Fatalf("may prune: %+v, %v; want the prune of the superseded oldest copy alone", acts, err)
	}
	acts, err = s.Maintain(ctx, MaintainOptions{Actions: []string{"merge_duplicate"}})
	if err != nil || len(acts) != 2 || acts[1].Action != "merge_duplicate" || acts[1].ID != dup.ID || acts[1].Keep != ms[0].ID {
		t.Fatalf("may not prune: %+v, %v; want the merge listed too", acts, err)
	}
}

// TestUsedSinceListedIsNotPruned: a faded memory read or returned by a
// search after Maintain listed it and before its action is not pruned —
// the action is held — so a use always wins over a listing.
func TestUsedSinceListedIsNotPruned(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	var ids []record.ID
	for _, c := range texts[:3] {
		m, err := s.Add(ctx, record.NewMemory{Content: c, CreatedAt: now.Add(-300 * 24 * time.Hour), Importance: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	calls := 0
	pause := func() { // after the first prune, an agent reads one and searches the other
		calls++
		if calls != 1 {
			return
		}
		if _, err := s.Get(ctx, ids[1]); err != nil {
			t.Error(err)
		}
		if _, err := s.Search(ctx, SearchRequest{Query: texts[2], TopK: 1}); err != nil {
			t.Error(err)
		}
	}
	acts, err := s.Maintain(ctx, MaintainOptions{PruneBelow: 0.1, Apply: true, Now: now, Pause: pause})
	if err != nil || len(acts) != 3 {
		t.Fatalf("maintain: %+v, %v", acts, err)
	}
	if !acts[0].Applied || acts[1].Applied || acts[2].Applied || !strings.Contains(acts[1].Held, "used since it was listed") || acts[2].Held == "" {
		t.Fatalf("actions %+v: want the first applied, the two used since held", acts)
	}
	if ms, found, err := s.Peek(ctx, ids); err != nil || found[0] || !found[1] || !found[2] {
		t.Fatalf("stored after the run: %v %v %v", ms, found, err)
	}
}
