package extract

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/record"
)

// shape is one kind of output line that names a failure; lower rank wins.
type shape struct {
	rank int
	re   *regexp.Regexp
	// detail, when set, finds a line after the match that says more
	// (a test's assertion under its FAIL line).
	detail *regexp.Regexp
	last   bool // take the last match (Python: the exception is last)
}

var shapes = []shape{
	{rank: 0, re: regexp.MustCompile(`error\[E\d+\]:.*|error TS\d+:.*`)},
	{rank: 1, re: regexp.MustCompile(`--- FAIL: \S+`), detail: regexp.MustCompile(`^\s+\S+_test\.go:\d+: .+`)},
	{rank: 1, re: regexp.MustCompile(`^FAILED \S+ - .+`)},
	{rank: 1, re: regexp.MustCompile(`^\s*FAIL\s+\S+\.[jt]sx? > .+`), detail: regexp.MustCompile(`^(AssertionError|Error|TypeError|expect\().*`)},
	{rank: 1, re: regexp.MustCompile(`^\S+:\d+: \*\*\* .+`)},                                                       // make: Makefile:6: *** missing separator
	{rank: 1, re: regexp.MustCompile(`^e: .+`)},                                                                    // kotlinc
	{rank: 1, re: regexp.MustCompile(`\berror CS\d+:.*`)},                                                          // C#
	{rank: 2, re: regexp.MustCompile(`^\s*[\w:.]+(Error|Exception):\s*$`), detail: regexp.MustCompile(`^\s+\S.+`)}, // RSpec: the class, its message below
	{rank: 2, re: regexp.MustCompile(`^panic: .+`)},
	{rank: 2, re: regexp.MustCompile(`^thread '.+' panicked at .+`), detail: regexp.MustCompile(`^\S.*`)},
	{rank: 2, re: regexp.MustCompile(`^(E\s+)?[\w.]+(Error|Exception): .+`), last: true},
	{rank: 2, re: regexp.MustCompile(`^\S+\.\w+:\d+(:\d+)?: .+`)},
	{rank: 2, re: regexp.MustCompile(`^npm ERR! code \w+`), detail: regexp.MustCompile(`^npm ERR! \S.+`)},
	{rank: 3, re: regexp.MustCompile(`^ERROR: (Cannot install|ResolutionImpossible|Could not).*|An error occurred \(\w+\).*`)},
	{rank: 3, re: regexp.MustCompile(`^Your requirements could not be resolved`), detail: regexp.MustCompile(`^\s*- .*->\s*(it is missing|but|no matching|found ).*`)}, // composer
	{rank: 4, re: regexp.MustCompile(`(?i)\b(requires|not found|cannot|can't|could not|failed|refused|denied|undefined|no such|not authorized|unable to|conflict)\b.*`)},
	{rank: 5, re: regexp.MustCompile(`(?i)\berror\b.*`)},
}

// wrappers are lines that only say that something failed.
var wrappers = regexp.MustCompile(`(?i)did not complete successfully|failed to solve|could not compile|for more information|^exit (code|status)|^FAIL\s*$|^FAIL\t|^error: (process|command)|^\d+ failed|problems? \(|^Test Files|^\s*Tests\s` +
	`|^> Task \S+ FAILED|^FAILURE: Build failed|^\* What went wrong|\(FAILED - \d+\)|^g?make(\[\d+\])?: (Entering|Leaving) directory|^g?make(\[\d+\])?: \*\*\* \[|^collect2: error: ld returned|^Build FAILED\.?$`)

// compileError are failures of a build step: any later successful run of
// the same program (a build, or the tests, which build first) shows them
// fixed.
var compileError = regexp.MustCompile(`error\[E\d+\]|error TS\d+|error CS\d+|^e: |Unresolved reference|undefined reference|cannot find (type|symbol|module)|error: cannot find|could not be found|imported and not used|undefined: `)

