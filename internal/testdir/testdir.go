// Package testdir holds file-system helpers that tests of several packages
// share. It is imported by tests only and must not grow runtime code.
package testdir

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Copy copies the tree under src into dst (created as needed), files with
// mode 0644, and fails tb on any error. It is for closed stores and
// fixtures: it takes no lock and no snapshot.
func Copy(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		tb.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}
