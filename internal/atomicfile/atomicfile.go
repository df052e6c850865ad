// Package atomicfile writes a file whole or not at all: a temporary file
// beside it, synced, renamed over it. It is for small files written whole
// from a []byte: a user's or a host's (agent hook settings, service units,
// a serve's discovery file), cgraph's own records beside its data (model
// install state, ingest cursors, the bench store's manifest) and the few
// files the store keeps beside RocksDB's (its marker, the WAL ledger, a
// repaired CURRENT). It must not be used for the store's data, whose
// writes are RocksDB's, nor for a file written as a stream.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data: a temporary file in the same
// directory, synced, then renamed over it. A crash leaves the old or the
// new file, never half of one. The directory is synced where the file
// system can, which makes the rename durable; a directory that cannot be
// synced is not an error.
func WriteFile(path string, data []byte, mode fs.FileMode) error {
	return write(path, data, mode, false)
}

// WriteFileSynced is WriteFile for a file the caller relies on being in
// place after a crash before it goes on (the store's marker, a repaired
// CURRENT): a directory that cannot be synced is an error.
func WriteFileSynced(path string, data []byte, mode fs.FileMode) error {
	return write(path, data, mode, true)
}

func write(path string, data []byte, mode fs.FileMode, dirSync bool) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".cgraph-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name()) // the error that got us here is the one to report
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		if dirSync {
			return fmt.Errorf("sync directory of %s: %w", path, err)
		}
		return nil // the file is written; only the rename's durability is unknown
	}
	serr := d.Sync()
	if cerr := d.Close(); serr == nil {
		serr = cerr
	}
	if serr != nil && dirSync {
		return fmt.Errorf("sync directory of %s: %w", path, serr)
	}
	return nil
}

// Backup copies data to path unless a file is already there: the first
// backup of a file is the file as it was before cgraph, and stays. It is
// not atomic (a crash can leave a short copy); a caller that needs one
// whole writes it before it changes the original.
func Backup(path string, data []byte, mode fs.FileMode) error {
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	if _, err := w.Write(data); err != nil {
		_ = w.Close() // the write's error is the one to report
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	if err := w.Sync(); err != nil {
		_ = w.Close()
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	return nil
}
