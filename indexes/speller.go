package indexes

import (
	"slices"
	"sync"
)

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
// A word is corrected only with evidence (Correct): neither the store nor
// the embedded English word list (wordlist/README.md) knows it, and one live
// store form one edit away is at least twice as likely as any other — its
// count in the store weighed by how likely a typist makes that slip
// (editWeight: a neighbouring key or a swap before a missed letter, before
// a key from elsewhere). A word no store form is near may become the one
// English word a neighbouring key or a swap away. Identifiers change only
// as wholes or letter run by letter run, into store forms. Forms are only
// added: a form whose memories were deleted still counts as known (a word
// is then searched as typed, the safe side) and is kept from being a
// correction by the caller's document frequency. It is safe for concurrent
// use.
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

// Suggest returns the form that an unknown word (lower case) is a typo of,
// or ok false. The evidence it needs: word is spellable and Known rejects
// it; the form is one edit from it, begins with the same letter (a typist
// seldom misses the first one; "umask" is no typo of "mask"), is not an
// inflection of word (inflectionOnly: a plural or past tense absent from
// the store is no typo), is live (live(form) — nil: every form is), and its
// count in the store times editWeight is at least twice any other such
// form's. When no store form at all is one edit away and word has 5 letters
// or more, the form may be a word of the English list instead, if it is the
// only one a neighbouring key or a swap away (4-letter words are left: their
// neighbourhood is dense and they are often abbreviations, "stri", "impl";
// so are words over maxDictionaryWord letters).
// wholeOnly restricts the forms to those seen as whole letter runs of the
// store (for an identifier or an acronym, whose humps are no words of their
// own) and rules out the word list.
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
	var bestW, secondW float64
	// consider weighs candidate c, one edit from word, seen n times.
	consider := func(c string, n float64) {
		if c == best || c[0] != word[0] || inflectionOnly(word, c) {
			return
		}
		w := n * editWeight(word, c)
		switch {
		case w > bestW || (w == bestW && c < best):
			if best != "" {
				secondW = max(secondW, bestW)
			}
			best, bestW = c, w
		default:
			secondW = max(secondW, w)
		}
	}
	storeNear := false
	for i, c := range cands {
		if osaDistance(word, c) != 1 {
			continue // shares a delete key, but two edits away (or word itself)
		}
		storeNear = true
		if (wholeOnly && !stats[i].whole) || (live != nil && !live(c)) {
			continue
		}
		consider(c, float64(stats[i].count))
	}
	if !storeNear && !wholeOnly && len(word) >= 5 && len(word) <= maxDictionaryWord {
		// No store form is near: an English word one likely slip away (a
		// neighbouring key or a swap), each counted once — the list has no
		// frequencies — so it must be the only one.
		for _, c := range dictionaryNear(word) {
			consider(c, 1)
		}
	}
	if best == "" || bestW < 2*secondW {
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
// substitution or swap (same length). A word with digits or underscores
// (read_uint8, SHA256, __init__) is an identifier too: each of its letter
// runs of 4 to 40 letters in one case or Capitalised is corrected as one
// ("rrad_uint8" → "read_uint8"); "utf8" and "max_len" have none. Words with
// other characters or invalid UTF-8 pass through unchanged. live is
// Suggest's.
func (s *Speller) CorrectText(text string, live func(string) bool) (string, []Correction) {
	var fixes []Correction
	out := mapRuns(text, isWordByte, func(word string) string {
		fixed, ok := s.correctWord(word, live)
		if !ok {
			return word
		}
		fixes = append(fixes, Correction{From: word, To: fixed})
		return fixed
	})
	return out, fixes
}

// mapRuns returns s with each maximal run of bytes that in accepts replaced
// by f(run); the bytes between runs are kept.
func mapRuns(s string, in func(byte) bool, f func(run string) string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if !in(s[i]) {
			out = append(out, s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && in(s[j]) {
			j++
		}
		out = append(out, f(s[i:j])...)
		i = j
	}
	return string(out)
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
	letters := true
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 0x80:
			return "", false
		case !isASCIILetter(c):
			letters = false
		}
	}
	if !letters {
		return s.correctParts(w, live)
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

// correctParts corrects a word of ASCII letters, digits and underscores
// (an identifier: read_uint8, __init__, SHA256) letter run by letter
// run: each run of 4 to 40 ASCII letters, written in one case or
// Capitalised, is corrected as a part of an identifier is — as a whole,
// into a letter run of the store, by a substituted or swapped letter only.
// It reports false when no run changed.
func (s *Speller) correctParts(w string, live func(string) bool) (string, bool) {
	changed := false
	out := mapRuns(w, isASCIILetter, func(run string) string {
		style := styleOf(run)
		if style == styleMixed || len(run) < 4 || len(run) > 40 {
			return run
		}
		t, ok := s.Suggest(lower(run), live, true)
		if !ok || len(t) != len(run) {
			return run
		}
		changed = true
		switch style {
		case styleUpper:
			return upper(t)
		case styleTitle:
			return string(t[0]-'a'+'A') + t[1:]
		}
		return t
	})
	return out, changed
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

// maxDictionaryWord bounds the words the English list may correct: its
// longest common words are shorter, and the look-up's cost grows with the
// word.
const maxDictionaryWord = 20

// keyNeighbours lists each letter's neighbours on a US QWERTY keyboard, the
// layout Hunspell's KEY option describes by default.
var keyNeighbours = [26]string{
	'a' - 'a': "qwsz", 'b' - 'a': "vghn", 'c' - 'a': "xdfv", 'd' - 'a': "erfsxc", 'e' - 'a': "wrsd",
	'f' - 'a': "rtdgcv", 'g' - 'a': "tyfhvb", 'h' - 'a': "yugjbn", 'i' - 'a': "uojk", 'j' - 'a': "uihknm",
	'k' - 'a': "iojlm", 'l' - 'a': "opk", 'm' - 'a': "njk", 'n' - 'a': "bhjm", 'o' - 'a': "ipkl",
	'p' - 'a': "ol", 'q' - 'a': "wa", 'r' - 'a': "etdf", 's' - 'a': "weadzx", 't' - 'a': "ryfg",
	'u' - 'a': "yihj", 'v' - 'a': "cfgb", 'w' - 'a': "qeas", 'x' - 'a': "zsdc", 'y' - 'a': "tugh",
	'z' - 'a': "asx",
}

// keysAdjacent reports whether lower-case letters a and b are neighbours on
// the keyboard.
func keysAdjacent(a, b byte) bool {
	if a < 'a' || a > 'z' {
		return false
	}
	for i := 0; i < len(keyNeighbours[a-'a']); i++ {
		if keyNeighbours[a-'a'][i] == b {
			return true
		}
	}
	return false
}

// The channel's weights: how likely a typist makes each kind of one-letter
// slip, relative to hitting a neighbouring key. Only their order matters
// much — a store form's count multiplies them and the best must double the
// next — and it is the order of the confusion counts in Kernighan, Church
// and Gale's noisy-channel speller (1990): substitutions concentrate on
// neighbouring keys, and an inserted letter is mostly a doubled one or a
// neighbour of the letter beside it.
const (
	weightNearKey  = 1.0  // a neighbouring key instead of the letter
	weightSwap     = 1.0  // two letters typed in the wrong order
	weightMissed   = 0.5  // a letter left out
	weightNearKeys = 0.5  // an extra letter next to a neighbouring key, or doubled
	weightFarKey   = 0.25 // another key, not a neighbour
	weightExtra    = 0.25 // an extra letter from elsewhere
)

// editWeight is the channel's weight of the single edit that turns form
// into word (both lower case, one edit apart).
func editWeight(word, form string) float64 {
	i := 0
	for i < len(word) && i < len(form) && word[i] == form[i] {
		i++
	}
	switch {
	case len(word) == len(form):
		if word[i+1:] == form[i+1:] {
			if keysAdjacent(form[i], word[i]) {
				return weightNearKey
			}
			return weightFarKey
		}
		return weightSwap
	case len(word) == len(form)+1:
		// word has an extra letter; with a run of equal letters the extra
		// one may sit anywhere in it: take the likeliest place.
		best := weightExtra
		for j := i; j >= 0; j-- {
			if word[:j]+word[j+1:] != form {
				break
			}
			c := word[j]
			if j > 0 && (word[j-1] == c || keysAdjacent(word[j-1], c)) ||
				j+1 < len(word) && (word[j+1] == c || keysAdjacent(word[j+1], c)) {
				best = weightNearKeys
			}
		}
		return best
	}
	return weightMissed
}

// dictionaryNear returns the words of the English list one likely slip from
// w (lower case): a letter after the first replaced by one of its keyboard
// neighbours, or two adjacent letters swapped — the slips of weight
// weightNearKey or weightSwap, the only ones the list is asked for (about
// five probes a letter).
func dictionaryNear(w string) []string {
	var out []string
	try := func(c string) {
		if inDictionary(c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	b := []byte(w)
	for i := 1; i < len(w); i++ {
		typed := b[i]
		if typed >= 'a' && typed <= 'z' {
			for _, c := range []byte(keyNeighbours[typed-'a']) {
				b[i] = c
				try(string(b))
			}
		}
		b[i] = typed
		if i+1 < len(w) && w[i] != w[i+1] {
			try(w[:i] + string(w[i+1]) + string(w[i]) + w[i+2:])
		}
	}
	return out
}
