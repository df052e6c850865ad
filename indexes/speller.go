package indexes

import "sync"

// Speller corrects misspelt query words against the words a store's text
// contains — its surface vocabulary: every ASCII letter run of the stored
// text, lower-cased, and each camelCase hump of one, stop words and
// inflections included, as written (not the stemmed E6 terms). The surface
// forms of 4 to 40 letters are kept as a symmetric-delete dictionary (every
// form under itself and under each of its one-letter deletions), so a word
// one edit away — a substituted, missing, extra or swapped letter — meets
// its form under a shared key; candidates are checked with the restricted
// Damerau–Levenshtein distance.
//
// A word is corrected only with evidence (Correct): it is not an
// identifier, neither the store nor the embedded English word list
// (wordlist/README.md) knows it, and exactly one live store form one edit
// away is at least twice as frequent as any other. Forms are only added: a
// form whose memories were deleted still counts as known (a word is then
// searched as typed, the safe side) and is kept from being a correction by
// the caller's document frequency. It is safe for concurrent use.
type Speller struct {
	mu      sync.RWMutex
	deletes map[string][]string // key → forms (each form once)
	forms   map[string]formStat
}

// formStat is what the speller knows of one surface form.
type formStat struct {
	count uint32 // occurrences in the stored text (saturating)
	whole bool   // seen as a whole letter run, not only as a camelCase hump
}

// NewSpeller returns an empty speller.
func NewSpeller() *Speller {
	return &Speller{deletes: map[string][]string{}, forms: map[string]formStat{}}
}

