package extract

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/cgraph/cgraph/capture"
)

var (
	// versionArg is the one argument that asks a program its version
	// ("go version", "ruby -v", "java -version"); a command that only
	// passes --version to a subcommand ("bundle add x --version 1.3")
	// installs, it does not ask.
	versionArg = map[string]bool{"--version": true, "-V": true, "-v": true, "version": true, "-version": true}
	// installCmd and installVersion are an install that names its
	// version as a flag ("bundle add rails --version 7.1", "dotnet add
	// package X --version 8.3.1", "gem install x -v 2.0").
	installCmd     = regexp.MustCompile(`^(bundle add|gem install|dotnet add|cargo add|cargo install|helm (?:install|upgrade)|composer require|uv add|poetry add|go install|mix archive.install)\b`)
	installVersion = regexp.MustCompile(`(?:--version|-v)[ =]"?(\d+(?:\.\d+)+[\w.+-]*)"?`)
	composerPin    = regexp.MustCompile(`^([\w.-]+/[\w.-]+):([\^~]?\d+\.\d+[\w.]*)$`)
	versionLine    = regexp.MustCompile(`\bv?\d+\.\d+(\.\d+)?\b`)
	goGetPin       = regexp.MustCompile(`^([\w.-]+\.[\w./-]+)@(v\d+\.\d+\.\d+\S*)$`)
	pipPin         = regexp.MustCompile(`^([A-Za-z][\w.-]*)==(\d[\w.]*)$`)
	npmPin         = regexp.MustCompile(`^(@?[\w.-]+(?:/[\w.-]+)?)@(\d+\.\d+\.\d+\S*)$`)
	depLine        = regexp.MustCompile(`^\s*"?([A-Za-z@][\w./@-]*)"?\s*(==|~=|>=|:\s*"[\^~]?|\s+v)(\d+\.\d+[\w.]*)`)
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
			if runs := versionCommands(runs); len(runs) > 0 {
				lines := nonEmpty(t.Tool.Output)
				for _, k := range versionLines(lines, runs) {
					l := lines[k]
					if len(l) > 120 { // one long line (helm's BuildInfo{…}): its first version
						l = versionLine.FindString(l)
					}
					what := program(runs[0])
					if len(lines) == len(runs) {
						what = program(runs[k])
					}
					add(t, fmt.Sprintf("Fact: %s version: %s", what, l), what+"@"+l, "version-command", 0.8)
				}
			}
			for _, r := range runs {
				if m := installVersion.FindStringSubmatch(r); m != nil && installCmd.MatchString(unprivileged(r)) {
					add(t, fmt.Sprintf("Fact: the project uses version %s (installed with `%s`)", m[1], clip(r, 120)), r, "pinned-install", 0.7)
				}
				for _, w := range strings.Fields(r)[1:] {
					w = strings.Trim(w, `'"`)
					for _, re := range []*regexp.Regexp{goGetPin, pipPin, npmPin, composerPin} {
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

// versionCommands are the simple commands that ask a program its version
// and nothing else ("corepack enable && pnpm --version": the second).
func versionCommands(runs []string) []string {
	var out []string
	for _, r := range runs {
		if ws := strings.Fields(unprivileged(r)); len(ws) == 2 && versionArg[ws[1]] {
			out = append(out, r)
		}
	}
	return out
}

// versionLines picks the lines of a version command's output that name a
// version: one per command when there are as many lines as commands;
// else, of one command's, those that name the program ("Gradle 8.7" of
// gradle's table, "Elixir 1.16.2" under Erlang's banner) when some do, or
// else the first.
func versionLines(lines, runs []string) []int {
	var all, named []int
	name := strings.ToLower(strings.TrimSuffix(program(runs[0]), "w")) // gradlew, mvnw
	for k, l := range lines {
		if !versionLine.MatchString(l) {
			continue
		}
		all = append(all, k)
		if strings.Contains(strings.ToLower(l), name) {
			named = append(named, k)
		}
	}
	switch {
	case len(lines) == len(runs) || len(runs) > 1:
		return all
	case len(named) > 0:
		return named
	case len(all) > 0:
		return all[:1]
	}
	return nil
}
