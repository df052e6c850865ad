package engine

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

// TestDecayOf checks effective importance against hand-computed values:
// importance × 2^(-idle / (30 d × (1 + log2(1 + reads)))).
func TestDecayOf(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	tests := []struct {
		name  string
		m     record.Memory
		want  float64
		badge bool
	}{
		{"fresh", record.Memory{Importance: 0.8, CreatedAt: now}, 0.8, false},
		{"60 days, never read", record.Memory{Importance: 0.8, CreatedAt: now.Add(-60 * day)}, 0.2, true},
		{"60 days, read once", record.Memory{Importance: 0.8, CreatedAt: now.Add(-90 * day), AccessedAt: now.Add(-60 * day), AccessCount: 1}, 0.4, true},
		{"60 days, read three times", record.Memory{Importance: 0.8, CreatedAt: now.Add(-60 * day), AccessCount: 3}, 0.8 * math.Pow(2, -60.0/90), true},
		{"updated yesterday", record.Memory{Importance: 0.5, CreatedAt: now.Add(-400 * day), UpdatedAt: now.Add(-day), Revision: 2}, 0.5 * math.Pow(2, -1.0/30), false},
		{"stored yesterday, created long ago", record.Memory{Importance: 0.5, CreatedAt: now.Add(-30 * day), UpdatedAt: now.Add(-day), Revision: 1}, 0.25, true},
	}
	for _, tt := range tests {
		d := DecayOf(tt.m, now)
		if math.Abs(d.Effective-tt.want) > 1e-9 {
			t.Errorf("%s: effective %v, want %v", tt.name, d.Effective, tt.want)
		}
		if (d.Badge() != "") != tt.badge {
			t.Errorf("%s: badge %q, want one: %v", tt.name, d.Badge(), tt.badge)
		}
	}
}

