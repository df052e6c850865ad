package cellar

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/cgraph/cgraph/record"
)

func noStore(dir string) error {
	return fmt.Errorf("%w %s: create one with `cgraph init` or pass --db to an existing store", record.ErrNoStore, dir)
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
		return false, &record.ValidationError{Field: "db", Problem: fmt.Sprintf("%s is a file, not a directory", dir),
			Fix: "give a directory for the store (a new one is created by `cgraph init`)"}
	}
	d, err := readStoreDir(dir)
	if err != nil {
		return false, err
	}
	switch {
	case d.current:
		return true, nil
	case d.holdsData():
		return false, d.damaged(dir, "its CURRENT file is missing")
	case len(d.foreign) > 0:
		return false, &record.ValidationError{Field: "db", Problem: fmt.Sprintf("%s is not empty and holds no cgraph store (found %s)", dir, d.foreign[0]),
			Fix: "give an empty or new directory, or the directory of an existing store"}
	}
	// Nothing, or what a creation killed before its first write leaves:
	// creating again over it is safe.
	return false, nil
}

// openWriter opens (or creates) the store read-write, checks its identity
// and format version, and creates the families a store of an older build
// lacks. An existing store that is not marked as finished, or holds more
// than one manifest, is inspected read-only first (see markerFileName).
func openWriter(dir string, exists bool, createdBy string) (*rocksStore, error) {
	if !exists {
		s, err := openRocks(dir, rocksCreate)
		if err != nil {
			return nil, err
		}
		if err := writeMeta(s, createdBy); err != nil {
			return nil, errors.Join(err, s.close())
		}
		if err := putNewID(s); err != nil {
			return nil, errors.Join(err, s.close())
		}
		if err := writeMarker(dir); err != nil {
			return nil, errors.Join(err, s.close())
		}
		return s, nil
	}
	d, err := readStoreDir(dir)
	if err != nil {
		return nil, err
	}
	if !d.marker || len(d.manifests) != 1 {
		if err := inspect(dir, d); err != nil && !errors.Is(err, errUnfinished) {
			return nil, err
		}
	}
	s, err := openRocks(dir, rocksWrite)
	if err != nil {
		return nil, diagnose(dir, err)
	}
	err = checkIdentity(s, dir)
	unfinished := errors.Is(err, errUnfinished)
	if err != nil && !unfinished {
		return nil, errors.Join(err, s.close())
	}
	if err := s.createMissing(); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if err := s.finishSalvage(); err != nil { // a repair that was interrupted
		return nil, errors.Join(err, s.close())
	}
	if err := upgradeFormat(s); err != nil && !unfinished {
		return nil, errors.Join(err, s.close())
	}
	if unfinished { // finish a creation that was killed before its metadata
		if err := writeMeta(s, createdBy); err != nil {
			return nil, errors.Join(err, s.close())
		}
	}
	if err := ensureID(s); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if !d.marker {
		if err := writeMarker(dir); err != nil {
			return nil, errors.Join(err, s.close())
		}
	}
	return s, nil
}

// writeMeta writes the metadata of a new store, fsynced, in one batch: a
// store without meta/magic is one whose creation did not finish.
func writeMeta(s *rocksStore, createdBy string) error {
	if createdBy == "" {
		createdBy = "cgraph (build unnamed)"
	}
	b := s.newBatch()
	defer b.destroy()
	b.put(FamDefault, metaMagicKey, []byte(storeMagic))
	b.put(FamDefault, metaFormatKey, binary.BigEndian.AppendUint32(nil, FormatVersion))
	b.put(FamDefault, metaCreatedByKey, []byte(createdBy))
	b.put(FamDefault, metaNextDocNumKey, binary.BigEndian.AppendUint32(nil, 0))
	b.put(FamDefault, metaMemoryCountKey, binary.BigEndian.AppendUint64(nil, 0))
	if err := s.write(b, true); err != nil {
		return fmt.Errorf("write store metadata: %w", err)
	}
	return nil
}

