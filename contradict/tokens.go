package contradict

import (
	"strings"
	"unicode"
)

// token is one word of a memory, as the rules compare it.
type token struct {
	stem   string // lower-cased, crudely stemmed; numbers and identifiers as written (lower-cased)
	text   string // as written
	clause int    // index of the clause (split at ; : , . and parentheses)
	value  bool   // looks like a value: a number, version, path, host, identifier or proper name
	cue    bool   // a negation word (not, never, no, without)
	lead   bool   // only determiners come before it in the text: it starts the subject
}

// numberWords maps small number words to digits, so "three replicas"
// and "3 replicas" agree.
var numberWords = map[string]string{"one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "single": "1"}

// stopwords carry no claim; they are dropped before alignment.
var stopwords = set("a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "in", "on", "at", "to",
	"for", "of", "with", "by", "and", "or", "it", "its", "this", "that", "these", "those", "we", "our", "us",
	"they", "them", "their", "as", "so", "up", "into", "via", "has", "have", "had", "do", "does", "did",
	"should", "must", "may", "can", "will", "would", "all", "every", "any", "there", "here", "which", "who",
	"when", "where", "because", "since", "than", "then", "also", "too", "still", "just", "only", "use", "using",
	"used", "uses", "from", "about", "i", "you", "your")

// determiners may come before a memory's subject.
var determiners = set("the", "a", "an", "our", "this", "that", "these", "those", "all", "every", "each", "flaky")

// cues are negation words.
var cues = set("not", "never", "no", "without", "nor", "cannot")

// contractions are rewritten before splitting.
var contractions = strings.NewReplacer("n't", " not", "n’t", " not", "can't", "can not", "won't", "will not")

// tokenize splits text into tokens, dropping stopwords (but keeping
// negation cues).
func tokenize(text string) []token {
	if strings.Contains(text, "n't") || strings.Contains(text, "n’t") { // every contraction holds one
		text = contractions.Replace(text)
	}
	var out []token
	clause := 0
	first, subj := true, true
	for _, raw := range strings.FieldsFunc(text, unicode.IsSpace) {
		// Clause breaks before and after the word.
		lead := strings.IndexFunc(raw, func(r rune) bool { return !isBreak(r) })
		if lead < 0 {
			clause++
			continue
		}
		if lead > 0 {
			clause++
		}
		w := strings.TrimRightFunc(raw[lead:], func(r rune) bool { return isBreak(r) || r == '.' || r == '!' || r == '?' || r == '\'' || r == '"' })
		w = strings.TrimLeft(w, "'\"")
		end := len(w) < len(raw[lead:])
		if w != "" {
			t := makeToken(w, first)
			t.clause, t.lead = clause, subj
			first = false
			if !determiners[strings.ToLower(w)] {
				subj = false
			}
			if t.stem != "" {
				out = append(out, t)
			}
		}
		if end && strings.ContainsAny(raw[lead+len(w):], ";:,.!?()—–") {
			clause++
		}
	}
	doubleNegatives(out)
	return out
}

// doubleNegatives clears the cues of a clause that negates twice with
// "without" ("you can't merge without an approval"): it states a
// requirement, not a negated claim.
func doubleNegatives(ts []token) {
	for i, t := range ts {
		if !t.cue || !strings.EqualFold(t.text, "without") {
			continue
		}
		n := 0
		for _, u := range ts {
			if u.cue && u.clause == t.clause {
				n++
			}
		}
		if n < 2 {
			continue
		}
		for j := range ts {
			if ts[j].clause == ts[i].clause && ts[j].cue {
				ts[j].cue = false
			}
		}
	}
}

func isBreak(r rune) bool { return strings.ContainsRune(";:,()[]{}—–", r) }

func makeToken(w string, first bool) token {
	lw := strings.ToLower(w)
	if d, ok := numberWords[lw]; ok {
		return token{stem: d, text: w, value: true}
	}
	if cues[lw] {
		return token{stem: "not", text: w, cue: true}
	}
	if stopwords[lw] {
		return token{}
	}
	t := token{text: w, stem: lw}
	if valueShape(w, first) {
		t.value = true
		return t
	}
	t.stem = stem(lw)
	return t
}

// valueShape reports whether w looks like a value rather than a word: it
// holds a digit or inner punctuation (v1.7.15, log/slog, db-staging.internal,
// snake_case, @alice, #ops-alerts) or capitals past the sentence's first word
// (camelCase, UUID, Postgres).
func valueShape(w string, first bool) bool {
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			return true
		case i > 0 && i < len(w)-1 && strings.ContainsRune("./_-@~:", r):
			return true
		case strings.ContainsRune("@#~/", r):
			return true
		case unicode.IsUpper(r) && (i > 0 || !first):
			return true
		}
	}
	return false
}

// stem strips common English endings, crudely: enough that "runs", "run"
// and "running", "hashed" and "hash", or "denies", "denied" and "deny"
// compare equal.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s", "ly"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, suf)
			if (suf == "ed" || suf == "es") && strings.HasSuffix(w, "i") {
				w = w[:len(w)-1] + "y" // denies, denied → deny; copies → copy
			}
			break
		}
	}
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1] // committ → commit
	}
	return strings.TrimSuffix(w, "e")
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
