package ops

import (
	"strings"
	"testing"
)

func TestSnippet(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"short", "short"},
		{"  two\tspaces  here \nsecond line", "two space…"},
		{"two  spaces\nsecond line", "two spaces…"},
		{strings.Repeat("é", 12), "ééééééééé…"},
		{"", ""},
	} {
		if got := Snippet(tc.in, 10); got != tc.want {
			t.Errorf("Snippet(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
