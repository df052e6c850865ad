package ops

import "strings"

// Snippet is the start of content's first non-blank line, with runs of
// white space as one space, cut to width characters with "…" when more
// follows: the one-line form of a hit that the CLI's result lists and the
// agent hooks' injected lines share. It must not be used where a reader
// needs the whole memory (get reads that).
func Snippet(content string, width int) string {
	first, _, more := strings.Cut(strings.TrimSpace(content), "\n")
	first = strings.Join(strings.Fields(first), " ")
	if r := []rune(first); len(r) > width {
		first, more = string(r[:width-1]), true
	}
	if more {
		first += "…"
	}
	return first
}
