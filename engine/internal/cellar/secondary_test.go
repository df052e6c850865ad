package cellar

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepSecondaryDirs: opening a reader removes the folders of readers
// whose owner lock is free (their process ended without Close) and keeps a
// held one and one without a lock (a build before the lock). The tests' temp
// dir is their own (TestMain), so only this test's folders are in view.
func TestSweepSecondaryDirs(t *testing.T) {
	dir := newStoreDir(t)

	dead, owner, err := makeSecondaryDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Close(); err != nil { // as a killed process's lock: let go, folder left
		t.Fatal(err)
	}
	live, held, err := makeSecondaryDir()
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := os.MkdirTemp("", secondaryPrefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := errors.Join(held.Close(), os.RemoveAll(live), os.RemoveAll(legacy)); err != nil {
			t.Error(err)
		}
	})

	r, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	own := r.kv.(*rocksStore).secondary
	for _, c := range []struct {
		path string
		want bool
		what string
	}{{dead, false, "a folder whose owner lock was free"}, {live, true, "a folder whose owner lock is held"},
		{legacy, true, "a folder without an owner lock"}, {filepath.Join(own, ownerLockName), true, "the reader's own owner lock"}} {
		_, err := os.Stat(c.path)
		if got := err == nil; got != c.want {
			t.Errorf("%s (%s): exists %v after a reader opened, want %v (%v)", c.what, c.path, got, c.want, err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(own); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reader's folder survives Close: %v", err)
	}
}

// TestSweepKilledReader: a reader killed outright (SIGKILL: no Close) leaves
// its folder; the next reader's open removes it, while a live reader in
// another process keeps its own.
func TestSweepKilledReader(t *testing.T) {
	dir := newStoreDir(t)
	folder := func(c *child) string {
		line := c.next(t)
		path, ok := strings.CutPrefix(line, "secondary ")
		if !ok {
			t.Fatalf("child said %q, want its reader's folder", line)
		}
		return path
	}
	killed := startChild(t, "hold-reader", dir)
	gone := folder(killed)
	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for range killed.lines {
	}
	_ = killed.cmd.Wait() // "signal: killed", as intended
	if _, err := os.Stat(gone); err != nil {
		t.Fatalf("a killed reader's folder should be left for the sweep: %v", err)
	}
	living := startChild(t, "hold-reader", dir)
	kept := folder(living)
	if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed reader's folder %s survives the next reader's open: %v", gone, err)
	}
	openTest(t, dir, Options{ReadOnly: true}) // one more sweep, in this process
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("a live reader's folder was swept: %v", err)
	}
	living.stop(t)
	if _, err := os.Stat(kept); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the live reader's folder survives its Close: %v", err)
	}
}

// newStoreDir creates an empty store and closes it.
func newStoreDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	w, err := Open(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}
