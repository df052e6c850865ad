// Package pkg is a fixture for the csn-go extractor.
package pkg

import "strings"

// Reverse returns its argument string reversed rune-wise left to right.
//
// This second paragraph is not part of the query.
func Reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// Short is too short.
func Short() {}

// Deprecated: use Reverse instead of this old helper.
func Old(s string) string {
	x := s
	return x
}

func undocumented(s string) string {
	x := strings.ToUpper(s)
	return x
}

// T is a type.
type T struct{ n int }

// Add increments the counter by the given amount and returns it.
func (t *T) Add(d int) int {
	t.n += d
	return t.n
}

// reverseCopy returns its argument string reversed rune-wise left to right.
func reverseCopy(s string) string {
	r := []rune(s)
	return string(r)
}
