package record

import (
	"strconv"
	"unicode/utf8"
)

// CheckRawJSON refuses JSON text that encoding/json would silently change
// while decoding: bytes that are not UTF-8, and \u escapes of a UTF-16
// surrogate without its pair (both become U+FFFD). It must run on the raw
// bytes, before any decoding. The error is a *ValidationError naming the
// object key of the bad string (the string itself when it is a key; "body"
// outside any object), with the refusal NewMemory.Validate gives content
// that is not UTF-8. It does not check that b is JSON: the decoder does.
// Cost: one pass over b.
func CheckRawJSON(b []byte) error {
	key := "body" // the object key the current string belongs to
	for i := 0; i < len(b); {
		c := b[i]
		if c != '"' {
			if c >= utf8.RuneSelf {
				return notUTF8(key, "")
			}
			i++
			continue
		}
		end, problem := scanString(b, i+1)
		if problem != "" {
			if isKey(b, stringEnd(b, i+1)) {
				key = "a key"
			}
			return notUTF8(key, problem)
		}
		if end < 0 {
			return nil // unterminated: not JSON, the decoder's to report
		}
		if isKey(b, end) {
			if s, err := strconv.Unquote(string(b[i:end])); err == nil {
				key = s
			} else {
				key = string(b[i+1 : end-1])
			}
		}
		i = end
	}
	return nil
}

// badBytes is scanString's report of bytes that are not UTF-8: the
// refusal then reads as NewMemory.Validate's, word for word.
const badBytes = "bytes"

func notUTF8(field, problem string) error {
	p := "is not valid UTF-8"
	if problem != "" && problem != badBytes {
		p += " (" + problem + ")"
	}
	return &ValidationError{Field: field, Problem: p, Fix: "send UTF-8 text (convert the file's encoding first)"}
}

// stringEnd returns the index just past the closing quote of the JSON
// string whose body starts at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// isKey reports whether the string ending before b[end] is followed by a
// colon: an object key.
func isKey(b []byte, end int) bool {
	for j := end; j >= 0 && j < len(b); j++ {
		switch b[j] {
		case ' ', '\t', '\r', '\n':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// scanString checks the JSON string whose body starts at b[i] and returns
// the index just past its closing quote (-1 when it has none) or what is
// wrong with it.
func scanString(b []byte, i int) (int, string) {
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, ""
		case c == '\\':
			if i+1 >= len(b) {
				return -1, ""
			}
			if b[i+1] != 'u' {
				i += 2
				continue
			}
			r, ok := hex4(b, i+2)
			if !ok {
				i += 2 // a malformed escape: the decoder refuses it
				continue
			}
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return i, "a lone UTF-16 low surrogate " + string(b[i:i+6])
			case r >= 0xD800 && r <= 0xDBFF:
				lo, ok := rune(0), false
				if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					lo, ok = hex4(b, i+8)
				}
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return i, "a lone UTF-16 high surrogate " + string(b[i:i+6])
				}
				i += 12
			default:
				i += 6
			}
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return i, badBytes
			}
			i += n
		}
	}
	return -1, ""
}

// hex4 decodes the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(v), err == nil
}
