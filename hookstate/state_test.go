package hookstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

// TestSession: what a session was shown survives a save and a load; a
// session name cannot leave the sessions directory; sessions untouched
// for a week are forgotten; without a session nothing is written.
func TestSession(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	id := record.NewID()
	s := Load("../../etc/abc-123")
	s.Add(id)
	s.AddFile("cli/hook.go")
	old := filepath.Join(Dir(), "sessions", "old.json")
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	week := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(old, week, week); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.path, filepath.Join(Dir(), "sessions")+string(filepath.Separator)) || strings.Contains(s.path, "..") {
		t.Errorf("session file %s is outside the sessions directory", s.path)
	}
	again := Load("../../etc/abc-123")
	if !again.Has(id) || !again.HasFile("cli/hook.go") || again.HasFile("other.go") {
		t.Errorf("loaded session %+v lost what was shown", again)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a session untouched for a week is still kept (%v)", err)
	}
	none := Load("")
	none.Add(id)
	if err := none.Save(); err != nil || none.path != "" {
		t.Errorf("a hook without a session wrote %q (%v)", none.path, err)
	}
}