// signatures say an output failed even when the host did not flag it.
var signatures = regexp.MustCompile(`(?m)^--- FAIL|^FAILED |^panic: |Traceback \(most recent call last\)|error\[E\d+\]|error TS\d+|^npm ERR!|^ERROR: `)

// network are failures of the network, not of the code. One that the same
// command gets past on a retry, with nothing changed between, is not worth a
// memory.
var network = regexp.MustCompile(`(?i)\b(ETIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|ENOTFOUND|ENETUNREACH|timed out|i/o timeout|TLS handshake timeout|temporary failure in name resolution|connection reset|network is unreachable|502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out|429 Too Many Requests|ReadTimeoutError)\b`)

// searchProgs exit non-zero when they find nothing; that is not an error.
var searchProgs = map[string]bool{"grep": true, "rg": true, "ag": true, "find": true, "test": true, "[": true,
	"which": true, "diff": true, "ls": true, "cmp": true, "pgrep": true, "command": true}

// shellTools are the tool names whose calls run commands.
var shellTools = map[string]bool{"Bash": true, "bash": true, "shell": true, "run_terminal_cmd": true}

// failure is one failing command.
type failure struct {
	turn     int
	headline string
	rank     int
	sig      string
	cmd      string
	runs     []string // simple commands of the call
	files    []string
	network  bool // the output reads as a network failure
}

// failed reports whether a shell call failed and describes the failure.
func failed(i int, t capture.Turn) (failure, bool) {
	c := t.Tool
	if c == nil || !shellTools[c.Name] || !c.HasResult {
		return failure{}, false
	}
	out := stripExit(c.Output)
	if !c.IsError && !signatures.MatchString(out) {
		return failure{}, false
	}
	cmd := c.Str("command")
	runs := simpleCommands(cmd)
	if strings.TrimSpace(out) == "" || (len(runs) > 0 && searchProgs[program(runs[0])]) {
		return failure{}, false
	}
	h, rank := headline(out)
	f := failure{turn: i, headline: h, rank: rank, cmd: cmd, runs: runs, files: t.Files, network: network.MatchString(out)}
	f.sig = signature(h)
	f.files = append(slices.Clone(t.Files), outputFiles(out)...)
	return f, true
}

// stripExit drops the host's "Exit code N" first line.
func stripExit(s string) string {
	if strings.HasPrefix(s, "Exit code ") {
		if _, rest, ok := strings.Cut(s, "\n"); ok {
			return rest
		}
		return ""
	}
	return s
}

// headline picks the line that best says what failed.
func headline(out string) (string, int) {
	lines := strings.Split(out, "\n")
	best, bestRank := "", 99
	for _, sh := range shapes {
		if sh.rank >= bestRank {
			continue
		}
		idx := -1
		for i, l := range lines {
			l = strings.TrimSpace(l)
			if l == "" || wrappers.MatchString(l) || !sh.re.MatchString(l) {
				continue
			}
			idx = i
			if !sh.last {
				break
			}
		}
		if idx < 0 {
			continue
		}
		h := strings.TrimSpace(lines[idx])
		if sh.detail != nil {
			for _, l := range lines[idx+1 : min(len(lines), idx+8)] {
				if sh.detail.MatchString(l) {
					h += ": " + strings.TrimSpace(l)
					break
				}
			}
		}
		best, bestRank = h, sh.rank
	}
	if best == "" {
		for _, l := range lines {
			if l = strings.TrimSpace(l); l != "" && !wrappers.MatchString(l) {
				return clip(l, 240), 9
			}
		}
	}
	return clip(best, 240), bestRank
}

var digits = regexp.MustCompile(`\d+`)

// signature is what two failures share when they are the same error.
func signature(h string) string { return digits.ReplaceAllString(strings.ToLower(h), "#") }

// pathInOutput finds file names in compiler and test output.
var pathInOutput = regexp.MustCompile(`([\w./-]+\.(?:go|py|ts|tsx|js|jsx|rs|java|rb|c|h|cpp|json|ya?ml|toml|ini|cfg))(?::\d+|\b)`)

