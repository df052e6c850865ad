package engine

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

// TestMaintainConsolidate: a cluster of near-duplicates in one project is
// folded into its newest memory — the older contents become its earlier
// revisions, their links move to it — one undoable action per member; a
// protected type, a member used within its half-life and a memory of
// another project are never folded; check is clean after each step.
func TestMaintainConsolidate(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	base := time.Now().Add(-100 * 24 * time.Hour)
	const pin = "pin github.com/linxGnu/grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks newer C functions"
	add := func(n record.NewMemory) record.Memory {
		t.Helper()
		m, err := s.Add(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	fill := addAll(t, s, texts[1:])
	a := add(record.NewMemory{CreatedAt: base, Project: "p", Type: record.TypeNote, Content: "We " + pin})
	b := add(record.NewMemory{CreatedAt: base.Add(time.Hour), Project: "p", Type: record.TypeNote, Content: "Note: " + pin})
	prot := add(record.NewMemory{CreatedAt: base.Add(2 * time.Hour), Project: "p", Type: record.TypeDecision, Content: "Decided: " + pin})
	used := add(record.NewMemory{CreatedAt: base.Add(3 * time.Hour), Project: "p", Type: record.TypeNote, Content: "Reminder: " + pin})
	other := add(record.NewMemory{CreatedAt: base.Add(4 * time.Hour), Project: "q", Type: record.TypeNote, Content: "Also: " + pin})
	keep := add(record.NewMemory{CreatedAt: base.Add(5 * time.Hour), Project: "p", Type: record.TypeNote, Content: "So we " + pin})
	if _, err := s.Get(ctx, used.ID); err != nil { // a use: it is in use now
		t.Fatal(err)
	}
	for _, r := range []record.Relation{{From: a.ID, To: fill[0].ID, Type: record.RelRelatedTo}, {From: fill[1].ID, To: b.ID, Type: record.RelRelatedTo}} {
		if _, err := s.Link(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	wantFolded := func(acts []MaintainAction, applied bool) {
		t.Helper()
		var got []record.ID
		for _, x := range acts {
			if x.Action != "consolidate" {
				t.Fatalf("unexpected action %+v", x)
			}
			if x.Keep != keep.ID || x.Applied != applied || !slices.Contains([]record.ID{a.ID, b.ID}, x.ID) {
				t.Fatalf("consolidate %+v; want %s or %s folded into %s, applied %v", x, a.ID, b.ID, keep.ID, applied)
			}
			got = append(got, x.ID)
		}
		if len(got) != 2 {
			t.Fatalf("%d consolidate actions %+v; want %s and %s", len(got), acts, a.ID, b.ID)
		}
	}
	// Opt-in: Near alone links, it never folds.
	acts, err := s.Maintain(ctx, MaintainOptions{Near: true})
	if err != nil || len(acts) == 0 || slices.ContainsFunc(acts, func(x MaintainAction) bool { return x.Action != "supersede" }) {
		t.Fatalf("near without consolidate: %+v, %v; want supersede proposals only", acts, err)
	}
	// A policy naming consolidate is the same as the option.
	if acts, err = s.Maintain(ctx, MaintainOptions{Actions: []string{"consolidate"}}); err != nil {
		t.Fatal(err)
	}
	wantFolded(acts, false)
	if acts, err = s.Maintain(ctx, MaintainOptions{Consolidate: true}); err != nil {
		t.Fatal(err)
	}
	wantFolded(acts, false)
	for _, x := range acts {
		if !containsAll(x.Reason, "E1", "E6", "E11", "5 near-duplicates") {
			t.Fatalf("reason %q names no evidence or cluster", x.Reason)
		}
	}
	// A protected type is folded only when Types names it.
	if acts, err := s.Maintain(ctx, MaintainOptions{Consolidate: true, Types: []record.Type{record.TypeNote, record.TypeDecision}}); err != nil ||
		!slices.ContainsFunc(acts, func(x MaintainAction) bool { return x.ID == prot.ID && x.Keep == keep.ID }) {
		t.Fatalf("with types note,decision: %+v, %v; want the decision folded too", acts, err)
	}
	if acts, err = s.Maintain(ctx, MaintainOptions{Consolidate: true, Apply: true}); err != nil {
		t.Fatal(err)
	}
	wantFolded(acts, true)
	mustCheck(t, s)
	for _, id := range []record.ID{a.ID, b.ID} {
		if _, err := s.Get(ctx, id); err == nil {
			t.Fatalf("folded member %s is still stored", id)
		}
	}
	for _, m := range []record.Memory{prot, used, other} {
		if _, err := s.Get(ctx, m.ID); err != nil {
			t.Fatalf("%s (%s, project %q) was folded: %v", m.ID, m.Type, m.Project, err)
		}
	}
	histContents := func() []string {
		t.Helper()
		h, err := s.History(ctx, keep.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range h {
			if r.ID != keep.ID {
				t.Fatalf("history entry with id %s", r.ID)
			}
			out = append(out, r.Content)
		}
		slices.Sort(out)
		return out
	}
	if h := histContents(); !slices.Equal(h, sorted(a.Content, b.Content)) {
		t.Fatalf("survivor history %q; want the two folded contents", h)
	}
	if k, err := s.Get(ctx, keep.ID); err != nil || k.Content != keep.Content || k.Revision != keep.Revision+2 {
		t.Fatalf("survivor %+v, %v: want its content kept, revision +2", k, err)
	}
	hasRel := func(from, to record.ID) bool {
		t.Helper()
		rels, err := s.Relations(ctx, to)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(rels, func(r record.Relation) bool { return r.From == from && r.To == to })
	}
	if !hasRel(keep.ID, fill[0].ID) || !hasRel(fill[1].ID, keep.ID) {
		t.Fatal("the folded members' links did not move to the survivor")
	}
	// Nothing more to fold: the survivor is alone with what may not be folded.
	if acts, err := s.Maintain(ctx, MaintainOptions{Consolidate: true}); err != nil || len(acts) != 0 {
		t.Fatalf("second run: %+v, %v; want nothing", acts, err)
	}

	// Undo of a's action brings a back with its link and takes its revision out.
	log, err := s.AuditLog(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	actionOf := func(id record.ID) ActionID {
		for _, e := range log {
			if e.Memory == id && e.Action == "consolidate" && e.Kept && e.Keep == keep.ID {
				return e.ID
			}
		}
		t.Fatalf("no consolidate entry for %s in %+v", id, log)
		return ActionID{}
	}
	if _, err := s.Undo(ctx, actionOf(a.ID)); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s)
	if m, err := s.Get(ctx, a.ID); err != nil || m.Content != a.Content {
		t.Fatalf("after undo: %+v, %v", m, err)
	}
	if !hasRel(a.ID, fill[0].ID) || hasRel(keep.ID, fill[0].ID) {
		t.Fatal("undo did not move the link back")
	}
	if h := histContents(); !slices.Equal(h, []string{b.Content}) {
		t.Fatalf("survivor history after undo %q; want only b's", h)
	}
	// An undone fold is not proposed again.
	if acts, err := s.Maintain(ctx, MaintainOptions{Consolidate: true}); err != nil || len(acts) != 0 {
		t.Fatalf("after undo: %+v, %v; want nothing proposed", acts, err)
	}
	if _, err := s.Undo(ctx, actionOf(b.ID)); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s)
	if k, err := s.Get(ctx, keep.ID); err != nil || k.Revision != keep.Revision || len(histContents()) != 0 {
		t.Fatalf("survivor after both undos: %+v, %v; want its first revision, no history", k, err)
	}
	if !hasRel(fill[1].ID, b.ID) || hasRel(fill[1].ID, keep.ID) {
		t.Fatal("undo of b did not move its link back")
	}
}

func sorted(xs ...string) []string { slices.Sort(xs); return xs }

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

func mustCheck(t *testing.T, s *Engine) {
	t.Helper()
	if err := s.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestConsolidateUndoAfterUpdate: a survivor updated after a fold keeps
// its own revisions when the fold is undone; only the folded one goes.
func TestConsolidateUndoAfterUpdate(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	base := time.Now().Add(-100 * 24 * time.Hour)
	const pin = "pin github.com/linxGnu/grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks newer C functions"
	addAll(t, s, texts[1:])
	var ms []record.Memory
	for i, c := range []string{"We " + pin, "So we " + pin} {
		m, err := s.Add(ctx, record.NewMemory{CreatedAt: base.Add(time.Duration(i) * time.Hour), Type: record.TypeNote, Content: c})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	acts, err := s.Maintain(ctx, MaintainOptions{Consolidate: true, Apply: true})
	if err != nil || len(acts) != 1 || !acts[0].Applied || acts[0].ID != ms[0].ID || acts[0].Keep != ms[1].ID {
		t.Fatalf("consolidate: %+v, %v", acts, err)
	}
	if _, err := s.Update(ctx, ms[1].ID, record.Change{AddTags: []string{"storage"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Undo(ctx, acts[0].ActionID); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s)
	h, err := s.History(ctx, ms[1].ID)
	if err != nil || len(h) != 1 || h[0].Content != ms[1].Content || h[0].Revision != 2 {
		t.Fatalf("history after undo: %+v, %v; want only the survivor's own revision 2", h, err)
	}
	if k, err := s.Get(ctx, ms[1].ID); err != nil || k.Revision != 3 || !slices.Contains(k.Tags, "storage") {
		t.Fatalf("survivor: %+v, %v; want revision 3 with its update", k, err)
	}
	if _, err := s.Get(ctx, ms[0].ID); err != nil {
		t.Fatalf("the folded member is not back: %v", err)
	}
}
