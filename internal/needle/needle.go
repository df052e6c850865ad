// Package needle skips a regular expression on a text that cannot match
// it. A Set is the literals one of which every match of some expression
// contains; a text holding none of them cannot match, and most texts a
// write scans (code, long notes) hold none for most expressions, so the
// backtracking pass per alternative is saved. Redaction's rules, the
// contradiction judge's cue words, the entity extractor's HTTP and
// exit-code patterns and E8's language detectors all go through it.
//
// The Set is the caller's claim about its expression, checked by the
// caller's tests (a fuzz test running the expression with and without the
// Set): this package cannot read a regexp's literals for it.
package needle

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Lower lower-cases text the way (?i) matches it: the long s (U+017F)
// folds to s in a regular expression but is its own lower case, so it is
// mapped first (the Kelvin sign's lower case is already k). A caller
// testing one text against many Sets computes it once.
func Lower(text string) string {
	return strings.ToLower(strings.ReplaceAll(text, "ſ", "s"))
}

// Set is the literals one of which every match contains.
type Set struct {
	// Needles are the literals: in lower case when Fold.
	Needles []string
	// Fold: the expression ignores case ((?i)), so the literals are
	// looked for in Lower(text).
	Fold bool
	// Words: each literal stands between word boundaries in every match
	// (\b…\b in the expression), so on an ASCII text only an occurrence
	// with a non-word byte or the text's edge on both sides counts. (On
	// other texts any occurrence counts: lower-casing can turn a non-ASCII
	// letter into an ASCII one, the Kelvin sign into k.)
	Words bool
}

// May reports whether text may hold a match; lower is Lower(text) when
// the Set folds (unused otherwise). An empty Set says yes.
func (s Set) May(text, lower string) bool {
	if len(s.Needles) == 0 {
		return true
	}
	in := text
	if s.Fold {
		in = lower
	}
	words := s.Words && ascii(text)
	for _, n := range s.Needles {
		if words {
			if holdsWord(in, n) {
				return true
			}
		} else if strings.Contains(in, n) {
			return true
		}
	}
	return false
}

// Regexp is an expression with its Set.
type Regexp struct {
	re  *regexp.Regexp
	set Set
}

// MustCompile is regexp.MustCompile(expr) with set; set.Fold follows a
// leading (?i).
func MustCompile(expr string, set Set) Regexp {
	set.Fold = strings.HasPrefix(expr, "(?i)")
	return Regexp{re: regexp.MustCompile(expr), set: set}
}

// Regexp is the expression itself (its tests run it without the Set).
func (r Regexp) Regexp() *regexp.Regexp { return r.re }

// may is r.set.May(text, Lower(text)), lower-casing only when it folds.
func (r Regexp) may(text string) bool {
	lower := ""
	if r.set.Fold && len(r.set.Needles) > 0 {
		lower = Lower(text)
	}
	return r.set.May(text, lower)
}

// FindString is r's regexp's FindString.
func (r Regexp) FindString(text string) string {
	if !r.may(text) {
		return ""
	}
	return r.re.FindString(text)
}

// FindAllStringSubmatch is r's regexp's FindAllStringSubmatch.
func (r Regexp) FindAllStringSubmatch(text string, n int) [][]string {
	if !r.may(text) {
		return nil
	}
	return r.re.FindAllStringSubmatch(text, n)
}

// FindAllStringIndex is r's regexp's FindAllStringIndex.
func (r Regexp) FindAllStringIndex(text string, n int) [][]int {
	if !r.may(text) {
		return nil
	}
	return r.re.FindAllStringIndex(text, n)
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// holdsWord reports whether s holds w with a word boundary (as regexp's
// \b: between [0-9A-Za-z_] and anything else) on either side.
func holdsWord(s, w string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		if (i == 0 || !wordByte(s[i-1])) && (i+len(w) == len(s) || !wordByte(s[i+len(w)])) {
			return true
		}
		from = i + 1
	}
}

func wordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
}
