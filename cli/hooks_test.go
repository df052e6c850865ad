package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/cli/hookscmd"
	"github.com/cgraph/cgraph/hookconfig"
	"github.com/cgraph/cgraph/internal/textdiff"
	"github.com/cgraph/cgraph/serverfile"
)

// hooksEnv gives a test its own $HOME and no $CGRAPH_DB/$CGRAPH_MODELS,
// so --user files and the hooks' --db are the test's own.
func hooksEnv(t *testing.T) (home string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CGRAPH_DB", "")
	t.Setenv("CGRAPH_MODELS", "")
	return home
}

// projectWith makes a project directory whose host file (dir/file)
// holds the fixture (none when fixture is "") and returns the project and
// the file's path.
func projectWith(t *testing.T, dir, file, fixture string) (project, path string) {
	t.Helper()
	project = t.TempDir()
	path = filepath.Join(project, dir, file)
	if fixture == "" {
		return project, path
	}
	data, err := os.ReadFile(filepath.Join("testdata", "hooks", fixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o640); err != nil {
		t.Fatal(err)
	}
	return project, path
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustNotExist fails unless path is absent.
func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("%s exists (err %v), want it gone", path, err)
	}
}

// dirNames lists a directory, to catch leftover temporary files.
func dirNames(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return strings.Join(n, " ")
}

const testBinary = "/opt/cgraph/bin/cgraph"

// TestHooksClaudeRoundTrip installs into a settings file that already has
// another tool's hooks, permissions and env, checks what was kept and
// added, installs again (nothing changes) and uninstalls: the file is
// byte-identical to before and the backup is gone.
func TestHooksClaudeRoundTrip(t *testing.T) {
	hooksEnv(t)
	project, path := projectWith(t, ".claude", "settings.json", "claude-settings.json")
	orig := readFile(t, path)
	args := []string{"--db", "/data/store", "--json", "hooks", "install", "claude-code", "--project-dir", project, "--binary", testBinary}

	var c hookconfig.Change
	oneJSON(t, mustRun(t, "", args...).stdout, &c)
	if !c.Changed || c.Action != "updated" || strings.Join(c.Added, ",") != "SessionStart,UserPromptSubmit,PostToolUse,Stop,PreCompact,SessionEnd" || len(c.Updated)+len(c.Unchanged) != 0 {
		t.Fatalf("install: %+v", c)
	}
	if c.Backup != path+".cgraph-backup" || !bytes.Equal(readFile(t, c.Backup), orig) {
		t.Fatalf("backup %q does not hold the file as it was", c.Backup)
	}
	after := readFile(t, path)
	text := string(after)
	for _, want := range []string{
		// The user's members, in their order, with their text.
		`"$schema": "https://json.schemastore.org/claude-code-settings.json",` + "\n  \"permissions\"",
		`"NODE_OPTIONS": "--max-old-space-size=4096 <tuned> & kept"`,
		`"cleanupPeriodDays": 1.5e1`,
		`"command": "npx prettier --write \"$CLAUDE_PROJECT_DIR\"/src",`,
		`"command": "notify-send 'Claude Code' 'needs you'"`,
		// cgraph's: the binary, host and event verbatim, the store.
		`"matcher": "Read|Edit|Write|MultiEdit",`,
		`"command": "/opt/cgraph/bin/cgraph hook claude-code PostToolUse --db /data/store",`,
		`"command": "/opt/cgraph/bin/cgraph hook claude-code SessionStart --db /data/store",`,
		`"command": "/opt/cgraph/bin/cgraph hook claude-code SessionEnd --db /data/store",`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("installed file lacks %s\n%s", want, text)
		}
	}
	// The other tool's PostToolUse group stays first; cgraph's follows it.
	if i, j := strings.Index(text, "npx prettier"), strings.Index(text, "hook claude-code PostToolUse"); i < 0 || j < i {
		t.Errorf("the other tool's PostToolUse hook is no longer first (%d, %d)", i, j)
	}
	if n := strings.Count(text, "hook claude-code "); n != 6 {
		t.Errorf("%d cgraph entries, want 6", n)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v (err %v), want 0640 kept", fi.Mode().Perm(), err)
	}

	// Idempotent: nothing changes, and it says so.
	oneJSON(t, mustRun(t, "", args...).stdout, &c)
	if c.Changed || len(c.Unchanged) != 6 || !bytes.Equal(readFile(t, path), after) || !bytes.Equal(readFile(t, path+".cgraph-backup"), orig) {
		t.Fatalf("second install changed something: %+v", c)
	}
	r := mustRun(t, "", append(args[:2:2], args[3:]...)...) // without --json
	if !strings.Contains(r.stdout, "already installed") || !strings.Contains(r.stdout, "nothing changed") {
		t.Errorf("second install says %q", r.stdout)
	}

	r = mustRun(t, "", "hooks", "uninstall", "claude-code", "--project-dir", project)
	if !strings.Contains(r.stdout, "byte for byte") {
		t.Errorf("uninstall says %q", r.stdout)
	}
	if got := readFile(t, path); !bytes.Equal(got, orig) {
		t.Fatalf("after uninstall the file differs from before install:\n%s", textdiff.Unified(string(orig), string(got), "before", "after"))
	}
	mustNotExist(t, path+".cgraph-backup")
	if names := dirNames(t, filepath.Dir(path)); names != "settings.json" {
		t.Errorf(".claude holds %q, want settings.json alone", names)
	}
	r = mustRun(t, "", "hooks", "uninstall", "claude-code", "--project-dir", project)
	if !strings.Contains(r.stdout, "nothing changed") || !bytes.Equal(readFile(t, path), orig) {
		t.Errorf("a second uninstall says %q", r.stdout)
	}
}

