package bench

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// rustExtractor extracts (doc comment, function) pairs from Rust: a run of
// `///` outer doc lines, then any `#[…]` attributes, then a `fn` item with a
// body (free functions, methods, trait methods with a default body; a trait
// method without one is skipped). The query is the doc's first paragraph
// with Markdown reduced to its text (`code` → code, [label](url) and
// [label][ref] → label, [`Name`] → Name); the code runs from the `fn` line's
// first word (visibility included, attributes not) to the body's closing
// brace. It is a scanner, not a parser: strings, raw strings, byte and char
// literals, nested block comments and lifetimes ('a, which has no closing
// quote) are skipped as text. Safe for concurrent use (stateless).
type rustExtractor struct{}

var _ Extractor = rustExtractor{}

// Match takes .rs files except tests and benchmarks (tests/ directories are
// not walked at all, skipDir).
func (rustExtractor) Match(path string) bool {
	if !strings.HasSuffix(path, ".rs") {
		return false
	}
	for _, d := range []string{"benches/", "examples/", "fuzz/"} {
		if strings.HasPrefix(path, d) || strings.Contains(path, "/"+d) {
			return false
		}
	}
	base := path[strings.LastIndex(path, "/")+1:]
	return base != "tests.rs" && base != "test.rs" && !strings.HasSuffix(base, "_test.rs") && !strings.HasSuffix(base, "_tests.rs")
}

// rustFnRE matches a function item's first line; group 1 is its name.
var rustFnRE = regexp.MustCompile(`^[ \t]*(?:pub(?:[ \t]*\([^)\n]*\))?[ \t]+)?(?:(?:const|async|unsafe|default)[ \t]+)*(?:extern[ \t]+"[^"\n]*"[ \t]+)?fn[ \t]+([A-Za-z_][A-Za-z0-9_]*)`)

var (
	mdLinkRE    = regexp.MustCompile(`\[([^\[\]]+)\](?:\([^()\s]*\)|\[[^\[\]]*\])?`)
	mdHeadingRE = regexp.MustCompile(`^#{1,6}\s`)
)

func (rustExtractor) Extract(path string, src []byte) ([]Pair, error) {
	s := string(src)
	lines := strings.SplitAfter(s, "\n")
	var out []Pair
	off := 0 // byte offset of lines[i]
	for i := 0; i < len(lines); {
		doc, j := rustDocRun(lines, i)
		if j == i {
			off += len(lines[i])
			i++
			continue
		}
		start := off
		for k := i; k < j; k++ {
			start += len(lines[k])
		}
		// Attributes between the doc and the item, each to its closing ].
		for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "#[") {
			for depth := 0; j < len(lines); j++ {
				depth += strings.Count(lines[j], "[") - strings.Count(lines[j], "]")
				start += len(lines[j])
				if depth <= 0 {
					j++
					break
				}
			}
		}
		next := j
		if p, stop, ok := rustPair(path, s, doc, start); ok {
			out = append(out, p)
			for next < len(lines) && start <= stop { // resume after the body
				start += len(lines[next])
				next++
			}
		}
		for k := i; k < next; k++ {
			off += len(lines[k])
		}
		i = next
	}
	return out, nil
}

// rustDocRun returns the text of the `///` lines from lines[i] on (the
// marker and one space after it removed) and the index after them; j == i
// when lines[i] is no doc line. `////` is an ordinary comment.
func rustDocRun(lines []string, i int) (string, int) {
	var b strings.Builder
	j := i
	for ; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if !strings.HasPrefix(t, "///") || strings.HasPrefix(t, "////") {
			break
		}
		t = strings.TrimPrefix(t[3:], " ")
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return b.String(), j
}

// rustPair builds the pair of a doc whose item starts at s[start:], if it
// is a function with a body; stop is the body's closing brace.
func rustPair(path, s, doc string, start int) (p Pair, stop int, ok bool) {
	lineEnd := strings.IndexByte(s[start:], '\n')
	if lineEnd < 0 {
		lineEnd = len(s) - start
	}
	m := rustFnRE.FindStringSubmatch(s[start : start+lineEnd])
	if m == nil {
		return Pair{}, 0, false
	}
	q := rustDocQuery(doc)
	if q == "" {
		return Pair{}, 0, false
	}
	for start < len(s) && (s[start] == ' ' || s[start] == '\t') {
		start++
	}
	brace, ok := rustBodyOpen(s, start)
	if !ok {
		return Pair{}, 0, false
	}
	stop = rustMatchBrace(s, brace)
	if stop < 0 {
		return Pair{}, 0, false
	}
	return Pair{
		Path:  path,
		Line:  strings.Count(s[:start], "\n") + 1,
		Func:  m[1],
		Query: StripLeadingName(q, m[1]),
		Code:  strings.TrimSpace(s[start : stop+1]),
	}, stop, true
}

