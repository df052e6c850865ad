package cellar

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/record"
)

// flushedStore makes a closed store whose data sits in table files, and
// returns the path of the created_index family's table file.
func flushedStore(t *testing.T) (dir, table string) {
	t.Helper()
	ctx := context.Background()
	dir = filepath.Join(t.TempDir(), "store")
	e, err := Open(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"a", "b", "c"} {
		if _, err := e.Add(ctx, record.NewMemory{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	s := e.kv.(*rocksStore)
	fo := grocksdb.NewDefaultFlushOptions()
	for _, h := range s.handles {
		if err := s.db.FlushCF(h, fo); err != nil {
			t.Fatal(err)
		}
	}
	fo.Destroy()
	for _, f := range s.db.GetLiveFilesMetaData() {
		if f.ColumnFamilyName == "created_index" {
			table = filepath.Join(dir, strings.TrimPrefix(f.Name, "/"))
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if table == "" {
		t.Fatal("no table file of created_index after a flush")
	}
	return dir, table
}

// TestDamagedTableFileRefused: a table file that is missing, truncated or
// emptied is refused at open by readers and the writer alike, naming the
// file, with record.ErrCorrupt and the restore advice — never an empty
// listing that exits 0 (a read-only instance skips missing files on its
// own).
func TestDamagedTableFileRefused(t *testing.T) {
	for name, damage := range map[string]func(path string) error{
		"missing":   os.Remove,
		"truncated": func(p string) error { return os.Truncate(p, 100) },
		"empty":     func(p string) error { return os.Truncate(p, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			dir, table := flushedStore(t)
			if err := damage(table); err != nil {
				t.Fatal(err)
			}
			for _, opts := range []Options{{ReadOnly: true}, {}} {
				e, err := Open(dir, opts)
				if err == nil {
					e.Close()
					t.Fatalf("read-only=%v: a store with a %s table file opened", opts.ReadOnly, name)
				}
				if !errors.Is(err, record.ErrCorrupt) || !strings.Contains(err.Error(), filepath.Base(table)) || !strings.Contains(err.Error(), "restore the store from a backup") {
					t.Fatalf("read-only=%v: %v", opts.ReadOnly, err)
				}
				if strings.Contains(err.Error(), "check --repair") {
					t.Fatalf("read-only=%v: advises a repair that cannot bring the file back: %v", opts.ReadOnly, err)
				}
			}
		})
	}
}

// TestRepairNamesDamagedTable: check --repair (Repair) on a store whose
// table file is missing, truncated or emptied names that file and the
// way out, changes nothing, and does not blame the manifest (issue 27,
// item 7: it said no manifest opened with cgraph metadata).
func TestRepairNamesDamagedTable(t *testing.T) {
	for name, damage := range map[string]func(path string) error{
		"missing":   os.Remove,
		"truncated": func(p string) error { return os.Truncate(p, 100) },
		"empty":     func(p string) error { return os.Truncate(p, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			dir, table := flushedStore(t)
			if err := damage(table); err != nil {
				t.Fatal(err)
			}
			current, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Repair(dir)
			if err == nil || !strings.Contains(err.Error(), filepath.Base(table)) || !strings.Contains(err.Error(), "restore the store from a backup") ||
				strings.Contains(err.Error(), "manifest") {
				t.Fatalf("Repair: %v; want the table file named and the restore advice, not the manifest", err)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, "CURRENT")); string(after) != string(current) {
				t.Fatalf("CURRENT changed from %q to %q", current, after)
			}
		})
	}
}