// TestMaintain: a dry run lists faded, superseded and duplicate memories
// and writes nothing; --apply deletes exactly those; a search badges a
// faded memory without dropping it.
func TestMaintain(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	now := time.Now()
	old, err := s.Add(ctx, record.NewMemory{Content: texts[0], CreatedAt: now.Add(-200 * 24 * time.Hour), Importance: 0.6})
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
	gone, err := s.Add(ctx, record.NewMemory{Content: texts[2]})
	if err != nil {
		t.Fatal(err)
	}
	newer, err := s.Add(ctx, record.NewMemory{Content: texts[3]})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, record.Relation{From: newer.ID, To: gone.ID, Type: record.RelSupersedes}); err != nil {
		t.Fatal(err)
	}
	acts, err := s.Maintain(ctx, MaintainOptions{PruneBelow: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	want := map[record.ID]string{old.ID: "prune", dup.ID: "merge_duplicate", gone.ID: "prune"}
	if len(acts) != len(want) {
		t.Fatalf("dry run: %+v", acts)
	}
	for _, a := range acts {
		if want[a.ID] != a.Action || a.Applied {
			t.Fatalf("dry run action %+v", a)
		}
		if a.Action == "merge_duplicate" && a.Keep != keep.ID {
			t.Fatalf("duplicate kept %s, want the older %s", a.Keep, keep.ID)
		}
	}
	if st, _ := s.Stats(ctx); st.Memories != 5 {
		t.Fatalf("a dry run deleted: %d memories", st.Memories)
	}
	if _, err := s.Maintain(ctx, MaintainOptions{PruneBelow: 0.05, Apply: true}); err != nil {
		t.Fatal(err)
	}
	for id := range want {
		if _, err := s.Get(ctx, id); err == nil {
			t.Fatalf("%s survived --apply", id)
		}
	}
	for _, id := range []record.ID{keep.ID, newer.ID} {
		if _, err := s.Get(ctx, id); err != nil {
			t.Fatalf("%s was removed: %v", id, err)
		}
	}
	if _, err := s.Maintain(ctx, MaintainOptions{PruneBelow: 2}); err == nil {
		t.Fatal("prune-below 2 accepted")
	}
	// A search badges a faded memory without dropping it (and from then on
	// it is in use: the search counted it).
	faded, err := s.Add(ctx, record.NewMemory{Content: texts[0], CreatedAt: now.Add(-200 * 24 * time.Hour), Importance: 0.6})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, SearchRequest{Query: texts[0], TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) == 0 || res.Memories[0].ID != faded.ID || !strings.Contains(strings.Join(res.Hits[0].Badges, " "), "faded 0.60→") {
		t.Fatalf("faded memory: hits %v badges %v", hitIDs(res), res.Hits[0].Badges)
	}
}

// TestPruningFollowsUse simulates 90 days: a note that search returns every
// day is never proposed for pruning, though nobody reads it by id; a
// decision is never proposed unless maintain names its type; an idle note
// is proposed once idle for its half-life. The counts survive a reopen.
func TestPruningFollowsUse(t *testing.T) {
	ctx := context.Background()
	day := 24 * time.Hour
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	clock := start
	dir := filepath.Join(t.TempDir(), "s")
	open := func() *Engine {
		s, err := Open(dir, Options{Create: true, Embedders: hashRegistry(t, ""), Clock: func() time.Time { return clock }})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	defer func() { _ = s.Close() }()
	add := func(text string, typ record.Type, imp float64) record.ID {
		m, err := s.Add(ctx, record.NewMemory{Content: text, Type: typ, Importance: imp, CreatedAt: start})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	used := add(texts[1], record.TypeNote, 0.3)
	decision := add(texts[0], record.TypeDecision, 0.9)
	idle := add(texts[3], record.TypeNote, 0.3)
	idleProposed := -1
	for d := 0; d <= 90; d++ {
		clock = start.Add(time.Duration(d)*day + 3*time.Hour)
		res, err := s.Search(ctx, SearchRequest{Query: texts[1], TopK: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Memories) != 1 || res.Memories[0].ID != used {
			t.Fatalf("day %d: the daily search returned %v", d, hitIDs(res))
		}
		if d == 45 { // the counts are written at Close and read back
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = open()
		}
		acts, err := s.Maintain(ctx, MaintainOptions{PruneBelow: 0.2, Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range acts {
			switch a.ID {
			case used:
				t.Fatalf("day %d: the memory search returns every day was proposed: %+v", d, a)
			case decision:
				t.Fatalf("day %d: a decision was proposed without naming its type: %+v", d, a)
			case idle:
				if idleProposed < 0 {
					idleProposed = d
				}
			}
		}
	}
	if idleProposed < 30 || idleProposed > 31 {
		t.Fatalf("the idle note was first proposed on day %d, want when idle for its 30-day half-life", idleProposed)
	}
	m, err := s.Get(ctx, used)
	if err != nil {
		t.Fatal(err)
	}
	if m.AccessCount < 91 || !m.AccessedAt.After(start.Add(89*day)) {
		t.Fatalf("uses recorded: count %d, last %v", m.AccessCount, m.AccessedAt)
	}
	acts, err := s.Maintain(ctx, MaintainOptions{PruneBelow: 0.2, Now: clock, Types: []record.Type{record.TypeDecision}})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].ID != decision {
		t.Fatalf("naming decisions: %+v, want the faded decision alone", acts)
	}
}

// TestMaintainNear: with Near, the newer of two near-duplicates is
// proposed to supersede the older (E1, E6 and E11 agreeing), and --apply
// links them, logged; a memory on another subject is left alone; undoing
// the link frees the older memory for good.
func TestMaintainNear(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	base := time.Now().Add(-time.Hour)
	older, err := s.Add(ctx, record.NewMemory{CreatedAt: base, Content: "Decision: pin github.com/linxGnu/grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks newer C functions"})
	if err != nil {
		t.Fatal(err)
	}
	addAll(t, s, texts[1:])
	newer, err := s.Add(ctx, record.NewMemory{CreatedAt: base.Add(time.Minute), Content: "Decision: pin github.com/linxGnu/grocksdb at v1.7.15 since librocksdb-dev 7.8.3 lacks the newer C functions"})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := s.Maintain(ctx, MaintainOptions{Near: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Action != "supersede" || acts[0].ID != older.ID || acts[0].Keep != newer.ID || acts[0].Applied {
		t.Fatalf("near dry run: %+v", acts)
	}
	if _, err := s.Maintain(ctx, MaintainOptions{Near: true, Apply: true}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Get(ctx, older.ID); err != nil || len(m.SupersededBy) != 1 || m.SupersededBy[0] != newer.ID {
		t.Fatalf("after --apply: %+v, %v", m.SupersededBy, err)
	}
	if acts, err := s.Maintain(ctx, MaintainOptions{Near: true}); err != nil || len(acts) != 1 || acts[0].Action != "prune" {
		t.Fatalf("second run: %+v, %v; want only the prune of the superseded memory", acts, err)
	}
	// The link is logged; its undo removes it, and it is not proposed again.
	log, err := s.AuditLog(ctx, 0)
	if err != nil || len(log) != 1 || log[0].Action != "supersede" || len(log[0].Linked) != 1 || log[0].Kept {
		t.Fatalf("audit log: %+v, %v", log, err)
	}
	if _, err := s.Undo(ctx, log[0].ID); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Get(ctx, older.ID); len(m.SupersededBy) != 0 {
		t.Fatalf("still superseded after undo: %+v", m.SupersededBy)
	}
	if acts, err := s.Maintain(ctx, MaintainOptions{Near: true}); err != nil || len(acts) != 0 {
		t.Fatalf("after undo: %+v, %v; want nothing proposed", acts, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
