package hookconfig

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestSelectEvents: no name selects every event, names select theirs in
// order, an unknown one is a validation error listing the valid ones.
func TestSelectEvents(t *testing.T) {
	h := Hosts[0]
	all, err := h.SelectEvents(nil)
	if err != nil || len(all) != len(h.Events) {
		t.Fatalf("SelectEvents(nil) = %d events, %v; want %d", len(all), err, len(h.Events))
	}
	one, err := h.SelectEvents([]string{h.Events[1].Name})
	if err != nil || len(one) != 1 || one[0].Name != h.Events[1].Name {
		t.Fatalf("SelectEvents(%s) = %+v, %v", h.Events[1].Name, one, err)
	}
	_, err = h.SelectEvents([]string{"NoSuchEvent"})
	var ve *record.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), `--event "NoSuchEvent" is not a `+h.Name+" event") || !strings.Contains(err.Error(), h.Events[0].Name) {
		t.Fatalf("SelectEvents(unknown) = %v, want a validation error listing the events", err)
	}
	if help := h.EventsHelp(); strings.Count(help, "\n") != len(h.Events) || !strings.Contains(help, h.Events[0].Does) {
		t.Errorf("EventsHelp() = %q", help)
	}
}

// TestWhereTargets: the project's file under --project-dir, else under
// Root of the working directory; the user's first with Both; --user with
// --project-dir, or a project directory that is none, refused.
func TestWhereTargets(t *testing.T) {
	h := Hosts[0]
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	for _, c := range []struct {
		name    string
		w       Where
		want    []string
		wantErr string
	}{
		{name: "project dir", w: Where{ProjectDir: proj}, want: []string{filepath.Join(proj, h.Dir, h.File)}},
		{name: "user", w: Where{User: true}, want: []string{filepath.Join(home, h.Dir, h.File)}},
		{name: "both", w: Where{ProjectDir: proj, Both: true}, want: []string{filepath.Join(home, h.Dir, h.File), filepath.Join(proj, h.Dir, h.File)}},
		{name: "root", w: Where{Root: func(string) string { return proj }}, want: []string{filepath.Join(proj, h.Dir, h.File)}},
		{name: "user and project", w: Where{User: true, ProjectDir: proj}, wantErr: "--user and --project-dir name two different files"},
		{name: "not a dir", w: Where{ProjectDir: filepath.Join(proj, "missing")}, wantErr: "is not a directory: give the project's directory"},
	} {
		ts, err := c.w.Targets(h)
		if c.wantErr != "" {
			var ve *record.ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: Targets = %v, want a validation error holding %q", c.name, err, c.wantErr)
			}
			continue
		}
		var got []string
		for _, tg := range ts {
			got = append(got, tg.Path)
		}
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: Targets = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// TestChangeText: what install and uninstall print for each kind of
// change, a dry run's "would" and diff included.
func TestChangeText(t *testing.T) {
	for _, c := range []struct {
		name    string
		c       Change
		install bool
		want    []string
	}{
		{name: "nothing installed", c: Change{Host: "cursor", Scope: "user", File: "f"}, install: true,
			want: []string{"cgraph's cursor hooks are already installed in f (cursor user): nothing changed"}},
		{name: "nothing removed", c: Change{Host: "cursor", Scope: "user", File: "f"},
			want: []string{"no cgraph cursor hook in f (cursor user): nothing changed"}},
		{name: "install", c: Change{Host: "h", Scope: "project", File: "f", Changed: true, Added: []string{"A"}, Unchanged: []string{"B"}, Backup: "f.bak"}, install: true,
			want: []string{"installed cgraph's hooks in f (h project):", "  added     A", "  unchanged B", "kept in f.bak"}},
		{name: "dry install", c: Change{Host: "h", Scope: "project", File: "f", Changed: true, DryRun: true, Diff: "+x\n"}, install: true,
			want: []string{"would install cgraph's hooks in", "+x", "(dry run: nothing was written)"}},
		{name: "restored", c: Change{Host: "h", Scope: "user", File: "f", Changed: true, Action: "restored"},
			want: []string{"removed cgraph's hooks from f (h user): restored the file cgraph backed up, byte for byte"}},
		{name: "deleted", c: Change{Host: "h", Scope: "user", File: "f", Changed: true, Action: "deleted_file", DryRun: true},
			want: []string{"would delete f (h user), which cgraph created"}},
		{name: "entries", c: Change{Host: "h", Scope: "user", File: "f", Changed: true, Action: "removed_entries", Removed: 3, Note: "kept others"},
			want: []string{"removed 3 cgraph hook entries from f (h user)", "kept others"}},
	} {
		var b bytes.Buffer
		if err := c.c.WriteText(&b, c.install); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, b.String())
			}
		}
	}
}

// TestWriteStatus lists a real installed file's events, a missing file
// and an unreadable one.
func TestWriteStatus(t *testing.T) {
	dir := t.TempDir()
	h := Hosts[0]
	tg := Target{Host: h, Scope: ScopeProject, Path: filepath.Join(dir, "p", h.Dir, h.File)}
	f, err := ReadFile(tg)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "missing", "cgraph")
	c, err := PlanInstall(tg, f, h.Events[:1], Command{Binary: bin, DB: "/stores/one"})
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(tg, f, c, true); err != nil {
		t.Fatal(err)
	}
	missing := Target{Host: h, Scope: ScopeUser, Path: filepath.Join(dir, "none", h.File)}
	bad := Target{Host: h, Scope: ScopeUser, Path: filepath.Join(dir, "bad.json")}
	if err := os.WriteFile(bad.Path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteStatus(&b, []TargetStatus{Status(tg), Status(missing), Status(bad)}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		h.Name + " project: " + tg.Path + "\n",
		"  " + h.Events[0].Name, "installed  " + bin + ", store /stores/one", "(the binary is missing",
		"  " + h.Events[1].Name, " -\n",
		missing.Path + "  (no file)", bad.Path + "  (unreadable: see below)",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("status lacks %q:\n%s", w, out)
		}
	}
}
