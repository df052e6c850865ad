package cellar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestBackup: a backup taken while the store stays open holds exactly the
// memories written before it, checks clean and opens as a store; later
// writes do not reach it; an existing or in-store directory, and a
// read-only store, are refused and leave nothing behind.
func TestBackup(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	var before []record.ID
	for i := range 30 {
		m, err := e.Add(ctx, record.NewMemory{Content: fmt.Sprintf("memory %d before the backup", i), Session: "s", Sequence: uint64(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, m.ID)
	}
	dir := filepath.Join(t.TempDir(), "backup")
	if err := e.Backup(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Add(ctx, record.NewMemory{Content: "after the backup"}); err != nil {
		t.Fatal(err)
	}

	b := openTest(t, dir, Options{ReadOnly: true})
	st, err := b.Stats(ctx)
	if err != nil || st.Memories != 30 {
		t.Fatalf("backup holds %d memories (%v), want 30", st.Memories, err)
	}
	if err := b.Check(ctx); err != nil {
		t.Fatalf("check of the backup: %v", err)
	}
	for _, id := range before {
		if _, err := b.Get(ctx, id); err != nil {
			t.Fatalf("backup lacks %s: %v", id, err)
		}
	}

	if err := e.Backup(ctx, dir); err == nil {
		t.Fatal("a backup over an existing directory was accepted")
	}
	if err := e.Backup(ctx, filepath.Join(e.dir, "inside")); err == nil {
		t.Fatal("a backup inside the store was accepted")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "inside")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused backup left a directory: %v", err)
	}
	ro := openTest(t, dir, Options{ReadOnly: true})
	if err := ro.Backup(ctx, filepath.Join(t.TempDir(), "b2")); !errors.Is(err, record.ErrReadOnly) {
		t.Fatalf("backup of a read-only store: %v", err)
	}
}
