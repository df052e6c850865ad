package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestNearDuplicates: a rewording is reported with every space's evidence
// and, with Supersede, hides the older memory; a memory on the same topic
// with other terms is reported as not a near-duplicate (one space
// disagrees) and retires nothing; another project is never compared.
func TestNearDuplicates(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	old, err := s.Add(ctx, record.NewMemory{Content: "Decision: pin github.com/linxGnu/grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks newer C functions"})
	if err != nil {
		t.Fatal(err)
	}
	addAll(t, s, texts[1:])
	other, err := s.Add(ctx, record.NewMemory{Project: "p", Content: "Decision: pin github.com/linxGnu/grocksdb at v1.7.15 as librocksdb-dev 7.8.3 lacks newer C functions"})
	if err != nil || len(other.Similar) != 0 {
		t.Fatalf("a memory of another project was compared: %+v, %v", other.Similar, err)
	}
	re, err := s.Add(ctx, record.NewMemory{Supersede: true, Content: "Decision: pin github.com/linxGnu/grocksdb at v1.7.15 since librocksdb-dev 7.8.3 lacks the newer C functions"})
	if err != nil {
		t.Fatal(err)
	}
	if len(re.Similar) != 1 || re.Similar[0].ID != old.ID || !re.Similar[0].Near || !re.Similar[0].Superseded {
		t.Fatalf("rewording: similar %+v", re.Similar)
	}
	t.Logf("rewording evidence: %s", re.Similar[0].Decision)
	if m, err := s.Get(ctx, old.ID); err != nil || len(m.SupersededBy) != 1 || m.SupersededBy[0] != re.ID {
		t.Fatalf("the older memory is not superseded by the rewording: %+v, %v", m.SupersededBy, err)
	}
	// Same opening, other substance: E1 may come close, the terms do not.
	topic, err := s.Add(ctx, record.NewMemory{Supersede: true, Content: "Decision: pin github.com/linxGnu/grocksdb at v1.7.15 because the benchmark harness reads RocksDB statistics through it"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sim := range topic.Similar {
		if sim.Near || sim.Superseded {
			t.Fatalf("a memory with other substance was taken for a near-duplicate: %+v", sim)
		}
		t.Logf("same topic: %s", sim.Decision)
	}
	if m, err := s.Get(ctx, re.ID); err != nil || len(m.SupersededBy) != 0 {
		t.Fatalf("the rewording got superseded by a different memory: %+v, %v", m.SupersededBy, err)
	}
	// One space short of its threshold (E6 here) decides against, whatever
	// E1 says, and retires nothing.
	s3, err := Open(filepath.Join(t.TempDir(), "strict"), Options{Create: true, Embedders: hashRegistry(t, ""), NearDuplicate: NearDuplicate{E1: 0.5, E6: 0.95, E11: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	first, err := s3.Add(ctx, record.NewMemory{Content: old.Content})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s3.Add(ctx, record.NewMemory{Content: re.Content, Supersede: true})
	if err != nil || len(m.Similar) != 1 || m.Similar[0].Near || m.Similar[0].Superseded || !strings.Contains(m.Similar[0].Decision, "E6") {
		t.Fatalf("E6 below its threshold: %+v, %v", m.Similar, err)
	}
	if got, err := s3.Get(ctx, first.ID); err != nil || len(got.SupersededBy) != 0 {
		t.Fatalf("retired on E1 alone: %+v, %v", got.SupersededBy, err)
	}
	// Turned off.
	s2, err := Open(filepath.Join(t.TempDir(), "off"), Options{Create: true, Embedders: hashRegistry(t, ""), NearDuplicate: NearDuplicate{E1: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.Add(ctx, record.NewMemory{Content: old.Content}); err != nil {
		t.Fatal(err)
	}
	if m, err := s2.Add(ctx, record.NewMemory{Content: re.Content}); err != nil || len(m.Similar) != 0 {
		t.Fatalf("near-duplicate check ran while off: %+v, %v", m.Similar, err)
	}
}

// nearPairs are the hand-made pairs DefaultNearDuplicate was set from:
// rewordings of one note, then distinct notes of the same shape.
var nearPairs = []struct {
	a, b string
	near bool
}{
	{"Decision: pin grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks newer C functions", "Decision: keep grocksdb pinned to v1.7.15 since Debian's librocksdb-dev 7.8.3 lacks the newer C functions", true},
	{"The flaky TestReaders test fails because the reader does not catch up after a flush", "TestReaders is flaky: after a flush the reader fails to catch up with the writer", true},
	{"Use tabs for indentation in Makefiles", "Makefiles need tab indentation, not spaces", true},
	{"Decision: pin grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks newer C functions", "Decision: use int8 quantization for dense vectors to cut RAM fourfold", false},
	{"The flaky TestReaders test fails because the reader does not catch up after a flush", "The flaky TestBackup test fails because the checkpoint directory already exists", false},
	{"Error: authentication failed for user admin; rotate the token in config/auth.yaml", "Error: authentication failed for user deploy; the SSH key in ~/.ssh/id_ed25519 expired", false},
}

// TestNearDuplicateRealPairs measures the hand-made pairs with the real
// models (each pair in its own project) and logs every space's evidence:
// a distinct note must never be taken for a near-duplicate, and the
// rewordings that share their terms must be. The third rewording shares
// few words (E6 0.43 when measured) and is allowed either way.
func TestNearDuplicateRealPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds 12 memories with real models")
	}
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), neuralRegistry(t))
	for i, p := range nearPairs {
		project := fmt.Sprint(i)
		if _, err := s.Add(ctx, record.NewMemory{Project: project, Content: p.a}); err != nil {
			t.Fatal(err)
		}
		m, err := s.Add(ctx, record.NewMemory{Project: project, Content: p.b})
		if err != nil {
			t.Fatal(err)
		}
		near := false
		for _, sim := range m.Similar {
			t.Logf("pair %d: E1 %.3f E6 %.2f E11 %.2f near=%v", i, sim.E1, sim.E6, sim.E11, sim.Near)
			near = near || sim.Near
		}
		if len(m.Similar) == 0 {
			t.Logf("pair %d: E1 below %.2f", i, DefaultNearDuplicate.E1)
		}
		switch {
		case !p.near && near:
			t.Errorf("pair %d (%q / %q) is distinct but was taken for a near-duplicate", i, p.a, p.b)
		case p.near && !near && i < 2:
			t.Errorf("pair %d (%q / %q) is a rewording but was not found", i, p.a, p.b)
		}
	}
}

// TestNearDuplicateOf: the store's one near-duplicate rule, asked about
// a list of memories, names for each the earlier one it nearly repeats
// (E1, keywords and entities agreeing) and leaves distinct memories and
// mere look-alikes alone; a model-free store cannot judge.
func TestNearDuplicateOf(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, ""))
	add := func(text string) record.ID {
		m, err := s.Add(ctx, record.NewMemory{Content: text, AllowDuplicate: true})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	a := add("The nightly build fails because librocksdb-dev 7.8.3 is missing from the CI image")
	b := add("Decision: pin github.com/linxGnu/grocksdb at v1.7.15 for Debian's RocksDB")
	a2 := add("The nightly build fails because librocksdb-dev 7.8.3 is missing from the CI image!")
	of, judged, err := s.NearDuplicateOf(ctx, []record.ID{a, b, a2})
	if err != nil || !judged {
		t.Fatalf("judged %v: %v", judged, err)
	}
	if of[0] != -1 || of[1] != -1 || of[2] != 0 {
		t.Fatalf("near-duplicate of = %v, want [-1 -1 0]", of)
	}
	mf := openStore(t, filepath.Join(t.TempDir(), "m"), modelFreeRegistry(t))
	x, err := mf.Add(ctx, record.NewMemory{Content: "one"})
	if err != nil {
		t.Fatal(err)
	}
	y, err := mf.Add(ctx, record.NewMemory{Content: "one!", AllowDuplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, judged, err := mf.NearDuplicateOf(ctx, []record.ID{x.ID, y.ID}); err != nil || judged {
		t.Fatalf("a model-free store judged (%v, %v): it has no E1 to judge by", judged, err)
	}
}

// TestPresearchMatchesWriteTimeSearch: a batch's similar search is made
// when it is prepared (presearch) and completed at its write with the docs
// stored since. Batches prepared ahead of earlier ones' writes — as add
// --jsonl's batches in flight are — must find the same similar memories,
// near-duplicate decisions, contradictions and supersede links as batches
// prepared and stored one after another, whose searches see everything
// stored before them; and a delete between a batch's two halves makes its
// write search again.
func TestPresearchMatchesWriteTimeSearch(t *testing.T) {
	ctx := context.Background()
	batches := [][]string{
		texts[:4],
		{
			"Decision: pin github.com/linxGnu/grocksdb at v1.7.15 since librocksdb-dev 7.8.3 lacks the newer C functions",
			"The API server listens on port 8080.",
			"Refresh tokens must be stored in httpOnly cookies.",
		},
		{
			"The API server listens on port 9090.",
			"Decision: pin github.com/linxGnu/grocksdb at v1.7.15 as librocksdb-dev 7.8.3 lacks newer C functions",
			"Fix: the build failed due to a missing CGO_LDFLAGS for librocksdb; set it in the Makefile",
		},
		{
			"The API server listens on port 9091.",
			"Refresh tokens must never be stored in httpOnly cookies.",
			"Fix: the build failed because CGO_LDFLAGS for librocksdb was missing; set it in the Makefile",
		},
	}
	memories := func(ts []string) []record.NewMemory {
		var ns []record.NewMemory
		for _, x := range ts {
			ns = append(ns, record.NewMemory{Content: x, Supersede: true, OnConflict: record.ConflictSupersedeNewer})
		}
		return ns
	}
	// describe names each similar memory and contradiction by its content.
	describe := func(s *Engine, ms []record.Memory) []string {
		var out []string
		for _, m := range ms {
			line := m.Content + " ->"
			for _, sim := range m.Similar {
				o, err := s.Get(ctx, sim.ID)
				if err != nil {
					t.Fatal(err)
				}
				line += fmt.Sprintf(" similar[%q E1 %.6f near %v superseded %v: %s]", o.Content, sim.E1, sim.Near, sim.Superseded, sim.Decision)
			}
			for _, c := range m.Contradicts {
				o, err := s.Get(ctx, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				line += fmt.Sprintf(" contradicts[%q %s superseded %v]", o.Content, c.Kind, c.Superseded)
			}
			out = append(out, line)
		}
		return out
	}
	one := openStore(t, t.TempDir(), hashRegistry(t, ""))
	var want []string
	for _, b := range batches {
		ms, err := one.AddBatch(ctx, memories(b))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, describe(one, ms)...)
	}
	ahead := openStore(t, t.TempDir(), hashRegistry(t, ""))
	first, err := ahead.AddBatch(ctx, memories(batches[0]))
	if err != nil {
		t.Fatal(err)
	}
	var stores []func(context.Context) ([]record.Memory, error)
	for _, b := range batches[1:] { // every batch prepared before any is stored
		store, err := ahead.PrepareBatch(ctx, memories(b))
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, store)
	}
	got := describe(ahead, first)
	for _, store := range stores {
		ms, err := store(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, describe(ahead, ms)...)
	}
	found := 0
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("memory %d:\n prepared ahead: %s\n one after another: %s", i, got[i], want[i])
		}
		found += strings.Count(want[i], "similar[") + strings.Count(want[i], "contradicts[")
	}
	if found < 4 {
		t.Fatalf("the corpus found %d similar memories and contradictions across batches: too few to test the merge", found)
	}
	if st := ahead.WriteStats(); st.Presearched != len(got) {
		t.Fatalf("%d of %d memories kept their prepared search", st.Presearched, len(got))
	}

	// A delete between the halves: the write searches again, and finds
	// neither the deleted memory nor anything the prepared search found.
	victim := first[0] // the grocksdb decision, which the rewording below finds
	store, err := ahead.PrepareBatch(ctx, memories([]string{"Decision: pin github.com/linxGnu/grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks the newer C functions"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := ahead.Delete(ctx, victim.ID); err != nil {
		t.Fatal(err)
	}
	before := ahead.WriteStats().Presearched
	ms, err := store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := ahead.WriteStats(); st.Presearched != before {
		t.Fatalf("a prepared search was kept across a delete")
	}
	for _, sim := range ms[0].Similar {
		if sim.ID == victim.ID {
			t.Fatalf("the write found the memory deleted after its batch was prepared")
		}
	}
	if len(ms[0].Similar) == 0 {
		t.Fatalf("the rewording found no similar memory after the delete (its other copies are stored)")
	}
}
