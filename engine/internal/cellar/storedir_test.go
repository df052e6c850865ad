package cellar

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/record"
)

// dirDigest maps each file of dir to the sha256 of its bytes. The writer
// lock's content (the pid of the last opener) is left out; its presence
// is not. With dataOnly, RocksDB's info logs (LOG, LOG.old.*), which every
// read-write open rotates, are left out too.
func dirDigest(t *testing.T, dir string, dataOnly ...bool) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, en := range entries {
		if len(dataOnly) > 0 && strings.HasPrefix(en.Name(), "LOG") {
			continue
		}
		if en.Name() == lockFileName {
			out[en.Name()] = "lock"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[en.Name()] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return out
}

func assertUnchanged(t *testing.T, dir string, before map[string]string, after string, dataOnly ...bool) {
	t.Helper()
	if now := dirDigest(t, dir, dataOnly...); !maps.Equal(before, now) {
		t.Fatalf("%s changed the store directory:\nbefore %v\nafter  %v", after, slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(now)))
	}
}

// storeWithData writes n memories and makes sure table files exist.
func storeWithData(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	bloatStore(t, dir, 2)
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n - 2 {
		if _, err := e.Add(context.Background(), record.NewMemory{Content: fmt.Sprint("memory ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if tableFiles(t, dir) == 0 {
		t.Fatal("the store has no table file")
	}
	return dir
}

func assertMemories(t *testing.T, dir string, want uint64) {
	t.Helper()
	ctx := context.Background()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("open after repair: %v", err)
	}
	c, err := e.Counters(ctx)
	if err == nil {
		err = e.Check(ctx)
	}
	if err := errors.Join(err, e.Close()); err != nil {
		t.Fatal(err)
	}
	if c.Memories != want {
		t.Fatalf("after repair: %d memories, want %d", c.Memories, want)
	}
}

// TestMissingCurrentIsRefusedAndRepaired: a store without its CURRENT file
// is named damaged by every way of opening it — including the creation that
// `cgraph init` asks for — with its files and the repair command, is left
// byte for byte as it was, and Repair brings every memory back.
func TestMissingCurrentIsRefusedAndRepaired(t *testing.T) {
	dir := storeWithData(t, 12)
	if err := os.Remove(filepath.Join(dir, "CURRENT")); err != nil {
		t.Fatal(err)
	}
	before := dirDigest(t, dir)
	for _, o := range []Options{{Create: true}, {}, {ReadOnly: true}} {
		_, err := Open(dir, o)
		var dmg *record.DamagedStoreError
		if !errors.As(err, &dmg) || !errors.Is(err, record.ErrDamaged) {
			t.Fatalf("Open(%+v) of a store without CURRENT: %v, want a *DamagedStoreError", o, err)
		}
		for _, want := range []string{"CURRENT file is missing", "MANIFEST-", "cgraph check --repair", "never run `cgraph init`"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not say %q", err, want)
			}
		}
		assertUnchanged(t, dir, before, fmt.Sprintf("Open(%+v)", o))
	}
	rep, err := Repair(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Healthy || !strings.HasPrefix(rep.Manifest, "MANIFEST-") {
		t.Fatalf("repair report %+v", rep)
	}
	assertMemories(t, dir, 12)
	if rep, err := Repair(dir); err != nil || !rep.Healthy {
		t.Fatalf("Repair of a healthy store: %+v, %v", rep, err)
	}
}

// TestFailedRecreationIsRefusedAndRepaired reproduces the reported loss: a
// store without CURRENT on which a plain RocksDB create ran (it fails, but
// leaves a new, empty manifest and a CURRENT naming it). A writer open of
// that directory used to finish the "interrupted creation" and delete every
// table file; now it is refused untouched and Repair picks the old manifest.
func TestFailedRecreationIsRefusedAndRepaired(t *testing.T) {
	dir := storeWithData(t, 9)
	good, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "CURRENT")); err != nil {
		t.Fatal(err)
	}
	o := grocksdb.NewDefaultOptions()
	o.SetCreateIfMissing(true)
	o.SetInfoLogLevel(grocksdb.ErrorInfoLogLevel)
	if db, err := grocksdb.OpenDb(o, dir); err == nil {
		db.Close()
	}
	o.Destroy()
	d, err := readStoreDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !d.current || len(d.manifests) < 2 {
		t.Fatalf("the failed creation left current=%v manifests=%v; the test needs a CURRENT naming a new manifest", d.current, d.manifests)
	}
	before := dirDigest(t, dir)
	for _, o := range []Options{{Create: true}, {}, {ReadOnly: true}} {
		if _, err := Open(dir, o); !errors.Is(err, record.ErrDamaged) || !strings.Contains(err.Error(), "records no cgraph metadata") {
			t.Fatalf("Open(%+v): %v, want record.ErrDamaged naming the manifest without metadata", o, err)
		}
		assertUnchanged(t, dir, before, fmt.Sprintf("Open(%+v)", o))
	}
	rep, err := Repair(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A new DB restarts manifest numbers at 1, so the store's own manifest
	// is still the highest-numbered one.
	if rep.Manifest != strings.TrimSpace(string(good)) {
		t.Fatalf("repair report %+v, want CURRENT back at %s", rep, good)
	}
	assertMemories(t, dir, 9)
}

// TestRepairWithoutAnyGoodManifest restores CURRENT as it was.
func TestRepairWithoutAnyGoodManifest(t *testing.T) {
	dir := storeWithData(t, 3)
	d, err := readStoreDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range d.manifests {
		if err := os.WriteFile(filepath.Join(dir, m), []byte("garbled"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A marked store with one manifest is opened read-write directly, which
	// rotates the info log before RocksDB finds the damage.
	before := dirDigest(t, dir, true)
	if _, err := Open(dir, Options{}); !errors.Is(err, record.ErrDamaged) || !strings.Contains(err.Error(), "cannot read the manifest") {
		t.Fatalf("Open with a garbled manifest: %v", err)
	}
	if _, err := Repair(dir); err == nil || !strings.Contains(err.Error(), "restore the store from a backup") {
		t.Fatalf("Repair with no readable manifest: %v", err)
	}
	assertUnchanged(t, dir, before, "a failed Repair", true)
}

// TestMarkerWrittenOnce: a new store is marked at creation; an unmarked
// store (from a build before the marker) gets it at its first writer open.
func TestMarkerWrittenOnce(t *testing.T) {
	dir := newStoreDir(t)
	marker := filepath.Join(dir, markerFileName)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("new store has no marker: %v", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reader of an unmarked store: %v", err)
	}
	// Closed here: an unclosed reader leaves its secondary directory in
	// the system temp dir (one per test run, outside t.TempDir).
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a reader wrote the marker")
	}
	openTest(t, dir, Options{})
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("writer did not mark an unmarked store: %v", err)
	}
}
