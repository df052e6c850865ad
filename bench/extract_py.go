package bench

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// pyExtractor is a simple line-based extractor for Python: a `def` or
// `async def` header (possibly spanning lines until its closing colon),
// followed by a docstring as the first statement, and the body as every
// following line indented deeper than the `def`. It does not execute or
// fully tokenize Python; it skips defs whose docstring it cannot delimit.
// Test files (test_*.py, *_test.py, conftest.py) and test directories are
// skipped. Safe for concurrent use (stateless).
type pyExtractor struct{}

var _ Extractor = pyExtractor{}

func (pyExtractor) Match(path string) bool {
	if !strings.HasSuffix(path, ".py") {
		return false
	}
	base := path[strings.LastIndex(path, "/")+1:]
	return !strings.HasPrefix(base, "test_") && !strings.HasSuffix(base, "_test.py") && base != "conftest.py"
}

func indentOf(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return -1 // blank line
}

func (pyExtractor) Extract(path string, src []byte) ([]Pair, error) {
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("%s: not UTF-8", path)
	}
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var out []Pair
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "def ") && !strings.HasPrefix(t, "async def ") {
			continue
		}
		if p, ok := pyDef(path, lines, i); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// pyDef parses the def starting at line i; ok is false when it has no
// docstring or the docstring/header cannot be delimited.
func pyDef(path string, lines []string, i int) (Pair, bool) {
	ind := indentOf(lines[i])
	name := strings.TrimSpace(lines[i])
	name = strings.TrimPrefix(strings.TrimPrefix(name, "async "), "def ")
	if k := strings.IndexAny(name, "( "); k > 0 {
		name = name[:k]
	}
	h, ok := pyHeaderEnd(lines, i)
	if !ok {
		return Pair{}, false
	}
	doc, end, ok := pyDocstring(lines, h, ind)
	if !ok {
		return Pair{}, false
	}
	// Body: following lines indented deeper than the def (blank lines kept inside).
	last := end
	for b := end + 1; b < len(lines); b++ {
		in := indentOf(lines[b])
		if in < 0 {
			continue
		}
		if in <= ind {
			break
		}
		last = b
	}
	code := make([]string, 0, last-i+1)
	code = append(code, lines[i:h+1]...)
	code = append(code, lines[end+1:last+1]...)
	for k := range code {
		code[k] = strings.TrimRight(code[k], " \t")
		if len(code[k]) >= ind {
			code[k] = code[k][min(ind, leadingSpace(code[k])):]
		}
	}
	q := FirstParagraph(strings.Join(doc, "\n"))
	if q == "" {
		return Pair{}, false
	}
	return Pair{Path: path, Line: i + 1, Func: name, Query: q, Code: strings.TrimSpace(strings.Join(code, "\n"))}, true
}

// pyHeaderEnd is the line that ends the def header starting at line i: the
// first where the parentheses balance and the code ends with ':' (a header
// of more than 30 lines is not one).
func pyHeaderEnd(lines []string, i int) (int, bool) {
	depth := 0
	for h := i; h < len(lines); h++ {
		code := lines[h]
		if k := strings.Index(code, "#"); k >= 0 {
			code = code[:k]
		}
		depth += strings.Count(code, "(") + strings.Count(code, "[") - strings.Count(code, ")") - strings.Count(code, "]")
		if depth <= 0 && strings.HasSuffix(strings.TrimSpace(code), ":") {
			return h, true
		}
		if h-i > 30 {
			return 0, false
		}
	}
	return 0, false
}

// pyDocstring reads the docstring that opens the body after header line h
// (the first non-blank line, indented deeper than ind, starting with
// triple quotes): its lines and the line it ends on.
func pyDocstring(lines []string, h, ind int) (doc []string, end int, ok bool) {
	d := h + 1
	for d < len(lines) && indentOf(lines[d]) < 0 {
		d++
	}
	if d >= len(lines) || indentOf(lines[d]) <= ind {
		return nil, 0, false
	}
	first := strings.TrimSpace(lines[d])
	first = strings.TrimLeft(first, "rRuU")
	var quote string
	switch {
	case strings.HasPrefix(first, `"""`):
		quote = `"""`
	case strings.HasPrefix(first, `'''`):
		quote = `'''`
	default:
		return nil, 0, false
	}
	rest := first[3:]
	if k := strings.Index(rest, quote); k >= 0 {
		return []string{rest[:k]}, d, true
	}
	doc = append(doc, rest)
	for end = d + 1; end < len(lines); end++ {
		if k := strings.Index(lines[end], quote); k >= 0 {
			return append(doc, lines[end][:k]), end, true
		}
		doc = append(doc, lines[end])
	}
	return nil, 0, false
}

func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}
