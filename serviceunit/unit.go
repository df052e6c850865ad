// Package serviceunit installs `cgraph serve` as the user's service with
// the platform's service manager, for serve --install and --uninstall: a
// systemd user unit on Linux, a launchd agent on macOS. It writes the file
// (keeping the one it replaces), gives the commands that start or stop it
// and, when asked, runs them through the caller's Runner. The file runs the
// server's command line as given (absolute paths, the serve flags), so it
// does not depend on the environment the manager starts it in.
//
// It removes only files it wrote (they carry Header) and prints nothing;
// the caller builds the command line and says what happened.
package serviceunit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cgraph/cgraph/internal/shellword"
	"github.com/cgraph/cgraph/record"
)

// Header is in every file serve --install writes (a comment, with
// no "--": XML comments cannot hold it); --uninstall removes only files
// that hold it.
const Header = "Written by the cgraph serve command (install flag); its uninstall flag removes it."

// Env are the variables a server needs from the user's environment
// that a service manager does not pass on: copied into the file when set.
var Env = []string{"CGRAPH_ORT_LIB", "LD_LIBRARY_PATH", "CGRAPH_REDACT_RULES"}

// Unit is what serve --install writes on one platform.
type Unit struct {
	Platform string   // "systemd" or "launchd"
	Path     string   // where the file goes
	Content  []byte   // the file
	Start    []string // the commands that enable and (re)start it
	Stop     []string // --uninstall --now: the commands that stop and disable it, before the file goes
	After    []string // --uninstall --now: the commands run once the file is gone
	// StopLater are the commands printed by --uninstall without --now:
	// they work once the file is gone.
	StopLater []string
	// Wants is the link `systemctl enable` made, which --uninstall removes
	// with the file when it points at it (what `systemctl disable` does).
	Wants string
}

// For builds the service file for goos: argv is the server's
// command line (argv[0] absolute), env the variables to set.
func For(goos, home, configHome string, argv []string, env [][2]string) (Unit, error) {
	switch goos {
	case "linux":
		return systemdUnit(configHome, argv, env), nil
	case "darwin":
		return launchdAgent(home, argv, env), nil
	}
	return Unit{}, &record.ValidationError{Field: "install", Problem: fmt.Sprintf("serve --install knows systemd (Linux) and launchd (macOS), not %s", goos), Fix: "run `cgraph serve` from your own service manager"}
}

func systemdUnit(configHome string, argv []string, env [][2]string) Unit {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", Header)
	fmt.Fprintf(&b, "[Unit]\nDescription=cgraph memory server (API and MCP) for the store %s\nAfter=network.target\n\n", systemdEscape(StoreOf(argv)))
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
	return Unit{
		Platform:  "systemd",
		Path:      filepath.Join(configHome, "systemd", "user", "cgraph.service"),
		Content:   []byte(b.String()),
		Start:     []string{"systemctl --user daemon-reload", "systemctl --user enable cgraph", "systemctl --user restart cgraph"},
		Stop:      []string{"systemctl --user disable --now cgraph"},
		After:     []string{"systemctl --user daemon-reload"},
		StopLater: []string{"systemctl --user stop cgraph", "systemctl --user daemon-reload"},
		Wants:     filepath.Join(configHome, "systemd", "user", "default.target.wants", "cgraph.service"),
	}
}

// StoreOf returns the --db of a serve command line.
func StoreOf(argv []string) string {
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

func launchdAgent(home string, argv []string, env [][2]string) Unit {
	path := filepath.Join(home, "Library", "LaunchAgents", launchdLabel+".plist")
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
`)
	fmt.Fprintf(&b, "<!-- %s -->\n", Header)
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
	return Unit{
		Platform:  "launchd",
		Path:      path,
		Content:   []byte(b.String()),
		Start:     []string{"launchctl bootout " + domain + "/" + launchdLabel, "launchctl bootstrap " + domain + " " + shellword.Quote(path)},
		Stop:      []string{"launchctl bootout " + domain + "/" + launchdLabel},
		StopLater: []string{"launchctl bootout " + domain + "/" + launchdLabel},
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}
