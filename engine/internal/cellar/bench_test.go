package cellar

import (
	"context"
	"fmt"
	"testing"
	"time"

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

// BenchmarkMigrateValidity is the migration to format 4 (setValidity) on a
// store of 10,000 memories of which every other one is superseded, after
// its records were put back without valid_until; BenchmarkMigrateContent
// is the 2 → 3 migration (buildContentIndex) on the same store, the
// same-run baseline of an upgrade that touches every record.
//
//	go test -run XXX -bench Migrate -count 5 ./engine/internal/cellar
func BenchmarkMigrateValidity(b *testing.B) { benchMigrate(b, true) }

func BenchmarkMigrateContent(b *testing.B) { benchMigrate(b, false) }

func benchMigrate(b *testing.B, validity bool) {
	ctx := context.Background()
	e, err := Open(b.TempDir(), Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ids := addN(b, e, 10000)
	for i := 1; i < len(ids); i += 2 {
		bt, err := e.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := bt.Link(record.Relation{From: ids[i], To: ids[i-1], Type: record.RelSupersedes, Weight: 1}); err != nil {
			b.Fatal(err)
		}
		if err := bt.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	s := e.kv.(*rocksStore)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if validity { // back to a format-3 store: no record says when it ended
			wb := s.newBatch()
			for i := 0; i < len(ids); i += 2 {
				m, err := e.readMemory(s, ids[i])
				if err != nil {
					b.Fatal(err)
				}
				m.ValidUntil = time.Time{}
				wb.put(FamMemories, m.ID[:], encodeRecord(nil, &m))
			}
			if err := s.write(wb, false); err != nil {
				b.Fatal(err)
			}
			wb.destroy()
		}
		b.StartTimer()
		if validity {
			n, err := setValidity(s)
			if err != nil || n != len(ids)/2 {
				b.Fatalf("setValidity rewrote %d records (%v), want %d", n, err, len(ids)/2)
			}
		} else if err := buildContentIndex(s); err != nil {
			b.Fatal(err)
		}
	}
}
