package cellar

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/internal/testdir"
	"github.com/cgraph/cgraph/record"
)

// storeFixtureV3 is a whole format-v3 store (testdata/store_v3, its
// memories in store_v3.json and its relations in store_v3.relations.json)
// made by the last build of format 3: its records have no valid-until
// time. Memory 1 supersedes memory 0 (linked at fixtureV3Link), memory 3
// contradicts memory 2, memory 4 was updated, and memory 6 superseded
// memory 5 until the link was removed, so that the upgrade to version 4
// has exactly one memory to end (0) and others it must leave valid.
const storeFixtureV3 = "store_v3"

// fixtureV3Link is when memory 1 was linked as superseding memory 0.
var fixtureV3Link = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// writeStoreFixtureV3 makes the v3 store fixture; only a format-3 build
// may write it.
func writeStoreFixtureV3(t *testing.T, dst string) {
	ctx := context.Background()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dst, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	var ms []record.Memory
	for i, n := range []record.NewMemory{
		{Content: "Deploy with the blue-green script.", Type: record.TypeDecision},
		{Content: "Deploy with the canary pipeline; the blue-green script is retired.", Type: record.TypeDecision},
		{Content: "The API server listens on port 8080."},
		{Content: "The API server listens on port 9090."},
		{Content: "The first words of an updated memory.", Session: "s"},
		{Content: "Cache the module directory in CI.", Project: "p"},
		{Content: "Cache the module and build directories in CI.", Project: "p"},
	} {
		n.CreatedAt = base.Add(time.Duration(i) * time.Hour)
		m, err := e.Add(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	b, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rels := []record.Relation{
		{From: ms[1].ID, To: ms[0].ID, Type: record.RelSupersedes, Weight: 0.9, CreatedAt: fixtureV3Link},
		{From: ms[3].ID, To: ms[2].ID, Type: record.RelContradicts, Weight: 0.8, CreatedAt: fixtureV3Link.Add(time.Hour)},
		{From: ms[6].ID, To: ms[5].ID, Type: record.RelSupersedes, Weight: 0.7, CreatedAt: fixtureV3Link.Add(2 * time.Hour)},
	}
	for _, r := range rels {
		if err := b.Link(r); err != nil {
			t.Fatal(err)
		}
	}
	upd := ms[4]
	upd.Content = "The last words of an updated memory."
	if ms[4], _, err = b.Replace(upd); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err = e.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Unlink(ms[6].ID, ms[5].ID, record.RelSupersedes); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	closeFixture(t, e, dst, map[string]any{".json": ms, ".relations.json": rels[:2]})
}

// closeFixture flushes every family of the fixture store e (so that its
// data is in table files), closes it, removes what a store does not need
// to open (RocksDB's info logs, option dumps and lock) and writes each
// value of files as indented JSON to dst + its key.
func closeFixture(t *testing.T, e *Store, dst string, files map[string]any) {
	t.Helper()
	s := e.kv.(*rocksStore)
	fo := grocksdb.NewDefaultFlushOptions()
	for _, h := range s.handles {
		if h != nil {
			if err := s.db.FlushCF(h, fo); err != nil {
				t.Fatal(err)
			}
		}
	}
	fo.Destroy()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), "LOG") || strings.HasPrefix(en.Name(), "OPTIONS") || en.Name() == "LOCK" {
			if err := os.Remove(filepath.Join(dst, en.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, v := range files {
		raw, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+name, append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStoreFixtureV3(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join("testdata", storeFixtureV3)
	if *update && FormatVersion == 3 { // frozen: only a format-3 build may write it
		writeStoreFixtureV3(t, src)
	}
	var want []record.Memory
	var rels []record.Relation
	for name, v := range map[string]any{".json": &want, ".relations.json": &rels} {
		raw, err := os.ReadFile(src + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatal(err)
		}
	}
	want[0].ValidUntil = fixtureV3Link
	dir := filepath.Join(t.TempDir(), "store")
	testdir.Copy(t, src, dir)
	if _, err := Open(dir, Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "open it once for writing") {
		t.Fatalf("read-only open of the v3 store: %v, want the advice to open it for writing", err)
	}
	verify := func(e *Store) {
		t.Helper()
		got, err := e.List(ctx, record.ListOptions{Oldest: true})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("fixture memories after the upgrade (%v)\n got %+v\nwant %+v", err, got, want)
		}
		if st, err := e.Stats(ctx); err != nil || st.FormatVersion != FormatVersion {
			t.Fatalf("format after the writer's upgrade: %+v, %v; want %d", st, err, FormatVersion)
		}
		for _, r := range rels {
			got, err := e.Relations(ctx, r.From)
			if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], r) {
				t.Fatalf("relations of %s after the upgrade: %+v, %v; want %+v", r.From, got, err, r)
			}
		}
		if err := e.Check(ctx); err != nil {
			t.Fatalf("upgraded fixture fails Check: %v", err)
		}
	}
	e := openTest(t, dir, Options{})
	verify(e)
	// An interrupted upgrade: version still 3, one record rewritten wrongly.
	s := e.kv.(*rocksStore)
	b := s.newBatch()
	wrong := want[2]
	wrong.ValidUntil = fixtureV3Link
	b.put(FamMemories, wrong.ID[:], encodeRecord(nil, &wrong))
	b.put(FamDefault, metaFormatKey, []byte{0, 0, 0, 3})
	if err := s.write(b, true); err != nil {
		t.Fatal(err)
	}
	b.destroy()
	if err := e.Check(ctx); err == nil || !strings.Contains(err.Error(), "valid until") {
		t.Fatalf("Check does not see a valid-until that disagrees with the relations: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	verify(openTest(t, dir, Options{}))
}

// TestValidUntilFollowsLinks: linking supersedes ends the target at the
// link's time in the same batch, an older second link moves the end
// earlier, unlinking and deleting the newer memory restore it, an update
// keeps it, and check --repair (RepairLinks) sets it from the relations.
func TestValidUntilFollowsLinks(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	add := func(c string) record.Memory {
		t.Helper()
		m, err := e.Add(ctx, record.NewMemory{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	old, newer, newest := add("old"), add("newer"), add("newest")
	batch := func(fn func(b *Batch) error) {
		t.Helper()
		b, err := e.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Abort()
		if err := fn(b); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	until := func() time.Time {
		t.Helper()
		m, err := e.Get(ctx, old.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Check(ctx); err != nil {
			t.Fatal(err)
		}
		return m.ValidUntil
	}
	t1, t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	batch(func(b *Batch) error {
		return b.Link(record.Relation{From: newest.ID, To: old.ID, Type: record.RelSupersedes, Weight: 1, CreatedAt: t1})
	})
	if got := until(); !got.Equal(t1) {
		t.Fatalf("after a supersedes link: valid until %v, want %v", got, t1)
	}
	batch(func(b *Batch) error {
		return b.Link(record.Relation{From: newer.ID, To: old.ID, Type: record.RelSupersedes, Weight: 1, CreatedAt: t0})
	})
	if got := until(); !got.Equal(t0) {
		t.Fatalf("after an older second link: valid until %v, want %v", got, t0)
	}
	batch(func(b *Batch) error {
		m, err := b.Memory(old.ID)
		if err != nil {
			return err
		}
		m.Content = "old, corrected"
		_, _, err = b.Replace(m)
		return err
	})
	if got := until(); !got.Equal(t0) {
		t.Fatalf("an update changed valid-until: %v, want %v", got, t0)
	}
	batch(func(b *Batch) error { _, err := b.Unlink(newer.ID, old.ID, record.RelSupersedes); return err })
	if got := until(); !got.Equal(t1) {
		t.Fatalf("after unlinking the older link: valid until %v, want %v", got, t1)
	}
	if err := e.Delete(ctx, newest.ID); err != nil {
		t.Fatal(err)
	}
	if got := until(); !got.IsZero() {
		t.Fatalf("after deleting the superseding memory: valid until %v, want still valid", got)
	}
	// A record that disagrees (written behind the batch's back) is found
	// by Check and set right by RepairLinks.
	s := e.kv.(*rocksStore)
	m, err := e.Get(ctx, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	m.ValidUntil = t0
	b := s.newBatch()
	b.put(FamMemories, m.ID[:], encodeRecord(nil, &m))
	if err := s.write(b, false); err != nil {
		t.Fatal(err)
	}
	b.destroy()
	if err := e.Check(ctx); err == nil {
		t.Fatal("Check accepts a valid-until no relation explains")
	}
	rep, err := e.RepairLinks(ctx)
	if err != nil || rep.Validity != 1 {
		t.Fatalf("RepairLinks: %+v, %v; want one valid-until set", rep, err)
	}
	if got := until(); !got.IsZero() {
		t.Fatalf("after repair: valid until %v", got)
	}
}
