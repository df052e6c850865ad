package hookscmd

import (
	"strings"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/hookconfig"
	"github.com/cgraph/cgraph/serverfile"
	"github.com/spf13/cobra"
)

// Status is what `cgraph hooks status --json` prints: each file's hooks
// and whether a server runs for each store they use.
type Status struct {
	Targets []hookconfig.TargetStatus `json:"targets"`
	Servers []ServerStatus            `json:"servers"`
}

// ServerStatus says whether a cgraph serve runs for a store the hooks use,
// and where.
type ServerStatus struct {
	DB      string `json:"db"`
	Running bool   `json:"running"`
	URL     string `json:"url,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Version string `json:"version,omitempty"`
}

func newHooksStatusCmd(a *app.App) *cobra.Command {
	var fl hooksFlags
	cmd := &cobra.Command{
		Use:   "status [claude-code|cursor]",
		Short: "Show which cgraph hooks are installed, where, with which binary and store, and whether a server runs",
		Long: `status reads the user's and the project's configuration of each host (or of the one
named; --user for the user's only) and lists, for each event cgraph hooks
into, whether its hook is installed, with which binary and store. It then says whether
a cgraph serve is running for each store the hooks use. It changes nothing; it exits 1
when a file cannot be read or is not valid JSON.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return app.Usagef("give at most one host: "+hookconfig.HostNames(), "%s takes at most one host, got %d", cmd.CommandPath(), len(args))
			}
			if len(args) == 1 {
				_, err := hookconfig.FindHost(args[0])
				return err
			}
			return nil
		},
		ValidArgs: []string{"claude-code", "cursor"},
		RunE: func(cmd *cobra.Command, args []string) error {
			hosts := hookconfig.Hosts
			if len(args) == 1 {
				h, _ := hookconfig.FindHost(args[0]) // Args checked it
				hosts = []*hookconfig.Host{h}
			}
			st, broken, err := readHooksStatus(a, &fl, hosts)
			if err != nil {
				return err
			}
			if len(broken) > 0 {
				err = &app.ExitCodeError{Code: app.ExitError, Msg: strings.Join(broken, "; ")}
			}
			if a.JSON {
				if perr := a.PrintJSON(st); perr != nil {
					return perr
				}
				return err
			}
			if perr := printHooksStatus(a, st); perr != nil {
				return perr
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&fl.user, "user", false, "only the user's files")
	cmd.Flags().StringVar(&fl.projectDir, "project-dir", "", "the project whose files to read (default: the git root of the working directory, else the working directory)")
	_ = cmd.MarkFlagDirname("project-dir") // fails only for an unknown flag
	return cmd
}

// readHooksStatus reads every file of hosts the flags name, and says whether
// a server runs for each store the installed hooks use (the default store
// when none is installed); broken are the files that could not be read.
func readHooksStatus(a *app.App, fl *hooksFlags, hosts []*hookconfig.Host) (st Status, broken []string, err error) {
	var targets []hookconfig.Target
	for _, h := range hosts {
		ts, err := fl.where(true).Targets(h)
		if err != nil {
			return st, nil, err
		}
		targets = append(targets, ts...)
	}
	var stores []string
	st.Targets, stores, broken = hookconfig.Survey(targets, a.DBDir)
	for _, db := range stores {
		s := ServerStatus{DB: db}
		if info, ok := serverfile.Read(db); ok {
			s.Running, s.URL, s.PID, s.Version = true, info.URL, info.PID, info.Version
		}
		st.Servers = append(st.Servers, s)
	}
	return st, broken, nil
}

// printHooksStatus prints hooks status: the files' hooks, then whether a
// server runs for each store they use.
func printHooksStatus(a *app.App, st Status) error {
	if err := hookconfig.WriteStatus(a.Stdout, st.Targets); err != nil {
		return err
	}
	for _, s := range st.Servers {
		if s.Running {
			a.Printf("server for %s: running at %s (pid %d, %s)\n", s.DB, s.URL, s.PID, s.Version)
		} else {
			a.Printf("server for %s: not running: hooks work without it, slower; start `cgraph serve`, or keep one running with `cgraph serve --install`\n", s.DB)
		}
	}
	return nil
}
