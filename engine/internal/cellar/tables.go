package cellar

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/record"
)

// errTableDamaged marks a store whose manifest lists a table file that is
// missing, truncated or unreadable. Its text is the advice: the data in that
// file cannot be rebuilt from the rest, and pointing CURRENT at another
// manifest (check --repair) does not bring it back.
var errTableDamaged = fmt.Errorf("%w: a table file of the store is missing or unreadable; the data in it cannot be rebuilt: restore the store from a backup (cgraph backup)", record.ErrCorrupt)

// isTableError reports whether a RocksDB open error is about a table file
// (missing, or too short to be one) rather than the manifest.
func isTableError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "While open a file for random read") || strings.Contains(msg, "to be an sstable") ||
		(strings.Contains(msg, ".sst") && strings.Contains(msg, "No such file"))
}

// verifyTables checks that each table file of s's current version exists
// with the size the manifest recorded. verifyForReader runs it on a
// read-only instance before a reader opens: a read-only (secondary)
// instance skips missing files on purpose (a writer may have just deleted
// them), so readers would otherwise answer from a store with whole
// families gone and exit 0. A writer's own open refuses such files. Cost:
// one stat per table file.
func (s *rocksStore) verifyTables() error {
	var bad []string
	for _, f := range s.db.GetLiveFilesMetaData() {
		path := filepath.Join(s.dir, strings.TrimPrefix(f.Name, "/"))
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("table file %s (family %s) is missing", filepath.Base(path), f.ColumnFamilyName))
		case fi.Size() != f.Size:
			bad = append(bad, fmt.Sprintf("table file %s (family %s) is %d bytes, the store recorded %d: it was truncated or replaced",
				filepath.Base(path), f.ColumnFamilyName, fi.Size(), f.Size))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("store %s: %s: %w", s.dir, strings.Join(bad, "; "), errTableDamaged)
}

// verifyForReader checks, for a read-only (secondary) instance about to
// open, that every table file of the store's current version is there and
// readable: it opens the store read-only with every table file opened
// (max_open_files -1, as RocksDB does not skip missing files in that mode),
// runs verifyTables on it and closes it. A writer compacting meanwhile may
// delete a file the manifest just listed; when the manifest moved during
// the check, it is tried again. Cost: one open of every table file's
// footer and index (tens of ms for a store of 100k memories).
func verifyForReader(dir string, names []string) error {
	var err error
	for try := 0; try < 3; try++ {
		before, merr := manifestState(dir)
		if merr != nil {
			return merr
		}
		if err = openReadOnlyOnce(dir, names); err == nil {
			return nil
		}
		if after, merr := manifestState(dir); merr != nil || after == before {
			break // the store did not move: the damage is real
		}
	}
	return err
}

func openReadOnlyOnce(dir string, names []string) error {
	opts, err := rocksOptions()
	if err != nil {
		return err
	}
	defer opts.Destroy()
	opts.SetMaxOpenFiles(-1)
	cfOpts := make([]*grocksdb.Options, len(names))
	for i := range cfOpts {
		cfOpts[i] = opts
	}
	db, handles, err := grocksdb.OpenDbForReadOnlyColumnFamilies(opts, dir, names, cfOpts, false)
	if err != nil {
		if isTableError(err) {
			return fmt.Errorf("store %s: %w: %w", dir, rewriteRocks(err), errTableDamaged)
		}
		return nil // not about table files: the secondary's own open reports it
	}
	s := &rocksStore{dir: dir, db: db}
	err = s.verifyTables()
	closeDB(db, handles, nil)
	return err
}

// rewriteRocks shortens a RocksDB error to what a user can act on: the
// repeated "Corruption: " prefixes go, and RocksDB's ".ldb" alternative
// name for a missing ".sst" file is put back.
func rewriteRocks(err error) error {
	msg := err.Error()
	for strings.Contains(msg, "Corruption: Corruption: ") {
		msg = strings.ReplaceAll(msg, "Corruption: Corruption: ", "Corruption: ")
	}
	msg = strings.ReplaceAll(msg, ".ldb: No such file", ".sst: No such file")
	msg = strings.ReplaceAll(msg, "to be an sstable/", "to be a table file: /")
	return errors.New(msg)
}
