package servecmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/internal/shellword"
	"github.com/cgraph/cgraph/serviceunit"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// serve --install keeps a warm server running for the user with the
// platform's service manager (serviceunit); this file builds the server's
// command line from serve's flags and says what was done.

// serviceFlagNames are serve's own flags that choose what --install does,
// not how the installed server runs.
var serviceFlagNames = map[string]bool{"install": true, "uninstall": true, "now": true, "json": true, "db": true, "models-dir": true}

// serviceArgv is the installed server's command line: this binary, serve,
// the store and models as absolute paths, the project and device when
// set, and every serve flag the user gave (paths made absolute).
func serviceArgv(a *app.App, cmd *cobra.Command) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this program's path: %w", err)
	}
	db, err := filepath.Abs(a.DBDir)
	if err != nil {
		return nil, fmt.Errorf("--db %s: %w", a.DBDir, err)
	}
	models, err := filepath.Abs(a.ModelsDir)
	if err != nil {
		return nil, fmt.Errorf("--models-dir %s: %w", a.ModelsDir, err)
	}
	argv := []string{exe, "serve", "--db", db, "--models-dir", models}
	if a.Project != "" {
		argv = append(argv, "--project", a.Project)
	}
	var ferr error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if serviceFlagNames[f.Name] || f.Name == "project" {
			return
		}
		v := f.Value.String()
		if s, ok := f.Value.(pflag.SliceValue); ok {
			v = strings.Join(s.GetSlice(), ",")
		}
		if f.Name == "token-file" && v != "" {
			if v, err = filepath.Abs(v); err != nil {
				ferr = fmt.Errorf("--token-file: %w", err)
			}
		}
		if f.Value.Type() == "bool" {
			argv = append(argv, "--"+f.Name+"="+v)
			return
		}
		argv = append(argv, "--"+f.Name, v)
	})
	return argv, ferr
}

// RunServiceCommand runs one of the printed commands for --now; a
// variable so no test starts a real service manager by accident.
var RunServiceCommand = func(ctx context.Context, stderr io.Writer, line string) error {
	c := exec.CommandContext(ctx, "sh", "-c", line)
	c.Stdout, c.Stderr = stderr, stderr
	return c.Run()
}

// serveService is serve --install (install) or --uninstall.
func serveService(a *app.App, cmd *cobra.Command, install, now bool) error {
	argv, err := serviceArgv(a, cmd)
	if err != nil {
		return err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return app.Usagef("set $HOME", "no home directory for the service file: %v", err)
	}
	var env [][2]string
	for _, k := range serviceunit.Env {
		if v := os.Getenv(k); v != "" {
			env = append(env, [2]string{k, v})
		}
	}
	u, err := serviceunit.For(runtime.GOOS, home, app.XDGDir(os.Getenv, "XDG_CONFIG_HOME", ".config"), argv, env)
	if err != nil {
		return err
	}
	run := func(line string) error { return RunServiceCommand(a.Context(), a.Stderr, line) }
	var res serviceunit.Result
	if install {
		res, err = serviceunit.Install(u, now, run)
	} else {
		res, err = serviceunit.Uninstall(u, now, run)
	}
	if err != nil {
		return err
	}
	if store := serviceunit.StoreOf(argv); install {
		if _, err := os.Stat(store); err != nil {
			a.Warnf("the store %s does not exist yet: create it with `cgraph --db %s init`, or the service will fail to start", store, shellword.Quote(store))
		}
	}
	if a.JSON {
		return a.PrintJSON(res)
	}
	return res.WriteText(a.Stdout, install)
}
