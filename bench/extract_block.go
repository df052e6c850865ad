package bench

import (
	"html"
	"regexp"
	"strings"
)

// blockDocExtractor extracts (doc comment, method) pairs from brace languages
// whose doc comments are `/** … */` blocks placed right before the
// declaration: Javadoc in Java, JSDoc in JavaScript, PHPDoc in PHP. It is a scanner, not a
// parser: after a doc block it reads the declaration up to its first `{`
// (giving up at a `;`, `}` or `=>` without a body, a type declaration or
// another comment) and takes the body to its matching `}`, skipping string,
// character, template and comment text. The query is the first paragraph of
// the comment's prose, before its first block tag (`@param`, `@return`, …),
// with inline tags ({@code x}, {@link X}) reduced to their text and HTML tags
// dropped. Safe for concurrent use (stateless).
type blockDocExtractor struct {
	ext  string // ".java", ".js" or ".php"
	lang string // "java", "javascript" or "php", for the doc only
}

var _ Extractor = blockDocExtractor{}

var (
	javaExtractor = blockDocExtractor{ext: ".java", lang: "java"}
	jsExtractor   = blockDocExtractor{ext: ".js", lang: "javascript"}
	phpExtractor  = blockDocExtractor{ext: ".php", lang: "php"}
)

// Match takes the extension's files except tests, minified bundles and
// package-info/module-info files (which hold no methods).
func (x blockDocExtractor) Match(path string) bool {
	if !strings.HasSuffix(path, x.ext) {
		return false
	}
	if strings.HasPrefix(path, "Tests/") || strings.Contains(path, "/Tests/") {
		return false // PHP projects' test directories (skipDir walks past lower-case ones only)
	}
	base := path[strings.LastIndex(path, "/")+1:]
	stem := strings.TrimSuffix(base, x.ext)
	return !strings.HasSuffix(stem, "Test") && !strings.HasSuffix(stem, "Tests") &&
		!strings.HasSuffix(stem, ".test") && !strings.HasSuffix(stem, ".spec") &&
		!strings.HasSuffix(stem, ".min") && stem != "package-info" && stem != "module-info"
}

var (
	// inlineTagRE matches an innermost inline tag ({@return {@code x} …}
	// nests): its name and its text.
	inlineTagRE = regexp.MustCompile(`\{@(\w+)\s*([^{}]*)\}`)
	htmlTagRE   = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	// declKeywordRE marks a doc block that documents a type, not a method.
	declKeywordRE = regexp.MustCompile(`(^|\s)(class|interface|enum|record|@interface)\s`)
	identRE       = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)
)

// controlWords open statements, never a method, though a doc block may sit
// above one.
var controlWords = map[string]bool{"if": true, "for": true, "foreach": true, "while": true, "switch": true,
	"catch": true, "return": true, "elseif": true, "do": true, "try": true}

func (x blockDocExtractor) Extract(path string, src []byte) ([]Pair, error) {
	s := string(src)
	var out []Pair
	for i := 0; ; {
		k := strings.Index(s[i:], "/**")
		if k < 0 {
			return out, nil
		}
		open := i + k
		e := strings.Index(s[open+3:], "*/")
		if e < 0 {
			return out, nil
		}
		end := open + 3 + e + 2
		i = end
		if p, ok := x.pair(path, s, open, end); ok {
			out = append(out, p)
			i = bodyEnd(s, end)
		}
	}
}

// pair builds the pair of the doc block s[open:end], if a method with a body
// follows it.
func (x blockDocExtractor) pair(path, s string, open, end int) (Pair, bool) {
	q := javadocQuery(s[open+3 : end-2])
	if q == "" {
		return Pair{}, false
	}
	start := end
	for start < len(s) && (s[start] == ' ' || s[start] == '\t' || s[start] == '\n' || s[start] == '\r') {
		start++
	}
	brace, ok := declEnd(s, start)
	if !ok {
		return Pair{}, false
	}
	decl := s[start:brace]
	if !strings.Contains(decl, "(") || declKeywordRE.MatchString(" "+decl) {
		return Pair{}, false
	}
	stop := matchBrace(s, brace)
	if stop < 0 {
		return Pair{}, false
	}
	name := declName(decl)
	if name == "" || controlWords[name] {
		return Pair{}, false // a doc block (an inline @var) above a statement
	}
	return Pair{
		Path:  path,
		Line:  strings.Count(s[:start], "\n") + 1,
		Func:  name,
		Query: StripLeadingName(q, name),
		Code:  strings.TrimSpace(s[start : stop+1]),
	}, true
}

// bodyEnd is where scanning resumes after the pair whose doc ends at end:
// past the body, so doc blocks inside it (nested functions) are not taken
// as separate pairs.
func bodyEnd(s string, end int) int {
	start := end
	for start < len(s) && strings.ContainsRune(" \t\r\n", rune(s[start])) {
		start++
	}
	brace, ok := declEnd(s, start)
	if !ok {
		return end
	}
	if stop := matchBrace(s, brace); stop > 0 {
		return stop + 1
	}
	return end
}

