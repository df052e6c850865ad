package cellar

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

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
	for name, v := range map[string]any{".json": ms, ".relations.json": rels[:2]} {
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
	src := filepath.Join("testdata", storeFixtureV3)
	if *update && FormatVersion == 3 { // frozen: only a format-3 build may write it
		writeStoreFixtureV3(t, src)
	}
}