// TestHooksUninstallKeepsLaterEdits: a user who changed the file after
// install keeps that change; cgraph's entries go and nothing else.
func TestHooksUninstallKeepsLaterEdits(t *testing.T) {
	hooksEnv(t)
	project, path := projectWith(t, ".claude", "settings.json", "claude-settings.json")
	orig := string(readFile(t, path))
	mustRun(t, "", "hooks", "install", "claude-code", "--project-dir", project, "--binary", testBinary)
	edited := strings.Replace(string(readFile(t, path)), `"model": "claude-sonnet-4-5"`, `"model": "claude-opus-4-1"`, 1)
	if err := os.WriteFile(path, []byte(edited), 0o640); err != nil {
		t.Fatal(err)
	}
	var c hookconfig.Change
	oneJSON(t, mustRun(t, "", "--json", "hooks", "uninstall", "claude-code", "--project-dir", project).stdout, &c)
	if c.Action != "removed_entries" || c.Removed != 6 || c.Backup == "" || !strings.Contains(c.Note, "not restored") {
		t.Fatalf("uninstall after an edit: %+v", c)
	}
	got := readFile(t, path)
	same, err := hookconfig.SameJSON(got, []byte(strings.Replace(orig, `"model": "claude-sonnet-4-5"`, `"model": "claude-opus-4-1"`, 1)))
	if err != nil {
		t.Fatalf("uninstall wrote invalid JSON: %v\n%s", err, got)
	}
	if !same {
		t.Fatalf("uninstall did not keep exactly the user's content:\n%s", got)
	}
	if !bytes.Equal(readFile(t, path+".cgraph-backup"), []byte(orig)) {
		t.Error("the backup was changed or removed though it was not restored")
	}
}

// TestHooksInvalidFileRefused: a file cgraph cannot read as a host's
// configuration is refused with what is wrong and left untouched; no
// backup or temporary file is left.
func TestHooksInvalidFileRefused(t *testing.T) {
	hooksEnv(t)
	cases := []struct {
		fixture, host, dir, file string
		want                     []string
	}{
		{"invalid/trailing-comma.json", "claude-code", ".claude", "settings.json", []string{"is not valid JSON", "line 3, column 14", "cgraph changed nothing"}},
		{"invalid/comment.json", "claude-code", ".claude", "settings.json", []string{"is not valid JSON", "line 1, column 1"}},
		{"invalid/array.json", "claude-code", ".claude", "settings.json", []string{"holds an array, not a JSON object"}},
		{"invalid/hooks-string.json", "claude-code", ".claude", "settings.json", []string{`"hooks" is a string, not an object`}},
		{"invalid/event-object.json", "claude-code", ".claude", "settings.json", []string{`"hooks"."Stop" is an object, not an array`}},
		{"invalid/cursor-version-2.json", "cursor", ".cursor", "hooks.json", []string{`"version" is 2`, "version 1"}},
	}
	for _, c := range cases {
		for _, verb := range []string{"install", "uninstall", "status"} {
			t.Run(c.fixture+"/"+verb, func(t *testing.T) {
				project, path := projectWith(t, c.dir, c.file, c.fixture)
				orig := readFile(t, path)
				r := run(t, "", "hooks", verb, c.host, "--project-dir", project)
				if r.code != ExitError {
					t.Fatalf("exit %d, want %d; stderr %q", r.code, ExitError, r.stderr)
				}
				for _, w := range c.want {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("stderr %q lacks %q", r.stderr, w)
					}
				}
				if !bytes.Equal(readFile(t, path), orig) {
					t.Error("the file was changed")
				}
				if names := dirNames(t, filepath.Dir(path)); names != c.file {
					t.Errorf("%s holds %q, want %s alone", filepath.Dir(path), names, c.file)
				}
			})
		}
	}
}