func outputFiles(out string) []string {
	var fs []string
	for _, m := range pathInOutput.FindAllStringSubmatch(out, 20) {
		if !strings.Contains(m[1], "site-packages") && !strings.HasPrefix(m[1], "/usr/") && !slices.Contains(fs, m[1]) {
			fs = append(fs, m[1])
		}
	}
	return fs
}

var commandSep = regexp.MustCompile(`&&|\|\||;|\n`)

// simpleCommands splits a command line at ;, &&, || and newlines; a
// pipeline counts as its first command; cd, echo and export are dropped.
func simpleCommands(cmd string) []string {
	var out []string
	for _, part := range commandSep.Split(cmd, -1) {
		part, _, _ = strings.Cut(part, "|")
		part = oneLine(part)
		switch program(part) {
		case "", "cd", "echo", "export", "set", "source":
			continue
		}
		out = append(out, part)
	}
	return out
}

// unprivileged is a simple command without its leading VAR=value words
// and sudo (with sudo's flags): what it runs.
func unprivileged(simple string) string {
	ws := strings.Fields(simple)
	for len(ws) > 0 && strings.Contains(ws[0], "=") {
		ws = ws[1:]
	}
	if len(ws) > 0 && ws[0] == "sudo" {
		ws = ws[1:]
		for len(ws) > 1 && strings.HasPrefix(ws[0], "-") {
			ws = ws[1:]
		}
	}
	return strings.Join(ws, " ")
}

// program is a simple command's program name, after VAR=value words.
func program(simple string) string {
	for _, w := range strings.Fields(simple) {
		if !strings.Contains(w, "=") {
			return path.Base(w)
		}
	}
	return ""
}

// prefix2 is a simple command's program and first word ("go test",
// "npx tsc", "pytest -q" → "pytest").
func prefix2(simple string) string {
	ws := strings.Fields(simple)
	for len(ws) > 0 && strings.Contains(ws[0], "=") {
		ws = ws[1:]
	}
	if len(ws) > 1 && !strings.HasPrefix(ws[1], "-") {
		return ws[0] + " " + ws[1]
	}
	if len(ws) > 0 {
		return ws[0]
	}
	return ""
}

// runMatch is how closely a later call must repeat a failing one.
type runMatch int

const (
	matchExact      runMatch = iota // the same simple command
	matchSubcommand                 // the same program and subcommand ("go test")
	matchProgram                    // the same program ("./gradlew", "dotnet"): for build failures
)

// sameRun reports whether a call re-runs one of f's commands at the given
// closeness.
func sameRun(f failure, t capture.Turn, m runMatch) bool {
	if t.Tool == nil || !shellTools[t.Tool.Name] {
		return false
	}
	for _, r := range simpleCommands(t.Tool.Str("command")) {
		for _, fr := range f.runs {
			switch {
			case m == matchExact && r == fr,
				m == matchSubcommand && prefix2(r) == prefix2(fr),
				m == matchProgram && program(r) == program(fr):
				return true
			}
		}
	}
	return false
}

// errors finds failures, merges repeats, and links each to its fix.
func (p *planner) errors(turns []capture.Turn) {
	done := map[int]bool{} // failing turns already merged into an earlier error
	for i, t := range turns {
		if done[i] {
			continue
		}
		f, ok := failed(i, t)
		if !ok {
			continue
		}
		conf := 0.85
		if f.rank >= 4 {
			conf = 0.6
		}
		ec := from(capture.KindError, t, fmt.Sprintf("Error: %s — while running `%s`", f.headline, clip(oneLine(f.cmd), 120)), "shell-failure", conf)
		ec.Files = uniq(f.files)
		res, changed := p.resolve(f, turns, done, &ec)
		if res >= 0 && !changed && unchangedSince(f, turns, res) {
			cmd := turns[res].Tool.Str("command")
			switch {
			case oneLine(cmd) == oneLine(f.cmd):
				// The same command passed: a retry, not a fix. A network
				// failure is noise; anything else is flaky, which is worth
				// knowing, but nothing fixed it.
				if f.network {
					continue
				}
				ec.Content = fmt.Sprintf("Error (passed when re-run unchanged, flaky): %s — while running `%s`", f.headline, clip(oneLine(f.cmd), 120))
				ec.Confidence = 0.6
				res = -1
			case !mutates(cmd):
				// Another command that changes nothing passed (a narrower
				// test, another seed): it shows nothing fixed. One that
				// changes state (an install with other versions) is the fix.
				res = -1
			}
		}
		ei := p.add(ec)
		if res < 0 {
			continue
		}
		fc := p.fixNote(f, turns, res, changed)
		fi := p.add(fc)
		p.link(fi, ei, record.RelFixes)
	}
}

