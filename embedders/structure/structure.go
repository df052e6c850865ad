// Package structure extracts the code structure E8 embeds: the language, the
// imports, the symbols a snippet defines, the functions it calls and the file
// paths it names, with small line- and regexp-based parsers for Go, Python and
// JavaScript/TypeScript. It turns them into a bounded structure text per
// memory; the model-backed E8 slot embeds that text into as-source and
// as-target views. It is not a compiler front end: it accepts fragments that
// do not parse, and it may miss calls hidden in unusual syntax. Everything
// here is pure and safe for concurrent use.
package structure

import (
	"slices"
	"strings"

	"github.com/cgraph/cgraph/embedders/entities"
	"github.com/cgraph/cgraph/internal/needle"
)

// Language is the language a snippet was parsed as.
type Language string

// Languages the parsers know; Unknown text still yields calls and paths.
const (
	Go         Language = "go"
	Python     Language = "python"
	JavaScript Language = "javascript"
	TypeScript Language = "typescript"
	Unknown    Language = "unknown"
)

// MaxItems bounds each list in a Structure, so that the structure text of a
// large file stays within an encoder's input length.
const MaxItems = 64

// Structure is what one memory's code imports, defines, calls and names. Each
// list is sorted, without duplicates, and at most MaxItems long.
type Structure struct {
	Language Language
	Imports  []string
	Defines  []string
	Calls    []string
	Paths    []string
}

// Empty reports whether nothing structural was found.
func (s Structure) Empty() bool {
	return len(s.Imports)+len(s.Defines)+len(s.Calls)+len(s.Paths) == 0
}

// Text is the structure text of the memory, one labelled line per non-empty
// list: "language: go", "imports: …", "defines: …", "calls: …", "paths: …".
func (s Structure) Text() string {
	return s.text(true, true)
}

// SourceText is the outgoing half — what the memory depends on (imports,
// calls, paths) — for the as-source view.
func (s Structure) SourceText() string { return s.text(true, false) }

// TargetText is the incoming half — what others may depend on (defined
// symbols, paths) — for the as-target view.
func (s Structure) TargetText() string { return s.text(false, true) }

func (s Structure) text(out, in bool) string {
	var b strings.Builder
	line := func(label string, items []string) {
		if len(items) > 0 {
			b.WriteString(label + ": " + strings.Join(items, " ") + "\n")
		}
	}
	if s.Language != Unknown && s.Language != "" {
		line("language", []string{string(s.Language)})
	}
	if out {
		line("imports", s.Imports)
	}
	if in {
		line("defines", s.Defines)
	}
	if out {
		line("calls", s.Calls)
	}
	line("paths", s.Paths)
	return b.String()
}

// Parse extracts the structure of text, detecting its language. Cost
// O(len(text)).
func Parse(text string) Structure {
	return ParseAs(Detect(text), text)
}

// ParseAs extracts the structure of text read as lang.
func ParseAs(lang Language, text string) Structure {
	p := parsers[lang]
	if p == nil {
		lang, p = Unknown, parsers[Unknown]
	}
	code := stripCode(text, lang)
	s := Structure{Language: lang}
	s.Imports = p.imports(text)
	defs, defAt := p.defines(code)
	s.Defines = defs
	s.Calls = calls(code, p.keywords, defAt)
	for _, e := range entities.Extract(text) {
		if p, ok := strings.CutPrefix(e, entities.KindPath+":"); ok {
			s.Paths = append(s.Paths, p)
		}
	}
	s.Imports, s.Defines, s.Calls, s.Paths = norm(s.Imports), norm(s.Defines), norm(s.Calls), norm(s.Paths)
	return s
}

// norm sorts, removes duplicates and bounds a list.
func norm(xs []string) []string {
	slices.Sort(xs)
	xs = slices.Compact(xs)
	if len(xs) > MaxItems {
		xs = xs[:MaxItems]
	}
	if len(xs) == 0 {
		return nil
	}
	return xs
}

// detectors count each language's characteristic lines. Each holds the
// literals one of which every match of its expression contains (a text
// without any counts zero without running it: most Go code holds none of
// Python's); TestDetectNeedles and FuzzDetectNeedles check them.
var detectors = []struct {
	lang Language
	re   needle.Regexp
}{
	{Go, needle.MustCompile(`(?m)^package \w+\s*$|^func (\(\w+ \*?\w+\) )?\w+\(|^import \(|:= |\bfmt\.\w+\(|\berr != nil\b`,
		needle.Set{Needles: []string{"package ", "func ", "import (", ":= ", "fmt.", "err != nil"}})},
	{Python, needle.MustCompile(`(?m)^\s*def \w+\(.*\)\s*(->\s*[^:]+)?:\s*$|^\s*from [\w.]+ import |^\s*import [\w.]+(\s+as \w+)?\s*$|^\s*class \w+(\(.*\))?:\s*$|\bself\.\w+|^\s*elif |__name__`,
		needle.Set{Needles: []string{"def ", "from ", "import ", "class ", "self.", "elif ", "__name__"}})},
	{TypeScript, needle.MustCompile(`(?m)^\s*(export )?interface \w+|^\s*(export )?type \w+\s*=|:\s*(string|number|boolean|void|Promise<)|^import type |\bas const\b`,
		needle.Set{Needles: []string{"interface ", "type ", "string", "number", "boolean", "void", "Promise<", "as const"}})},
	{JavaScript, needle.MustCompile(`(?m)\bfunction\s*\w*\s*\(|\b(const|let|var) \w+ = |=>|\brequire\(|^\s*import .* from ['"]|^\s*export (default |const |function |class )|console\.log\(`,
		needle.Set{Needles: []string{"function", "const ", "let ", "var ", "=>", "require(", "import ", "export ", "console.log("}})},
}

// Detect guesses the language of text from characteristic lines: the
// language with the most matches wins; TypeScript counts JavaScript's
// matches too. No match gives Unknown.
func Detect(text string) Language {
	best, bestN := Unknown, 0
	counts := map[Language]int{}
	for _, d := range detectors {
		counts[d.lang] = len(d.re.FindAllStringIndex(text, -1))
	}
	if counts[TypeScript] > 0 {
		counts[TypeScript] += counts[JavaScript]
	}
	for _, l := range []Language{Go, Python, TypeScript, JavaScript} {
		if counts[l] > bestN {
			best, bestN = l, counts[l]
		}
	}
	return best
}
