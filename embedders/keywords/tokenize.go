// Package keywords is the E6 slot: a code-aware tokenizer, term frequencies per
// memory and a BM25 scorer. It is model-free and its functions are safe for
// concurrent use. It does not keep the corpus statistics BM25 needs; those come
// through the CorpusStats interface from whoever owns the inverted index.
package keywords

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are dropped from every token stream: English function words that
// carry no keyword signal. Code keywords (func, return, if) are kept: in a
// code memory they are signal.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for from has have in is it its
		of on or that the this to was were will with which who what when where how than then
		there these those so such into onto our we you your they them he she his her i me my`) {
		stopWords[w] = true
	}
}

// IsStopWord reports whether w (lower case) is dropped by Tokenize.
func IsStopWord(w string) bool { return stopWords[w] }

// Tokenize splits text into lower-case BM25 terms, code-aware:
//
//   - a word is a maximal run of letters, digits and the joiners _ . / - :
//     with leading and trailing joiners trimmed ("net/http.Client.Do()" gives
//     the word "net/http.Client.Do");
//   - a word with joiners is kept whole ("net/http.client.do") and split at
//     them into identifiers ("net", "http", "client", "do");
//   - an identifier is kept whole and split at snake_case underscores and at
//     camelCase / PascalCase humps, acronyms staying together
//     ("getHTTPServer" gives "gethttpserver", "get", "http", "server");
//   - parts are emitted once per occurrence even if several rules produce them;
//     one-character parts and stop words are dropped;
//   - plurals fold to the singular (Stem: "files" → "file", "queries" →
//     "query"), so a query's "reads the named files" meets ReadFile.
//
// The result is in text order. Cost O(len(text)).
func Tokenize(text string) []string {
	var out []string
	emit := func(t string, seen *[]string) {
		if utf8.RuneCountInString(t) < 2 || stopWords[t] {
			return
		}
		t = Stem(t)
		if slices.Contains(*seen, t) {
			return
		}
		*seen = append(*seen, t)
		out = append(out, t)
	}
	var seen []string
	for _, w := range words(text) {
		seen = seen[:0]
		lw := strings.ToLower(w)
		emit(lw, &seen)
		for _, id := range strings.FieldsFunc(w, isJoiner) {
			emit(strings.ToLower(id), &seen)
			for _, p := range splitIdentifier(id) {
				emit(strings.ToLower(p), &seen)
			}
		}
	}
	return out
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || isJoiner(r)
}

func isJoiner(r rune) bool { return r == '.' || r == '/' || r == '-' || r == ':' }

// words returns the maximal runs of word runes with joiners trimmed at both ends.
func words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		w = strings.TrimFunc(w, isJoiner)
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// splitIdentifier splits at underscores and case humps: "parseHTTPRequest_v2"
// gives "parse", "HTTP", "Request", "v2". An identifier without either gives
// itself.
func splitIdentifier(id string) []string {
	var out []string
	for _, part := range strings.Split(id, "_") {
		out = append(out, splitCamel(part)...)
	}
	return out
}

func splitCamel(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		var next rune
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		lowerToUpper := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)
		acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(cur) && unicode.IsLower(next)
		if lowerToUpper || acronymEnd {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

// hasHumps reports whether splitIdentifier could split id: an underscore, a
// lower-case letter or digit followed by an upper-case one, or an upper-case
// run followed by a lower-case letter ("HTTPServer"). ASCII fast path; any
// other byte answers true and leaves the decision to splitIdentifier.
func hasHumps(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 0x80 || c == '_':
			return true
		case i > 0 && c >= 'A' && c <= 'Z':
			p := id[i-1]
			if p >= 'a' && p <= 'z' || p >= '0' && p <= '9' {
				return true
			}
			if p >= 'A' && p <= 'Z' && i+1 < len(id) && id[i+1] >= 'a' && id[i+1] <= 'z' {
				return true
			}
		}
	}
	return false
}

// Stem folds an English plural to its singular — a light S-stemmer:
// "queries" → "query", "classes" → "class", "boxes" → "box", "files" →
// "file", "args" → "arg" — for lower-case letter-only words of 4+ letters;
// anything else, and words ending in -us, -ss or -is ("status", "class",
// "analysis"), is returned as it is. Light on purpose: it never merges words
// that differ in more than number, which keeps identifiers exact.
func Stem(w string) string {
	if len(w) < 4 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return w
		}
	}
	has := func(suffixes ...string) bool {
		for _, x := range suffixes {
			if strings.HasSuffix(w, x) {
				return true
			}
		}
		return false
	}
	switch {
	case has("ies") && !has("eies", "aies"):
		return w[:len(w)-3] + "y"
	case has("sses", "xes", "ches", "shes", "zzes"):
		return w[:len(w)-2]
	case has("es") && !has("aes", "ees", "oes"):
		return w[:len(w)-1]
	case has("s") && !has("us", "ss", "is"):
		return w[:len(w)-1]
	}
	return w
}

// SplitIdentifiers rewrites every identifier of text (a word with
// underscores or case humps) as its parts separated by spaces, and keeps
// everything else: "call parseHTTPRequest on user_id" becomes "call parse
// HTTP Request on user id". A word-piece vocabulary (E13's) then sees the
// words a code identifier is made of instead of fragments of it.
func SplitIdentifiers(text string) string { return splitIdentifiers(text, true) }

// splitIdentifiers is SplitIdentifiers; fast false splits every word the
// long way, the reference FuzzSplitIdentifiers holds the fast path to.
func splitIdentifiers(text string, fast bool) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		id := text[start:end]
		if fast && !hasHumps(id) { // most words: nothing to split, nothing to allocate
			b.WriteString(id)
			start = -1
			return
		}
		parts := splitIdentifier(id)
		b.WriteString(strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), " "))
		start = -1
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteRune(r)
	}
	flush(len(text))
	return b.String()
}