// resolve finds the run that shows f fixed: the first later run of the same
// command (exact, else same program and subcommand) that succeeds or fails
// differently. Repeats of the same failure are merged into ec. It returns
// the resolving turn (or -1) and whether it failed differently.
func (p *planner) resolve(f failure, turns []capture.Turn, done map[int]bool, ec *capture.Candidate) (int, bool) {
	levels := []runMatch{matchExact, matchSubcommand}
	if compileError.MatchString(f.headline) {
		levels = append(levels, matchProgram)
	}
	for _, level := range levels {
		for j := f.turn + 1; j < len(turns); j++ {
			if !sameRun(f, turns[j], level) {
				continue
			}
			g, bad := failed(j, turns[j])
			if !bad {
				return j, false
			}
			if g.sig == f.sig {
				done[j] = true
				ec.UUIDs = append(ec.UUIDs, turns[j].UUIDs...)
				continue
			}
			return j, true
		}
	}
	return -1, false
}

// unchangedSince reports whether nothing changed between the failure f
// and the run at res: no edit kept, no command that changes the tree.
func unchangedSince(f failure, turns []capture.Turn, res int) bool {
	changes, _, _ := changesBetween(f, turns, res)
	return len(changes) == 0
}

// changesBetween lists what changed after the failure f up to and
// including the run at res: edits not taken back, and commands that change
// the tree (not res itself), with their files and turn uuids.
func changesBetween(f failure, turns []capture.Turn, res int) (changes, files, uuids []string) {
	for k := f.turn + 1; k <= res; k++ {
		t := turns[k]
		if t.Tool == nil {
			continue
		}
		switch {
		case isEdit(t.Tool.Name) && reverted(t.Tool, turns[k+1:res]):
			continue // tried and taken back: not part of the fix
		case isEdit(t.Tool.Name):
			added := addedLines(t.Tool)
			name := strings.Join(t.Files, ", ")
			if added != "" {
				changes = append(changes, name+": "+added)
			} else {
				changes = append(changes, name+" (lines removed)")
			}
			files = append(files, t.Files...)
			uuids = append(uuids, t.UUIDs...)
		case shellTools[t.Tool.Name] && k < res && mutates(t.Tool.Str("command")):
			changes = append(changes, "ran `"+clip(oneLine(t.Tool.Str("command")), 140)+"`")
			uuids = append(uuids, t.UUIDs...)
		}
	}
	return changes, files, uuids
}

// fixNote describes what changed between a failure and the run that
// resolved it.
func (p *planner) fixNote(f failure, turns []capture.Turn, res int, movedOn bool) capture.Candidate {
	changes, files, uuids := changesBetween(f, turns, res)
	rt := turns[res]
	after := "`" + clip(oneLine(rt.Tool.Str("command")), 100) + "` then passed"
	conf := 0.8
	if movedOn {
		after = "`" + clip(oneLine(rt.Tool.Str("command")), 100) + "` then got past it"
		conf = 0.6
	}
	if len(changes) == 0 { // the command itself was the fix (an install)
		changes = []string{"re-ran `" + clip(oneLine(rt.Tool.Str("command")), 140) + "`"}
		conf -= 0.2
	}
	// The last changes are the ones that made it pass: keep them when cutting.
	if len(changes) > 4 {
		changes = changes[len(changes)-4:]
	}
	content := fmt.Sprintf("Fix for %s: %s; %s", clip(f.headline, 100), strings.Join(changes, "; "), after)
	c := from(capture.KindFix, rt, content, "fix-between-runs", conf)
	c.UUIDs = append(uuids, rt.UUIDs...)
	c.Files = uniq(files)
	return c
}

