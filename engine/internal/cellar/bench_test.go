package cellar

import (
	"context"
	"fmt"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// benchContent is a typical memory: a few sentences.
var benchContent = "The deploy failed because the migration ran before the new column existed; " +
	"run migrations in a separate step before switching traffic. See incident 4711."

func benchMemory(i int) record.NewMemory {
	return record.NewMemory{Content: fmt.Sprint(benchContent, " #", i), Type: record.TypeError,
		Tags: []string{"deploy", "migration"}, Session: fmt.Sprint("s", i%16)}
}

// addN fills a fresh store with n memories in batches of 1000.
func addN(b *testing.B, e *Store, n int) []record.ID {
	b.Helper()
	var ids []record.ID
	for len(ids) < n {
		batch := make([]record.NewMemory, min(1000, n-len(ids)))
		for i := range batch {
			batch[i] = benchMemory(len(ids) + i)
		}
		ms, err := e.AddBatch(context.Background(), batch)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// BenchmarkAdd is one Add (one WriteBatch, no fsync) per op into a store
// that grows during the run.
func BenchmarkAdd(b *testing.B) {
	e := newStore(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := e.Add(ctx, benchMemory(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAddBatch100 is one AddBatch of 100 memories per op.
func BenchmarkAddBatch100(b *testing.B) {
	e := newStore(b)
	ctx := context.Background()
	batch := make([]record.NewMemory, 100)
	for i := range batch {
		batch[i] = benchMemory(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.AddBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet is one Get per op on a writable store of 10k memories; it
// includes the access-recording write.
func BenchmarkGet(b *testing.B) {
	e := newStore(b)
	ids := addN(b, e, 10000)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := e.Get(ctx, ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkGetReadOnly is one Get per op on a read-only follower (catch-up
// with the writer included, no access write).
func BenchmarkGetReadOnly(b *testing.B) {
	e := newStore(b)
	ids := addN(b, e, 10000)
	r := openTest(b, e.Dir(), Options{ReadOnly: true})
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := r.Get(ctx, ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkDelete is one Delete per op. Memories are added in untimed
// chunks as the loop needs them.
func BenchmarkDelete(b *testing.B) {
	e := newStore(b)
	ctx := context.Background()
	var ids []record.ID
	b.ReportAllocs()
	for b.Loop() {
		if len(ids) == 0 {
			b.StopTimer()
			ids = addN(b, e, 1000)
			b.StartTimer()
		}
		if err := e.Delete(ctx, ids[0]); err != nil {
			b.Fatal(err)
		}
		ids = ids[1:]
	}
}

// BenchmarkList100 is one page of 100 newest memories of 10k per op.
func BenchmarkList100(b *testing.B) {
	e := newStore(b)
	addN(b, e, 10000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		page, err := e.List(ctx, record.ListOptions{Limit: 100})
		if err != nil || len(page) != 100 {
			b.Fatalf("List: %d, %v", len(page), err)
		}
	}
}

// BenchmarkAddSync is BenchmarkAdd with Options.Sync: an fsync per Add.
func BenchmarkAddSync(b *testing.B) {
	e := openTest(b, b.TempDir()+"/store", Options{Create: true, Sync: true})
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := e.Add(ctx, benchMemory(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
