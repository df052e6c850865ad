package shellword

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// TestFields: words split as a POSIX shell splits plain words, quotes and
// backslashes.
func TestFields(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a b\tc\nd", []string{"a", "b", "c", "d"}},
		{`'a b' "c d" e\ f`, []string{"a b", "c d", "e f"}},
		{`'it'\''s' "say \"hi\""`, []string{"it's", `say "hi"`}},
		{`'' x`, []string{"", "x"}},
		{"  ", nil},
	} {
		if got := Fields(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Fields(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzQuoteFields: a quoted word splits back into that one word (valid
// UTF-8: the command lines live in JSON strings).
func FuzzQuoteFields(f *testing.F) {
	for _, s := range []string{"", "plain", "with space", "it's", `dollar$HOME"`, "tab\tnew\nline", `back\slash`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		if got := Fields(Quote(s)); len(got) != 1 || got[0] != s {
			t.Fatalf("Fields(Quote(%q)) = %q", s, got)
		}
	})
}
