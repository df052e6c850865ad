// Package serverfile is the discovery file a running `cgraph serve` writes
// into its store's directory (engine.ServerFile) so that other commands on
// the same store send it their requests instead of loading the models
// again: what it holds (Info), writing it when a server starts (Write) and
// finding a live server of a store (Read). It must not be trusted blindly:
// a file copied with its store (`cp -a`), one without a store identity (an
// older server's) and one whose process is gone are ignored, so a client
// falls back to running the command itself. It opens no store and sends no
// request.
package serverfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/internal/atomicfile"
)

// Info is the discovery file's content.
type Info struct {
	URL     string    `json:"url"`
	PID     int       `json:"pid"`
	Version string    `json:"version"`
	Token   bool      `json:"token"` // requests need the bearer token of --token-file
	Started time.Time `json:"started"`
	Store   string    `json:"store"` // the served store's identity (meta/store_id)
	Dir     string    `json:"dir"`   // the served store's directory, absolute
}

// Write announces a server for the store in dir; the returned func
// removes the file if it still names this process.
func Write(dir string, info Info) (func(), error) {
	b, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	path := engine.ServerFile(dir)
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return func() {
		if cur, ok := Read(dir); ok && cur.PID == info.PID {
			_ = os.Remove(path) // a leftover is ignored by clients: its pid is gone
		}
	}, nil
}

// Read returns the live server announced for the store in dir. A file
// that names another directory (it was copied with the store, as `cp -a`
// does) or no store identity (an older server's) is ignored.
func Read(dir string) (Info, bool) {
	b, err := os.ReadFile(engine.ServerFile(dir))
	if err != nil {
		return Info{}, false
	}
	var info Info
	if json.Unmarshal(b, &info) != nil || info.URL == "" || info.PID <= 0 || info.Store == "" || !sameDir(info.Dir, dir) {
		return Info{}, false
	}
	if err := syscall.Kill(info.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return Info{}, false // a server that died without removing it
	}
	return info, true
}

// sameDir reports whether a and b name the same existing directory.
func sameDir(a, b string) bool {
	if a == "" {
		return false
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
