package serverfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cgraph/cgraph/engine"
)

// TestReadIgnoresWhatIsNotALiveServer: a written file is read back; the
// same file copied beside another store, one without a store identity
// and one whose process is gone are ignored; the remove func removes the
// file only while it names this process.
func TestReadIgnoresWhatIsNotALiveServer(t *testing.T) {
	dir := t.TempDir()
	live := Info{URL: "http://127.0.0.1:1", PID: os.Getpid(), Version: "test", Store: "s", Started: time.Now().UTC().Truncate(time.Second), Dir: dir}
	remove, err := Write(dir, live)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Read(dir); !ok || got.URL != live.URL || got.Store != "s" || !got.Started.Equal(live.Started) {
		t.Fatalf("Read = %+v, %v, want %+v", got, ok, live)
	}
	copied := t.TempDir()
	raw, err := os.ReadFile(engine.ServerFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(engine.ServerFile(copied), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := Read(copied); ok {
		t.Error("a file copied beside another store was read as that store's server")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for name, info := range map[string]Info{
		"no store identity": {URL: live.URL, PID: live.PID, Dir: dir},
		"a process gone":    {URL: live.URL, PID: dead.Process.Pid, Store: "s", Dir: dir},
		"no directory":      {URL: live.URL, PID: live.PID, Store: "s"},
	} {
		other := t.TempDir()
		info.Dir = map[bool]string{true: other, false: ""}[info.Dir != ""]
		if _, err := Write(other, info); err != nil {
			t.Fatal(err)
		}
		if _, ok := Read(other); ok {
			t.Errorf("%s: read as a live server", name)
		}
	}
	if _, ok := Read(filepath.Join(dir, "missing")); ok {
		t.Error("a directory without the file has a server")
	}
	other := live
	other.PID = 1 // init: alive, not this process
	removeOther, err := Write(dir, other)
	if err != nil {
		t.Fatal(err)
	}
	remove()
	if _, ok := Read(dir); !ok {
		t.Error("remove removed a file that names another process")
	}
	if _, err := Write(dir, live); err != nil {
		t.Fatal(err)
	}
	removeOther()
	if _, ok := Read(dir); !ok {
		t.Error("another process's remove removed this process's file")
	}
	remove()
	if _, err := os.Stat(engine.ServerFile(dir)); !os.IsNotExist(err) {
		t.Errorf("remove left the file: %v", err)
	}
}
