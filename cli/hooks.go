package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func init() { register(newHooksCmd) }

// The hooks command writes cgraph's entries into an agent host's own
// configuration file, which belongs to the user:
//
//   - Entries are cgraph's when their command runs `hook HOST EVENT` of a
//     program named cgraph* (parseHookCommand); every other entry, key and
//     member order is kept (hooksjson.go).
//   - Install is idempotent: a second run finds every entry as it would
//     write it, writes nothing and says so. An entry of another binary or
//     store is replaced in place.
//   - Before cgraph first changes an existing file it copies it, byte for
//     byte, to FILE.cgraph-backup (one copy, never overwritten: it is the
//     file as it was before cgraph, which is what a user wants back, and
//     repeated installs do not pile up copies).
//   - Uninstall restores that copy's exact bytes when the file, less
//     cgraph's entries, is what the copy is (nothing else changed since);
//     otherwise it removes cgraph's entries and keeps everything else (the
//     layout may then change, and it says so). A file cgraph created is
//     removed when it holds nothing else.
//   - Every write is a temporary file renamed over the old one, with the
//     old file's mode; a symbolic link is followed, so the link stays.
//   - A file that is not valid JSON, or whose "hooks" is not an object of
//     arrays, is refused and left untouched.

// hooksScope is where a host's configuration is: the user's home or a
// project.
type hooksScope string

const (
	scopeUser    hooksScope = "user"
	scopeProject hooksScope = "project"
)

// hooksTarget is one host's configuration file in one scope.
type hooksTarget struct {
	host  *hookHost
	scope hooksScope
	path  string
}

func (t hooksTarget) backupPath() string { return t.path + ".cgraph-backup" }

// hooksFile is a configuration file as read.
type hooksFile struct {
	path   string // the file written: path with symbolic links resolved
	exists bool
	data   []byte
	mode   fs.FileMode
	root   *jsonObject
	style  jsonStyle
}

// readHooksFile reads and checks t's file; a missing file is an empty
// one, to be created.
func readHooksFile(t hooksTarget) (*hooksFile, error) {
	f := &hooksFile{path: t.path, mode: 0o644, style: defaultJSONStyle}
	if t.scope == scopeUser {
		f.mode = 0o600
	}
	if p, err := filepath.EvalSymlinks(t.path); err == nil {
		f.path = p
	}
	data, err := os.ReadFile(f.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.root = t.host.format.skeleton()
		return f, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", t.path, err)
	}
	fi, err := os.Stat(f.path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.path, err)
	}
	f.exists, f.data, f.mode, f.style = true, data, fi.Mode().Perm(), styleOf(data)
	if len(bytes.TrimSpace(data)) == 0 {
		f.root = t.host.format.skeleton()
		return f, nil
	}
	v, err := parseOrderedJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): fix it, or move it aside, and run again; cgraph changed nothing", t.path, err)
	}
	root, ok := v.(*jsonObject)
	if !ok {
		return nil, fmt.Errorf("%s holds %s, not a JSON object: fix it, or move it aside, and run again; cgraph changed nothing", t.path, orderedKind(v))
	}
	if err := t.host.format.check(root); err != nil {
		return nil, fmt.Errorf("%s: %v: fix it by hand, or move it aside, and run again; cgraph changed nothing", t.path, err)
	}
	f.root = root
	return f, nil
}

// hooksChange is what install or uninstall did (or, with --dry-run, would
// do) to one file. Its JSON is the commands' --json output.
type hooksChange struct {
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

// planInstall computes the file with cgraph's entries for events.
func planInstall(t hooksTarget, f *hooksFile, events []hookEvent, cmd hookCommand) (*hooksChange, error) {
	c := &hooksChange{Host: t.host.name, Scope: string(t.scope), File: t.path, Action: "none"}
	root := cloneJSON(f.root).(*jsonObject)
	before := t.host.format.find(root, t.host.name)
	for _, ev := range events {
		if !t.host.format.set(root, ev, cmd.line(t.host.name, ev.name)) {
			c.Unchanged = append(c.Unchanged, ev.name)
		} else if len(before[ev.name]) > 0 {
			c.Updated = append(c.Updated, ev.name)
		} else {
			c.Added = append(c.Added, ev.name)
		}
	}
	if len(c.Added)+len(c.Updated) == 0 {
		return c, nil
	}
	after, err := encodeStyled(root, f.style)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", t.path, err)
	}
	c.after, c.Changed = after, true
	c.Action = "updated"
	if !f.exists {
		c.Action = "created"
	}
	if f.exists {
		c.Backup = t.backupPath()
	}
	c.Diff = unifiedDiff(string(f.data), string(after), t.path, t.path+" (after install)")
	return c, nil
}