// TestHooksCursor: a round trip on a hooks.json with other tools' hooks,
// and on a project without one (created, then deleted).
func TestHooksCursor(t *testing.T) {
	hooksEnv(t)
	t.Run("existing file", func(t *testing.T) {
		project, path := projectWith(t, ".cursor", "hooks.json", "cursor-hooks.json")
		orig := readFile(t, path)
		mustRun(t, "", "--db", "/data/store", "hooks", "install", "cursor", "--project-dir", project, "--binary", testBinary)
		text := string(readFile(t, path))
		for _, want := range []string{
			"\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"afterFileEdit\": [\n\t\t\t{\n\t\t\t\t\"command\": \"./hooks/format.sh\"\n\t\t\t},\n\t\t\t{\n\t\t\t\t\"command\": \"/opt/cgraph/bin/cgraph hook cursor afterFileEdit --db /data/store\"",
			`"timeout": 5000`,
			`"command": "/opt/cgraph/bin/cgraph hook cursor beforeSubmitPrompt --db /data/store"`,
			`"command": "/opt/cgraph/bin/cgraph hook cursor stop --db /data/store"`,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("installed hooks.json lacks %q:\n%s", want, text)
			}
		}
		mustRun(t, "", "hooks", "uninstall", "cursor", "--project-dir", project)
		if got := readFile(t, path); !bytes.Equal(got, orig) {
			t.Fatalf("after uninstall:\n%s", textdiff.Unified(string(orig), string(got), "before", "after"))
		}
	})
	t.Run("no file", func(t *testing.T) {
		project, path := projectWith(t, ".cursor", "hooks.json", "")
		var c hookconfig.Change
		oneJSON(t, mustRun(t, "", "--json", "hooks", "install", "cursor", "--project-dir", project, "--binary", testBinary).stdout, &c)
		if c.Action != "created" || c.Backup != "" || len(c.Added) != 3 {
			t.Fatalf("install into no file: %+v", c)
		}
		want := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeSubmitPrompt\": [\n      {\n        \"command\": \"/opt/cgraph/bin/cgraph hook cursor beforeSubmitPrompt\"\n      }\n    ],\n"
		if got := string(readFile(t, path)); !strings.HasPrefix(got, want) {
			t.Fatalf("created hooks.json:\n%s\nwant it to start with\n%s", got, want)
		}
		oneJSON(t, mustRun(t, "", "--json", "hooks", "uninstall", "cursor", "--project-dir", project).stdout, &c)
		if c.Action != "deleted_file" {
			t.Fatalf("uninstall: %+v", c)
		}
		mustNotExist(t, path)
		mustNotExist(t, filepath.Dir(path))
	})
}

