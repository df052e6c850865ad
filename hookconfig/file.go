package hookconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cgraph/cgraph/internal/atomicfile"
	"github.com/cgraph/cgraph/internal/textdiff"
)

// Scope is where a host's configuration is: the user's home or a
// project.
type Scope string

const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// Target is one host's configuration file in one scope.
type Target struct {
	Host  *Host
	Scope Scope
	Path  string // the configuration file
}

func (t Target) BackupPath() string { return t.Path + ".cgraph-backup" }

// File is a configuration file as read.
type File struct {
	path   string // the file written: path with symbolic links resolved
	exists bool
	data   []byte
	mode   fs.FileMode
	root   *jsonObject
	style  jsonStyle
}

// ReadFile reads and checks t's file; a missing file is an empty
// one, to be created.
func ReadFile(t Target) (*File, error) {
	f := &File{path: t.Path, mode: 0o644, style: defaultJSONStyle}
	if t.Scope == ScopeUser {
		f.mode = 0o600
	}
	if p, err := filepath.EvalSymlinks(t.Path); err == nil {
		f.path = p
	}
	data, err := os.ReadFile(f.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.root = t.Host.format.skeleton()
		return f, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", t.Path, err)
	}
	fi, err := os.Stat(f.path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.Path, err)
	}
	f.exists, f.data, f.mode, f.style = true, data, fi.Mode().Perm(), styleOf(data)
	if len(bytes.TrimSpace(data)) == 0 {
		f.root = t.Host.format.skeleton()
		return f, nil
	}
	v, err := parseOrderedJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): fix it, or move it aside, and run again; cgraph changed nothing", t.Path, err)
	}
	root, ok := v.(*jsonObject)
	if !ok {
		return nil, fmt.Errorf("%s holds %s, not a JSON object: fix it, or move it aside, and run again; cgraph changed nothing", t.Path, orderedKind(v))
	}
	if err := t.Host.format.check(root); err != nil {
		return nil, fmt.Errorf("%s: %v: fix it by hand, or move it aside, and run again; cgraph changed nothing", t.Path, err)
	}
	f.root = root
	return f, nil
}

// Change is what install or uninstall did (or, with --dry-run, would
// do) to one file. Its JSON is the commands' --json output.
type Change struct {
	Host      string   `json:"host"`
	Scope     string   `json:"scope"`
	File      string   `json:"file"`
	DryRun    bool     `json:"dry_run"`
	Changed   bool     `json:"changed"`
	Action    string   `json:"action"` // install: "created", "updated", "none"; uninstall: "restored", "removed_entries", "deleted_file", "none"
	Added     []string `json:"added,omitempty"`
	Updated   []string `json:"updated,omitempty"`
	Unchanged []string `json:"unchanged,omitempty"`
	Removed   int      `json:"removed,omitempty"`
	Backup    string   `json:"backup,omitempty"`
	Diff      string   `json:"diff,omitempty"`
	Note      string   `json:"note,omitempty"`

	after  []byte // the file's new content; nil deletes it
	delete bool
}

// PlanInstall computes the file with cgraph's entries for events.
func PlanInstall(t Target, f *File, events []Event, cmd Command) (*Change, error) {
	c := &Change{Host: t.Host.Name, Scope: string(t.Scope), File: t.Path, Action: "none"}
	root := cloneJSON(f.root).(*jsonObject)
	before := t.Host.format.find(root, t.Host.Name)
	for _, ev := range events {
		if !t.Host.format.set(root, ev, cmd.Line(t.Host.Name, ev.Name)) {
			c.Unchanged = append(c.Unchanged, ev.Name)
		} else if len(before[ev.Name]) > 0 {
			c.Updated = append(c.Updated, ev.Name)
		} else {
			c.Added = append(c.Added, ev.Name)
		}
	}
	if len(c.Added)+len(c.Updated) == 0 {
		return c, nil
	}
	after, err := encodeStyled(root, f.style)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", t.Path, err)
	}
	c.after, c.Changed = after, true
	c.Action = "updated"
	if !f.exists {
		c.Action = "created"
	}
	if f.exists {
		c.Backup = t.BackupPath()
	}
	c.Diff = textdiff.Unified(string(f.data), string(after), t.Path, t.Path+" (after install)")
	return c, nil
}

