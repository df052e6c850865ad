package tokenizer

import (
	"iter"
	"unicode/utf8"
)

// Chunks splits text into consecutive pieces whose concatenation is text, each about
// target bytes and never more than limit, cut where tokenizing the pieces separately gives
// the same ids as tokenizing the whole:
//
//  1. before the last ASCII whitespace (followed by a non-space) at or before target,
//     else the first one after target, up to limit (the next piece starts with one space
//     and a word, which keeps byte-level BPE's "Ġword");
//  2. failing that (no whitespace within limit bytes), after the last ASCII punctuation
//     mark that is followed by a letter or digit (BERT splits punctuation off anyway);
//  3. failing that, at the last rune boundary before limit. Only a single "word" longer
//     than limit bytes is cut this way, and WordPiece maps such a word to [UNK] in any
//     case (max_input_chars_per_word is 100), so the ids can differ from the reference
//     only in how many [UNK] it yields.
//
// Small pieces matter: hftokenizer's BERT pre-tokenizer is quadratic in its input
// (it re-encodes the rune prefix for every rune), so a 2 KB piece costs 8× a 256-byte one
// per byte. limit below utf8.UTFMax is raised to utf8.UTFMax; target is clamped to
// [1, limit]. Cost: O(len(text)).
func Chunks(text string, target, limit int) iter.Seq[string] {
	limit = max(limit, utf8.UTFMax)
	target = min(max(target, 1), limit)
	return func(yield func(string) bool) {
		for len(text) > 0 {
			if len(text) <= target {
				yield(text)
				return
			}
			cut := cutPoint(text, target, limit)
			if !yield(text[:cut]) {
				return
			}
			text = text[cut:]
		}
	}
}

// cutPoint returns 0 < cut <= limit, where text[:cut] ends at a safe boundary.
// It returns len(text) when text fits in limit and has no whitespace cut.
// REQUIRES: len(text) > target, limit >= utf8.UTFMax, 1 <= target <= limit.
func cutPoint(text string, target, limit int) int {
	for i := target - 1; i > 0; i-- {
		if isSpace(text[i]) && !isSpace(text[i+1]) {
			return i
		}
	}
	for i := target; i < min(limit, len(text)-1); i++ {
		if isSpace(text[i]) && !isSpace(text[i+1]) {
			return i
		}
	}
	if len(text) <= limit {
		return len(text)
	}
	for i := limit - 1; i > 0; i-- {
		if isPunct(text[i-1]) && isAlnum(text[i]) {
			return i
		}
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if cut == 0 { // unreachable for valid UTF-8; keep progress for invalid input
		return limit
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