// TestHooksUserScope: --user writes under $HOME, follows a symbolic link
// to the real file (a dotfiles checkout) and keeps the link.
func TestHooksUserScope(t *testing.T) {
	home := hooksEnv(t)
	real := filepath.Join(home, "dotfiles", "claude-settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := readFile(t, filepath.Join("testdata", "hooks", "claude-settings.json"))
	if err := os.WriteFile(real, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "", "hooks", "install", "claude-code", "--user", "--binary", testBinary)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced (err %v)", err)
	}
	if !strings.Contains(string(readFile(t, real)), "hook claude-code Stop") {
		t.Fatal("the link's target did not get the hooks")
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	mustRun(t, "", "hooks", "uninstall", "claude-code", "--user")
	if !bytes.Equal(readFile(t, real), orig) {
		t.Fatal("uninstall did not restore the link's target")
	}
}

// TestHooksDryRun: --dry-run prints the diff and the outcome and writes
// nothing, neither the file nor a backup.
func TestHooksDryRun(t *testing.T) {
	hooksEnv(t)
	project, path := projectWith(t, ".claude", "settings.json", "claude-settings.json")
	orig := readFile(t, path)
	r := mustRun(t, "", "hooks", "install", "claude-code", "--project-dir", project, "--binary", testBinary, "--dry-run")
	for _, want := range []string{"would install", "--- " + path, "+++ " + path + " (after install)", "@@ -",
		`+            "command": "/opt/cgraph/bin/cgraph hook claude-code Stop",`, "dry run: nothing was written"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, r.stdout)
		}
	}
	if !bytes.Equal(readFile(t, path), orig) || dirNames(t, filepath.Dir(path)) != "settings.json" {
		t.Fatal("--dry-run wrote something")
	}
	mustRun(t, "", "hooks", "install", "claude-code", "--project-dir", project, "--binary", testBinary)
	installed := readFile(t, path)
	var c hookconfig.Change
	oneJSON(t, mustRun(t, "", "--json", "hooks", "uninstall", "claude-code", "--project-dir", project, "--dry-run").stdout, &c)
	if !c.DryRun || c.Action != "restored" || !strings.Contains(c.Diff, `-            "command": "/opt/cgraph/bin/cgraph hook claude-code Stop",`) {
		t.Fatalf("uninstall --dry-run: %+v", c)
	}
	if !bytes.Equal(readFile(t, path), installed) {
		t.Fatal("uninstall --dry-run wrote something")
	}
}

// TestHooksOneEvent: uninstall --event turns one hook off and leaves the
// others (and the other tool's hook on the same event); install brings it
// back; a new binary replaces cgraph's entries in place.
func TestHooksOneEvent(t *testing.T) {
	hooksEnv(t)
	project, path := projectWith(t, ".claude", "settings.json", "claude-settings.json")
	mustRun(t, "", "hooks", "install", "claude-code", "--project-dir", project, "--binary", testBinary)
	r := mustRun(t, "", "hooks", "uninstall", "claude-code", "--project-dir", project, "--event", "PostToolUse")
	if !strings.Contains(r.stdout, "removed 1 cgraph hook entries") {
		t.Errorf("uninstall --event says %q", r.stdout)
	}
	text := string(readFile(t, path))
	if strings.Contains(text, "hook claude-code PostToolUse") || !strings.Contains(text, "npx prettier") || strings.Count(text, "hook claude-code ") != 5 {
		t.Fatalf("after uninstall --event PostToolUse:\n%s", text)
	}
	var c hookconfig.Change
	oneJSON(t, mustRun(t, "", "--json", "hooks", "install", "claude-code", "--project-dir", project, "--binary", testBinary).stdout, &c)
	if strings.Join(c.Added, ",") != "PostToolUse" || len(c.Unchanged) != 5 {
		t.Fatalf("install after turning one off: %+v", c)
	}
	r = run(t, "", "hooks", "uninstall", "claude-code", "--project-dir", project, "--event", "PostToolUsed")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `--event "PostToolUsed" is not a claude-code event`) || !strings.Contains(r.stderr, "SessionStart, UserPromptSubmit, PostToolUse") {
		t.Errorf("bad --event: exit %d, %q", r.code, r.stderr)
	}

	before := string(readFile(t, path))
	oneJSON(t, mustRun(t, "", "--json", "hooks", "install", "claude-code", "--project-dir", project, "--binary", "/usr/local/bin/cgraph").stdout, &c)
	if len(c.Updated) != 6 {
		t.Fatalf("install with another binary: %+v", c)
	}
	after := string(readFile(t, path))
	if strings.Contains(after, testBinary) || strings.Count(after, "/usr/local/bin/cgraph hook claude-code ") != 6 {
		t.Fatalf("the old entries were not replaced:\n%s", after)
	}
	if strings.Replace(before, testBinary, "/usr/local/bin/cgraph", -1) != after {
		t.Errorf("the new binary's entries are not where the old ones were:\n%s", textdiff.Unified(before, after, "before", "after"))
	}
	mustRun(t, "", "hooks", "uninstall", "claude-code", "--project-dir", project)
	if !bytes.Equal(readFile(t, path), readFile(t, filepath.Join("testdata", "hooks", "claude-settings.json"))) {
		t.Error("uninstall after a partial uninstall and a re-install did not restore the file")
	}
}

