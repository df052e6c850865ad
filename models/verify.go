package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FileStatus is the state of one model file on disk.
type FileStatus string

// File states reported by Verify.
const (
	StatusOK       FileStatus = "ok"       // present and its sha256 matches
	StatusMissing  FileStatus = "missing"  // not on disk
	StatusMismatch FileStatus = "mismatch" // on disk, with a different sha256 or size
	StatusUnknown  FileStatus = "unknown"  // unpinned and never recorded: nothing to compare with
)

// FileCheck is Verify's finding for one file.
type FileCheck struct {
	Model  ModelID
	File   string
	Status FileStatus
	Want   string // expected sha256
	Got    string // actual sha256, when the file exists
	Size   int64
}

// Installed reports, without hashing, whether every file of model m is in dir
// as the installer recorded it. Use Verify to re-hash.
func (mf *Manifest) Installed(dir string, id ModelID) bool {
	m, err := mf.Model(id)
	if err != nil {
		return false
	}
	md := filepath.Join(dir, string(m.ID))
	st, err := loadState(md)
	if err != nil {
		return false
	}
	for _, f := range m.Files {
		if !st.quickPresent(md, f) {
			return false
		}
	}
	return true
}

// Path returns where file name of model id is installed under dir.
func Path(dir string, id ModelID, name string) string {
	return filepath.Join(dir, string(id), name)
}

// Verify re-hashes every file of every model that has a directory in dir and
// reports each file's state. Models with no directory are not installed and
// are skipped. The error is non-nil when any file is missing or differs; its
// text names each bad file and how to repair it. Cost: one read of every
// installed file.
func Verify(mf *Manifest, dir string) ([]FileCheck, error) {
	var checks []FileCheck
	var errs []error
	for _, m := range mf.Models {
		md := filepath.Join(dir, string(m.ID))
		if _, err := os.Stat(md); errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			errs = append(errs, fmt.Errorf("model %s: %w", m.ID, err))
			continue
		}
		st, err := loadState(md)
		if err != nil {
			errs = append(errs, fmt.Errorf("model %s: %w", m.ID, err))
			continue
		}
		for _, f := range m.Files {
			c := FileCheck{Model: m.ID, File: f.Name, Want: st.want(f)}
			got, size, err := hashFile(filepath.Join(md, f.Name))
			switch {
			case errors.Is(err, os.ErrNotExist):
				c.Status = StatusMissing
			case err != nil:
				errs = append(errs, fmt.Errorf("model %s: %w", m.ID, err))
				continue
			case c.Want == "":
				c.Status, c.Got, c.Size = StatusUnknown, got, size
			case got != c.Want || (f.Pinned() && size != f.Size):
				c.Status, c.Got, c.Size = StatusMismatch, got, size
			default:
				c.Status, c.Got, c.Size = StatusOK, got, size
			}
			checks = append(checks, c)
			switch c.Status {
			case StatusMissing:
				errs = append(errs, fmt.Errorf("model %s: file %s is missing: run `cgraph models pull %s`", m.ID, f.Name, m.ID))
			case StatusMismatch:
				errs = append(errs, fmt.Errorf("model %s: file %s has sha256 %s, want %s: delete it and run `cgraph models pull %s`", m.ID, f.Name, c.Got, c.Want, m.ID))
			}
		}
	}
	return checks, errors.Join(errs...)
}
