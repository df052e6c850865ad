package cellar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/record"
)

func openTest(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	e, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

func newStore(t testing.TB) *Store {
	t.Helper()
	return openTest(t, filepath.Join(t.TempDir(), "store"), Options{Create: true})
}

func TestAddGetRoundTrip(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	created := time.Date(2025, 3, 4, 5, 6, 7, 891, time.FixedZone("X", 3600))
	tests := []struct {
		name string
		in   record.NewMemory
		want record.Memory // fields the store must keep or default
	}{
		{"defaults", record.NewMemory{Content: "plain"},
			record.Memory{Content: "plain", Type: record.TypeNote, Importance: 0.5}},
		{"all fields", record.NewMemory{Content: "use RRF with K=60", Type: record.TypeDecision, Tags: []string{"fusion", "ranking"},
			Source: "design.md", Session: "s1", Sequence: 7, CreatedAt: created, Importance: 0.9},
			record.Memory{Content: "use RRF with K=60", Type: record.TypeDecision, Tags: []string{"fusion", "ranking"},
				Source: "design.md", Session: "s1", Sequence: 7, CreatedAt: created.UTC(), Importance: 0.9}},
		{"unicode", record.NewMemory{Content: "héllo 世界 🚀", Type: record.TypeCode, Importance: 1},
			record.Memory{Content: "héllo 世界 🚀", Type: record.TypeCode, Importance: 1}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := e.Add(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if m.ID.IsZero() || m.DocNum != record.DocNum(i) {
				t.Fatalf("id %s docnum %d, want non-zero id and docnum %d", m.ID, m.DocNum, i)
			}
			if m.Content != tt.want.Content || m.Type != tt.want.Type || !reflect.DeepEqual(m.Tags, tt.want.Tags) ||
				m.Source != tt.want.Source || m.Session != tt.want.Session || m.Sequence != tt.want.Sequence ||
				m.Importance != tt.want.Importance {
				t.Fatalf("Add returned %+v, want fields of %+v", m, tt.want)
			}
			if !tt.want.CreatedAt.IsZero() && !m.CreatedAt.Equal(tt.want.CreatedAt) {
				t.Fatalf("created %v, want %v", m.CreatedAt, tt.want.CreatedAt)
			}
			got, err := e.Get(ctx, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.AccessCount != 1 || got.AccessedAt.IsZero() {
				t.Fatalf("Get did not record the access: count %d at %v", got.AccessCount, got.AccessedAt)
			}
			got.AccessCount, got.AccessedAt = 0, time.Time{}
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("Get = %+v\nAdd = %+v", got, m)
			}
		})
	}
}

func TestSessionSequence(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	var seqs []uint64
	for _, n := range []record.NewMemory{
		{Content: "a", Session: "s"}, {Content: "b", Session: "s"}, {Content: "c", Session: "s", Sequence: 10},
		{Content: "d", Session: "s"}, {Content: "e", Session: "t"}, {Content: "f", Session: "s\x00"[:1] + "x"},
	} {
		m, err := e.Add(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, m.Sequence)
	}
	if want := []uint64{1, 2, 10, 11, 1, 1}; !reflect.DeepEqual(seqs, want) {
		t.Fatalf("sequences %v, want %v", seqs, want)
	}
	// A batch assigns consecutive numbers and sees its own earlier members.
	ms, err := e.AddBatch(ctx, []record.NewMemory{{Content: "g", Session: "t"}, {Content: "h", Session: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Sequence != 2 || ms[1].Sequence != 3 {
		t.Fatalf("batch sequences %d, %d, want 2, 3", ms[0].Sequence, ms[1].Sequence)
	}
	_, err = e.Add(ctx, record.NewMemory{Content: "dup", Session: "s", Sequence: 2})
	var ve *record.ValidationError
	if !errors.As(err, &ve) || ve.Field != "sequence" {
		t.Fatalf("taken sequence: got %v, want a sequence ValidationError", err)
	}
	_, err = e.AddBatch(ctx, []record.NewMemory{{Content: "x", Session: "u", Sequence: 5}, {Content: "y", Session: "u", Sequence: 5}})
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "memory 2 of 2") {
		t.Fatalf("duplicate within a batch: got %v", err)
	}
	assertNoMemory(t, e, "u")
	if _, err := e.Add(ctx, record.NewMemory{Content: "last", Session: "w", Sequence: math.MaxUint64}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Add(ctx, record.NewMemory{Content: "overflow", Session: "w"}); !errors.As(err, &ve) || ve.Field != "sequence" {
		t.Fatalf("sequence overflow: got %v, want a sequence ValidationError", err)
	}
}

// assertNoMemory fails if any stored memory belongs to session.
func assertNoMemory(t *testing.T, e *Store, session string) {
	t.Helper()
	ms, err := e.List(context.Background(), record.ListOptions{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Session == session {
			t.Fatalf("memory %s of session %q was stored by a failed call", m.ID, session)
		}
	}
}

func TestValidation(t *testing.T) {
	ok := record.NewMemory{Content: "fine"}
	long := strings.Repeat("x", record.DefaultMaxContentBytes+1)
	manyTags := make([]string, record.MaxTags+1)
	for i := range manyTags {
		manyTags[i] = fmt.Sprint("t", i)
	}
	tests := []struct {
		name  string
		mod   func(n *record.NewMemory)
		field string
	}{
		{"empty", func(n *record.NewMemory) { n.Content = "" }, "content"},
		{"whitespace", func(n *record.NewMemory) { n.Content = " \t\n\u00a0" }, "content"},
		{"bad utf8", func(n *record.NewMemory) { n.Content = "ab\xffcd" }, "content"},
		{"too long", func(n *record.NewMemory) { n.Content = long }, "content"},
		{"unknown type", func(n *record.NewMemory) { n.Type = "opinion" }, "type"},
		{"upper-case type", func(n *record.NewMemory) { n.Type = "Fact" }, "type"},
		{"control char tag", func(n *record.NewMemory) { n.Tags = []string{"ok", "bad\x07"} }, "tags[1]"},
		{"newline tag", func(n *record.NewMemory) { n.Tags = []string{"a\nb"} }, "tags[0]"},
		{"empty tag", func(n *record.NewMemory) { n.Tags = []string{" "} }, "tags[0]"},
		{"too many tags", func(n *record.NewMemory) { n.Tags = manyTags }, "tags"},
		{"long tag", func(n *record.NewMemory) { n.Tags = []string{strings.Repeat("t", record.MaxTagBytes+1)} }, "tags[0]"},
		{"importance high", func(n *record.NewMemory) { n.Importance = 1.5 }, "importance"},
		{"importance negative", func(n *record.NewMemory) { n.Importance = -0.1 }, "importance"},
		{"importance NaN", func(n *record.NewMemory) { n.Importance = nanValue() }, "importance"},
		{"sequence without session", func(n *record.NewMemory) { n.Sequence = 3 }, "sequence"},
		{"session control char", func(n *record.NewMemory) { n.Session = "s\x1b" }, "session"},
		{"created before epoch", func(n *record.NewMemory) { n.CreatedAt = time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC) }, "created_at"},
	}
	e := newStore(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ok
			tt.mod(&n)
			_, err := e.Add(context.Background(), n)
			var ve *record.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Add: got %v, want a ValidationError", err)
			}
			if ve.Field != tt.field || ve.Problem == "" || ve.Fix == "" {
				t.Fatalf("got %+v, want field %q with problem and fix", ve, tt.field)
			}
		})
	}
	if err := ok.Validate(0); err != nil {
		t.Fatalf("valid memory refused: %v", err)
	}
	if err := (record.NewMemory{Content: "12345"}).Validate(4); err == nil {
		t.Fatal("content over a custom limit accepted")
	}
	// A batch with one bad memory writes nothing.
	_, err := e.AddBatch(context.Background(), []record.NewMemory{{Content: "good", Session: "v"}, {Content: ""}})
	if err == nil || !strings.Contains(err.Error(), "memory 2 of 2") {
		t.Fatalf("bad batch: got %v", err)
	}
	st, err := e.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 0 || st.NextDocNum != 0 {
		t.Fatalf("failed adds left %d memories, next docnum %d", st.Memories, st.NextDocNum)
	}
	assertFamiliesEmpty(t, e)
}

func nanValue() float64 {
	var zero float64
	return zero / zero
}

// assertFamiliesEmpty fails if any family other than default holds a key.
func assertFamiliesEmpty(t *testing.T, e *Store) {
	t.Helper()
	for f := Family(1); f < numFamilies; f++ {
		if keys := scanFamily(t, e, f); len(keys) > 0 {
			t.Errorf("family %s holds %d keys, want none (first %x)", families[f].name, len(keys), keys[0])
		}
	}
}

func scanFamily(t testing.TB, e *Store, f Family) [][]byte {
	t.Helper()
	it := e.kv.iter(f, nil, nil)
	defer it.close()
	var keys [][]byte
	for it.first(); it.valid(); it.next() {
		keys = append(keys, it.key())
	}
	if err := it.err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestUnknownIDs(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	id := record.NewID()
	if _, err := e.Get(ctx, id); !errors.Is(err, record.ErrNotFound) || !strings.Contains(err.Error(), id.String()) {
		t.Fatalf("Get unknown: %v", err)
	}
	if err := e.Delete(ctx, id); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("Delete unknown: %v", err)
	}
	if _, err := e.List(ctx, record.ListOptions{After: id}); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("List after unknown: %v", err)
	}
	if _, err := record.ParseID("not-an-id"); err == nil {
		t.Fatal("ParseMemoryID accepted garbage")
	}
	got, err := record.ParseID(" " + id.String() + "\n")
	if err != nil || got != id {
		t.Fatalf("ParseMemoryID(%s) = %s, %v", id, got, err)
	}
	if _, err := record.ParseType("opinion"); err == nil || !strings.Contains(err.Error(), "preference") {
		t.Fatalf("ParseMemoryType error should list the types: %v", err)
	}
	if typ, err := record.ParseType(" Fact "); err != nil || typ != record.TypeFact {
		t.Fatalf("ParseMemoryType(Fact) = %q, %v", typ, err)
	}
}

