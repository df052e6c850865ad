package cli

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"
)

// TestNewerFormatStore: a store whose default/meta/format_version (FORMAT.md)
// is above this build's is refused by every command, read or write, with a
// message naming the versions and the fix, and is left unchanged.
func TestNewerFormatStore(t *testing.T) {
	db := newStore(t)
	mustRun(t, "", "--db", db, "add", "written by v1")
	setFormatVersion(t, db, 99)
	for _, args := range [][]string{{"list"}, {"stats"}, {"add", "x"}, {"init"}, {"--read-only", "stats"}} {
		r := run(t, "", append([]string{"--db", db}, args...)...)
		if r.code != ExitError {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		checkMessage(t, r.stderr, []string{"format version 99", "reads versions up to 4", "upgrade cgraph"})
	}
	setFormatVersion(t, db, 4) // this build's version: a reader refuses an older one until a writer upgraded it
	if out := mustRun(t, "", "--db", db, "list").stdout; !strings.Contains(out, "written by v1") || strings.Count(out, "\n") != 1 {
		t.Fatalf("store changed while refused: %q", out)
	}
}

// setFormatVersion rewrites the store's format version with RocksDB directly.
func setFormatVersion(t *testing.T, dir string, v uint32) {
	t.Helper()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	opts.SetInfoLogLevel(grocksdb.ErrorInfoLogLevel)
	names, err := grocksdb.ListColumnFamilies(opts, dir)
	if err != nil {
		t.Fatal(err)
	}
	cfOpts := make([]*grocksdb.Options, len(names))
	for i := range cfOpts {
		cfOpts[i] = opts
	}
	rdb, handles, err := grocksdb.OpenDbColumnFamilies(opts, dir, names, cfOpts)
	if err != nil {
		t.Fatal(err)
	}
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	for i, n := range names {
		if n == "default" {
			if err := rdb.PutCF(wo, handles[i], []byte("meta/format_version"), binary.BigEndian.AppendUint32(nil, v)); err != nil {
				t.Error(err)
			}
		}
	}
	for _, h := range handles {
		h.Destroy()
	}
	rdb.Close()
}
