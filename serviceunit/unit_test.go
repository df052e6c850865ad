package serviceunit

import (
	"encoding/xml"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLaunchd: the macOS agent is a well-formed plist running the
// same command line, restarted on failure.
func TestLaunchd(t *testing.T) {
	argv := []string{"/Users/a/go/bin/cgraph", "serve", "--db", "/Users/a/R&D <store>", "--models-dir", "/m"}
	sf, err := For("darwin", "/Users/a", "/Users/a/.config", argv, [][2]string{{"CGRAPH_ORT_LIB", "/opt/ort.dylib"}})
	if err != nil {
		t.Fatal(err)
	}
	if sf.Path != "/Users/a/Library/LaunchAgents/dev.cgraph.serve.plist" {
		t.Errorf("path %s", sf.Path)
	}
	var plist struct {
		Dict struct {
			Inner []byte `xml:",innerxml"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(sf.Content, &plist); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, sf.Content)
	}
	text := string(sf.Content)
	for _, want := range []string{"<string>dev.cgraph.serve</string>", "<string>/Users/a/R&amp;D &lt;store&gt;</string>",
		"<key>SuccessfulExit</key>\n    <false/>", "<key>CGRAPH_ORT_LIB</key>\n    <string>/opt/ort.dylib</string>", Header} {
		if !strings.Contains(text, want) {
			t.Errorf("plist lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(strings.Join(sf.Start, " "), "launchctl bootstrap gui/$(id -u) /Users/a/Library/LaunchAgents/dev.cgraph.serve.plist") {
		t.Errorf("start commands %q", sf.Start)
	}
	if _, err := For("windows", "", "", argv, nil); err == nil || !strings.Contains(err.Error(), "not windows") {
		t.Errorf("windows: %v", err)
	}
}

// TestSystemdQuoting: ExecStart words as systemd splits them.
func TestSystemdQuoting(t *testing.T) {
	cases := map[string]string{
		"/usr/bin/cgraph":    "/usr/bin/cgraph",
		"/data/my store":     `"/data/my store"`,
		"50%":                "50%%",
		"$HOME/x":            "$$HOME/x",
		`a"b\c`:              `"a\"b\\c"`,
		"":                   `""`,
		"127.0.0.1:7411":     "127.0.0.1:7411",
		"a;b":                `"a;b"`,
		"--defer-slots=true": "--defer-slots=true",
	}
	for in, want := range cases {
		if got := systemdQuote(in); got != want {
			t.Errorf("systemdQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestInstallUninstall: install writes the unit once (a second install
// changes nothing and runs the start commands only with now), keeps a
// file it replaces, and uninstall stops, removes the file and its enable
// link, then reloads; a foreign file is refused untouched.
func TestInstallUninstall(t *testing.T) {
	cfg := t.TempDir()
	u, err := For("linux", t.TempDir(), cfg, []string{"/bin/cgraph", "serve", "--db", "/s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	run := func(line string) error { ran = append(ran, line); return nil }
	for i, want := range []string{"created", "unchanged"} {
		res, err := Install(u, false, run)
		if err != nil || res.Action != want || res.Ran || len(ran) != 0 {
			t.Fatalf("install %d: %+v, %v, ran %q; want %s without running", i, res, err, ran, want)
		}
	}
	if err := os.WriteFile(u.Path, []byte("# "+Header+"\nold\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Install(u, true, run)
	if err != nil || res.Action != "updated" || !res.Ran || !slices.Equal(ran, u.Start) {
		t.Fatalf("install over an old unit: %+v, %v, ran %q", res, err, ran)
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != "# "+Header+"\nold\n" {
		t.Errorf("backup %s holds %q", res.Backup, b)
	}
	if err := os.MkdirAll(filepath.Dir(u.Wants), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(u.Path, u.Wants); err != nil {
		t.Fatal(err)
	}
	ran = nil
	res, err = Uninstall(u, true, run)
	if err != nil || res.Action != "removed" || !res.Ran || !slices.Equal(ran, slices.Concat(u.Stop, u.After)) {
		t.Fatalf("uninstall --now: %+v, %v, ran %q", res, err, ran)
	}
	for _, p := range []string{u.Path, u.Wants} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	if err := os.WriteFile(u.Path, []byte("[Service]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(u, false, run); err == nil {
		t.Error("uninstall removed a unit cgraph did not write")
	}
	if b, _ := os.ReadFile(u.Path); string(b) != "[Service]\n" {
		t.Errorf("the foreign unit was changed: %q", b)
	}
}
