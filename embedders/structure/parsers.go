package structure

import (
	"regexp"
	"strings"
)

// parser holds one language's rules.
type parser struct {
	imports func(text string) []string
	// defines returns the defined names and the byte offsets of the names in
	// code, so that calls can skip definition sites.
	defines  func(code string) ([]string, map[int]bool)
	keywords map[string]bool
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var parsers = map[Language]*parser{
	Go: {
		imports:  goImports,
		defines:  definer(regexp.MustCompile(`(?m)^func (?:\((?:\w+ )?\*?(\w+)(?:\[[^\]]*\])?\) )?(\w+)|^type (\w+)|^\s+(\w+)\s+(?:struct|interface)\s*\{`)),
		keywords: set("if for switch func return go defer select range map chan struct interface type package import else case var const make len cap new append panic recover copy delete close print println"),
	},
	Python: {
		imports:  pyImports,
		defines:  definer(regexp.MustCompile(`(?m)^\s*(?:async\s+)?def (\w+)|^\s*class (\w+)`)),
		keywords: set("if elif while for return def class and or not in is with assert lambda yield except raise import from print len range super isinstance str int float list dict set tuple"),
	},
	JavaScript: {
		imports:  jsImports,
		defines:  jsDefines,
		keywords: set("if for while switch catch function return typeof new super import require await async constructor"),
	},
	Unknown: {
		imports:  func(string) []string { return nil },
		defines:  func(string) ([]string, map[int]bool) { return nil, nil },
		keywords: set("if for while switch catch function func def return new"),
	},
}

func init() { parsers[TypeScript] = parsers[JavaScript] }

// definer returns a defines function over re: each non-empty group is a
// name; Go receivers join as "Type.Method".
func definer(re *regexp.Regexp) func(string) ([]string, map[int]bool) {
	return func(code string) ([]string, map[int]bool) {
		var out []string
		at := map[int]bool{}
		for _, m := range re.FindAllStringSubmatchIndex(code, -1) {
			var parts []string
			last := -1
			for g := 1; g*2 < len(m); g++ {
				if m[2*g] >= 0 {
					parts = append(parts, code[m[2*g]:m[2*g+1]])
					last = m[2*g]
				}
			}
			if len(parts) > 0 {
				out = append(out, strings.Join(parts, "."))
				at[last] = true
			}
		}
		return out, at
	}
}

var jsDefines = definer(regexp.MustCompile(`(?m)\bfunction\s*\*?\s*(\w+)|\bclass (\w+)|\b(?:const|let|var) (\w+)\s*=\s*(?:async\s*)?(?:function|\([^)]*\)\s*(?::\s*[^=]+)?=>|\w+\s*=>)|^\s*(?:export\s+)?(?:interface|type) (\w+)`))

var (
	reGoImport1  = regexp.MustCompile(`(?m)^import\s+(?:[\w.]+\s+)?"([^"]+)"`)
	reGoImportBl = regexp.MustCompile(`(?s)import\s*\((.*?)\)`)
	reQuoted     = regexp.MustCompile(`"([^"]+)"`)
	rePyImport   = regexp.MustCompile(`(?m)^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)`)
	rePyFrom     = regexp.MustCompile(`(?m)^\s*from\s+([\w.]+)\s+import\b`)
	reJSImport   = regexp.MustCompile(`(?m)\bimport\s+(?:type\s+)?(?:[\w*{}\s,]+\s+from\s+)?['"]([^'"]+)['"]|\bexport\s+[\w*{}\s,]+\s+from\s+['"]([^'"]+)['"]|\brequire\(\s*['"]([^'"]+)['"]\s*\)|\bimport\(\s*['"]([^'"]+)['"]\s*\)`)
)

func goImports(text string) []string {
	var out []string
	for _, m := range reGoImport1.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	for _, b := range reGoImportBl.FindAllStringSubmatch(text, -1) {
		for _, q := range reQuoted.FindAllStringSubmatch(b[1], -1) {
			out = append(out, q[1])
		}
	}
	return out
}

func pyImports(text string) []string {
	var out []string
	for _, m := range rePyImport.FindAllStringSubmatch(text, -1) {
		for _, part := range strings.Split(m[1], ",") {
			if f := strings.Fields(part); len(f) > 0 {
				out = append(out, f[0])
			}
		}
	}
	for _, m := range rePyFrom.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func jsImports(text string) []string {
	var out []string
	for _, m := range reJSImport.FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}

var reCall = regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\(`)

// calls returns the called names in code: identifiers or dotted names followed
// by "(", except keywords and definition sites. A leading "this." or "self."
// is dropped (the method name is what links memories).
func calls(code string, keywords map[string]bool, defAt map[int]bool) []string {
	var out []string
	for _, m := range reCall.FindAllStringSubmatchIndex(code, -1) {
		name := code[m[2]:m[3]]
		last := name[strings.LastIndexByte(name, '.')+1:]
		if defAt[m[3]-len(last)] || keywords[name] {
			continue
		}
		if m[2] > 0 && code[m[2]-1] == '.' {
			continue // tail of a chained call like a().b(): the head is kept
		}
		for _, p := range []string{"this.", "self."} {
			name = strings.TrimPrefix(name, p)
		}
		out = append(out, name)
	}
	return out
}

// stripCode blanks string literals and comments of code (keeping byte
// offsets), so that parentheses inside them do not look like calls. Python
// comments start with #, the others with // and /* */.
func stripCode(text string, lang Language) string {
	b := []byte(text)
	hash := lang == Python
	slash := lang != Python
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case hash && c == '#', slash && c == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case slash && c == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		case c == '"' || c == '\'' || c == '`':
			q := c
			for i++; i < len(b) && b[i] != q; i++ {
				if b[i] == '\\' && q != '`' && i+1 < len(b) {
					b[i] = ' '
					i++
				}
				if b[i] == '\n' && q != '`' {
					break // unterminated: stop at the line end
				}
				b[i] = ' '
			}
		}
	}
	return string(b)
}