// upgradeFormat brings a store of an older version to FormatVersion once
// its missing families exist, and records the version last (fsynced), so
// that an interrupted upgrade is redone on the next writer open. Version 2
// only added record fields and families, which readers of version 2 read
// in old records as their defaults (FORMAT.md, "Migrations"), so nothing
// is rewritten; version 3 fills content_hash from the records
// (buildContentIndex); version 4 sets the valid-until time of every
// superseded memory from the relations (setValidity). Builds that read
// only older versions then refuse the store instead of misreading or
// failing to maintain it.
func upgradeFormat(s *rocksStore) error {
	v, ok, err := s.get(FamDefault, metaFormatKey)
	if err != nil || !ok || len(v) != 4 || binary.BigEndian.Uint32(v) >= FormatVersion {
		return err
	}
	if binary.BigEndian.Uint32(v) < 3 {
		if err := buildContentIndex(s); err != nil {
			return fmt.Errorf("upgrade the store to format version 3: %w", err)
		}
	}
	if _, err := setValidity(s); err != nil {
		return fmt.Errorf("upgrade the store to format version 4: %w", err)
	}
	b := s.newBatch()
	defer b.destroy()
	b.put(FamDefault, metaFormatKey, binary.BigEndian.AppendUint32(nil, FormatVersion))
	if err := s.write(b, true); err != nil {
		return fmt.Errorf("upgrade the store's format version to %d: %w", FormatVersion, err)
	}
	return nil
}

// errNotCgraph marks a RocksDB directory whose default family holds keys
// but no cgraph metadata.
var errNotCgraph = errors.New("not a cgraph store")

// errUnfinished marks a RocksDB directory without metadata and without any
// data: a store whose creation was killed before it wrote its metadata.
var errUnfinished = errors.New("the store's creation was interrupted")

// isEmpty reports whether no open family of s holds a key.
func isEmpty(s *rocksStore) (bool, error) {
	for f, h := range s.handles {
		if h == nil {
			continue
		}
		it := s.iter(Family(f), nil, nil)
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
		return nil, diagnose(dir, err)
	}
	if err := checkIdentity(s, dir); err != nil {
		return nil, errors.Join(diagnose(dir, err), s.close())
	}
	if name, ok, err := s.get(FamDefault, metaSalvageKey); err != nil || ok {
		return nil, errors.Join(err, fmt.Errorf("store %s: a repair rewriting family %s was interrupted: run `cgraph check --repair --db %s` (or any command that writes) to finish it",
			dir, name, dir), s.close())
	}
	if miss := s.missing(); len(miss) > 0 {
		return nil, errors.Join(fmt.Errorf("store %s lacks column Family %s: open it once for writing to upgrade it",
			dir, families[miss[0]].name), s.close())
	}
	if v, ok, err := s.get(FamDefault, metaFormatKey); err != nil || (ok && len(v) == 4 && binary.BigEndian.Uint32(v) < FormatVersion) {
		if err == nil {
			err = fmt.Errorf("store %s has format version %d, this cgraph reads it once a writer upgraded it to %d: open it once for writing to upgrade it",
				dir, binary.BigEndian.Uint32(v), FormatVersion)
		}
		return nil, errors.Join(err, s.close())
	}
	return s, nil
}

// checkIdentity refuses a directory that is not a cgraph store or has a
// newer format version.
func checkIdentity(s *rocksStore, dir string) error {
	if s.handles[FamDefault] == nil {
		return fmt.Errorf("%s has no default column family: %w", dir, record.ErrCorrupt)
	}
	magic, ok, err := s.get(FamDefault, metaMagicKey)
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
		return fmt.Errorf("%s is a RocksDB directory but %w (meta/magic is %q): give the directory of a cgraph store", dir, errNotCgraph, magic)
	}
	v, ok, err := s.get(FamDefault, metaFormatKey)
	if err != nil {
		return err
	}
	if !ok || len(v) != 4 {
		return fmt.Errorf("store %s: meta/format_version is %x, want 4 bytes: %w", dir, v, record.ErrCorrupt)
	}
	if got := binary.BigEndian.Uint32(v); got > FormatVersion {
		by, _, _ := s.get(FamDefault, metaCreatedByKey) // only decorates the message
		return fmt.Errorf("%w: store %s has format version %d (written by %s), this cgraph reads versions up to %d: upgrade cgraph",
			record.ErrNewerFormat, dir, got, by, FormatVersion)
	}
	return nil
}

// loadCounters reads the doc-number counter and the memory count.
func (e *Store) loadCounters() error {
	next, err := readMetaUint(e.kv, metaNextDocNumKey, 4)
	if err != nil {
		return err
	}
	count, err := readMetaUint(e.kv, metaMemoryCountKey, 8)
	if err != nil {
		return err
	}
	e.nextDoc, e.count = record.DocNum(next), count
	return nil
}

func readMetaUint(r kvReader, key []byte, size int) (uint64, error) {
	v, ok, err := r.get(FamDefault, key)
	if err != nil {
		return 0, err
	}
	if !ok || len(v) != size {
		return 0, fmt.Errorf("default/%s is %x, want %d bytes: %w", key, v, size, record.ErrCorrupt)
	}
	if size == 4 {
		return uint64(binary.BigEndian.Uint32(v)), nil
	}
	return binary.BigEndian.Uint64(v), nil
}
