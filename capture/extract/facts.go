package extract

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/cgraph/cgraph/capture"
)

var (
	versionCmd  = regexp.MustCompile(`(^|\s)(--version|-V|version)(\s|$)`)
	versionLine = regexp.MustCompile(`\bv?\d+\.\d+(\.\d+)?\b`)
	goGetPin    = regexp.MustCompile(`^([\w.-]+\.[\w./-]+)@(v\d+\.\d+\.\d+\S*)$`)
	pipPin      = regexp.MustCompile(`^([A-Za-z][\w.-]*)==(\d[\w.]*)$`)
	npmPin      = regexp.MustCompile(`^(@?[\w.-]+(?:/[\w.-]+)?)@(\d+\.\d+\.\d+\S*)$`)
	depLine     = regexp.MustCompile(`^\s*"?([A-Za-z@][\w./@-]*)"?\s*(==|~=|>=|:\s*"[\^~]?|\s+v)(\d+\.\d+[\w.]*)`)
	// tomlDep is a TOML manifest's dependency (Cargo.toml, Poetry's
	// pyproject.toml): name = "1.2" or name = { version = "1.2", … }.
	tomlDep  = regexp.MustCompile(`^\s*([A-Za-z][\w.-]*)\s*=\s*(?:"[\^~=<>]*\s*(\d+(?:\.\d+)+[\w.-]*)"|\{[^}]*\bversion\s*=\s*"[\^~=<>]*\s*(\d+(?:\.\d+)+[\w.-]*)")`)
	portSaid = regexp.MustCompile(`(?i)\b(listens|listening|runs|running|served|serves|publishes \w+|available)\s+on\s+(port\s+)?:?(\d{2,5})\b`)
)

// tomlNotDep are a TOML manifest's own keys that look like a pin.
var tomlNotDep = map[string]bool{"version": true, "rust-version": true, "requires-python": true, "minversion": true}

// depFiles are dependency manifests whose edits name versions.
var depFiles = map[string]bool{"requirements.txt": true, "go.mod": true, "package.json": true,
	"pyproject.toml": true, "Cargo.toml": true, "Gemfile": true}

// facts reads versions and ports.
func (p *planner) facts(turns []capture.Turn) {
	seen := map[string]bool{}
	add := func(t capture.Turn, content, key, rule string, conf float64) {
		if seen[key] {
			return
		}
		seen[key] = true
		p.add(from(capture.KindFact, t, content, rule, conf))
	}
	for _, t := range turns {
		switch {
		case t.Tool != nil && shellTools[t.Tool.Name] && t.Tool.HasResult && !t.Tool.IsError:
			cmd := t.Tool.Str("command")
			runs := simpleCommands(cmd)
			if len(runs) > 0 && versionCmd.MatchString(cmd) {
				lines := nonEmpty(t.Tool.Output)
				for k, l := range lines {
					if !versionLine.MatchString(l) || len(l) > 120 {
						continue
					}
					what := program(runs[0])
					if len(lines) == len(runs) {
						what = program(runs[k])
					}
					add(t, fmt.Sprintf("Fact: %s version: %s", what, l), what+"@"+l, "version-command", 0.8)
				}
			}
			for _, r := range runs {
				for _, w := range strings.Fields(r)[1:] {
					w = strings.Trim(w, `'"`)
					for _, re := range []*regexp.Regexp{goGetPin, pipPin, npmPin} {
						if m := re.FindStringSubmatch(w); m != nil {
							add(t, fmt.Sprintf("Fact: the project uses %s (installed with `%s`)", w, clip(r, 120)), m[1], "pinned-install", 0.7)
						}
					}
				}
			}
		case t.Tool != nil && isEdit(t.Tool.Name):
			for _, f := range t.Files {
				if !depFiles[path.Base(f)] {
					continue
				}
				old := t.Tool.Str("old_string")
				for _, l := range nonEmpty(t.Tool.Str("new_string") + "\n" + t.Tool.Str("content")) {
					m := depLine.FindStringSubmatch(l)
					if m == nil && strings.HasSuffix(f, ".toml") {
						if m = tomlDep.FindStringSubmatch(l); m != nil && tomlNotDep[m[1]] {
							m = nil
						}
					}
					if m != nil && !strings.Contains(old, l) {
						add(t, fmt.Sprintf("Fact: %s pins %s", f, strings.TrimSpace(l)), m[1], "dependency-edit", 0.7)
					}
				}
			}
		case t.Kind == capture.KindAssistant || t.Kind == capture.KindUser:
			for _, s := range splitSentences(t.Text) {
				if m := portSaid.FindStringSubmatch(s); m != nil {
					add(t, "Fact: "+s, "port "+m[3], "port", 0.65)
				}
			}
		}
	}
}

func nonEmpty(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
