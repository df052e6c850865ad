package serviceunit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cgraph/cgraph/internal/atomicfile"
)

// Result is what Install or Uninstall did (serve --install/--uninstall
// --json).
type Result struct {
	Platform string   `json:"platform"`
	File     string   `json:"file"`
	Action   string   `json:"action"` // "created", "updated", "unchanged", "removed", "none"
	Backup   string   `json:"backup,omitempty"`
	Commands []string `json:"commands"` // what starts (or stops) it
	Ran      bool     `json:"ran"`      // the commands were run (now)
}

// Runner runs one of a unit's command lines (with now); the caller's, so
// that no test starts a real service manager by accident.
type Runner func(line string) error

// Install writes u's file, keeping a file it replaces in
// FILE.cgraph-backup (the first one stays), and with now runs the commands
// that start it. A file already as it would be written is left alone.
func Install(u Unit, now bool, run Runner) (Result, error) {
	res := Result{Platform: u.Platform, File: u.Path, Action: "unchanged", Commands: u.Start}
	old, exists, err := readUnit(u)
	if err != nil {
		return res, err
	}
	if !exists || !bytes.Equal(old, u.Content) {
		if res.Action, res.Backup, err = writeUnit(u, old, exists); err != nil {
			return res, err
		}
	}
	if now {
		if err := u.run(run, u.Start, true); err != nil {
			return res, err
		}
		res.Ran = true
	}
	return res, nil
}

// Uninstall removes u's file (and the link `systemctl enable` made to
// it); with now it stops the service first and runs what must follow.
// A file at u's place that cgraph did not write is refused, untouched.
func Uninstall(u Unit, now bool, run Runner) (Result, error) {
	res := Result{Platform: u.Platform, File: u.Path, Action: "none", Commands: u.StopLater}
	if now {
		res.Commands = append(append([]string(nil), u.Stop...), u.After...)
	}
	old, exists, err := readUnit(u)
	if err != nil || !exists {
		return res, err
	}
	if !bytes.Contains(old, []byte(Header)) {
		return res, fmt.Errorf("%s was not written by cgraph serve --install: stop and remove it yourself (%s)", u.Path, strings.Join(u.Stop, "; "))
	}
	if now {
		if err := u.run(run, u.Stop, false); err != nil {
			return res, err
		}
	}
	if err := removeUnit(u); err != nil {
		return res, err
	}
	res.Action = "removed"
	if now {
		if err := u.run(run, u.After, false); err != nil {
			return res, err
		}
		res.Ran = true
	}
	return res, nil
}

// readUnit reads the file at u's place, if there is one.
func readUnit(u Unit) (old []byte, exists bool, err error) {
	old, err = os.ReadFile(u.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", u.Path, err)
	}
	return old, true, nil
}

// writeUnit backs up the old file (when there is one) and writes u's.
func writeUnit(u Unit, old []byte, exists bool) (action, backup string, err error) {
	action = "created"
	if exists {
		action, backup = "updated", u.Path+".cgraph-backup"
		if err := atomicfile.Backup(backup, old, 0o644); err != nil {
			return "", "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(u.Path), 0o755); err != nil {
		return "", "", fmt.Errorf("create %s: %w", filepath.Dir(u.Path), err)
	}
	if err := atomicfile.WriteFile(u.Path, u.Content, 0o644); err != nil {
		return "", "", fmt.Errorf("write %s: %w", u.Path, err)
	}
	return action, backup, nil
}

// removeUnit removes u's file and the enable link when it points at it
// (what `systemctl disable` does).
func removeUnit(u Unit) error {
	if err := os.Remove(u.Path); err != nil {
		return fmt.Errorf("remove %s: %w", u.Path, err)
	}
	if u.Wants == "" {
		return nil
	}
	if target, err := os.Readlink(u.Wants); err == nil && target == u.Path {
		if err := os.Remove(u.Wants); err != nil {
			return fmt.Errorf("remove %s: %w", u.Wants, err)
		}
	}
	return nil
}

// run runs lines in order, stopping at the first failure; starting, the
// bootout of a launchd agent not loaded yet fails harmlessly.
func (u Unit) run(run Runner, lines []string, install bool) error {
	for _, line := range lines {
		err := run(line)
		if err != nil && !(install && strings.HasPrefix(line, "launchctl bootout")) {
			return fmt.Errorf("%s: %w: the file is %s; run the command yourself to see why", line, err, u.Path)
		}
	}
	return nil
}