// spellable reports whether a lower-case form takes part: 4–40 ASCII
// letters.
func spellable(t string) bool {
	if len(t) < 4 || len(t) > 40 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// AddText adds the surface forms of a stored text: each ASCII letter run
// (lower case, as a whole form) and, for a camelCase run, each of its humps.
// Cost O(len(text)) map operations, and O(len(form)) more per new form.
func (s *Speller) AddText(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < len(text); {
		if !isASCIILetter(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isASCIILetter(text[j]) {
			j++
		}
		run := text[i:j]
		s.addLocked(lower(run), true)
		if humps := camelHumps(run); len(humps) > 1 {
			for _, h := range humps {
				s.addLocked(lower(h), false)
			}
		}
		i = j
	}
}

// addLocked counts one occurrence of form t.
// REQUIRES: s.mu held for writing.
func (s *Speller) addLocked(t string, whole bool) {
	if !spellable(t) {
		return
	}
	st, seen := s.forms[t]
	if st.count < ^uint32(0) {
		st.count++
	}
	st.whole = st.whole || whole
	s.forms[t] = st
	if seen {
		return
	}
	s.deletes[t] = append(s.deletes[t], t)
	for _, d := range deletes1(t) {
		s.deletes[d] = append(s.deletes[d], t)
	}
}

// deletes1 are t with one letter removed (each distinct string once).
func deletes1(t string) []string {
	out := make([]string, 0, len(t))
	for i := range len(t) {
		d := t[:i] + t[i+1:]
		if i > 0 && t[i] == t[i-1] {
			continue // same string as deleting the previous letter
		}
		out = append(out, d)
	}
	return out
}

// Known reports whether w (lower case) is a correctly spelled word: a
// surface form of the store, or a word of the English word list.
func (s *Speller) Known(w string) bool {
	s.mu.RLock()
	_, ok := s.forms[w]
	s.mu.RUnlock()
	return ok || inDictionary(w)
}

// Suggest returns the store form that an unknown word (lower case) is a
// typo of, or ok false. The evidence it needs: word is spellable and
// Known rejects it; the form is one edit from it, begins with the same
// letter (a typist seldom misses the first one; "umask" is no typo of
// "mask"), is not an inflection of word (inflectionOnly: a plural or past
// tense absent from the store is no typo), is live (live(form) — nil: every form is), and is at least twice
// as frequent in the store as any other such form. wholeOnly restricts the
// forms to those seen as whole letter runs (for an identifier or an
// acronym, whose humps are no words of their own).
func (s *Speller) Suggest(word string, live func(string) bool, wholeOnly bool) (form string, ok bool) {
	if !spellable(word) || s.Known(word) {
		return "", false
	}
	s.mu.RLock()
	var cands []string
	for _, key := range append(deletes1(word), word) {
		cands = append(cands, s.deletes[key]...)
	}
	stats := make([]formStat, len(cands))
	for i, c := range cands {
		stats[i] = s.forms[c]
	}
	s.mu.RUnlock()
	var best string
	var bestN, secondN uint32
	for i, c := range cands {
		if c == best || c[0] != word[0] || osaDistance(word, c) != 1 || inflectionOnly(word, c) || (wholeOnly && !stats[i].whole) {
			continue
		}
		if live != nil && !live(c) {
			continue
		}
		n := stats[i].count
		switch {
		case n > bestN || (n == bestN && c < best):
			if best != "" {
				secondN = max(secondN, bestN)
			}
			best, bestN = c, n
		default:
			secondN = max(secondN, n)
		}
	}
	if best == "" || bestN < 2*secondN {
		return "", false // nothing near, or two forms near and neither clearly the one
	}
	return best, true
}

// inflectionOnly reports whether a and b differ only in an ending made of
// s, d or r — added, dropped or swapped for another of them: "tests" and
// "test", "inlines" and "inlined", "expander" and "expanded", "sanitizer" and
// "sanitize". Such a word is an inflection or derivation the store lacks,
// not a typo (and E6 folds the plural anyway).
func inflectionOnly(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	ending := func(c byte) bool { return c == 's' || c == 'd' || c == 'r' }
	switch len(a) - len(b) {
	case 1:
		return a[:len(b)] == b && ending(a[len(b)])
	case 0:
		n := len(a) - 1
		return a[:n] == b[:n] && ending(a[n]) && ending(b[n])
	}
	return false
}

// Bytes estimates the heap size.
func (s *Speller) Bytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var n int64
	for k, v := range s.deletes {
		n += int64(len(k)) + 16 + 24 + int64(16*len(v)) + 16
	}
	return n + int64(len(s.forms))*48
}

// osaDistance is the optimal string alignment distance of a and b (edits:
// insert, delete, substitute, swap two adjacent letters), bytes as letters.
func osaDistance(a, b string) int {
	if a == b {
		return 0
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Correction is one word of a query replaced by a store form.
type Correction struct {
	From, To string
}

// CorrectText replaces each misspelt word of text by the store form
// Suggest finds for it. A word is a maximal run of ASCII letters, digits,
// underscores and non-ASCII bytes; only a word of 4 to 40 ASCII letters is
// looked at. One written in lower case, Capitalised or ALL CAPS keeps its
// style; an ALL CAPS or camelCase word (an identifier, "RocksDB",
// "parseHTTPReqeust") is corrected only as a whole, into a letter run the
// store contains, with its case copied letter by letter, and only by a
// substitution or swap (same length). Words with digits or underscores (utf8,
// max_len), other characters and invalid UTF-8 pass through unchanged.
// live is Suggest's.
func (s *Speller) CorrectText(text string, live func(string) bool) (string, []Correction) {
	var out []byte
	var fixes []Correction
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			out = append(out, text[i])
			i++
			continue
		}
		j := i
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		word := text[i:j]
		if fixed, ok := s.correctWord(word, live); ok {
			fixes = append(fixes, Correction{From: word, To: fixed})
			word = fixed
		}
		out = append(out, word...)
		i = j
	}
	return string(out), fixes
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isWordByte(c byte) bool {
	return isASCIILetter(c) || '0' <= c && c <= '9' || c == '_' || c >= 0x80
}

// caseStyle is how a word is written.
type caseStyle uint8

const (
	styleLower caseStyle = iota // "string"
	styleTitle                  // "String"
	styleUpper                  // "STRING"
	styleMixed                  // "parseHTTP", "RocksDB"
)

func styleOf(w string) caseStyle {
	upper := 0
	for i := 0; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' {
			upper++
		}
	}
	switch {
	case upper == 0:
		return styleLower
	case upper == len(w):
		return styleUpper
	case upper == 1 && w[0] >= 'A' && w[0] <= 'Z':
		return styleTitle
	}
	return styleMixed
}

// correctWord returns the correction of one word, or ok false.
func (s *Speller) correctWord(w string, live func(string) bool) (string, bool) {
	if len(w) < 4 || len(w) > 40 {
		return "", false
	}
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return "", false
		}
	}
	style := styleOf(w)
	t, ok := s.Suggest(lower(w), live, style == styleUpper || style == styleMixed)
	if !ok {
		return "", false
	}
	switch style {
	case styleLower:
		return t, true
	case styleTitle:
		return string(t[0]-'a'+'A') + t[1:], true
	}
	if len(t) != len(w) {
		// An identifier or acronym changes only by a substituted or
		// swapped letter ("RISC" is no typo of "RISCV"), and its case
		// could not be carried over an insertion.
		return "", false
	}
	if style == styleUpper {
		return upper(t), true
	}
	b := []byte(t)
	for i := range b {
		if w[i] >= 'A' && w[i] <= 'Z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b), true
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// camelHumps splits an ASCII letter run at lower→upper changes and before
// the last capital of an acronym ("parseHTTPRequest" → parse, HTTP, Request).
func camelHumps(s string) []string {
	var out []string
	start := 0
	up := func(i int) bool { return s[i] >= 'A' && s[i] <= 'Z' }
	for i := 1; i < len(s); i++ {
		switch {
		case up(i) && !up(i-1):
			out = append(out, s[start:i])
			start = i
		case up(i-1) && up(i) && i+1 < len(s) && !up(i+1):
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}