// planUninstall computes the file without cgraph's entries of names (all
// of them when names is empty).
func planUninstall(t hooksTarget, f *hooksFile, names []string) (*hooksChange, error) {
	c := &hooksChange{Host: t.host.name, Scope: string(t.scope), File: t.path, Action: "none"}
	if !f.exists {
		return c, nil
	}
	stripped := cloneJSON(f.root).(*jsonObject)
	c.Removed = t.host.format.remove(stripped, t.host.name, names)
	if c.Removed == 0 {
		return c, nil
	}
	c.Changed = true
	fmtName := t.path + " (after uninstall)"
	if len(names) == 0 {
		// Back to the bytes before cgraph when nothing else changed since.
		if orig, ok, err := restorableBackup(t, stripped); err != nil {
			return nil, err
		} else if ok {
			c.Action, c.after, c.Backup = "restored", orig, t.backupPath()
			c.Diff = unifiedDiff(string(f.data), string(orig), t.path, fmtName)
			return c, nil
		}
		if _, err := os.Stat(t.backupPath()); errors.Is(err, fs.ErrNotExist) && sameJSON(stripped, t.host.format.skeleton()) {
			c.Action, c.delete = "deleted_file", true
			c.Diff = unifiedDiff(string(f.data), "", t.path, "/dev/null")
			return c, nil
		}
	}
	after, err := encodeStyled(stripped, f.style)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", t.path, err)
	}
	c.Action, c.after = "removed_entries", after
	switch {
	case len(names) > 0:
		c.Note = "the other hooks stay; the file's layout follows its first indented line"
	default:
		c.Note = "the file changed since cgraph's install, so the backup was not restored: the rest is kept, its layout following the file's first indented line"
		if _, err := os.Stat(t.backupPath()); err == nil {
			c.Backup = t.backupPath()
			c.Note += "; the file as it was before cgraph is still in " + c.Backup
		}
	}
	c.Diff = unifiedDiff(string(f.data), string(after), t.path, fmtName)
	return c, nil
}

// restorableBackup returns the backup's bytes when the file less cgraph's
// entries (stripped) is the backup as install would have changed it, less
// cgraph's entries again: then restoring it changes nothing but cgraph's
// entries and gives the user back their exact bytes.
func restorableBackup(t hooksTarget, stripped *jsonObject) ([]byte, bool, error) {
	orig, err := os.ReadFile(t.backupPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the backup %s: %w", t.backupPath(), err)
	}
	var root *jsonObject
	if len(bytes.TrimSpace(orig)) == 0 {
		root = t.host.format.skeleton()
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
	for _, ev := range t.host.events {
		t.host.format.set(root, ev, hookCommand{binary: "cgraph"}.line(t.host.name, ev.name))
	}
	t.host.format.remove(root, t.host.name, nil)
	return orig, sameJSON(root, stripped), nil
}

// applyHooksChange writes c: the backup first (install of an existing
// file without one), then the file, atomically.
func applyHooksChange(t hooksTarget, f *hooksFile, c *hooksChange, install bool) error {
	if !c.Changed {
		return nil
	}
	if c.delete {
		if err := os.Remove(f.path); err != nil {
			return fmt.Errorf("remove %s: %w", t.path, err)
		}
		_ = os.Remove(filepath.Dir(t.path)) // the host's directory, when cgraph's file was all it held; a non-empty one stays
		return nil
	}
	if install && f.exists {
		if err := writeBackup(t.backupPath(), f.data, f.mode); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(t.path), err)
	}
	if err := writeFileAtomic(f.path, c.after, f.mode); err != nil {
		return fmt.Errorf("write %s: %w", t.path, err)
	}
	if c.Action == "restored" {
		if err := os.Remove(t.backupPath()); err != nil {
			return fmt.Errorf("remove the restored backup %s: %w", t.backupPath(), err)
		}
	}
	return nil
}

// writeBackup copies data to path unless a backup is already there: the
// first one is the file before cgraph, and stays.
func writeBackup(path string, data []byte, mode fs.FileMode) error {
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	if _, err := w.Write(data); err != nil {
		_ = w.Close() // the write's error is the one to report
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	if err := w.Sync(); err != nil {
		_ = w.Close()
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	return nil
}

// writeFileAtomic replaces path with data: a temporary file in the same
// directory, synced, then renamed over it. A crash leaves the old or the
// new file, never half of one.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".cgraph-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name()) // the error that got us here is the one to report
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync() // makes the rename durable where the file system can; the file is written either way
		_ = d.Close()
	}
	return nil
}

