package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cgraph/cgraph/internal/atomicfile"
	"github.com/cgraph/cgraph/internal/shellword"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// serve --install keeps a warm server running for the user with the
// service manager of the platform: a systemd user unit on Linux, a launchd
// agent on macOS. It writes the file and prints the commands that start
// it; with --now it runs them. The file runs this binary with the store
// and models as absolute paths and the serve flags of the command line, so
// it does not depend on the environment the manager starts it in.

// serviceHeader is in every file serve --install writes (a comment, with
// no "--": XML comments cannot hold it); --uninstall removes only files
// that hold it.
const serviceHeader = "Written by the cgraph serve command (install flag); its uninstall flag removes it."

// serviceFlagNames are serve's own flags that choose what --install does,
// not how the installed server runs.
var serviceFlagNames = map[string]bool{"install": true, "uninstall": true, "now": true, "json": true, "db": true, "models-dir": true}

// serviceEnv are the variables a server needs from the user's environment
// that a service manager does not pass on: copied into the file when set.
var serviceEnv = []string{"CGRAPH_ORT_LIB", "LD_LIBRARY_PATH", "CGRAPH_REDACT_RULES"}

// serviceFile is what serve --install writes on one platform.
type serviceFile struct {
	platform string   // "systemd" or "launchd"
	path     string   // where the file goes
	content  []byte   // the file
	start    []string // the commands that enable and (re)start it
	stop     []string // --uninstall --now: the commands that stop and disable it, before the file goes
	after    []string // --uninstall --now: the commands run once the file is gone
	// stopLater are the commands printed by --uninstall without --now:
	// they work once the file is gone.
	stopLater []string
	// wants is the link `systemctl enable` made, which --uninstall removes
	// with the file when it points at it (what `systemctl disable` does).
	wants string
}

// serviceFor builds the service file for goos: argv is the server's
// command line (argv[0] absolute), env the variables to set.
func serviceFor(goos, home, configHome string, argv []string, env [][2]string) (serviceFile, error) {
	switch goos {
	case "linux":
		return systemdUnit(configHome, argv, env), nil
	case "darwin":
		return launchdAgent(home, argv, env), nil
	}
	return serviceFile{}, usagef("run `cgraph serve` from your own service manager", "serve --install knows systemd (Linux) and launchd (macOS), not %s", goos)
}

func systemdUnit(configHome string, argv []string, env [][2]string) serviceFile {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", serviceHeader)
	fmt.Fprintf(&b, "[Unit]\nDescription=cgraph memory server (API and MCP) for the store %s\nAfter=network.target\n\n", systemdEscape(storeOf(argv)))
	b.WriteString("[Service]\nType=simple\n")
	var q []string
	for _, a := range argv {
		q = append(q, systemdQuote(a))
	}
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(q, " "))
	for _, kv := range env {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(kv[0]+"="+kv[1]))
	}
	// SIGTERM: serve finishes requests in flight (up to 30 s) and closes the
	// store cleanly; the stop timeout leaves it that time.
	b.WriteString("KillSignal=SIGTERM\nTimeoutStopSec=45\nRestart=on-failure\nRestartSec=5\n\n[Install]\nWantedBy=default.target\n")
	return serviceFile{
		platform:  "systemd",
		path:      filepath.Join(configHome, "systemd", "user", "cgraph.service"),
		content:   []byte(b.String()),
		start:     []string{"systemctl --user daemon-reload", "systemctl --user enable cgraph", "systemctl --user restart cgraph"},
		stop:      []string{"systemctl --user disable --now cgraph"},
		after:     []string{"systemctl --user daemon-reload"},
		stopLater: []string{"systemctl --user stop cgraph", "systemctl --user daemon-reload"},
		wants:     filepath.Join(configHome, "systemd", "user", "default.target.wants", "cgraph.service"),
	}
}

