package codeview

import (
	"strings"

	"github.com/cgraph/cgraph/embedders/keywords"
)

// IsCode reports whether a memory reads as code rather than prose: its
// first code line defines a function (keywords.DefinedName), or at least
// two of its lines, and more than half of those that are not comments or
// blank, are shaped like code (codeLine). The auto profile routes its
// weights on the share of such memories among the top hits
// (pipeline.CodeShare), so this must hold for an anonymous function, a
// snippet of statements or a class body as well as for a named function,
// and stay false for notes, decisions and sentences. It is pure and cheap
// (one pass over the lines) and decides no stored value.
func IsCode(text string) bool {
	if name, _ := keywords.DefinedName(text); name != "" {
		return true
	}
	code, counted := 0, 0
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || isComment(line) {
			continue
		}
		counted++
		if codeLine(line) {
			code++
		}
	}
	return code >= 2 && 2*code > counted
}

// isComment reports a comment line: "#" only before a space, "!" or "#"
// (a JavaScript private name "#cache" is code; a Markdown heading counts as
// a comment, which is neither code nor prose).
func isComment(line string) bool {
	if line[0] == '#' {
		return len(line) == 1 || strings.ContainsRune(" !#", rune(line[1]))
	}
	for _, p := range []string{"//", "/*", "*", "--", "<!--"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// blockKeywords open a block with a trailing ':' in Python-like languages.
var blockKeywords = map[string]bool{"if": true, "elif": true, "else": true, "for": true, "while": true, "try": true,
	"except": true, "finally": true, "with": true, "def": true, "class": true, "case": true, "default": true, "async": true}

// codeLine reports a trimmed line shaped like code: it opens or closes a
// block, ends a statement or goes on to the next line's code ("{", "}",
// ";", ")", "]", "(", "="), opens a Python block ("if x:"), starts by
// closing one ("} else {"), or assigns or points ("x = f(y)", "a := b",
// "=>", "->") without ending as a sentence, or starts with a statement
// word ("return x", "if (x)"). A trailing "," is not enough: wrapped prose
// has it too.
func codeLine(line string) bool {
	last := line[len(line)-1]
	switch {
	case strings.ContainsRune("{};)](=", rune(last)):
		return true
	case line[0] == '}' || line[0] == ')':
		return true
	case last == ':':
		first, _, _ := strings.Cut(line, " ")
		return blockKeywords[strings.TrimRight(first, ":")]
	case last == '.' || last == '!' || last == '?':
		return false
	}
	for _, op := range []string{" = ", ":=", "==", "=>", "->", "+=", "-="} {
		if strings.Contains(line, op) {
			return true
		}
	}
	first, rest, _ := strings.Cut(line, " ")
	return statementWords[first] || (condWords[first] && strings.HasPrefix(rest, "("))
}

// statementWords start a statement and rarely a line of prose (lower case).
var statementWords = map[string]bool{"return": true, "break": true, "continue": true, "throw": true, "raise": true,
	"pass": true, "import": true, "package": true, "yield": true, "await": true, "defer": true, "const": true,
	"let": true, "var": true}

// condWords start a statement when a parenthesis follows ("if (x)"); in
// prose they start clauses.
var condWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true}
