package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestDuplicatesAreNotStoredTwice: the same content (white space aside)
// returns the earlier memory with Duplicate set and its access recorded;
// other case or wording is a new memory; AllowDuplicate stores a copy; a
// batch that repeats itself stores one; after the original is deleted the
// content is stored again.
func TestDuplicatesAreNotStoredTwice(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), modelFreeRegistry(t))
	count := func() uint64 { return memoryCount(t, s) }
	first, err := s.Add(ctx, record.NewMemory{Content: "Decision: pin grocksdb v1.7.15 for librocksdb-dev 7.8.3"})
	if err != nil || first.Duplicate {
		t.Fatal(err, first.Duplicate)
	}
	for _, c := range []string{texts[0], texts[1]} { // unrelated memories around it
		if _, err := s.Add(ctx, record.NewMemory{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	again, err := s.Add(ctx, record.NewMemory{Content: "  Decision: pin grocksdb\tv1.7.15 for librocksdb-dev 7.8.3\n"})
	if err != nil || !again.Duplicate || again.ID != first.ID || again.AccessCount != first.AccessCount+1 {
		t.Fatalf("same content again: %+v, %v", again, err)
	}
	if n := count(); n != 3 {
		t.Fatalf("%d memories after a duplicate, want 3", n)
	}
	for _, c := range []string{"decision: pin grocksdb v1.7.15 for librocksdb-dev 7.8.3", "Decision: pin grocksdb v1.7.15 for librocksdb-dev 7.8.4"} {
		if m, err := s.Add(ctx, record.NewMemory{Content: c}); err != nil || m.Duplicate {
			t.Fatalf("%q counted as a duplicate: %v", c, err)
		}
	}
	if m, err := s.Add(ctx, record.NewMemory{Content: first.Content, AllowDuplicate: true}); err != nil || m.Duplicate || m.ID == first.ID {
		t.Fatalf("AllowDuplicate: %+v %v", m, err)
	}
	if n := count(); n != 6 {
		t.Fatalf("%d memories, want 6", n)
	}
	ms, err := s.AddBatch(ctx, []record.NewMemory{{Content: "batch note one"}, {Content: "batch  note one"}, {Content: "batch note two"}})
	if err != nil || ms[0].Duplicate || !ms[1].Duplicate || ms[1].ID != ms[0].ID || ms[2].Duplicate {
		t.Fatalf("batch: %+v %v", ms, err)
	}
	if n := count(); n != 8 {
		t.Fatalf("%d memories after the batch, want 8", n)
	}
	// A copy the batch allows, then the same content allowing none: the
	// second names the first (it is in the store once the batch commits).
	ms2, err := s.AddBatch(ctx, []record.NewMemory{{Content: "batch note three", AllowDuplicate: true}, {Content: "batch note three"}, {Content: "batch note three", AllowDuplicate: true}})
	if err != nil || ms2[0].Duplicate || !ms2[1].Duplicate || ms2[1].ID != ms2[0].ID || ms2[2].Duplicate || ms2[2].ID == ms2[0].ID {
		t.Fatalf("batch with allowed copies: %+v %v", ms2, err)
	}
	if n := count(); n != 10 {
		t.Fatalf("%d memories after the batch with allowed copies, want 10", n)
	}
	if err := s.Delete(ctx, ms[2].ID); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Add(ctx, record.NewMemory{Content: "batch note two"}); err != nil || m.Duplicate {
		t.Fatalf("content of a deleted memory: %+v %v", m, err)
	}
	if m, err := s.Add(ctx, record.NewMemory{Content: "*** ---"}); err != nil || m.Duplicate {
		t.Fatal(err)
	}
	if m, err := s.Add(ctx, record.NewMemory{Content: "*** ---"}); err != nil || !m.Duplicate {
		t.Fatalf("symbol-only content has no keywords, yet its copy is found by its hash: %+v %v", m, err)
	}
}

// smallVocabularyNotes are n distinct short notes of 4 words, each an
// ordering of 4 of the 25 words' first 6, so that every note has all its
// terms in common with dozens of others (24 orderings of each word set
// score alike in BM25): the shape that hid exact copies from the BM25-based
// check (issue 27, item 1).
func smallVocabularyNotes(n int) []string {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike " +
		"november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee")[:6]
	var out []string
	for i := 0; len(out) < n && i < 6*6*6*6; i++ {
		a, b, c, d := i%6, i/6%6, i/36%6, i/216
		if a == b || a == c || a == d || b == c || b == d || c == d {
			continue
		}
		out = append(out, words[a]+" "+words[b]+" "+words[c]+" "+words[d])
	}
	return out
}

// TestExactCopiesAmongSharedTerms is the repro: 300 short notes
// from a 25-word vocabulary, stored, then stored again in one batch and one
// by one: nothing new is stored, and every copy answers with its original.
func TestExactCopiesAmongSharedTerms(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), modelFreeRegistry(t))
	notes := smallVocabularyNotes(300)
	ns := make([]record.NewMemory, len(notes))
	for i, c := range notes {
		ns[i] = record.NewMemory{Content: c}
	}
	first, err := s.AddBatch(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range first {
		if m.Duplicate {
			t.Fatalf("note %d %q is new but was reported a duplicate of %s", i, notes[i], m.ID)
		}
	}
	again, err := s.AddBatch(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	var missed []string
	for i, m := range again {
		if !m.Duplicate || m.ID != first[i].ID {
			missed = append(missed, notes[i])
		}
	}
	for i := 0; i < len(notes); i += 7 { // single adds take the same path one at a time
		if m, err := s.Add(ctx, record.NewMemory{Content: " " + notes[i] + "\n"}); err != nil || !m.Duplicate || m.ID != first[i].ID {
			missed = append(missed, fmt.Sprintf("%s (single add: %v)", notes[i], err))
		}
	}
	if len(missed) > 0 {
		t.Errorf("%d exact copies stored again, e.g. %q", len(missed), missed[0])
	}
	if st, err := s.Stats(ctx); err != nil || st.Memories != 300 {
		t.Fatalf("%d memories after storing 300 notes twice, want 300 (%v)", st.Memories, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestLongDuplicateAmongNearCopies: a long memory (more terms than the
// dedup query takes) is found again among near copies that share most of
// its words.
func TestLongDuplicateAmongNearCopies(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), modelFreeRegistry(t))
	words := strings.Fields("compaction stalls writes when level zero fills because the flush thread cannot keep up with " +
		"the memtable rotation so we raised max background jobs and split the column families by embedder slot to spread io")
	for i := range 30 { // near copies: each drops one word and adds its own
		near := slices.Delete(slices.Clone(words), i%len(words), i%len(words)+1)
		if _, err := s.Add(ctx, record.NewMemory{Content: strings.Join(near, " ") + fmt.Sprintf(" variant%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	orig, err := s.Add(ctx, record.NewMemory{Content: strings.Join(words, " ")})
	if err != nil || orig.Duplicate {
		t.Fatal(err, orig.Duplicate)
	}
	again, err := s.Add(ctx, record.NewMemory{Content: strings.Join(words, "  ")})
	if err != nil || !again.Duplicate || again.ID != orig.ID {
		t.Fatalf("the long memory again: %+v %v", again, err)
	}
}

// TestPrepareBatchStoresAgainstTheStoreOfItsWrite: a prepared batch looks
// its duplicates up when it is stored, not when it was fingerprinted, so a
// copy written in between is found; it stores once, and a batch prepared
// and never stored leaves nothing.
func TestPrepareBatchStoresAgainstTheStoreOfItsWrite(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), modelFreeRegistry(t))
	count := func() uint64 { return memoryCount(t, s) }
	store, err := s.PrepareBatch(ctx, []record.NewMemory{{Content: "prepared note one"}, {Content: "prepared note two"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PrepareBatch(ctx, []record.NewMemory{{Content: "prepared and dropped"}}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d memories after preparing two batches, want 0", n)
	}
	between, err := s.Add(ctx, record.NewMemory{Content: "prepared note two"})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := store(ctx)
	if err != nil || len(ms) != 2 || ms[0].Duplicate || !ms[1].Duplicate || ms[1].ID != between.ID {
		t.Fatalf("store: %+v %v; want the second a duplicate of %s", ms, err, between.ID)
	}
	if _, err := store(ctx); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("second store of one prepared batch: %v", err)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d memories, want 2", n)
	}
	if _, err := s.PrepareBatch(ctx, []record.NewMemory{{Content: "fine"}, {Content: "  "}}); err == nil || !strings.Contains(err.Error(), "memory 2 of 2") {
		t.Fatalf("blank memory prepared: %v", err)
	}
}

// memoryCount is how many memories s holds.
func memoryCount(t *testing.T, s *Engine) uint64 {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Memories
}
