package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/cli/servecmd"
	"github.com/cgraph/cgraph/serviceunit"
)

// serviceEnvForTest gives a test its own $HOME and a known environment
// for the variables the unit copies, and records the commands --now runs.
func serviceEnvForTest(t *testing.T) (home string, ran *[]string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CGRAPH_DB", "")
	t.Setenv("CGRAPH_MODELS", "")
	t.Setenv("CGRAPH_PROJECT", "")
	t.Setenv("CGRAPH_ORT_LIB", "/opt/ort 1.30/libonnxruntime%.so")
	t.Setenv("LD_LIBRARY_PATH", "")
	t.Setenv("CGRAPH_REDACT_RULES", "")
	ran = new([]string)
	old := servecmd.RunServiceCommand
	servecmd.RunServiceCommand = func(_ context.Context, _ io.Writer, line string) error {
		*ran = append(*ran, line)
		return nil
	}
	t.Cleanup(func() { servecmd.RunServiceCommand = old })
	return home, ran
}

// TestServiceSystemd: serve --install writes a user unit that runs this
// binary on the store with the serve flags given, is idempotent, keeps a
// unit it replaces, and --uninstall removes it; --now runs systemctl.
func TestServiceSystemd(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("systemd units are written on Linux")
	}
	home, ran := serviceEnvForTest(t)
	db := filepath.Join(t.TempDir(), "my store")
	if err := os.MkdirAll(db, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "cgraph.service")
	args := []string{"--db", db, "--models-dir", "/models", "--project", "web", "serve", "--install", "--addr", "127.0.0.1:7999", "--allowed-hosts", "a.internal,b.internal", "--defer-slots"}

	r := mustRun(t, "", args...)
	if !strings.Contains(r.stdout, "created "+unit) || !strings.Contains(r.stdout, "systemctl --user daemon-reload && systemctl --user enable cgraph && systemctl --user restart cgraph") {
		t.Errorf("install says %q", r.stdout)
	}
	if len(*ran) != 0 {
		t.Errorf("without --now it ran %q", *ran)
	}
	got := string(readFile(t, unit))
	for _, want := range []string{
		"# " + serviceunit.Header + "\n",
		"ExecStart=" + exe + ` serve --db "` + db + `" --models-dir /models --project web --addr 127.0.0.1:7999 --allowed-hosts a.internal,b.internal --defer-slots=true` + "\n",
		`Environment="CGRAPH_ORT_LIB=/opt/ort 1.30/libonnxruntime%%.so"` + "\n",
		"KillSignal=SIGTERM\n", "Restart=on-failure\n", "WantedBy=default.target\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("unit lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "LD_LIBRARY_PATH") || strings.Contains(got, "--install") || strings.Contains(got, "--json") {
		t.Errorf("unit holds what it should not:\n%s", got)
	}

	var res serviceunit.Result
	oneJSON(t, mustRun(t, "", append([]string{"--json"}, args...)...).stdout, &res)
	if res.Action != "unchanged" || res.Backup != "" || string(readFile(t, unit)) != got {
		t.Fatalf("second install: %+v", res)
	}

	// Another address: the unit is replaced, the first one kept.
	args[len(args)-4] = "127.0.0.1:8000"
	oneJSON(t, mustRun(t, "", append([]string{"--json"}, append(args, "--now")...)...).stdout, &res)
	if res.Action != "updated" || res.Backup != unit+".cgraph-backup" || string(readFile(t, res.Backup)) != got || !res.Ran {
		t.Fatalf("install with another address: %+v", res)
	}
	if !strings.Contains(string(readFile(t, unit)), "--addr 127.0.0.1:8000") {
		t.Error("the unit was not rewritten")
	}
	if strings.Join(*ran, "; ") != "systemctl --user daemon-reload; systemctl --user enable cgraph; systemctl --user restart cgraph" {
		t.Errorf("--now ran %q", *ran)
	}

	*ran = nil
	r = mustRun(t, "", "--db", db, "serve", "--uninstall", "--now")
	if !strings.Contains(r.stdout, "removed "+unit) || strings.Join(*ran, "; ") != "systemctl --user disable --now cgraph; systemctl --user daemon-reload" {
		t.Errorf("uninstall --now: %q, ran %q", r.stdout, *ran)
	}
	mustNotExist(t, unit)

	// Without --now: the file and the link `systemctl enable` made go, and
	// it prints what stops a running one (which works without the file).
	*ran = nil
	mustRun(t, "", args...)
	wants := filepath.Join(filepath.Dir(unit), "default.target.wants", "cgraph.service")
	if err := os.MkdirAll(filepath.Dir(wants), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(unit, wants); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, "", "serve", "--uninstall")
	if !strings.Contains(r.stdout, "systemctl --user stop cgraph && systemctl --user daemon-reload") || len(*ran) != 0 {
		t.Errorf("uninstall: %q, ran %q", r.stdout, *ran)
	}
	mustNotExist(t, unit)
	mustNotExist(t, wants)
	r = mustRun(t, "", "serve", "--uninstall")
	if !strings.Contains(r.stdout, "nothing to remove") {
		t.Errorf("second uninstall says %q", r.stdout)
	}

	// A unit cgraph did not write is refused and kept.
	if err := os.WriteFile(unit, []byte("[Service]\nExecStart=/usr/bin/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, "", "serve", "--uninstall")
	if r.code != ExitError || !strings.Contains(r.stderr, "was not written by cgraph serve --install") {
		t.Errorf("uninstall of a foreign unit: exit %d, %q", r.code, r.stderr)
	}
	if _, err := os.Stat(unit); err != nil {
		t.Error("the foreign unit was removed")
	}
}

// TestServiceWarnsMissingStore: installing for a store that does not exist
// says how to create it (the service would fail to start).
func TestServiceWarnsMissingStore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("systemd units are written on Linux")
	}
	serviceEnvForTest(t)
	db := filepath.Join(t.TempDir(), "absent")
	r := mustRun(t, "", "--db", db, "serve", "--install")
	if !strings.Contains(r.stderr, "the store "+db+" does not exist yet") || !strings.Contains(r.stderr, "init") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestServiceUsage: --now alone or both --install and --uninstall.
func TestServiceUsage(t *testing.T) {
	serviceEnvForTest(t)
	for _, args := range [][]string{{"serve", "--now"}, {"serve", "--install", "--uninstall"}} {
		r := run(t, "", args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "exactly one of --install and --uninstall") {
			t.Errorf("%v: exit %d, %q", args, r.code, r.stderr)
		}
	}
}
