package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func noStore(dir string) error {
	return fmt.Errorf("%w %s: create one with `cgraph init` or pass --db to an existing store", ErrNoStore, dir)
}

// checkDir makes sure dir can hold a store and says whether it holds one.
func checkDir(dir string, opts Options) (exists bool, err error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if !opts.Create || opts.ReadOnly {
			return false, noStore(dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create store directory: %w", err)
		}
		return false, nil
	case err != nil:
		return false, fmt.Errorf("open store: %w", err)
	case !fi.IsDir():
		return false, &ValidationError{Field: "db", Problem: fmt.Sprintf("%s is a file, not a directory", dir),
			Fix: "give a directory for the store (a new one is created by `cgraph init`)"}
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err == nil {
		return true, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("read store directory: %w", err)
	}
	for _, en := range entries {
		// RocksDB's own files without CURRENT are what a creation killed
		// early leaves: creating again over them is safe.
		if en.Name() != lockFileName && !isRocksFile(en.Name()) {
			return false, &ValidationError{Field: "db", Problem: fmt.Sprintf("%s is not empty and holds no cgraph store (found %s)", dir, en.Name()),
				Fix: "give an empty or new directory, or the directory of an existing store"}
		}
	}
	return false, nil
}

// openWriter opens (or creates) the store read-write, checks its identity
// and format version, and creates the families a store of an older build
// lacks.
func openWriter(dir string, exists bool) (*rocksStore, error) {
	if !exists {
		s, err := openRocks(dir, rocksCreate)
		if err != nil {
			return nil, err
		}
		if err := writeMeta(s); err != nil {
			return nil, errors.Join(err, s.close())
		}
		return s, nil
	}
	s, err := openRocks(dir, rocksWrite)
	if err != nil {
		return nil, err
	}
	err = checkIdentity(s, dir)
	unfinished := errors.Is(err, errUnfinished)
	if err != nil && !unfinished {
		return nil, errors.Join(err, s.close())
	}
	if err := s.createMissing(); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if unfinished { // finish a creation that was killed before its metadata
		if err := writeMeta(s); err != nil {
			return nil, errors.Join(err, s.close())
		}
	}
	return s, nil
}

// writeMeta writes the metadata of a new store, fsynced, in one batch: a
// store without meta/magic is one whose creation did not finish.
func writeMeta(s *rocksStore) error {
	b := s.newBatch()
	defer b.destroy()
	b.put(famDefault, metaMagicKey, []byte(storeMagic))
	b.put(famDefault, metaFormatKey, binary.BigEndian.AppendUint32(nil, FormatVersion))
	b.put(famDefault, metaCreatedByKey, []byte(Version))
	b.put(famDefault, metaNextDocNumKey, binary.BigEndian.AppendUint32(nil, 0))
	b.put(famDefault, metaMemoryCountKey, binary.BigEndian.AppendUint64(nil, 0))
	if err := s.write(b, true); err != nil {
		return fmt.Errorf("write store metadata: %w", err)
	}
	return nil
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

// errUnfinished marks a RocksDB directory without metadata and without any
// data: a store whose creation was killed before it wrote its metadata.
var errUnfinished = errors.New("the store's creation was interrupted")

// isEmpty reports whether no open family of s holds a key.
func isEmpty(s *rocksStore) (bool, error) {
	for f, h := range s.handles {
		if h == nil {
			continue
		}
		it := s.iter(family(f), nil, nil)
		it.first()
		valid, err := it.valid(), it.err()
		it.close()
		if err != nil || valid {
			return false, err
		}
	}
	return true, nil
}

func openReader(dir string) (*rocksStore, error) {
	s, err := openRocks(dir, rocksSecondary)
	if err != nil {
		return nil, err
	}
	if err := checkIdentity(s, dir); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if miss := s.missing(); len(miss) > 0 {
		return nil, errors.Join(fmt.Errorf("store %s lacks column family %s: open it once for writing to upgrade it",
			dir, families[miss[0]].name), s.close())
	}
	return s, nil
}

// checkIdentity refuses a directory that is not a cgraph store or has a
// newer format version.
func checkIdentity(s *rocksStore, dir string) error {
	if s.handles[famDefault] == nil {
		return fmt.Errorf("%s has no default column family: %w", dir, ErrCorrupt)
	}
	magic, ok, err := s.get(famDefault, metaMagicKey)
	if err != nil {
		return err
	}
	if !ok {
		empty, err := isEmpty(s)
		if err != nil {
			return err
		}
		if empty {
			return fmt.Errorf("%w: open %s for writing (e.g. `cgraph init`) to finish it", errUnfinished, dir)
		}
	}
	if !ok || string(magic) != storeMagic {
		return fmt.Errorf("%s is a RocksDB directory but not a cgraph store (meta/magic is %q): give the directory of a cgraph store", dir, magic)
	}
	v, ok, err := s.get(famDefault, metaFormatKey)
	if err != nil {
		return err
	}
	if !ok || len(v) != 4 {
		return fmt.Errorf("store %s: meta/format_version is %x, want 4 bytes: %w", dir, v, ErrCorrupt)
	}
	if got := binary.BigEndian.Uint32(v); got > FormatVersion {
		by, _, _ := s.get(famDefault, metaCreatedByKey) // only decorates the message
		return fmt.Errorf("%w: store %s has format version %d (written by %s), this cgraph reads versions up to %d: upgrade cgraph",
			ErrNewerFormat, dir, got, by, FormatVersion)
	}
	return nil
}

// loadCounters reads the doc-number counter and the memory count.
func (e *Engine) loadCounters() error {
	next, err := readMetaUint(e.kv, metaNextDocNumKey, 4)
	if err != nil {
		return err
	}
	count, err := readMetaUint(e.kv, metaMemoryCountKey, 8)
	if err != nil {
		return err
	}
	e.nextDoc, e.count = DocNum(next), count
	return nil
}

func readMetaUint(r kvReader, key []byte, size int) (uint64, error) {
	v, ok, err := r.get(famDefault, key)
	if err != nil {
		return 0, err
	}
	if !ok || len(v) != size {
		return 0, fmt.Errorf("default/%s is %x, want %d bytes: %w", key, v, size, ErrCorrupt)
	}
	if size == 4 {
		return uint64(binary.BigEndian.Uint32(v)), nil
	}
	return binary.BigEndian.Uint64(v), nil
}
