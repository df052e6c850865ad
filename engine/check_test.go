package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/record"
)

// TestCheckPostings: a store written by the engine checks clean, deletes
// included; a posting naming a doc no memory has is reported with its
// family, and so is a statistic that no longer matches the postings.
func TestCheckPostings(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, "check"))
	var ids []record.ID
	for _, c := range texts {
		m, err := s.Add(ctx, record.NewMemory{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	if err := s.Delete(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("a healthy store: %v", err)
	}
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Put(cellar.FamE6SparseInverted, postingKey([]byte("orphan"), 4242), []byte{1})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	err = s.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), "e6_sparse_inverted/") || !strings.Contains(err.Error(), "doc 4242, which no stored memory has") ||
		!strings.Contains(err.Error(), "postings of 8 documents, its statistics say 7") {
		t.Fatalf("orphan posting: %v", err)
	}
	rep, err := s.RepairPostings(ctx)
	if err != nil || len(rep) != 1 || rep[0].Family != "e6_sparse_inverted" || rep[0].Dropped != 1 || rep[0].Docs != 7 || rep[0].StatsFixed { // the statistics were right: only the orphan was extra
		t.Fatalf("repair: %+v %v", rep, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("after the repair: %v", err)
	}
	if rep, err := s.RepairPostings(ctx); err != nil || rep != nil {
		t.Fatalf("a second repair changed something: %+v %v", rep, err)
	}
	// Statistics that no longer match the postings are set from them.
	b, err = s.cellar.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Put(cellar.FamE6SparseInverted, statDocsKey, encodeU64(99))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "statistics say 99") {
		t.Fatalf("wrong statistics: %v", err)
	}
	if rep, err := s.RepairPostings(ctx); err != nil || len(rep) != 1 || !rep[0].StatsFixed || rep[0].Docs != 7 || rep[0].Dropped != 0 {
		t.Fatalf("repair of the statistics: %+v %v", rep, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("after repairing the statistics: %v", err)
	}
}
