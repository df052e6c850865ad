package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cgraph/cgraph/hookconfig"
	"github.com/cgraph/cgraph/hooks"
	"github.com/spf13/cobra"
)

func init() { register(newHooksCmd) }

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
func (fl *hooksFlags) targets(host *hookconfig.Host, both bool) ([]hookconfig.Target, error) {
	if fl.user && fl.projectDir != "" {
		return nil, usagef("give one of them", "--user and --project-dir name two different files")
	}
	var out []hookconfig.Target
	if fl.user || both {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, usagef("set $HOME", "no home directory for --user: %v", err)
		}
		out = append(out, hookconfig.Target{Host: host, Scope: hookconfig.ScopeUser, Path: filepath.Join(home, host.Dir, host.File)})
	}
	if !fl.user {
		dir := fl.projectDir
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return nil, fmt.Errorf("working directory: %w: give --project-dir", err)
			}
			dir = hooks.GitRoot(wd)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("--project-dir %s: %w", dir, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, usagef("give the project's directory", "--project-dir %s is not a directory", dir)
		}
		out = append(out, hookconfig.Target{Host: host, Scope: hookconfig.ScopeProject, Path: filepath.Join(abs, host.Dir, host.File)})
	}
	return out, nil
}

// hookCommandFor is the command line install writes: --binary or this
// executable, and --db/--models-dir when the user chose them (flag or
// environment), as absolute paths, so the hook uses this store wherever
// the host starts it.
func (a *App) hookCommandFor(cmd *cobra.Command, binary string) (hookconfig.Command, error) {
	var c hookconfig.Command
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
	c.Binary = abs
	chosen := func(flag, env string) bool {
		f := cmd.Flag(flag)
		return (f != nil && f.Changed) || os.Getenv(env) != ""
	}
	if chosen("db", "CGRAPH_DB") {
		if c.DB, err = filepath.Abs(a.DBDir); err != nil {
			return c, fmt.Errorf("--db %s: %w", a.DBDir, err)
		}
	}
	if chosen("models-dir", "CGRAPH_MODELS") {
		if c.ModelsDir, err = filepath.Abs(a.ModelsDir); err != nil {
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
	h, _ := hookconfig.FindHost(host)
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

// selectEvents returns the events --event names (all of them for none);
// an unknown name is a usage error listing the valid ones.
func selectEvents(h *hookconfig.Host, names []string) ([]hookconfig.Event, error) {
	if len(names) == 0 {
		return h.Events, nil
	}
	var out []hookconfig.Event
	for _, n := range names {
		e, ok := h.Event(n)
		if !ok {
			var valid []string
			for _, e := range h.Events {
				valid = append(valid, e.Name)
			}
			return nil, usagef("give one of "+strings.Join(valid, ", "), "--event %q is not a %s event cgraph hooks into", n, h.Name)
		}
		out = append(out, e)
	}
	return out, nil
}

// hostArg is the one HOST argument install and uninstall take.
func hostArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("give "+hookconfig.HostNames()+", e.g. `"+cmd.CommandPath()+" claude-code`", "%s needs one host, got %d arguments", cmd.CommandPath(), len(args))
	}
	_, err := hookconfig.FindHost(args[0])
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
			host, _ := hookconfig.FindHost(args[0]) // hostArg checked it
			events, err := selectEvents(host, fl.events)
			if err != nil {
				return err
			}
			targets, err := fl.targets(host, false)
			if err != nil {
				return err
			}
			t := targets[0]
			var hc hookconfig.Command
			if install {
				if hc, err = a.hookCommandFor(cmd, fl.binary); err != nil {
					return err
				}
				if c, _, ferr := cmd.Root().Find([]string{"hook"}); fl.binary == "" && (ferr != nil || c.Name() != "hook") {
					// Claude Code reads exit 2 (a usage error) from a UserPromptSubmit hook as "block the prompt".
					a.Warnf("this binary has no `cgraph hook` command: the hooks will fail until it does; install a newer cgraph and run install again")
				}
			}
			f, err := hookconfig.ReadFile(t)
			if err != nil {
				return err
			}
			var c *hookconfig.Change
			if install {
				c, err = hookconfig.PlanInstall(t, f, events, hc)
			} else {
				c, err = hookconfig.PlanUninstall(t, f, fl.events)
			}
			if err != nil {
				return err
			}
			c.DryRun = fl.dryRun
			if !fl.dryRun {
				if err := hookconfig.Apply(t, f, c, install); err != nil {
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
func printHooksChange(a *App, c *hookconfig.Change, install bool) {
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
