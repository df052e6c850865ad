package hookscmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/hookconfig"
	"github.com/cgraph/cgraph/hooks"
	"github.com/spf13/cobra"
)

func init() { app.Register(newHooksCmd) }

// hooksFlags are the flags install, uninstall and status share.
type hooksFlags struct {
	user       bool
	projectDir string
	dryRun     bool
	events     []string
	binary     string
}

// where is the files the flags name: the user's (--user), else the
// project's (--project-dir, else the git root of the working directory,
// else the working directory), the user's first when both is set.
func (fl *hooksFlags) where(both bool) hookconfig.Where {
	return hookconfig.Where{User: fl.user, ProjectDir: fl.projectDir, Both: both, Root: hooks.GitRoot}
}

// hookCommandFor is the command line install writes: --binary or this
// executable, and --db/--models-dir when the user chose them (flag or
// environment), as absolute paths, so the hook uses this store wherever
// the host starts it.
func hookCommandFor(a *app.App, cmd *cobra.Command, binary string) (hookconfig.Command, error) {
	var c hookconfig.Command
	if binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return c, app.Usagef("give --binary PATH, the cgraph the hooks run", "cannot find this program's path: %v", err)
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

func newHooksCmd(a *app.App) *cobra.Command {
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
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newHooksChangeCmd(a, true), newHooksChangeCmd(a, false), newHooksStatusCmd(a))
	return cmd
}

// eventsHelp lists a host's events for --help.
func eventsHelp(host string) string {
	h, _ := hookconfig.FindHost(host)
	return h.EventsHelp()
}

// hostArg is the one HOST argument install and uninstall take.
func hostArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return app.Usagef("give "+hookconfig.HostNames()+", e.g. `"+cmd.CommandPath()+" claude-code`", "%s needs one host, got %d arguments", cmd.CommandPath(), len(args))
	}
	_, err := hookconfig.FindHost(args[0])
	return err
}

func newHooksChangeCmd(a *app.App, install bool) *cobra.Command {
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
			events, err := host.SelectEvents(fl.events)
			if err != nil {
				return err
			}
			targets, err := fl.where(false).Targets(host)
			if err != nil {
				return err
			}
			t := targets[0]
			var hc hookconfig.Command
			if install {
				if hc, err = hookCommandFor(a, cmd, fl.binary); err != nil {
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
			return c.WriteText(a.Stdout, install)
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
