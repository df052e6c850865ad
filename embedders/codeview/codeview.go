// Package codeview gives the text the dense encoders read of a memory and of
// a query (docs/BENCHMARKS.md "The code view"), and finds the name a
// definition gives: View puts a function's name first as words and splits
// every identifier; Query splits a query's identifiers; DefinedName reads
// the first code line. Every function is pure and does no I/O: the views
// decide stored values (Recipe), so a change here is a change of the
// producers of the slots that read them.
package codeview

import (
	"regexp"
	"strings"

	"github.com/cgraph/cgraph/embedders/keywords"
)

// View is the text the dense and token slots (E1, E5, E7, E10, E12)
// encode for a stored memory: the defined function's name as words, then
// the text with every identifier split into its words ("func (h *Header)
// FileInfo() fs.FileInfo {" becomes "file info: func (h *Header) File Info()
// fs.File Info {"). The encoders' word pieces cut "FileInfo" into fragments
// they rarely saw in training; split, they read the words a doc comment
// uses, and the name first is the summary a query paraphrases (+0.03 to
// +0.09 nDCG@10 on Go, Java and JavaScript pairs, level on Python:
// docs/BENCHMARKS.md "The code view"). A definition under a leading comment
// gets no name: the comment already summarises it in words, first, and a
// name before it would push it back (bge's CLS vector leans on the start).
// Prose without a definition on its first line only has its identifiers
// split. Queries get their identifiers split too (Query), never a name.
//
// View must stay a pure function of the text: it decides those slots'
// stored values, so a change to it is a change of their producers
// (Recipe).
func View(text string) string {
	split := keywords.SplitIdentifiers(text)
	if strings.TrimSpace(split) == "" { // "_": only separators; keep what was written
		split = text
	}
	name, commented := DefinedName(text)
	if name == "" || commented { // a doc comment says it in words already, first
		return split
	}
	return strings.ToLower(keywords.SplitIdentifiers(name)) + ": " + split
}

// Query is the text E1, E5, E7 and E10 encode for a query: its
// identifiers split into words ("why does parseHTTPRequest fail" → "why does
// parse HTTP Request fail"), as the memories' code view has them. No name
// goes first: a query defines nothing. A query of separators only stays as
// written. Not part of any producer: queries are never stored.
func Query(q string) string {
	if s := keywords.SplitIdentifiers(q); strings.TrimSpace(s) != "" {
		return s
	}
	return q
}

// Recipe names View in the producers of the slots that read
// documents through it; change it with View.
const Recipe = "code view v1: the defined name's words first, identifiers split"

// Note says in a slot's representation (embedders, --explain) that
// it reads memories through View.
const Note = "memories read through their code view (a function's name first, identifiers split)"

// defLine matches the start of a definition on one line: modifiers and
// definition keywords, an optional Go receiver, an optional return type,
// then the name and an opening "(" (Go type parameters "[...]" allowed
// before it). Group 1 is the name.
var defLine = regexp.MustCompile(`^(?:(?:` + defKeywords + `)\s+)*` +
	`(?:\([^()]*\)\s*)?` + // a Go method's receiver
	`(?:[\w.:<>\[\],?*&]+\s+){0,5}` + // a return type of up to five words ("static <T> Collector<T, ?, Long>", "std::string")
	`[*&]?(?:[A-Za-z_]\w*::)*([A-Za-z_$][\w$]*)\s*(?:\[[^()]*\])?\(`) // C++'s "Cache::evict(" names evict

// defKeywords are the modifiers and keywords a definition may start with.
const defKeywords = `export|default|async|pub|public|private|protected|internal|static|final|abstract|synchronized|native|override|virtual|inline|unsafe|extern|def|func|function|fn|fun|sub`

// keywordStart matches a line that starts with one of defKeywords.
var keywordStart = regexp.MustCompile(`^(?:` + defKeywords + `)\s`)

// rubyDef matches a Ruby method, whose parameters need no parentheses:
// "def to_s", "def self.parse text", "def empty?". Group 1 is the name.
var rubyDef = regexp.MustCompile(`^def\s+(?:self\.)?([A-Za-z_]\w*)[?!=]?(?:\s|\(|$)`)

// assignedFunc matches a function bound to a name, as JavaScript writes
// it: "const parse = (s) => {", "Foo.prototype.bar = function(x) {".
// Group 1 is the name, its last dotted part once trimmed.
var assignedFunc = regexp.MustCompile(`^(?:export\s+)?(?:const\s+|let\s+|var\s+)?([A-Za-z_$][\w$.]*)\s*=\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)`)

// notNames are words defLine can take for a name that never are one.
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
		if line == "" || strings.HasPrefix(line, "@") {
			continue
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
		if m == nil || notNames[line[m[2]:m[3]]] || statements[first] {
			return "", commented
		}
		if !keywordStart.MatchString(line) && !signatureOnly(line, m[3]) {
			return "", commented // "It implies Chdir(attr.Dir) before …": prose
		}
		return line[m[2]:m[3]], commented
	}
	return "", commented
}
