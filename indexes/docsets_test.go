package indexes

import (
	"slices"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

func TestHypervectorsSwapRemove(t *testing.T) {
	var h Hypervectors
	row := func(x uint64) []uint64 {
		b := make([]uint64, fingerprint.HyperWords)
		b[0] = x
		return b
	}
	for d := record.DocNum(0); d < 4; d++ {
		h.Put(d*2, row(uint64(d)+10))
	}
	h.Remove(2)       // a middle row: the last moves into its hole
	h.Remove(2)       // absent: no-op
	h.Put(6, row(99)) // replace
	for doc, want := range map[record.DocNum]uint64{0: 10, 4: 12, 6: 99} {
		if b := h.Get(doc); b == nil || b[0] != want {
			t.Errorf("doc %d: %v, want %d", doc, b, want)
		}
	}
	if h.Get(2) != nil || len(h.docs) != 3 || len(h.words) != 3*fingerprint.HyperWords {
		t.Errorf("after remove: %v rows", h.docs)
	}
	if sim, ok := h.Similarity(6, row(99)); !ok || sim != 1 {
		t.Errorf("similarity with itself %v %v", sim, ok)
	}
	if _, ok := h.Similarity(2, row(1)); ok {
		t.Error("similarity of a removed doc")
	}
}

func TestNameSetsJaccard(t *testing.T) {
	n := NewNameSets()
	n.Set(1, []string{"grocksdb", "rocksdb"})
	n.Set(2, []string{"rocksdb"})
	n.Set(3, []string{"uuid"})
	n.Set(3, []string{"uuid", "uuid"}) // replaced, duplicates folded
	byDoc := func(hs []Hit) map[record.DocNum]float32 {
		m := map[record.DocNum]float32{}
		for _, h := range hs {
			m[h.Doc] = h.Score
		}
		return m
	}
	// "cobra" is in no doc: it counts in the union.
	got := byDoc(n.Jaccard([]string{"rocksdb", "cobra"}, nil))
	want := map[record.DocNum]float32{1: 1.0 / 3, 2: 0.5, 3: 0}
	if len(got) != 3 || got[1] != want[1] || got[2] != want[2] || got[3] != 0 {
		t.Fatalf("Jaccard = %v, want %v", got, want)
	}
	within := roaring.BitmapOf(2, 3, 9)
	if got := byDoc(n.Jaccard([]string{"rocksdb"}, within)); len(got) != 2 || got[2] != 1 {
		t.Fatalf("Jaccard within {2,3,9} = %v", got)
	}
	n.Remove(2)
	if got := byDoc(n.Jaccard([]string{"rocksdb"}, nil)); slices.Contains([]record.DocNum{2}, firstKey(got, 2)) {
		t.Fatalf("removed doc still scored: %v", got)
	}
}

func firstKey(m map[record.DocNum]float32, k record.DocNum) record.DocNum {
	if _, ok := m[k]; ok {
		return k
	}
	return 1 << 30
}

func TestDocTimes(t *testing.T) {
	d := NewDocTimes()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	d.Set(1, t0, "s1", 4)
	d.Set(2, t0.Add(time.Hour), "", 0)
	created, seq, in, ok := d.Get(1, "s1")
	if !ok || !created.Equal(t0) || seq != 4 || !in {
		t.Fatalf("Get(1, s1) = %v %d %v %v", created, seq, in, ok)
	}
	if _, _, in, _ := d.Get(1, "s2"); in {
		t.Fatal("doc 1 reported in session s2")
	}
	if _, _, in, ok := d.Get(2, ""); !ok || in {
		t.Fatal("a doc without a session is in the empty session")
	}
	d.Remove(1)
	if _, _, _, ok := d.Get(1, "s1"); ok {
		t.Fatal("removed doc still has a row")
	}
}
