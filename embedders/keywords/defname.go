package keywords

import (
	"regexp"
	"strings"
)

// defLine matches the start of a definition on one line: modifiers and
// definition keywords, an optional Go receiver, an optional return type,
// then the name and an opening "(" (Go type parameters "[...]" allowed
// before it). Group 1 is the name.
var defLine = regexp.MustCompile(`^(?:(?:` + defKeywords + `)\s+)*` +
	`(?:\([^()]*\)\s*)?` + // a Go method's receiver
	`(?:[\w.:<>\[\],?*&]+\s+){0,5}` + // a return type of up to five words ("static <T> Collector<T, ?, Long>", "std::string")
	`[*&]?(?:[A-Za-z_]\w*::)*([A-Za-z_$][\w$]*)\s*(?:\[[^()]*\]|<[^()]*>)?\(`) // C++'s "Cache::evict(" names evict; Go's [T any], Rust's and TypeScript's <T> before "("

// defKeywords are the modifiers and keywords a definition may start with.
const defKeywords = `export|default|async|pub\s*\([^()]*\)|pub|public|private|protected|internal|static|final|abstract|synchronized|native|override|virtual|inline|unsafe|extern|def|defp|func|function|fn|fun|sub`

// defKeywordBefore matches text ending in a keyword that only a definition's
// name follows.
var defKeywordBefore = regexp.MustCompile(`(?:^|\s)(?:def|defp|func|function|fn|fun|sub)\s+(?:\([^()]*\)\s*)?$`)

// keywordStart matches a line that starts with one of defKeywords.
var keywordStart = regexp.MustCompile(`^(?:` + defKeywords + `)\s`)

// rubyDef matches a Ruby method, whose parameters need no parentheses:
// "def to_s", "def self.parse text", "def empty?". Group 1 is the name.
var rubyDef = regexp.MustCompile(`^def\s+(?:self\.)?([A-Za-z_]\w*)[?!=]?(?:\s|\(|$)`)

// assignedFunc matches a function bound to a name, as JavaScript writes
// it: "const parse = (s) => {", "Foo.prototype.bar = function(x) {".
// Group 1 is the name, its last dotted part once trimmed.
var assignedFunc = regexp.MustCompile(`^(?:export\s+)?(?:const\s+|let\s+|var\s+)?([A-Za-z_$][\w$.]*)\s*=\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)`)

// notNames are words defLine can take for a name that never are one
// ("new Foo(", "return(") unless a definition keyword comes right before
// (defKeywordBefore: Rust's "fn new(", a Go method "func (p *T) new(").
var notNames = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "return": true,
	"catch": true, "new": true, "func": true, "function": true, "def": true, "fn": true, "print": true}

// statements are first words of a line that is a statement, never a
// definition ("return parse(s)").
var statements = map[string]bool{"return": true, "throw": true, "await": true, "yield": true, "else": true,
	"case": true, "assert": true, "go": true, "defer": true, "if": true, "for": true, "while": true}

// signatureOnly reports whether a line without a definition keyword reads
// as a signature: it opens a body ("{"), or the name touches its "(" (end
// is where the name ends) and the line ends as a signature does (",", "(",
// ")", ";", "=>"). Prose goes on in words
// ("Zero PEBS status (CVE-2021-28971)" has a space before its parenthesis;
// "It implies Chdir(attr.Dir) before executing" ends in a word).
func signatureOnly(line string, end int) bool {
	if i := strings.Index(line, " //"); i > end { // "{ // called by …"
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	if strings.HasSuffix(line, "{") { // "bytes () {": a body opens; spacing is style
		return true
	}
	if end >= len(line) || line[end] != '(' {
		return false
	}
	return strings.HasSuffix(line, "=>") || strings.ContainsAny(line[len(line)-1:], ",();")
}

// DefinedName is the name a definition on text's first code line gives
// ("FileInfo" for "func (h *Header) FileInfo() fs.FileInfo {"), skipping
// blank lines, annotations and decorators ("@Override"), and comments
// (commented says one came first); "" when that line is not a definition.
func DefinedName(text string) (name string, commented bool) {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "@") || strings.HasPrefix(line, "#[") || strings.HasPrefix(line, "#![") {
			continue // blank, an annotation, a decorator, a Rust attribute
		}
		if strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "/*") || strings.HasPrefix(line, "*") {
			commented = true
			continue
		}
		if m := assignedFunc.FindStringSubmatch(line); m != nil {
			return m[1][strings.LastIndex(m[1], ".")+1:], commented
		}
		if m := rubyDef.FindStringSubmatch(line); m != nil && !strings.Contains(line, "(") {
			return m[1], commented
		}
		if !strings.Contains(line, "(") { // a signature that wraps: read on
			next, _, _ := strings.Cut(strings.TrimLeft(text[strings.Index(text, line)+len(line):], " \t\r\n"), "\n")
			line += " " + strings.TrimSpace(next)
		}
		first, _, _ := strings.Cut(line, " ")
		m := defLine.FindSubmatchIndex([]byte(line))
		if m == nil || notNames[line[m[2]:m[3]]] && !defKeywordBefore.MatchString(line[:m[2]]) || statements[first] {
			return "", commented
		}
		if !keywordStart.MatchString(line) && !signatureOnly(line, m[3]) {
			return "", commented // "It implies Chdir(attr.Dir) before …": prose
		}
		return line[m[2]:m[3]], commented
	}
	return "", commented
}
