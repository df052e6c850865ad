package testdir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCopy: nested directories and files arrive with their contents.
func TestCopy(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(filepath.Join(src, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a", "b", "f"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	Copy(t, src, dst)
	if b, err := os.ReadFile(filepath.Join(dst, "a", "b", "f")); err != nil || string(b) != "data" {
		t.Fatalf("copied file: %q, %v", b, err)
	}
}
