package models

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestHumanBytes pins the units and their thresholds.
func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		1 << 20: "1.0 MiB", 130 << 20: "130.0 MiB", 1 << 30: "1.0 GiB", 5 << 30: "5.0 GiB"} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestModelsText: the list and verify tables, each model's state, and
// the lines pull prints per result and per event.
func TestModelsText(t *testing.T) {
	var b bytes.Buffer
	ls := []Listing{
		{ID: "m1", Slots: []string{"E1", "E5"}, Task: "embed", Dims: 384, Installed: true, Default: true, Files: []FileListing{{Size: 2 << 20}}},
		{ID: "m2", Slots: []string{}, NeedsHub: true},
		{ID: "m3"},
	}
	if err := WriteListings(&b, ls); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[1], "E1,E5") || !strings.Contains(lines[1], "2.0 MiB") ||
		!strings.HasSuffix(lines[1], "installed (default)") || !strings.HasSuffix(lines[2], "needs hub") || !strings.HasSuffix(lines[3], "not installed") ||
		!strings.Contains(lines[3], " ? ") {
		t.Errorf("list table:\n%s", b.String())
	}
	b.Reset()
	if err := WriteChecks(&b, []FileCheck{{Model: "m1", File: "model.onnx", Status: "ok", Size: 2048}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "MODEL") || !strings.Contains(b.String(), "m1     model.onnx  ok      2.0 KiB") {
		t.Errorf("verify table:\n%s", b.String())
	}
	for _, c := range []struct{ got, want string }{
		{Result{Model: "m", Err: errors.New("x")}.Line(), "m: FAILED"},
		{Result{Model: "m"}.Line(), "m: already installed"},
		{Result{Model: "m", Installed: []string{"a", "b"}}.Line(), "m: installed a, b"},
		{Event{Model: "m", File: "f", Source: "hub", Phase: PhaseDownload}.Line(), "downloading m/f from hub"},
		{Event{Source: "npm", Phase: PhaseRegistry}.Line(), "fetching npm (registry client)"},
		{Event{Model: "m", File: "f", Source: "hub", Phase: PhaseInstalled, Total: 1 << 20}.Line(), "installed m/f (1.0 MiB) from hub"},
		{Event{Model: "m", File: "f", Source: "hub", Phase: PhaseFailed, Err: errors.New("404")}.Line(), "m/f: hub failed: 404"},
		{Event{Phase: PhasePresent}.Line(), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