// TestHooksStatus lists each event per host and scope with its binary
// and store, and says whether a server runs for that store.
func TestHooksStatus(t *testing.T) {
	hooksEnv(t)
	project, _ := projectWith(t, ".claude", "settings.json", "claude-settings.json")
	db := filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(db, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "", "--db", db, "hooks", "install", "claude-code", "--user", "--binary", testBinary)
	mustRun(t, "", "hooks", "install", "claude-code", "--project-dir", project, "--binary", testBinary, "--event", "SessionStart")

	var st hookscmd.Status
	oneJSON(t, mustRun(t, "", "--json", "hooks", "status", "claude-code", "--project-dir", project).stdout, &st)
	if len(st.Targets) != 2 || st.Targets[0].Scope != "user" || st.Targets[1].Scope != "project" || len(st.Targets[1].Events) != 6 {
		t.Fatalf("status --project-dir: %+v", st)
	}
	ev := st.Targets[1].Events
	if !ev[0].Installed || ev[0].Event != "SessionStart" || ev[0].Binary != testBinary || ev[0].DB != "" || !ev[0].BinaryMissing || ev[1].Installed {
		t.Errorf("project events: %+v", ev)
	}

	// A live server for the user's store.
	remove, err := serverfile.Write(db, serverfile.Info{URL: "http://127.0.0.1:1", PID: os.Getpid(), Version: "test", Store: "s", Started: time.Now(), Dir: db})
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	oneJSON(t, mustRun(t, "", "--json", "hooks", "status", "--project-dir", project).stdout, &st)
	if len(st.Targets) != 4 {
		t.Fatalf("status of both hosts, both scopes: %d targets", len(st.Targets))
	}
	user := st.Targets[0]
	if user.Host != "claude-code" || user.Scope != "user" || !user.Exists {
		t.Fatalf("first target: %+v", user)
	}
	for _, e := range user.Events {
		if !e.Installed || e.DB != db || e.Command != testBinary+" hook claude-code "+e.Event+" --db "+db {
			t.Errorf("user event %+v", e)
		}
	}
	if cur := st.Targets[3]; cur.Host != "cursor" || cur.Exists || cur.Events[0].Installed {
		t.Errorf("cursor project target: %+v", cur)
	}
	if len(st.Servers) != 2 || st.Servers[0].DB != db || !st.Servers[0].Running || st.Servers[0].PID != os.Getpid() || st.Servers[1].Running {
		t.Errorf("servers: %+v", st.Servers)
	}

	r := mustRun(t, "", "hooks", "status", "claude-code", "--user")
	for _, want := range []string{"claude-code user: ", "  PostToolUse        installed  " + testBinary + ", store " + db + ", tools Read|Edit|Write|MultiEdit",
		"the binary is missing", "server for " + db + ": running at http://127.0.0.1:1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestHooksUsage: the errors a user can make, each saying how to fix it.
func TestHooksUsage(t *testing.T) {
	hooksEnv(t)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"hooks", "install"}, []string{"needs one host, got 0", "claude-code or cursor"}},
		{[]string{"hooks", "install", "vscode"}, []string{`unknown host "vscode"`, "give claude-code or cursor"}},
		{[]string{"hooks", "install", "claude-code", "--user", "--project-dir", "."}, []string{"--user and --project-dir"}},
		{[]string{"hooks", "install", "cursor", "--project-dir", "/no/such/dir"}, []string{"--project-dir /no/such/dir is not a directory"}},
		{[]string{"hooks", "status", "claude-code", "cursor"}, []string{"at most one host"}},
	}
	for _, c := range cases {
		r := run(t, "", c.args...)
		if r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%q)", c.args, r.code, ExitUsage, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, r.stderr, w)
			}
		}
	}
}