// rustDocQuery is a doc comment's first paragraph, before any Markdown
// heading or code fence, as plain text.
func rustDocQuery(doc string) string {
	var kept []string
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if mdHeadingRE.MatchString(t) || strings.HasPrefix(t, "```") {
			break
		}
		kept = append(kept, l)
	}
	p := FirstParagraph(strings.Join(kept, "\n"))
	p = mdLinkRE.ReplaceAllString(p, "$1")
	p = strings.ReplaceAll(p, "`", "")
	p = strings.ReplaceAll(p, "**", "")
	return strings.Join(strings.Fields(p), " ")
}

// rustBodyOpen returns the index of the `{` opening the body of the
// function item starting at start, or false when the item ends at a `;`
// first (a trait method without a default) or runs past any real
// signature. Braces inside parentheses or angle brackets (const generics)
// and after -> in a where clause's Fn bounds are not the body's.
func rustBodyOpen(s string, start int) (int, bool) {
	depth := 0
	for j := start; j < len(s) && j < start+2000; j++ {
		switch s[j] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ';':
			if depth <= 0 {
				return 0, false
			}
		case '/':
			if j+1 < len(s) && s[j+1] == '/' {
				nl := strings.IndexByte(s[j:], '\n')
				if nl < 0 {
					return 0, false
				}
				j += nl
			}
		case '{':
			if depth <= 0 {
				return j, true
			}
		}
	}
	return 0, false
}

// rustMatchBrace returns the index of the `}` closing the `{` at open,
// skipping Rust's literals and comments; -1 when unbalanced.
func rustMatchBrace(s string, open int) int { return matchBraceSkipping(s, open, skipRust) }

// skipRust is matchBraceSkipping's skip for Rust: strings (which may span
// lines), raw and byte strings, char literals (a lifetime is none), line
// comments and nested block comments.
func skipRust(s string, j int) int {
	switch s[j] {
	case '"':
		return rustSkipString(s, j)
	case 'r':
		if j > 0 && isIdentByte(s[j-1]) && !(s[j-1] == 'b' && (j < 2 || !isIdentByte(s[j-2]))) {
			return j // inside an identifier ("for"); "br" is handled at its r
		}
		hashes := 0
		for j+1+hashes < len(s) && s[j+1+hashes] == '#' {
			hashes++
		}
		if j+1+hashes >= len(s) || s[j+1+hashes] != '"' {
			return j
		}
		end := strings.Index(s[j+2+hashes:], `"`+strings.Repeat("#", hashes))
		if end < 0 {
			return -1
		}
		return j + 2 + hashes + end + hashes
	case '\'':
		return rustSkipChar(s, j)
	case '/':
		if j+1 < len(s) && s[j+1] == '/' {
			return skipLineComment(s, j)
		}
		if j+1 < len(s) && s[j+1] == '*' {
			return rustSkipBlockComment(s, j)
		}
	}
	return j
}

func isIdentByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// rustSkipString returns the index of the quote closing the string opened
// at j (strings may span lines), or -1.
func rustSkipString(s string, j int) int {
	for k := j + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return k
		}
	}
	return -1
}

// rustSkipChar returns the index of the quote closing a char literal opened
// at j ('a', '\n', '\u{1F600}', 'é'), or j itself for a lifetime or label
// ('a, 'static), which has none.
func rustSkipChar(s string, j int) int {
	if j+1 < len(s) && s[j+1] == '\\' {
		if k := strings.IndexByte(s[j+2:min(len(s), j+14)], '\''); k >= 0 {
			return j + 2 + k
		}
		return j
	}
	if j+1 < len(s) {
		_, n := utf8.DecodeRuneInString(s[j+1:])
		if j+1+n < len(s) && s[j+1+n] == '\'' {
			return j + 1 + n
		}
	}
	return j
}

// rustSkipBlockComment returns the index of the '/' closing the block
// comment opened at j (Rust's nest), or -1.
func rustSkipBlockComment(s string, j int) int {
	depth := 0
	for k := j; k+1 < len(s); k++ {
		switch {
		case s[k] == '/' && s[k+1] == '*':
			depth++
			k++
		case s[k] == '*' && s[k+1] == '/':
			depth--
			k++
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}