// hooksFlags are the flags install, uninstall and status share.
type hooksFlags struct {
	user       bool
	projectDir string
	dryRun     bool
	events     []string
	binary     string
}

// targets returns the files the flags name for host: the user's
// (--user), else the project's (--project-dir, else the git root of the
// working directory, else the working directory), the user's first when
// both is set.
func (fl *hooksFlags) targets(host *hookHost, both bool) ([]hooksTarget, error) {
	if fl.user && fl.projectDir != "" {
		return nil, usagef("give one of them", "--user and --project-dir name two different files")
	}
	var out []hooksTarget
	if fl.user || both {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, usagef("set $HOME", "no home directory for --user: %v", err)
		}
		out = append(out, hooksTarget{host, scopeUser, filepath.Join(home, host.dir, host.file)})
	}
	if !fl.user {
		dir := fl.projectDir
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return nil, fmt.Errorf("working directory: %w: give --project-dir", err)
			}
			dir = gitRoot(wd)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("--project-dir %s: %w", dir, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, usagef("give the project's directory", "--project-dir %s is not a directory", dir)
		}
		out = append(out, hooksTarget{host, scopeProject, filepath.Join(abs, host.dir, host.file)})
	}
	return out, nil
}

// gitRoot returns the nearest directory at or above dir holding .git (a
// directory, or a file in a worktree), else dir.
func gitRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// hookCommandFor is the command line install writes: --binary or this
// executable, and --db/--models-dir when the user chose them (flag or
// environment), as absolute paths, so the hook uses this store wherever
// the host starts it.
func (a *App) hookCommandFor(cmd *cobra.Command, binary string) (hookCommand, error) {
	var c hookCommand
	if binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return c, usagef("give --binary PATH, the cgraph the hooks run", "cannot find this program's path: %v", err)
		}
		binary = exe
	}
	abs, err := filepath.Abs(binary)
	if err != nil {
		return c, fmt.Errorf("--binary %s: %w", binary, err)
	}
	c.binary = abs
	chosen := func(flag, env string) bool {
		f := cmd.Flag(flag)
		return (f != nil && f.Changed) || os.Getenv(env) != ""
	}
	if chosen("db", "CGRAPH_DB") {
		if c.db, err = filepath.Abs(a.DBDir); err != nil {
			return c, fmt.Errorf("--db %s: %w", a.DBDir, err)
		}
	}
	if chosen("models-dir", "CGRAPH_MODELS") {
		if c.modelsDir, err = filepath.Abs(a.ModelsDir); err != nil {
			return c, fmt.Errorf("--models-dir %s: %w", a.ModelsDir, err)
		}
	}
	return c, nil
}

func newHooksCmd(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install, remove and show cgraph's hooks in Claude Code and Cursor",
		Long: `hooks writes cgraph's hooks into an agent host's own configuration, so the
agent's sessions feed the store and recall from it without anyone calling a tool:

  claude-code  .claude/settings.json of the project, or ~/.claude/settings.json (--user)
` + eventsHelp("claude-code") + `
  cursor       .cursor/hooks.json of the project, or ~/.cursor/hooks.json (--user)
` + eventsHelp("cursor") + `
Each hook runs "cgraph hook HOST EVENT" with this binary's absolute path (and --db and
--models-dir when you chose them), which uses a running cgraph serve when there is one.
The project is --project-dir, else the git root of the working directory, else the
working directory. Other hooks and settings in the file are kept; a second install
changes nothing; the file as it was before cgraph first changed it is kept in
FILE.cgraph-backup, and uninstall restores it byte for byte when nothing else changed
since. Turn one hook off with uninstall --event EVENT.`,
		Example: `  cgraph hooks install claude-code
  cgraph --db ~/memories hooks install claude-code --user
  cgraph hooks install cursor --dry-run
  cgraph hooks uninstall claude-code --event PostToolUse
  cgraph hooks status`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newHooksChangeCmd(a, true), newHooksChangeCmd(a, false), newHooksStatusCmd(a))
	return cmd
}

// eventsHelp lists a host's events for --help.
func eventsHelp(host string) string {
	h, _ := findHookHost(host)
	var sb strings.Builder
	for _, e := range h.events {
		name := e.name
		if e.matcher != "" {
			name += " (" + e.matcher + ")"
		}
		fmt.Fprintf(&sb, "      %-38s %s\n", name, e.does)
	}
	return sb.String()
}

// hostArg is the one HOST argument install and uninstall take.
func hostArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("give "+hookHostNames()+", e.g. `"+cmd.CommandPath()+" claude-code`", "%s needs one host, got %d arguments", cmd.CommandPath(), len(args))
	}
	_, err := findHookHost(args[0])
	return err
}

