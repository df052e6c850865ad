package tokenizer

import (
	"iter"
	"unicode/utf8"
)

// Chunks splits text into consecutive pieces of at most max bytes whose concatenation is
// text, cut where tokenizing the pieces separately gives the same ids as tokenizing the
// whole:
//
//  1. before the last ASCII whitespace of a run that is followed by a non-space (the
//     next piece starts with one space and a word, which keeps byte-level BPE's "Ġword");
//  2. failing that (no whitespace in the window), after an ASCII punctuation mark that
//     is followed by a letter or digit (BERT splits punctuation off anyway);
//  3. failing that, at the last rune boundary. Only a single "word" longer than max
//     bytes is cut this way, and WordPiece maps such a word to [UNK] in any case
//     (max_input_chars_per_word is 100), so the ids can differ from the reference only
//     in how many [UNK] it yields.
//
// max below utf8.UTFMax is raised to utf8.UTFMax. Cost: O(len(text)).
func Chunks(text string, max int) iter.Seq[string] {
	if max < utf8.UTFMax {
		max = utf8.UTFMax
	}
	return func(yield func(string) bool) {
		for len(text) > 0 {
			if len(text) <= max {
				yield(text)
				return
			}
			cut := cutPoint(text, max)
			if !yield(text[:cut]) {
				return
			}
			text = text[cut:]
		}
	}
}

// cutPoint returns 0 < cut <= max, where text[:cut] ends at a safe boundary.
// REQUIRES: len(text) > max >= utf8.UTFMax.
func cutPoint(text string, max int) int {
	for i := max - 1; i > 0; i-- {
		if isSpace(text[i]) && !isSpace(text[i+1]) {
			return i
		}
	}
	for i := max - 1; i > 0; i-- {
		if isPunct(text[i-1]) && isAlnum(text[i]) {
			return i
		}
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if cut == 0 { // unreachable for valid UTF-8; keep progress for invalid input
		return max
	}
	return cut
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

func isPunct(b byte) bool {
	return b > ' ' && b < 0x7f && !isAlnum(b)
}