// PlanUninstall computes the file without cgraph's entries of names (all
// of them when names is empty).
func PlanUninstall(t Target, f *File, names []string) (*Change, error) {
	c := &Change{Host: t.Host.Name, Scope: string(t.Scope), File: t.Path, Action: "none"}
	if !f.exists {
		return c, nil
	}
	stripped := cloneJSON(f.root).(*jsonObject)
	c.Removed = t.Host.format.remove(stripped, t.Host.Name, names)
	if c.Removed == 0 {
		return c, nil
	}
	c.Changed = true
	fmtName := t.Path + " (after uninstall)"
	if len(names) == 0 {
		// Back to the bytes before cgraph when nothing else changed since.
		if orig, ok, err := restorableBackup(t, stripped); err != nil {
			return nil, err
		} else if ok {
			c.Action, c.after, c.Backup = "restored", orig, t.BackupPath()
			c.Diff = textdiff.Unified(string(f.data), string(orig), t.Path, fmtName)
			return c, nil
		}
		if _, err := os.Stat(t.BackupPath()); errors.Is(err, fs.ErrNotExist) && sameJSON(stripped, t.Host.format.skeleton()) {
			c.Action, c.delete = "deleted_file", true
			c.Diff = textdiff.Unified(string(f.data), "", t.Path, "/dev/null")
			return c, nil
		}
	}
	after, err := encodeStyled(stripped, f.style)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", t.Path, err)
	}
	c.Action, c.after = "removed_entries", after
	switch {
	case len(names) > 0:
		c.Note = "the other hooks stay; the file's layout follows its first indented line"
	default:
		c.Note = "the file changed since cgraph's install, so the backup was not restored: the rest is kept, its layout following the file's first indented line"
		if _, err := os.Stat(t.BackupPath()); err == nil {
			c.Backup = t.BackupPath()
			c.Note += "; the file as it was before cgraph is still in " + c.Backup
		}
	}
	c.Diff = textdiff.Unified(string(f.data), string(after), t.Path, fmtName)
	return c, nil
}

// restorableBackup returns the backup's bytes when the file less cgraph's
// entries (stripped) is the backup as install would have changed it, less
// cgraph's entries again: then restoring it changes nothing but cgraph's
// entries and gives the user back their exact bytes.
func restorableBackup(t Target, stripped *jsonObject) ([]byte, bool, error) {
	orig, err := os.ReadFile(t.BackupPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the backup %s: %w", t.BackupPath(), err)
	}
	var root *jsonObject
	if len(bytes.TrimSpace(orig)) == 0 {
		root = t.Host.format.skeleton()
	} else {
		v, err := parseOrderedJSON(orig)
		if err != nil {
			return nil, false, nil // a backup the user edited into something else: not restored
		}
		if root, _ = v.(*jsonObject); root == nil {
			return nil, false, nil
		}
	}
	// Install and strip again, so what install adds around cgraph's
	// entries (an emptied "hooks", Cursor's "version") compares equal.
	for _, ev := range t.Host.Events {
		t.Host.format.set(root, ev, Command{Binary: "cgraph"}.Line(t.Host.Name, ev.Name))
	}
	t.Host.format.remove(root, t.Host.Name, nil)
	return orig, sameJSON(root, stripped), nil
}

// Apply writes c: the backup first (install of an existing
// file without one), then the file, atomically.
func Apply(t Target, f *File, c *Change, install bool) error {
	if !c.Changed {
		return nil
	}
	if c.delete {
		if err := os.Remove(f.path); err != nil {
			return fmt.Errorf("remove %s: %w", t.Path, err)
		}
		_ = os.Remove(filepath.Dir(t.Path)) // the host's directory, when cgraph's file was all it held; a non-empty one stays
		return nil
	}
	if install && f.exists {
		if err := atomicfile.Backup(t.BackupPath(), f.data, f.mode); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(t.Path), err)
	}
	if err := atomicfile.WriteFile(f.path, c.after, f.mode); err != nil {
		return fmt.Errorf("write %s: %w", t.Path, err)
	}
	if c.Action == "restored" {
		if err := os.Remove(t.BackupPath()); err != nil {
			return fmt.Errorf("remove the restored backup %s: %w", t.BackupPath(), err)
		}
	}
	return nil
}
