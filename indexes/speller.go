package indexes

import "sync"

// Speller suggests a vocabulary term for a misspelt word: the corpus
// vocabulary (letter-only terms of 4 to 40 letters) is kept as a
// symmetric-delete dictionary (every term under itself and under each of
// its one-letter deletions), so a word one edit away — a substituted,
// missing, extra or swapped letter — meets its term under a shared key.
// Candidates are checked with the restricted Damerau–Levenshtein distance.
// Terms are only added: a term that left the corpus is filtered out by the
// caller's document frequency. It is safe for concurrent use.
type Speller struct {
	mu      sync.RWMutex
	deletes map[string][]string // key → terms (each term once)
	known   map[string]bool
}

// NewSpeller returns an empty speller.
func NewSpeller() *Speller {
	return &Speller{deletes: map[string][]string{}, known: map[string]bool{}}
}

// spellable reports whether a term takes part: 4–40 ASCII letters.
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

// Add adds terms (lower case) to the vocabulary; other shapes are ignored.
// Cost O(len(term)) map inserts per new term.
func (s *Speller) Add(terms ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range terms {
		if !spellable(t) || s.known[t] {
			continue
		}
		s.known[t] = true
		s.deletes[t] = append(s.deletes[t], t)
		for _, d := range deletes1(t) {
			s.deletes[d] = append(s.deletes[d], t)
		}
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

// Suggest returns the best vocabulary term one edit away from word (lower
// case), or ok false: word is already a live term, is not spellable, or
// has no live candidate. df gives a term's document frequency (0: not in
// the corpus any more); the best candidate has the highest df, then the
// smallest byte order.
func (s *Speller) Suggest(word string, df func(string) int) (term string, ok bool) {
	if !spellable(word) || df(word) > 0 {
		return "", false
	}
	s.mu.RLock()
	var cands []string
	for _, key := range append(deletes1(word), word) {
		cands = append(cands, s.deletes[key]...)
	}
	s.mu.RUnlock()
	best, bestDF := "", 0
	for _, c := range cands {
		if c == best || osaDistance(word, c) != 1 {
			continue
		}
		if n := df(c); n > bestDF || (n == bestDF && n > 0 && c < best) {
			best, bestDF = c, n
		}
	}
	return best, bestDF > 0
}

// Bytes estimates the heap size.
func (s *Speller) Bytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var n int64
	for k, v := range s.deletes {
		n += int64(len(k)) + 16 + 24 + int64(16*len(v)) + 16
	}
	return n + int64(len(s.known))*40
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

// Correction is one word of a query replaced by a vocabulary term.
type Correction struct {
	From, To string
}

// CorrectText replaces each misspelt word of text that the speller knows a
// term for: a letter run ("stirng"), or each camelCase hump of one
// ("parseHTTPReqeust"), of 4+ letters. Case is
// kept: all lower, all upper, or a leading capital. Words that are live
// terms, digits, joiners and other characters are left as they are.
func (s *Speller) CorrectText(text string, df func(string) int) (string, []Correction) {
	var out []byte
	var fixes []Correction
	for i := 0; i < len(text); {
		if !isASCIILetter(text[i]) {
			out = append(out, text[i]) // other bytes, valid UTF-8 or not, pass through
			i++
			continue
		}
		j := i
		for j < len(text) && isASCIILetter(text[j]) {
			j++
		}
		fixed, fs := s.correctRun(text[i:j], df)
		out = append(out, fixed...)
		fixes = append(fixes, fs...)
		i = j
	}
	return string(out), fixes
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// correctRun corrects one letter run: a run in one case style (lower,
// Capitalised, ALL CAPS) whole, a camelCase run hump by hump, so that its
// case survives.
func (s *Speller) correctRun(run string, df func(string) int) (string, []Correction) {
	humps := camelHumps(run)
	if len(humps) == 1 {
		if t, ok := s.Suggest(lower(run), df); ok {
			return matchCase(run, t), []Correction{{From: run, To: matchCase(run, t)}}
		}
		return run, nil
	}
	var out string
	var fixes []Correction
	for _, h := range humps {
		if t, ok := s.Suggest(lower(h), df); ok {
			fixes = append(fixes, Correction{From: h, To: matchCase(h, t)})
			h = matchCase(h, t)
		}
		out += h
	}
	return out, fixes
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

// matchCase writes t (lower case) in the case style of like.
func matchCase(like, t string) string {
	switch {
	case like == lower(like):
		return t
	case len(like) > 1 && like[1] >= 'A' && like[1] <= 'Z': // ALL CAPS
		b := []byte(t)
		for i, c := range b {
			b[i] = c - 'a' + 'A'
		}
		return string(b)
	}
	return string(t[0]-'a'+'A') + t[1:] // Capitalised
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
