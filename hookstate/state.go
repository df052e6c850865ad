// Package hookstate is the agent hooks' state outside the store: the state
// directory, what each agent session was already shown (so nothing is
// injected twice) and the hooks' log. The hooks must never fail the agent
// because of it: a damaged session file starts afresh and a log that cannot
// be written is given up on silently. It holds no memory content.
package hookstate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cgraph/cgraph/record"
)

// Session remembers, per agent session, the memories and files already
// surfaced, so nothing is injected twice. It lives in the state directory
// and is forgotten after a week.
type Session struct {
	path  string
	IDs   []record.ID `json:"ids"`
	Files []string    `json:"files"`
}

// Load is the session's memory, empty for a new session (or none: "").
func Load(session string) *Session {
	s := &Session{}
	if session == "" {
		return s
	}
	var b strings.Builder
	for _, r := range session {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		}
	}
	s.path = filepath.Join(Dir(), "sessions", b.String()+".json")
	if raw, err := os.ReadFile(s.path); err == nil {
		_ = json.Unmarshal(raw, s) // a damaged file starts the session's memory afresh
	}
	return s
}

func (s *Session) Has(id record.ID) bool    { return slices.Contains(s.IDs, id) }
func (s *Session) Add(id record.ID)         { s.IDs = append(s.IDs, id) }
func (s *Session) HasFile(path string) bool { return slices.Contains(s.Files, path) }
func (s *Session) AddFile(path string)      { s.Files = append(s.Files, path) }

// Save writes the session's memory, and forgets sessions untouched for
// a week.
func (s *Session) Save() error {
	if s.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	pruneSessions(filepath.Dir(s.path))
	return os.Rename(tmp, s.path)
}

// pruneSessions removes session files untouched for a week.
func pruneSessions(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 7*24*time.Hour {
			_ = os.Remove(filepath.Join(dir, e.Name())) // best effort: a leftover is harmless
		}
	}
}

// Dir is the hooks' state directory: $XDG_STATE_HOME/cgraph, else ~/.local/state/cgraph.
func Dir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "cgraph")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "cgraph-state")
	}
	return filepath.Join(home, ".local", "state", "cgraph")
}

// Logf appends one line to the hooks log; a log that cannot be written
// is given up on silently (the agent must not see it).
func Logf(format string, args ...any) {
	dir := Dir()
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, "hooks.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	line := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), line)
}