func TestDeleteRemovesFromEveryFamily(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	keep, err := e.Add(ctx, record.NewMemory{Content: "keep me", Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	before := make(map[Family]int)
	for f := Family(1); f < numFamilies; f++ {
		before[f] = len(scanFamily(t, e, f))
	}
	// Fill every per-memory family the way the engine's slots do.
	m := addFilled(t, e, record.NewMemory{Content: "delete me", Session: "s", Tags: []string{"x"}})
	for f := Family(1); f < numFamilies; f++ {
		if families[f].keys == nil {
			continue
		}
		if n := len(scanFamily(t, e, f)); n <= before[f] {
			t.Fatalf("family %s: %d keys after add, want more than %d", families[f].name, n, before[f])
		}
	}
	if err := e.Delete(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	for f := Family(1); f < numFamilies; f++ {
		if n := len(scanFamily(t, e, f)); n != before[f] {
			t.Errorf("family %s: %d keys after delete, want %d", families[f].name, n, before[f])
		}
	}
	if _, err := e.Get(ctx, m.ID); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("Get after delete: %v", err)
	}
	if _, err := e.Get(ctx, keep.ID); err != nil {
		t.Fatalf("the other memory is gone: %v", err)
	}
	if err := e.Delete(ctx, m.ID); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	st, err := e.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 1 || st.NextDocNum != 2 {
		t.Fatalf("stats after delete: %d memories, next docnum %d; want 1, 2", st.Memories, st.NextDocNum)
	}
}

// addFilled adds n in one Batch that also writes a key for the memory into
// every family keyed per memory, the way the engine writes its slots.
func addFilled(t testing.TB, e *Store, n record.NewMemory) record.Memory {
	t.Helper()
	b, err := e.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	m, err := b.Add(n)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, b, m)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	return m
}

// fill puts a value under every key of m in the families keyed per memory
// that Add did not write.
func fill(t testing.TB, b *Batch, m record.Memory) {
	t.Helper()
	ref := refOf(&m)
	for f, info := range families {
		if info.keys == nil {
			continue
		}
		for _, k := range info.keys(ref) {
			if _, ok, err := b.Get(Family(f), k); err != nil {
				t.Fatal(err)
			} else if !ok {
				b.Put(Family(f), k, []byte("slot data"))
			}
		}
	}
}

// TestBatchRefusesRecordFamilies: Put and Del of records, their indexes, the
// store metadata or an unknown family make Commit fail and write nothing.
func TestBatchRefusesRecordFamilies(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	for _, bad := range []struct {
		name string
		do   func(b *Batch)
		want string
	}{
		{"a record", func(b *Batch) { b.Put(FamMemories, []byte("0123456789abcdef"), []byte("x")) }, "Batch.Add"},
		{"a sequence key", func(b *Batch) { b.Del(FamSequence, []byte("k")) }, "Batch.Add"},
		{"store metadata", func(b *Batch) { b.Put(FamDefault, metaMemoryCountKey, []byte("x")) }, "store metadata"},
		{"an unknown family", func(b *Batch) { b.Put(Family(99), []byte("k"), nil) }, "not part of store format"},
	} {
		b, err := e.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Add(record.NewMemory{Content: "x"}); err != nil {
			t.Fatal(err)
		}
		bad.do(b)
		if err := b.Commit(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Fatalf("writing %s: Commit %v, want an error saying %q", bad.name, err, bad.want)
		}
		assertFamiliesEmpty(t, e)
	}
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Put(FamDefault, []byte(SlotKeyPrefix+"E1"), []byte("slot record"))
	if err := b.Commit(); err != nil {
		t.Fatalf("a slot registry key was refused: %v", err)
	}
}

func TestListPaging(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []record.ID // in creation-time order
	// Insert out of time order, with two memories at the same instant.
	order := []int{5, 0, 3, 1, 4, 2, 6, 6}
	byTime := make(map[int][]record.ID)
	for _, k := range order {
		m, err := e.Add(ctx, record.NewMemory{Content: fmt.Sprint("m", k), CreatedAt: base.Add(time.Duration(k) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		byTime[k] = append(byTime[k], m.ID)
	}
	for k := 0; k <= 6; k++ {
		sortIDs(byTime[k])
		ids = append(ids, byTime[k]...)
	}
	for _, oldest := range []bool{true, false} {
		for _, limit := range []int{1, 3, 8, 20} {
			var got []record.ID
			var after record.ID
			for pages := 0; pages < 20; pages++ {
				page, err := e.List(ctx, record.ListOptions{Limit: limit, After: after, Oldest: oldest})
				if err != nil {
					t.Fatal(err)
				}
				if len(page) > limit {
					t.Fatalf("page of %d, limit %d", len(page), limit)
				}
				if len(page) == 0 {
					break
				}
				for _, m := range page {
					got = append(got, m.ID)
				}
				after = page[len(page)-1].ID
			}
			want := append([]record.ID(nil), ids...)
			if !oldest {
				for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
					want[i], want[j] = want[j], want[i]
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("oldest=%v limit=%d: got %v, want %v", oldest, limit, got, want)
			}
		}
	}
	if _, err := e.List(ctx, record.ListOptions{Limit: -1}); err == nil {
		t.Fatal("negative limit accepted")
	}
	page, err := e.List(ctx, record.ListOptions{})
	if err != nil || len(page) != len(ids) {
		t.Fatalf("default limit: %d memories, %v", len(page), err)
	}
}

func sortIDs(ids []record.ID) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && string(ids[j][:]) < string(ids[j-1][:]); j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	e, err := Open(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	var added []record.Memory
	for i := range 5 {
		m, err := e.Add(ctx, record.NewMemory{Content: fmt.Sprint("memory ", i), Session: "s"})
		if err != nil {
			t.Fatal(err)
		}
		added = append(added, m)
	}
	if err := e.Delete(ctx, added[1].ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Get(ctx, added[0].ID); !errors.Is(err, record.ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
	e = openTest(t, dir, Options{})
	for i, m := range added {
		got, err := e.Get(ctx, m.ID)
		if i == 1 {
			if !errors.Is(err, record.ErrNotFound) {
				t.Fatalf("deleted memory after reopen: %v", err)
			}
			continue
		}
		if err != nil || got.Content != m.Content || got.DocNum != m.DocNum {
			t.Fatalf("after reopen: %+v, %v; want %+v", got, err, m)
		}
	}
	m, err := e.Add(ctx, record.NewMemory{Content: "after reopen", Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if m.DocNum != 5 || m.Sequence != 6 {
		t.Fatalf("after reopen: docnum %d sequence %d, want 5 and 6 (counters persisted)", m.DocNum, m.Sequence)
	}
	st, err := e.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 5 || st.NextDocNum != 6 || st.FormatVersion != FormatVersion || len(st.Families) != int(numFamilies) {
		t.Fatalf("stats %+v", st)
	}
	if st.Families["memories"].Keys == 0 {
		t.Fatalf("memories Family reports no keys: %+v", st.Families["memories"])
	}
}

func TestOpenErrors(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ve *record.ValidationError
	if _, err := Open(file, Options{Create: true}); !errors.As(err, &ve) || ve.Field != "db" {
		t.Fatalf("Open on a file: %v", err)
	}
	if _, err := Open(filepath.Join(tmp, "missing"), Options{}); !errors.Is(err, record.ErrNoStore) {
		t.Fatalf("Open missing without Create: %v", err)
	}
	if _, err := Open(filepath.Join(tmp, "missing"), Options{ReadOnly: true}); !errors.Is(err, record.ErrNoStore) {
		t.Fatalf("read-only Open of a missing store: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a failed Open created the directory")
	}
	notEmpty := filepath.Join(tmp, "home")
	if err := os.MkdirAll(notEmpty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notEmpty, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(notEmpty, Options{Create: true}); !errors.As(err, &ve) {
		t.Fatalf("Open on a non-empty non-store directory: %v", err)
	}
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	w := openTest(t, dir, Options{Create: true})
	m, err := w.Add(ctx, record.NewMemory{Content: "x"})
	if err != nil {
		t.Fatal(err)
	}
	r := openTest(t, dir, Options{ReadOnly: true})
	if _, err := r.Add(ctx, record.NewMemory{Content: "y"}); !errors.Is(err, record.ErrReadOnly) {
		t.Fatalf("Add on read-only: %v", err)
	}
	if err := r.Delete(ctx, m.ID); !errors.Is(err, record.ErrReadOnly) {
		t.Fatalf("Delete on read-only: %v", err)
	}
	got, err := r.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.AccessCount != 0 {
		t.Fatalf("read-only Get recorded an access: %d", got.AccessCount)
	}
}

func TestCanceledContextWritesNothing(t *testing.T) {
	e := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Add(ctx, record.NewMemory{Content: "x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Add with a canceled context: %v", err)
	}
	if _, err := e.List(ctx, record.ListOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("List with a canceled context: %v", err)
	}
	assertFamiliesEmpty(t, e)
}

// TestConcurrentUse runs adders, getters, deleters and listers at once
// (run it with -race) and checks the store's invariants afterwards.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	r := openTest(t, e.Dir(), Options{ReadOnly: true})
	const workers, perWorker = 4, 50
	ids := make(chan record.ID, workers*perWorker)
	errc := make(chan error, 4*workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(3)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				m, err := e.Add(ctx, record.NewMemory{Content: fmt.Sprint("w", w, " m", i), Session: fmt.Sprint("s", i%3)})
				if err != nil {
					errc <- err
					return
				}
				ids <- m.ID
			}
		}()
		go func() {
			defer wg.Done()
			for range perWorker / 2 {
				id := <-ids
				if _, err := e.Get(ctx, id); err != nil && !errors.Is(err, record.ErrNotFound) {
					errc <- err
					return
				}
				if w%2 == 0 {
					if err := e.Delete(ctx, id); err != nil && !errors.Is(err, record.ErrNotFound) {
						errc <- err
						return
					}
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := r.List(ctx, record.ListOptions{Limit: 20}); err != nil {
					errc <- err
					return
				}
				if _, err := r.Stats(ctx); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := e.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(workers*perWorker - workers/2*perWorker/2); st.Memories != want {
		t.Fatalf("%d memories, want %d", st.Memories, want)
	}
	// Sequences within each session are unique and dense.
	seqs := make(map[string]map[uint64]bool)
	all, err := e.List(ctx, record.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if seqs[m.Session] == nil {
			seqs[m.Session] = make(map[uint64]bool)
		}
		if seqs[m.Session][m.Sequence] {
			t.Fatalf("sequence %d used twice in session %s", m.Sequence, m.Session)
		}
		seqs[m.Session][m.Sequence] = true
	}
}

// TestReaderFollowsFlushes: a reader keeps seeing the writer's data while
// the writer flushes memtables to SST files and drops old logs.
func TestReaderFollowsFlushes(t *testing.T) {
	ctx := context.Background()
	w := newStore(t)
	r := openTest(t, w.Dir(), Options{ReadOnly: true})
	ws := w.kv.(*rocksStore)
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	var ids []record.ID
	for round := range 5 {
		ms, err := w.AddBatch(ctx, []record.NewMemory{{Content: fmt.Sprint("round ", round)}, {Content: "other"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ms[0].ID)
		if err := w.Delete(ctx, ms[1].ID); err != nil {
			t.Fatal(err)
		}
		for _, h := range ws.handles {
			if err := ws.db.FlushCF(h, fo); err != nil {
				t.Fatal(err)
			}
		}
		for i, id := range ids {
			m, err := r.Get(ctx, id)
			if err != nil || m.Content != fmt.Sprint("round ", i) {
				t.Fatalf("round %d: reader Get of memory %d: %+v, %v", round, i, m, err)
			}
		}
		if _, err := r.Get(ctx, ms[1].ID); !errors.Is(err, record.ErrNotFound) {
			t.Fatalf("round %d: reader sees a deleted memory: %v", round, err)
		}
		if err := r.Check(ctx); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	// Replaced instances leave nothing behind; Close removes the rest.
	sec := r.kv.(*rocksStore).secondary
	instances, err := filepath.Glob(filepath.Join(sec, "instance-*"))
	if err != nil || len(instances) != 1 {
		t.Fatalf("reader's directory holds %d instances after reopening, want 1 (%v)", len(instances), err)
	}
	if entries, err := os.ReadDir(sec); err != nil || len(entries) != 2 {
		t.Fatalf("reader's directory holds %d entries after reopening, want the instance and %s (%v)", len(entries), ownerLockName, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sec); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reader's directory survives Close: %v", err)
	}
}

// TestInterruptedCreation: a creation killed before the metadata was
// written leaves RocksDB files without a store; a writer finishes it, a
// reader says what to do, nothing is refused for good.
func TestInterruptedCreation(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := openRocks(dir, rocksCreate) // the DB and families, but no metadata
	if err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, errUnfinished) || !strings.Contains(err.Error(), "for writing") {
		t.Fatalf("reader of an unfinished store: %v", err)
	}
	e := openTest(t, dir, Options{})
	if _, err := e.Add(ctx, record.NewMemory{Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}

	// Killed even earlier: RocksDB files but no CURRENT.
	dir2 := filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(dir2, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"LOCK", "IDENTITY", "LOG", "MANIFEST-000001"} {
		if err := os.WriteFile(filepath.Join(dir2, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(dir2, Options{}); !errors.Is(err, record.ErrNoStore) {
		t.Fatalf("Open without Create of a never-created store: %v", err)
	}
	e2 := openTest(t, dir2, Options{Create: true})
	if _, err := e2.Add(ctx, record.NewMemory{Content: "y"}); err != nil {
		t.Fatal(err)
	}
}

var countKey = []byte("term:all")

// bump adds by to a count kept in a shared key of a posting family, the way
// postings statistics are shared between memories.
func bump(t *testing.T, b *Batch, by int64) {
	t.Helper()
	v, ok, err := b.Get(FamE6SparseInverted, countKey)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if ok {
		if _, err := fmt.Sscan(string(v), &n); err != nil {
			t.Fatal(err)
		}
	}
	b.Put(FamE6SparseInverted, countKey, []byte(fmt.Sprint(n+by)))
}

// TestBatchSeesItsOwnWrites: a Batch reads its own pending writes, an
// aborted batch writes nothing, and Delete shares the batch of the keys the
// caller updates beside it.
func TestBatchSeesItsOwnWrites(t *testing.T) {
	ctx := context.Background()
	e := openTest(t, filepath.Join(t.TempDir(), "store"), Options{Create: true})
	count := func() string {
		v, _, err := e.kv.get(FamE6SparseInverted, countKey)
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ms []record.Memory
	for _, c := range []string{"a", "b", "c"} {
		m, err := b.Add(record.NewMemory{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
		bump(t, b, 1)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != "3" {
		t.Fatalf("shared count after a batch of 3: %q (the batch must see its own writes)", got)
	}
	b, err = e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(record.NewMemory{Content: "d"}); err != nil {
		t.Fatal(err)
	}
	bump(t, b, 1)
	b.Abort()
	if got := count(); got != "3" {
		t.Fatalf("an aborted batch changed the count to %q", got)
	}
	b, err = e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Delete(ms[1].ID); err != nil {
		t.Fatal(err)
	}
	bump(t, b, -1)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != "2" {
		t.Fatalf("count after a delete: %q", got)
	}
	st, err := e.Stats(ctx)
	if err != nil || st.Memories != 2 || st.NextDocNum != 3 {
		t.Fatalf("stats: %+v, %v; want 2 memories, next doc 3", st, err)
	}
}

// TestViewValues: ViewValues hands fn, in place, what a copying get
// returns (and Values, built on it, returns copies of it), nil and false
// for an absent key, every key once in order, and stops at fn's first
// error, returned as it is.
func TestViewValues(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("fingerprint "), 2000) // ~24 KB, like a fingerprint
	b.Put(FamFingerprints, []byte("k1"), big)
	b.Put(FamFingerprints, []byte("k3"), []byte("small"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	keys := [][]byte{[]byte("k1"), []byte("k2"), []byte("k3")}
	want := make([][]byte, len(keys)) // through the copying get, the other path
	for i, k := range keys {
		v, ok, err := e.kv.get(FamFingerprints, k)
		if err != nil || ok != (i != 1) {
			t.Fatalf("get %s: %v %v", k, ok, err)
		}
		want[i] = v
	}
	if got, err := e.Values(ctx, FamFingerprints, keys); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Values: %d values, %v; want the gets'", len(got), err)
	}
	var order []int
	err = e.ViewValues(ctx, FamFingerprints, keys, func(i int, v []byte, ok bool) error {
		order = append(order, i)
		if ok != (want[i] != nil) || !bytes.Equal(v, want[i]) {
			t.Errorf("key %s: %d bytes, ok %v; Values gives %d bytes", keys[i], len(v), ok, len(want[i]))
		}
		return nil
	})
	if err != nil || !slices.Equal(order, []int{0, 1, 2}) {
		t.Fatalf("order %v, err %v", order, err)
	}
	stop := errors.New("stop")
	calls := 0
	err = e.ViewValues(ctx, FamFingerprints, keys, func(int, []byte, bool) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("fn's error: %v after %d calls, want it unwrapped after 1", err, calls)
	}
	if err := e.ViewValues(ctx, Family(99), keys, func(int, []byte, bool) error { return nil }); err == nil {
		t.Error("an unknown family was read")
	}
}

// TestBatchAfterAbortStartsEmpty: a store reuses its last batch's buffer
// for the next; an aborted batch's operations must not reach the next
// batch's write, nor a committed one's be written twice.
func TestBatchAfterAbortStartsEmpty(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	put := func(k, v string, commit bool) {
		t.Helper()
		b, err := e.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b.Put(FamE9HDC, []byte(k), []byte(v))
		if !commit {
			b.Abort()
			return
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	put("aborted", "x", false)
	put("kept", "1", true)
	put("aborted too", "y", false)
	put("next", "2", true)
	vs, err := e.Values(ctx, FamE9HDC, [][]byte{[]byte("aborted"), []byte("kept"), []byte("aborted too"), []byte("next")})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", "1", "", "2"} {
		if string(vs[i]) != want {
			t.Errorf("key %d holds %q, want %q", i, vs[i], want)
		}
	}
}
