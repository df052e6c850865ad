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
	StatusOK      FileStatus = "ok"      // present and its sha256 matches
	StatusMissing FileStatus = "missing" // not on disk
	StatusCorrupt FileStatus = "corrupt" // on disk, with a different sha256 or size
	StatusUnknown FileStatus = "unknown" // unpinned and never recorded: nothing to compare with
)

// FileCheck is Verify's finding for one file; its JSON form is one element
// of `cgraph models verify --json`.
type FileCheck struct {
	Model  ModelID    `json:"model"`
	File   string     `json:"file"`
	Status FileStatus `json:"status"`
	Want   string     `json:"want_sha256"`      // expected sha256
	Got    string     `json:"sha256,omitempty"` // actual sha256, when the file exists
	Size   int64      `json:"size"`
}

// Problem says what is wrong with the file and how to fix it, in the words
// every command uses; "" for a file that is fine.
func (c FileCheck) Problem() string {
	switch c.Status {
	case StatusMissing:
		return fmt.Sprintf("model %s is not installed (file %s is missing): run `cgraph models pull %s`", c.Model, c.File, c.Model)
	case StatusCorrupt:
		return fmt.Sprintf("model %s is corrupt: file %s has sha256 %s, the manifest expects %s: run `cgraph models pull %s` to replace it",
			c.Model, c.File, c.Got, c.Want, c.Model)
	case StatusUnknown:
		return fmt.Sprintf("model %s: file %s was never recorded by the installer: run `cgraph models pull %s`", c.Model, c.File, c.Model)
	}
	return ""
}

// Check reports whether every file of model id is installed in dir as the
// manifest pins it: the first file that is missing or corrupt, or a check
// with StatusOK. A file whose size and modification time match the
// installer's record is not re-hashed; any other file is (one read of it),
// so a changed file is reported as corrupt with both digests rather than
// as not installed.
func (mf *Manifest) Check(dir string, id ModelID) (FileCheck, error) {
	m, err := mf.Model(id)
	if err != nil {
		return FileCheck{}, err
	}
	md := filepath.Join(dir, string(m.ID))
	st, err := loadState(md)
	if err != nil {
		return FileCheck{}, fmt.Errorf("model %s: %w", id, err)
	}
	for _, f := range m.Files {
		c, err := inspectFile(md, st, m.ID, f, true)
		if err != nil || c.Status != StatusOK {
			return c, err
		}
	}
	return FileCheck{Model: m.ID, Status: StatusOK}, nil
}

// inspectFile hashes file f of model id in md and compares it with the
// manifest (or the installer's record, for an unpinned file). With quick, a
// file matching the installer's record of its size and modification time is
// taken as it is.
func inspectFile(md string, st *state, id ModelID, f File, quick bool) (FileCheck, error) {
	c := FileCheck{Model: id, File: f.Name, Want: st.want(f), Status: StatusOK}
	if quick && st.quickPresent(md, f) {
		return c, nil
	}
	got, size, err := hashFile(filepath.Join(md, f.Name))
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.Status = StatusMissing
	case err != nil:
		return FileCheck{}, fmt.Errorf("model %s: %w", id, err)
	case c.Want == "":
		c.Status, c.Got, c.Size = StatusUnknown, got, size
	case got != c.Want || (f.Pinned() && size != f.Size):
		c.Status, c.Got, c.Size = StatusCorrupt, got, size
	default:
		c.Got, c.Size = got, size
	}
	return c, nil
}

// Installed reports whether every file of model id is in dir with the bytes
// the manifest pins (see Check for the cost).
func (mf *Manifest) Installed(dir string, id ModelID) bool {
	c, err := mf.Check(dir, id)
	return err == nil && c.Status == StatusOK
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
			c, err := inspectFile(md, st, m.ID, f, false)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			checks = append(checks, c)
			if c.Status == StatusMissing || c.Status == StatusCorrupt {
				errs = append(errs, errors.New(c.Problem()))
			}
		}
	}
	return checks, errors.Join(errs...)
}
