package serviceunit

import (
	"bytes"
	"strings"
	"testing"
)

// TestResultText: what serve --install and --uninstall print for each
// action; nothing to remove says only that.
func TestResultText(t *testing.T) {
	cmds := []string{"systemctl --user daemon-reload", "systemctl --user enable --now cgraph"}
	for _, c := range []struct {
		name    string
		r       Result
		install bool
		want    []string
		not     string
	}{
		{name: "created", r: Result{Action: "created", File: "u", Platform: "systemd", Backup: "u.bak", Commands: cmds}, install: true,
			want: []string{"created u (systemd)\n", "the file it replaced is kept in u.bak\n", "start it now and at every login with:\n  systemctl --user daemon-reload && systemctl"}},
		{name: "unchanged ran", r: Result{Action: "unchanged", File: "u", Commands: cmds, Ran: true}, install: true,
			want: []string{"u is already installed as it would be written: nothing changed\n", "ran: systemctl --user daemon-reload; systemctl"}},
		{name: "removed", r: Result{Action: "removed", File: "u", Commands: cmds},
			want: []string{"removed u\n", "if it is running, stop it with:\n"}},
		{name: "none", r: Result{Action: "none", File: "u", Commands: cmds, Backup: "x"},
			want: []string{"no u: nothing to remove\n"}, not: "stop it"},
	} {
		var b bytes.Buffer
		if err := c.r.WriteText(&b, c.install); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, b.String())
			}
		}
		if c.not != "" && (strings.Contains(b.String(), c.not) || strings.Contains(b.String(), "kept in")) {
			t.Errorf("%s: output holds %q:\n%s", c.name, c.not, b.String())
		}
	}
}