func newHooksChangeCmd(a *App, install bool) *cobra.Command {
	var fl hooksFlags
	verb, short := "uninstall", "Remove cgraph's hooks from a host's configuration (others stay)"
	if install {
		verb, short = "install", "Add cgraph's hooks to a host's configuration (others stay; idempotent)"
	}
	cmd := &cobra.Command{
		Use:       verb + " claude-code|cursor",
		Short:     short,
		Args:      hostArg,
		ValidArgs: []string{"claude-code", "cursor"},
		RunE: func(cmd *cobra.Command, args []string) error {
			host, _ := findHookHost(args[0]) // hostArg checked it
			events, err := host.selectEvents(fl.events)
			if err != nil {
				return err
			}
			targets, err := fl.targets(host, false)
			if err != nil {
				return err
			}
			t := targets[0]
			var hc hookCommand
			if install {
				if hc, err = a.hookCommandFor(cmd, fl.binary); err != nil {
					return err
				}
				if c, _, ferr := cmd.Root().Find([]string{"hook"}); fl.binary == "" && (ferr != nil || c.Name() != "hook") {
					// Claude Code reads exit 2 (a usage error) from a UserPromptSubmit hook as "block the prompt".
					a.Warnf("this binary has no `cgraph hook` command: the hooks will fail until it does; install a newer cgraph and run install again")
				}
			}
			f, err := readHooksFile(t)
			if err != nil {
				return err
			}
			var c *hooksChange
			if install {
				c, err = planInstall(t, f, events, hc)
			} else {
				c, err = planUninstall(t, f, fl.events)
			}
			if err != nil {
				return err
			}
			c.DryRun = fl.dryRun
			if !fl.dryRun {
				if err := applyHooksChange(t, f, c, install); err != nil {
					return err
				}
			}
			if a.JSON {
				return a.PrintJSON(c)
			}
			printHooksChange(a, c, install)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&fl.user, "user", false, "the user's file (~/.claude/settings.json, ~/.cursor/hooks.json) instead of the project's")
	fs.StringVar(&fl.projectDir, "project-dir", "", "the project whose file to change (default: the git root of the working directory, else the working directory)")
	fs.BoolVar(&fl.dryRun, "dry-run", false, "print the change as a diff and write nothing")
	fs.StringSliceVar(&fl.events, "event", nil, "only these events (repeat, or comma-separated; default: every one)")
	_ = cmd.MarkFlagDirname("project-dir") // fails only for an unknown flag
	if install {
		fs.StringVar(&fl.binary, "binary", "", "the cgraph binary the hooks run (default: this one)")
		_ = cmd.MarkFlagFilename("binary") // fails only for an unknown flag
	}
	return cmd
}

// printHooksChange prints what install or uninstall did, or would do.
func printHooksChange(a *App, c *hooksChange, install bool) {
	would := func(done, dry string) string {
		if c.DryRun {
			return dry
		}
		return done
	}
	where := fmt.Sprintf("%s (%s %s)", c.File, c.Host, c.Scope)
	switch {
	case !c.Changed && install:
		a.Printf("cgraph's %s hooks are already installed in %s: nothing changed\n", c.Host, where)
	case !c.Changed:
		a.Printf("no cgraph %s hook in %s: nothing changed\n", c.Host, where)
	case install:
		a.Printf("%s %s:\n", would("installed cgraph's hooks in", "would install cgraph's hooks in"), where)
		for _, l := range []struct {
			what   string
			events []string
		}{{"added", c.Added}, {"updated", c.Updated}, {"unchanged", c.Unchanged}} {
			for _, e := range l.events {
				a.Printf("  %-9s %s\n", l.what, e)
			}
		}
		if c.Backup != "" {
			a.Printf("the file as it was before cgraph is kept in %s\n", c.Backup)
		}
	default:
		switch c.Action {
		case "restored":
			a.Printf("%s %s: %s\n", would("removed cgraph's hooks from", "would remove cgraph's hooks from"), where,
				would("restored the file cgraph backed up, byte for byte", "would restore the file cgraph backed up, byte for byte"))
		case "deleted_file":
			a.Printf("%s %s, which cgraph created and which holds nothing else\n", would("deleted", "would delete"), where)
		default:
			a.Printf("%s %d cgraph hook entries from %s\n", would("removed", "would remove"), c.Removed, where)
			a.Printf("%s\n", c.Note)
		}
	}
	if c.DryRun && c.Diff != "" {
		a.Printf("%s", c.Diff)
		a.Printf("(dry run: nothing was written)\n")
	}
}
