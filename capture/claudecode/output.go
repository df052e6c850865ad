package claudecode

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cgraph/cgraph/redact"
)

// base64Run is a run of base64 characters long enough that it is a blob
// (an image, an archive, a key file) rather than text.
var base64Run = regexp.MustCompile(`(?:data:[\w/+.-]+;base64,)?[A-Za-z0-9+/]{400,}={0,2}`)

// cleanOutput turns a tool result's raw text into what a turn keeps:
// binary replaced by a note, base64 runs dropped, secrets redacted, the
// rest cut to limit bytes (head and tail). It returns the text and whether
// it was cut.
func cleanOutput(s string, limit int, r *redact.Redactor) (string, bool) {
	if s == "" {
		return "", false
	}
	if isBinary(s) {
		return fmt.Sprintf("[binary output omitted: %d bytes]", len(s)), false
	}
	s = base64Run.ReplaceAllStringFunc(s, func(m string) string {
		if !looksEncoded(m) {
			return m
		}
		return fmt.Sprintf("[base64 omitted: %d bytes]", len(m))
	})
	// Redact a window twice the limit at each end, not megabytes of output:
	// whatever lies between is cut anyway.
	s, _ = cut(s, 4*limit)
	s, _ = r.Redact(s)
	return cut(s, limit)
}

// looksEncoded tells a base64 blob from a long run of one letter or a
// long identifier: encoded bytes use upper case, lower case and digits,
// and many distinct characters.
func looksEncoded(s string) bool {
	var seen [128]bool
	distinct, upper, lower, digit := 0, false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 128 && !seen[c] {
			seen[c] = true
			distinct++
		}
		upper = upper || ('A' <= c && c <= 'Z')
		lower = lower || ('a' <= c && c <= 'z')
		digit = digit || ('0' <= c && c <= '9')
	}
	return upper && lower && digit && distinct >= 24
}

// isBinary reports whether s is not text: invalid UTF-8 or NUL bytes.
func isBinary(s string) bool {
	return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
}

// cut keeps the first and last limit/2 bytes of s (on rune boundaries)
// and marks what it left out. limit ≤ 0 keeps everything.
func cut(s string, limit int) (string, bool) {
	if limit <= 0 || len(s) <= limit {
		return s, false
	}
	head := runeFloor(s, limit/2)
	tail := runeCeil(s, len(s)-limit/2)
	return s[:head] + fmt.Sprintf("\n[… %d bytes cut …]\n", tail-head) + s[tail:], true
}

// runeFloor is the largest rune boundary ≤ i.
func runeFloor(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeCeil is the smallest rune boundary ≥ i.
func runeCeil(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
