package cellar

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/cgraph/cgraph/internal/atomicfile"
	"github.com/cgraph/cgraph/record"
)

// markerFileName is the file a store's creation writes last, once its
// metadata is committed: a directory holding it holds a finished cgraph
// store. A writer opens a marked store with one manifest directly; any other
// existing directory is first checked read-only, because a read-write
// RocksDB open deletes every file its manifest does not name (FORMAT.md,
// "Files and their lifecycle").
const markerFileName = "CGRAPH_STORE"

// ServerFileName is the file a running `cgraph serve` writes in the store
// directory (its address and pid) so that other cgraph commands on the same
// store can use it; it is removed when the server stops. It is not part of
// the store's data.
const ServerFileName = "cgraph-serve.json"

// storeDir is what a store directory holds, by kind.
type storeDir struct {
	current   bool
	marker    bool
	manifests []string // MANIFEST-*, oldest first
	tables    []string // *.sst
	logs      []string // *.log holding at least one byte
	foreign   []string // neither RocksDB's nor cgraph's
}

func readStoreDir(dir string) (storeDir, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return storeDir{}, fmt.Errorf("read store directory: %w", err)
	}
	var d storeDir
	for _, en := range entries {
		name := en.Name()
		switch {
		case name == "CURRENT":
			d.current = true
		case name == markerFileName:
			d.marker = true
		case strings.HasPrefix(name, "MANIFEST-"):
			d.manifests = append(d.manifests, name)
		case strings.HasSuffix(name, ".sst"):
			d.tables = append(d.tables, name)
		case strings.HasSuffix(name, ".log"):
			fi, err := en.Info()
			if err != nil {
				return storeDir{}, fmt.Errorf("stat %s: %w", name, err)
			}
			if fi.Size() > 0 {
				d.logs = append(d.logs, name)
			}
		case name == lockFileName || name == ServerFileName || name == walLedgerFileName || isRocksFile(name):
		default:
			d.foreign = append(d.foreign, name)
		}
	}
	// Manifest numbers have six or more digits; order by number.
	slices.SortFunc(d.manifests, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	return d, nil
}

// holdsData reports whether the directory holds anything a store's
// creation killed before its first write could not have left: table files,
// logs with records, more than one manifest, or the marker.
func (d storeDir) holdsData() bool {
	return d.marker || len(d.tables) > 0 || len(d.logs) > 0 || len(d.manifests) > 1
}

// damaged describes d as a damaged store.
func (d storeDir) damaged(dir, problem string) *record.DamagedStoreError {
	var files []string
	files = append(files, d.manifests...)
	files = append(files, d.logs...)
	files = append(files, d.tables...)
	const show = 6
	e := &record.DamagedStoreError{Dir: dir, Problem: problem, Files: files}
	if len(files) > show {
		e.Files, e.More = files[:show], len(files)-show
	}
	return e
}

// isRocksFile reports whether name is one of the files RocksDB keeps in a
// database directory.
func isRocksFile(name string) bool {
	switch {
	case name == "LOCK", name == "IDENTITY", name == "CURRENT",
		strings.HasPrefix(name, "LOG"), strings.HasPrefix(name, "MANIFEST-"), strings.HasPrefix(name, "OPTIONS-"),
		strings.HasSuffix(name, ".log"), strings.HasSuffix(name, ".sst"), strings.HasSuffix(name, ".dbtmp"):
		return true
	}
	return false
}

// writeMarker records that the store's creation finished.
func writeMarker(dir string) error {
	path := filepath.Join(dir, markerFileName)
	text := fmt.Sprintf("cgraph store, format version %d; see engine/FORMAT.md. Never delete files from this directory.\n", FormatVersion)
	if err := atomicfile.WriteFileSynced(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write store marker: %w", err)
	}
	return nil
}

// inspect opens the store in dir read-only — which, unlike a read-write
// open, deletes nothing — and checks that it is a cgraph store whose
// manifest accounts for its data: a manifest without cgraph metadata in a
// directory that holds data files, or one RocksDB cannot read, makes a
// *record.DamagedStoreError. It returns errUnfinished (wrapped) for a creation
// that was killed before its metadata and left nothing else.
func inspect(dir string, d storeDir) error {
	o, err := rocksOptions()
	if err != nil {
		return err
	}
	defer o.Destroy()
	// Keep RocksDB's info log out of the store: inspecting changes nothing.
	logDir, err := os.MkdirTemp("", "cgraph-inspect-")
	if err != nil {
		return fmt.Errorf("make a directory for the inspection's log: %w", err)
	}
	defer os.RemoveAll(logDir) // scratch: a leftover is harmless
	o.SetDbLogDir(logDir)
	names, err := grocksdb.ListColumnFamilies(o, dir)
	if err == nil {
		cfOpts := make([]*grocksdb.Options, len(names))
		for i := range cfOpts {
			cfOpts[i] = o
		}
		var db *grocksdb.DB
		var handles []*grocksdb.ColumnFamilyHandle
		db, handles, err = grocksdb.OpenDbForReadOnlyColumnFamilies(o, dir, names, cfOpts, false)
		if err == nil {
			s := &rocksStore{dir: dir, db: db, ro: grocksdb.NewDefaultReadOptions()}
			for i, h := range handles {
				if f, ok := familyByName(names[i]); ok {
					s.handles[f] = h
				} else {
					s.extra = append(s.extra, h)
				}
			}
			err = checkIdentity(s, dir)
			s.closeDB()
			s.ro.Destroy()
			return diagnose(dir, err)
		}
	}
	return diagnose(dir, fmt.Errorf("open rocksdb %s: %w", dir, err))
}

// diagnose turns an error from opening the store in dir into a
// *record.DamagedStoreError when the directory shows that it held a store: a
// manifest without cgraph metadata (errUnfinished, errNotCgraph) beside
// data files, or RocksDB reporting corruption while opening. Other errors
// pass unchanged.
func diagnose(dir string, err error) error {
	if err == nil {
		return nil
	}
	d, derr := readStoreDir(dir)
	if derr != nil {
		return errors.Join(err, derr)
	}
	switch {
	case errors.Is(err, errTableDamaged):
		return err
	case isTableError(err):
		return fmt.Errorf("store %s: %w: %w", dir, rewriteRocks(err), errTableDamaged)
	case errors.Is(err, errUnfinished) && d.holdsData(),
		errors.Is(err, errNotCgraph) && (d.marker || len(d.manifests) > 1):
		return d.damaged(dir, "the manifest its CURRENT file names records no cgraph metadata")
	case strings.Contains(err.Error(), "Corruption:") && d.holdsData():
		return d.damaged(dir, fmt.Sprintf("RocksDB cannot read the manifest its CURRENT file names (%v)", err))
	}
	return err
}
