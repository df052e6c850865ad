package ops

import (
	"context"
	"errors"
	"testing"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// TestCompareViews: two model-free slots rank the same query; the overlap
// table is symmetric and agrees with the lists, consensus memories are
// listed by both, a slot without a model has no list and is not an error, and
// bad requests name the argument.
func TestCompareViews(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	for _, c := range []string{
		"RocksDB column family handles must be closed before the DB",
		"The rocksdb column family for postings holds roaring bitmaps",
		"Tabs in Makefiles, spaces elsewhere",
		"column handles leak when the family is dropped",
	} {
		if _, err := e.Add(ctx, record.NewMemory{Content: c, Type: record.TypeFact}); err != nil {
			t.Fatal(err)
		}
	}
	req := engine.SearchRequest{Query: "rocksdb column family handles", TopK: 3}
	cmp, err := CompareViews(ctx, e, CompareViewsRequest{Search: req, Slots: []engine.SlotID{engine.E6, engine.E9, engine.E1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Slots) != 3 {
		t.Fatalf("%d slot views, want 3", len(cmp.Slots))
	}
	e6, e9, e1 := cmp.Slots[0], cmp.Slots[1], cmp.Slots[2]
	if e6.Status != engine.SpaceOK || e9.Status != engine.SpaceOK || len(e6.Result.Hits) == 0 || len(e6.Result.Hits) > 3 {
		t.Fatalf("E6 %s (%d hits), E9 %s: want two lists of at most 3", e6.Status, len(e6.Result.Hits), e9.Status)
	}
	if e1.Status == engine.SpaceOK || len(e1.Result.Hits) != 0 {
		t.Fatalf("E1 without a model: status %s with %d hits, want no list", e1.Status, len(e1.Result.Hits))
	}
	if e6.Request.Mode != engine.ModeEmbedderFirst || e6.Request.Embedder != engine.E6 {
		t.Errorf("E6 ran %v/%v, want embedder_first E6", e6.Request.Mode, e6.Request.Embedder)
	}
	if a, b := cmp.Overlap["E6"]["E9"], cmp.Overlap["E9"]["E6"]; a != b || a <= 0 || a > 1 {
		t.Errorf("overlap E6/E9 %v, E9/E6 %v: want one value in (0, 1]", a, b)
	}
	if e6.Overlap != cmp.Overlap["E6"]["E9"] {
		t.Errorf("E6's mean overlap %v counts the slot without a list (want %v)", e6.Overlap, cmp.Overlap["E6"]["E9"])
	}
	for _, a := range cmp.Consensus {
		if len(a.MissedBy) != 0 || len(a.RankedBy) != 2 {
			t.Errorf("consensus %s: ranked by %v, missed by %v", a.ID, a.RankedBy, a.MissedBy)
		}
		if got := a.RankedBy["E6"]; got < 1 || e6.Result.Memories[got-1].ID != a.ID {
			t.Errorf("consensus %s: E6 rank %d does not point at it", a.ID, got)
		}
	}
	for _, a := range cmp.Disagreements {
		if len(a.MissedBy) != 1 || len(a.RankedBy) != 1 {
			t.Errorf("disagreement %s: ranked by %v, missed by %v", a.ID, a.RankedBy, a.MissedBy)
		}
	}
	if cmp.Consensus == nil || cmp.Disagreements == nil {
		t.Error("nil consensus or disagreements: the wire form wants []")
	}

	for _, slots := range [][]engine.SlotID{{engine.E6}, {engine.E6, engine.E12}} {
		var ve *record.ValidationError
		if _, err := CompareViews(ctx, e, CompareViewsRequest{Search: req, Slots: slots}); !errors.As(err, &ve) || ve.Field != "embedders" {
			t.Errorf("slots %v: %v, want a ValidationError on embedders", slots, err)
		}
	}
}