// reverted reports whether a later edit took an edit's new text back out.
func reverted(c *capture.ToolCall, later []capture.Turn) bool {
	added := strings.TrimSpace(c.Str("new_string"))
	if added == "" || strings.Contains(c.Str("old_string"), added) {
		return false
	}
	for _, t := range later {
		if t.Tool != nil && isEdit(t.Tool.Name) && strings.Contains(t.Tool.Str("old_string"), added) &&
			!strings.Contains(t.Tool.Str("new_string"), added) {
			return true
		}
	}
	return false
}

func isEdit(name string) bool {
	switch name {
	case "Edit", "MultiEdit", "Write", "NotebookEdit", "edit_file", "write_file":
		return true
	}
	return false
}

// addedLines is a short account of what an edit added: up to two lines of
// its new text that its old text did not have.
func addedLines(c *capture.ToolCall) string {
	newText := c.Str("new_string")
	if newText == "" {
		newText = c.Str("content")
	}
	if newText == "" {
		newText = c.Str("new_source")
	}
	old := c.Str("old_string")
	var out []string
	for _, l := range strings.Split(newText, "\n") {
		l = strings.TrimSpace(l)
		if len(l) < 4 || strings.Contains(old, l) || boring(l) {
			continue
		}
		out = append(out, clip(l, 90))
		if len(out) == 2 {
			break
		}
	}
	return strings.Join(out, " / ")
}

var boringLine = regexp.MustCompile(`^(package |import |from \S+ import|[{}()\[\];,]+$|//|#|\*)`)

func boring(l string) bool { return boringLine.MatchString(l) }

// mutating are the commands that change the project or its environment
// and that no change verb (below) names: "npm ci", "go get", "sed -i",
// "git checkout", "kubectl set", "composer require".
var mutating = regexp.MustCompile(`^(npm (i|ci)|go get|sed -i|mv |cp |rm |chmod |git (checkout|revert|stash|config )|aws (iam|s3api put)|kubectl set|docker compose up|alembic downgrade|(npm|yarn|pnpm|pip3?) config set|composer require|mix deps\.get)`)

// changeVerbs are the subcommands that change a project or its
// environment whatever the tool ("buf generate", "uv sync", "ansible-galaxy
// collection install", "git remote set-url", "nix flake lock"): a
// command with one among its first three words changes state, unless it
// only pretends to (--dry-run, --check).
var changeVerbs = map[string]bool{"install": true, "add": true, "sync": true, "generate": true, "gen": true,
	"codegen": true, "update": true, "upgrade": true, "set-url": true, "init": true, "apply": true,
	"migrate": true, "download": true, "restore": true, "tidy": true, "vendor": true, "lock": true,
	"relock": true, "uninstall": true, "remove": true, "rebuild": true, "enable": true, "bump": true}

var pretend = regexp.MustCompile(`(^|\s)(--dry-run|--check|-n|--diff|--plan)(\s|$)`)

// mutates reports whether a command line changes the project or its
// environment: a known prefix (mutating) or a change verb among a simple
// command's first three words after the program.
func mutates(cmd string) bool {
	for _, r := range simpleCommands(cmd) {
		r = unprivileged(r)
		if pretend.MatchString(r) {
			continue
		}
		if mutating.MatchString(r) {
			return true
		}
		ws := strings.Fields(r)
		for _, w := range ws[1:min(len(ws), 4)] {
			if changeVerbs[strings.ToLower(w)] {
				return true
			}
		}
	}
	return false
}

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
