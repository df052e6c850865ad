package engine

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/contradict"
	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/record"
)

// TestContradictionOnWrite stores a decision, then one that contradicts it,
// with the real models (e5-small-v2 gives the E1 evidence the rules were
// tuned on): the write answer names the old memory with its evidence, the
// default policy only reports, supersede-newer links.
func TestContradictionOnWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds 6 memories with real models")
	}
	conflictOnWrite(t, neuralRegistry(t))
}

func conflictOnWrite(t *testing.T, reg *embedders.Registry) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), reg)
	old, err := s.Add(ctx, record.NewMemory{Type: record.TypeDecision, Content: "Keep refresh tokens in localStorage so the SPA can read them after a reload."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, record.NewMemory{Content: "The CI pipeline caches the Go module download directory."}); err != nil {
		t.Fatal(err)
	}
	m, err := s.Add(ctx, record.NewMemory{Type: record.TypeDecision, Content: "Refresh tokens must be httpOnly cookies, never localStorage."})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Contradicts) != 1 || m.Contradicts[0].ID != old.ID || m.Contradicts[0].Kind != "contradiction" || m.Contradicts[0].Superseded {
		t.Fatalf("the contradicting write reports %+v, want %s as an unlinked contradiction", m.Contradicts, old.ID)
	}
	if c := m.Contradicts[0]; c.E1 <= 0 || !strings.Contains(c.Reason, "localStorage") {
		t.Errorf("the evidence does not say what differs: %+v", c)
	}
	if got, err := s.Get(ctx, old.ID); err != nil || len(got.SupersededBy) != 0 {
		t.Fatalf("the report policy superseded the old memory: %+v, %v", got.SupersededBy, err)
	} else if len(got.ContradictedBy) != 1 || got.ContradictedBy[0] != m.ID {
		t.Fatalf("the old memory carries no badge naming the newer one: %+v", got.ContradictedBy)
	}
	if rels, err := s.Relations(ctx, m.ID); err != nil || len(rels) != 1 || rels[0].Type != record.RelContradicts || rels[0].To != old.ID {
		t.Fatalf("the report policy kept no contradicts relation new → old: %+v, %v", rels, err)
	}
	open, err := s.Contradictions(ctx, ContradictionsOptions{})
	if err != nil || len(open) != 1 || open[0].Newer.ID != m.ID || open[0].Older.ID != old.ID || open[0].Kind != "contradiction" {
		t.Fatalf("the open pair is not listed: %+v, %v", open, err)
	}
	// Another project is never compared; a compatible note is no conflict.
	other, err := s.Add(ctx, record.NewMemory{Project: "p", Content: "Refresh tokens must be httpOnly cookies, never in localStorage."})
	if err != nil || len(other.Contradicts) != 0 {
		t.Fatalf("another project's memory was judged: %+v, %v", other.Contradicts, err)
	}
	// supersede-newer links the update in the same write.
	port, err := s.Add(ctx, record.NewMemory{Content: "The API server listens on port 8080."})
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.Add(ctx, record.NewMemory{OnConflict: record.ConflictSupersedeNewer, Content: "The API server listens on port 9090."})
	if err != nil {
		t.Fatal(err)
	}
	if len(up.Contradicts) != 1 || up.Contradicts[0].ID != port.ID || !up.Contradicts[0].Superseded {
		t.Fatalf("supersede-newer reports %+v, want %s superseded", up.Contradicts, port.ID)
	}
	if got, err := s.Get(ctx, port.ID); err != nil || len(got.SupersededBy) != 1 || got.SupersededBy[0] != up.ID {
		t.Fatalf("the old port is not superseded by the new one: %+v, %v", got.SupersededBy, err)
	}
	// Resolving the open pair (the newer supersedes the older) closes it.
	if _, err := s.Link(ctx, record.Relation{From: m.ID, To: old.ID, Type: record.RelSupersedes}); err != nil {
		t.Fatal(err)
	}
	if open, err := s.Contradictions(ctx, ContradictionsOptions{}); err != nil || len(open) != 0 {
		t.Fatalf("a resolved pair is still listed as open: %+v, %v", open, err)
	}
	// The store's default policy (serve --on-conflict) applies to a write
	// that names none.
	dir := s.dir
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, Options{Embedders: reg, OnConflict: record.ConflictSupersedeNewer})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	up2, err := s2.Add(ctx, record.NewMemory{Content: "The API server listens on port 7070."})
	if err != nil {
		t.Fatal(err)
	}
	if len(up2.Contradicts) == 0 || !up2.Contradicts[0].Superseded {
		t.Fatalf("the store's supersede-newer policy was not applied: %+v", up2.Contradicts)
	}
	if _, err := Open(t.TempDir(), Options{Create: true, Embedders: reg, OnConflict: "retire-older"}); err == nil {
		t.Fatal("an unknown store policy was accepted")
	}
}

func TestConflictPolicyRefused(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	_, err := s.Add(context.Background(), record.NewMemory{Content: "x", OnConflict: "retire-older"})
	if err == nil || !strings.Contains(err.Error(), "supersede-newer") {
		t.Fatalf("an unknown policy was accepted or the error does not say the valid ones: %v", err)
	}
}

// TestJudgedWords: the judge's words of a stored memory are kept by its id
// and content, so an edited memory is judged by its new words, another
// memory with the same text by its own entry, and a nil cache (a read-only
// store) tokenizes every time; the budget bounds what is kept.
func TestJudgedWords(t *testing.T) {
	j := newJudgedWords(1 << 20)
	a, b := record.NewID(), record.NewID()
	first := j.words(a, "Deploys run on Jenkins.")
	if again := j.words(a, "Deploys run on Jenkins."); !reflect.DeepEqual(again, first) {
		t.Fatal("the same memory and text gave other words")
	}
	edited := j.words(a, "Deploys run on GitHub Actions.")
	if reflect.DeepEqual(edited, first) || !reflect.DeepEqual(edited, contradict.Tokenize("Deploys run on GitHub Actions.")) {
		t.Error("an edited memory was judged by its old words")
	}
	if !reflect.DeepEqual(j.words(b, "Deploys run on Jenkins."), first) {
		t.Error("another memory with the same text gave other words")
	}
	if entries, _ := j.c.size(); entries != 3 {
		t.Errorf("%d entries kept, want 3", entries)
	}
	var none *judgedWords
	if !reflect.DeepEqual(none.words(a, "Deploys run on Jenkins."), first) {
		t.Error("a nil cache gave other words")
	}
	small := newJudgedWords(first.Bytes() + 1)
	small.words(a, "Deploys run on Jenkins.")
	small.words(b, "Deploys run on Jenkins.")
	if entries, used := small.c.size(); entries != 1 || used > first.Bytes()+1 {
		t.Errorf("over budget: %d entries, %d bytes", entries, used)
	}
}