// storeOf returns the --db of a serve command line.
func storeOf(argv []string) string {
	for i, a := range argv {
		if a == "--db" && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return ""
}

// systemdEscape doubles the characters systemd expands in unit values:
// % (specifiers) and $ (variables).
func systemdEscape(s string) string {
	return strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
}

// systemdQuote quotes one word of ExecStart or Environment as systemd
// splits them.
func systemdQuote(s string) string {
	s = systemdEscape(s)
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

const launchdLabel = "dev.cgraph.serve"

func launchdAgent(home string, argv []string, env [][2]string) serviceFile {
	path := filepath.Join(home, "Library", "LaunchAgents", launchdLabel+".plist")
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
`)
	fmt.Fprintf(&b, "<!-- %s -->\n", serviceHeader)
	fmt.Fprintf(&b, "<plist version=\"1.0\">\n<dict>\n  <key>Label</key>\n  <string>%s</string>\n  <key>ProgramArguments</key>\n  <array>\n", launchdLabel)
	for _, a := range argv {
		fmt.Fprintf(&b, "    <string>%s</string>\n", xmlEscape(a))
	}
	b.WriteString("  </array>\n")
	if len(env) > 0 {
		b.WriteString("  <key>EnvironmentVariables</key>\n  <dict>\n")
		for _, kv := range env {
			fmt.Fprintf(&b, "    <key>%s</key>\n    <string>%s</string>\n", xmlEscape(kv[0]), xmlEscape(kv[1]))
		}
		b.WriteString("  </dict>\n")
	}
	logPath := filepath.Join(home, "Library", "Logs", "cgraph-serve.log")
	// KeepAlive/SuccessfulExit false: restarted when it fails, not after a
	// clean stop; launchd stops it with SIGTERM.
	fmt.Fprintf(&b, "  <key>RunAtLoad</key>\n  <true/>\n  <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>\n"+
		"  <key>ExitTimeOut</key>\n  <integer>45</integer>\n  <key>StandardOutPath</key>\n  <string>%s</string>\n  <key>StandardErrorPath</key>\n  <string>%s</string>\n</dict>\n</plist>\n",
		xmlEscape(logPath), xmlEscape(logPath))
	domain := "gui/$(id -u)"
	return serviceFile{
		platform:  "launchd",
		path:      path,
		content:   []byte(b.String()),
		start:     []string{"launchctl bootout " + domain + "/" + launchdLabel, "launchctl bootstrap " + domain + " " + shellword.Quote(path)},
		stop:      []string{"launchctl bootout " + domain + "/" + launchdLabel},
		stopLater: []string{"launchctl bootout " + domain + "/" + launchdLabel},
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// serviceArgv is the installed server's command line: this binary, serve,
// the store and models as absolute paths, the project and device when
// set, and every serve flag the user gave (paths made absolute).
func (a *App) serviceArgv(cmd *cobra.Command) ([]string, error) {
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

// runServiceCommand runs one of the printed commands for --now; a
// variable so no test starts a real service manager by accident.
var runServiceCommand = func(ctx context.Context, stderr io.Writer, line string) error {
	c := exec.CommandContext(ctx, "sh", "-c", line)
	c.Stdout, c.Stderr = stderr, stderr
	return c.Run()
}

// serviceResult is serve --install/--uninstall --json.
type serviceResult struct {
	Platform string   `json:"platform"`
	File     string   `json:"file"`
	Action   string   `json:"action"` // "created", "updated", "unchanged", "removed", "none"
	Backup   string   `json:"backup,omitempty"`
	Commands []string `json:"commands"` // what starts (or stops) it
	Ran      bool     `json:"ran"`      // --now ran them
}

// serveService is serve --install (install) or --uninstall.
func (a *App) serveService(cmd *cobra.Command, install, now bool) error {
	argv, err := a.serviceArgv(cmd)
	if err != nil {
		return err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return usagef("set $HOME", "no home directory for the service file: %v", err)
	}
	var env [][2]string
	for _, k := range serviceEnv {
		if v := os.Getenv(k); v != "" {
			env = append(env, [2]string{k, v})
		}
	}
	sf, err := serviceFor(runtime.GOOS, home, xdgDir(os.Getenv, "XDG_CONFIG_HOME", ".config"), argv, env)
	if err != nil {
		return err
	}
	res := serviceResult{Platform: sf.platform, File: sf.path, Action: "none", Commands: sf.start}
	old, err := os.ReadFile(sf.path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", sf.path, err)
	}
	if install {
		switch {
		case exists && bytes.Equal(old, sf.content):
			res.Action = "unchanged"
		default:
			if exists {
				res.Backup = sf.path + ".cgraph-backup"
				if err := atomicfile.Backup(res.Backup, old, 0o644); err != nil {
					return err
				}
			}
			if err := os.MkdirAll(filepath.Dir(sf.path), 0o755); err != nil {
				return fmt.Errorf("create %s: %w", filepath.Dir(sf.path), err)
			}
			if err := atomicfile.WriteFile(sf.path, sf.content, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", sf.path, err)
			}
			res.Action = "created"
			if exists {
				res.Action = "updated"
			}
		}
		if _, err := os.Stat(storeOf(argv)); err != nil {
			a.Warnf("the store %s does not exist yet: create it with `cgraph --db %s init`, or the service will fail to start", storeOf(argv), shellword.Quote(storeOf(argv)))
		}
	} else {
		res.Commands = sf.stopLater
		if now {
			res.Commands = append(append([]string(nil), sf.stop...), sf.after...)
		}
		if exists && !bytes.Contains(old, []byte(serviceHeader)) {
			return fmt.Errorf("%s was not written by cgraph serve --install: stop and remove it yourself (%s)", sf.path, strings.Join(sf.stop, "; "))
		}
	}
	run := func(lines []string) error {
		for _, line := range lines {
			err := runServiceCommand(a.Context(), a.Stderr, line)
			if err != nil && !(install && strings.HasPrefix(line, "launchctl bootout")) { // bootout of an agent not loaded yet fails, harmlessly
				return fmt.Errorf("%s: %w: the file is %s; run the command yourself to see why", line, err, sf.path)
			}
		}
		return nil
	}
	switch {
	case now && install:
		if err := run(sf.start); err != nil {
			return err
		}
		res.Ran = true
	case now && exists:
		if err := run(sf.stop); err != nil {
			return err
		}
	}
	if !install && exists {
		if err := os.Remove(sf.path); err != nil {
			return fmt.Errorf("remove %s: %w", sf.path, err)
		}
		if sf.wants != "" {
			if target, err := os.Readlink(sf.wants); err == nil && target == sf.path {
				if err := os.Remove(sf.wants); err != nil {
					return fmt.Errorf("remove %s: %w", sf.wants, err)
				}
			}
		}
		res.Action = "removed"
		if now {
			if err := run(sf.after); err != nil {
				return err
			}
			res.Ran = true
		}
	}
	if a.JSON {
		return a.PrintJSON(res)
	}
	printServiceResult(a, res, install)
	return nil
}

func printServiceResult(a *App, r serviceResult, install bool) {
	switch r.Action {
	case "unchanged":
		a.Printf("%s is already installed as it would be written: nothing changed\n", r.File)
	case "created", "updated":
		a.Printf("%s %s (%s)\n", r.Action, r.File, r.Platform)
	case "removed":
		a.Printf("removed %s\n", r.File)
	case "none":
		a.Printf("no %s: nothing to remove\n", r.File)
		return
	}
	if r.Backup != "" {
		a.Printf("the file it replaced is kept in %s\n", r.Backup)
	}
	switch {
	case r.Ran:
		a.Printf("ran: %s\n", strings.Join(r.Commands, "; "))
	case install:
		a.Printf("start it now and at every login with:\n  %s\n", strings.Join(r.Commands, " && "))
	default:
		a.Printf("if it is running, stop it with:\n  %s\n", strings.Join(r.Commands, " && "))
	}
}
