package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFile: both writers put the whole data in place with the mode
// asked for (whatever the umask), replace an older file, and leave no
// temporary file behind, also when they fail.
func TestWriteFile(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o077))
	for _, w := range []struct {
		name  string
		write func(string, []byte, fs.FileMode) error
	}{{"WriteFile", WriteFile}, {"WriteFileSynced", WriteFileSynced}} {
		for _, tc := range []struct {
			name    string
			old     string // the file there before; "" none, "/" a directory
			mode    fs.FileMode
			wantErr bool
		}{
			{"new file", "", 0o644, false},
			{"private file", "", 0o600, false},
			{"replaces", "an older and longer content\n", 0o644, false},
			{"over a directory", "/", 0o644, true},
		} {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "state.json")
				switch tc.old {
				case "":
				case "/":
					if err := os.Mkdir(path, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(path, "inside"), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				default:
					if err := os.WriteFile(path, []byte(tc.old), 0o666); err != nil {
						t.Fatal(err)
					}
				}
				err := w.write(path, []byte("{}\n"), tc.mode)
				if (err != nil) != tc.wantErr {
					t.Fatalf("err %v, want an error: %v", err, tc.wantErr)
				}
				entries, rerr := os.ReadDir(dir)
				if rerr != nil || len(entries) != 1 || entries[0].Name() != "state.json" {
					t.Fatalf("directory holds %v (%v), want state.json alone", entries, rerr)
				}
				if tc.wantErr {
					if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
						t.Errorf("the directory in the way was changed: %v %v", fi, err)
					}
					return
				}
				b, err := os.ReadFile(path)
				if err != nil || string(b) != "{}\n" {
					t.Errorf("content %q (%v), want {}", b, err)
				}
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != tc.mode {
					t.Errorf("mode %v (%v), want %v", fi.Mode().Perm(), err, tc.mode)
				}
			})
		}
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "no-such-dir", "f"), []byte("x"), 0o644); err == nil {
		t.Error("a file in a directory that does not exist was written")
	}
}
