package hookconfig

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cgraph/cgraph/record"
)

// EventsHelp lists h's events, one indented line each with what it does,
// for `cgraph hooks --help`.
func (h *Host) EventsHelp() string {
	var sb strings.Builder
	for _, e := range h.Events {
		name := e.Name
		if e.Matcher != "" {
			name += " (" + e.Matcher + ")"
		}
		fmt.Fprintf(&sb, "      %-38s %s\n", name, e.Does)
	}
	return sb.String()
}

// SelectEvents returns the events --event names (all of h's for none); an
// unknown name is a *record.ValidationError listing the valid ones.
func (h *Host) SelectEvents(names []string) ([]Event, error) {
	if len(names) == 0 {
		return h.Events, nil
	}
	var out []Event
	for _, n := range names {
		e, ok := h.Event(n)
		if !ok {
			var valid []string
			for _, e := range h.Events {
				valid = append(valid, e.Name)
			}
			return nil, record.Invalidf("give one of "+strings.Join(valid, ", "), "--event %q is not a %s event cgraph hooks into", n, h.Name)
		}
		out = append(out, e)
	}
	return out, nil
}

// Where says which of a host's files a command means: the user's (User),
// else the project's (ProjectDir, else Root of the working directory —
// its git root —, else the working directory); Both means the user's and
// the project's, the user's first.
type Where struct {
	User       bool
	ProjectDir string
	Both       bool
	// Root maps the working directory to the project's root (the hooks'
	// hooks.GitRoot); nil keeps the working directory.
	Root func(wd string) string
}

// Targets returns the files w names for host. Naming the user's file and a
// project directory at once, or a project directory that is not one, is a
// *record.ValidationError.
func (w Where) Targets(host *Host) ([]Target, error) {
	if w.User && w.ProjectDir != "" {
		return nil, record.Invalidf("give one of them", "--user and --project-dir name two different files")
	}
	var out []Target
	if w.User || w.Both {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, record.Invalidf("set $HOME", "no home directory for --user: %v", err)
		}
		out = append(out, Target{Host: host, Scope: ScopeUser, Path: filepath.Join(home, host.Dir, host.File)})
	}
	if !w.User {
		dir := w.ProjectDir
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return nil, fmt.Errorf("working directory: %w: give --project-dir", err)
			}
			dir = wd
			if w.Root != nil {
				dir = w.Root(wd)
			}
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("--project-dir %s: %w", dir, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, record.Invalidf("give the project's directory", "--project-dir %s is not a directory", dir)
		}
		out = append(out, Target{Host: host, Scope: ScopeProject, Path: filepath.Join(abs, host.Dir, host.File)})
	}
	return out, nil
}

// WriteText writes what install (or uninstall) did, or would do with
// DryRun, as `cgraph hooks install|uninstall` prints it: the events added,
// updated or kept, the backup, and a dry run's diff.
func (c *Change) WriteText(w io.Writer, install bool) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	would := func(done, dry string) string {
		if c.DryRun {
			return dry
		}
		return done
	}
	where := fmt.Sprintf("%s (%s %s)", c.File, c.Host, c.Scope)
	switch {
	case !c.Changed && install:
		p("cgraph's %s hooks are already installed in %s: nothing changed\n", c.Host, where)
	case !c.Changed:
		p("no cgraph %s hook in %s: nothing changed\n", c.Host, where)
	case install:
		p("%s %s:\n", would("installed cgraph's hooks in", "would install cgraph's hooks in"), where)
		for _, l := range []struct {
			what   string
			events []string
		}{{"added", c.Added}, {"updated", c.Updated}, {"unchanged", c.Unchanged}} {
			for _, e := range l.events {
				p("  %-9s %s\n", l.what, e)
			}
		}
		if c.Backup != "" {
			p("the file as it was before cgraph is kept in %s\n", c.Backup)
		}
	default:
		switch c.Action {
		case "restored":
			p("%s %s: %s\n", would("removed cgraph's hooks from", "would remove cgraph's hooks from"), where,
				would("restored the file cgraph backed up, byte for byte", "would restore the file cgraph backed up, byte for byte"))
		case "deleted_file":
			p("%s %s, which cgraph created and which holds nothing else\n", would("deleted", "would delete"), where)
		default:
			p("%s %d cgraph hook entries from %s\n", would("removed", "would remove"), c.Removed, where)
			p("%s\n", c.Note)
		}
	}
	if c.DryRun && c.Diff != "" {
		p("%s", c.Diff)
		p("(dry run: nothing was written)\n")
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// WriteStatus writes the files' cgraph hooks as `cgraph hooks status`
// prints them: each file, then each event's hook with its binary and
// store, and what is wrong with it (duplicate entries, a missing binary).
func WriteStatus(w io.Writer, ts []TargetStatus) error {
	b := bufio.NewWriter(w)
	for _, t := range ts {
		state := ""
		switch {
		case t.Error != "":
			state = "  (unreadable: see below)"
		case !t.Exists:
			state = "  (no file)"
		}
		fmt.Fprintf(b, "%s %s: %s%s\n", t.Host, t.Scope, t.File, state)
		if t.Error != "" {
			continue
		}
		for _, e := range append(append([]EventStatus(nil), t.Events...), t.Other...) {
			b.WriteString(e.line() + "\n")
		}
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// line is e as WriteStatus lists it.
func (e EventStatus) line() string {
	if !e.Installed {
		return fmt.Sprintf("  %-18s -", e.Event)
	}
	db := e.DB
	if db == "" {
		db = "the default store"
	}
	line := fmt.Sprintf("  %-18s installed  %s, store %s", e.Event, e.Binary, db)
	if e.Matcher != "" {
		line += ", tools " + e.Matcher
	}
	if e.Entries > 1 {
		line += fmt.Sprintf(" (%d entries: the host runs it %d times; run install again to keep one)", e.Entries, e.Entries)
	}
	if e.BinaryMissing {
		line += " (the binary is missing: run install again with the binary you use)"
	}
	return line
}