// javadocQuery returns the first paragraph of a doc block's prose, before any
// block tag, with inline tags reduced and HTML dropped.
func javadocQuery(body string) string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimLeft(l, "*"))
		if strings.HasPrefix(l, "@") {
			break
		}
		if strings.EqualFold(l, "<p>") || strings.HasPrefix(l, "<p>") && len(lines) > 0 {
			break // a paragraph break in HTML-formatted Javadoc
		}
		lines = append(lines, l)
	}
	p := FirstParagraph(strings.Join(lines, "\n"))
	for inlineTagRE.MatchString(p) { // innermost first, until none is left
		p = inlineTagRE.ReplaceAllStringFunc(p, inlineTagText)
	}
	p = html.UnescapeString(htmlTagRE.ReplaceAllString(p, ""))
	return strings.Join(strings.Fields(p), " ")
}

// inlineTagText is the text an inline tag shows: a link's label, or its
// reference with # read as a dot (#init → init, Map#get → Map.get); any
// other tag's own text ({@code x} → x, {@return …} → …).
func inlineTagText(tag string) string {
	m := inlineTagRE.FindStringSubmatch(tag)
	name, text := m[1], strings.TrimSpace(m[2])
	if name != "link" && name != "linkplain" {
		return text
	}
	ref, label, ok := strings.Cut(text, " ")
	if ok && strings.TrimSpace(label) != "" {
		return strings.TrimSpace(label)
	}
	ref, _, _ = strings.Cut(ref, "(") // a method's parameter list
	return strings.Trim(strings.ReplaceAll(ref, "#", "."), ".")
}

// declEnd returns the index of the `{` that opens the body of the
// declaration starting at start, or false when the declaration ends without
// one (abstract and interface methods, fields), runs into a comment, or is
// longer than any real signature.
func declEnd(s string, start int) (int, bool) {
	depth := 0
	for j := start; j < len(s) && j < start+1000; j++ {
		switch c := s[j]; c {
		case '(':
			depth++
		case ')':
			depth--
		case ';', '}':
			if depth <= 0 {
				return 0, false
			}
		case '/':
			if j+1 < len(s) && (s[j+1] == '*' || s[j+1] == '/') {
				return 0, false
			}
		case '{':
			if depth == 0 {
				return j, true
			}
		}
	}
	return 0, false
}

// matchBrace returns the index of the `}` closing the `{` at open, skipping
// strings, characters, template literals and comments; -1 when unbalanced.
func matchBrace(s string, open int) int { return matchBraceSkipping(s, open, skipCLike) }

// matchBraceSkipping is matchBrace with a language's literals and comments:
// skip(s, j) returns the index of the last byte of the literal or comment
// that starts at j, j itself when none does, or -1 when it never ends.
func matchBraceSkipping(s string, open int, skip func(s string, j int) int) int {
	depth := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j
			}
		default:
			if j = skip(s, j); j < 0 {
				return -1
			}
		}
	}
	return -1
}

// skipCLike skips the literals and comments of Java, JavaScript and PHP:
// quoted strings, characters and templates, line and block comments.
func skipCLike(s string, j int) int {
	switch c := s[j]; c {
	case '"', '\'', '`':
		return skipQuoted(s, j, c)
	case '/':
		if j+1 < len(s) && s[j+1] == '/' {
			return skipLineComment(s, j)
		}
		if j+1 < len(s) && s[j+1] == '*' {
			e := strings.Index(s[j+2:], "*/")
			if e < 0 {
				return -1
			}
			return j + 2 + e + 1
		}
	}
	return j
}

// skipLineComment returns the index of the newline ending the // comment
// at j, or -1 when the text ends first.
func skipLineComment(s string, j int) int {
	nl := strings.IndexByte(s[j:], '\n')
	if nl < 0 {
		return -1
	}
	return j + nl
}

// skipQuoted returns the index of the quote closing the one at j, or -1.
// Plain strings end at a newline (an unterminated literal, or a regular
// expression the scanner took for one); template literals may span lines.
func skipQuoted(s string, j int, q byte) int {
	for k := j + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case q:
			return k
		case '\n':
			if q != '`' {
				return k
			}
		}
	}
	return -1
}

// declName is the method's name: the identifier right before the first `(`,
// or, for `name = function (` / `name: function (`, the one before the `=`
// or `:`.
func declName(decl string) string {
	head := decl[:strings.IndexByte(decl, '(')]
	ids := identRE.FindAllString(head, -1)
	if len(ids) == 0 {
		// an arrow function `name = (a) => {`
		return lastIdentBefore(head, "=")
	}
	n := ids[len(ids)-1]
	if n == "function" || n == "async" {
		if m := lastIdentBefore(head, "="); m != "" {
			return m
		}
		return lastIdentBefore(head, ":")
	}
	return n
}

func lastIdentBefore(head, sep string) string {
	k := strings.LastIndex(head, sep)
	if k < 0 {
		return ""
	}
	ids := identRE.FindAllString(head[:k], -1)
	if len(ids) == 0 {
		return ""
	}
	return ids[len(ids)-1]
}
