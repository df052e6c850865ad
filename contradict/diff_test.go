package contradict

import (
	"slices"
	"strings"
	"testing"
)

// alignRef is align's table as first written (a full (n+1)×(m+1) table,
// no common prefix skipped): the oracle the faster align must agree with
// step for step, since the judge reads the steps' positions.
func alignRef(a, b []token) []op {
	n, m := len(a), len(b)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].stem == b[j].stem {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	return walk(a, b, func(i, j int) int32 { return int32(l[i][j]) })
}

// stems makes tokens of single letters, so that fuzzed texts share stems.
func stems(s string) []token {
	var ts []token
	for _, r := range s {
		ts = append(ts, token{stem: string(r)})
	}
	return ts
}

func TestAlignMatchesReference(t *testing.T) {
	for _, c := range [][2]string{{"", ""}, {"abc", ""}, {"", "abc"}, {"abc", "abc"}, {"abcx", "abcy"}, {"abc", "abcd"},
		{"xabc", "abc"}, {"abab", "baba"}, {"aaaa", "aa"}, {"the port is 8080", "the port is 9090 now"}} {
		a, b := stems(c[0]), stems(c[1])
		if got, want := align(a, b), alignRef(a, b); !slices.Equal(got, want) {
			t.Errorf("align(%q, %q) = %v, want %v", c[0], c[1], got, want)
		}
	}
	for _, p := range codePairs(t) {
		a, b := tokenize(p[0]), tokenize(p[1])
		if got, want := align(a, b), alignRef(a, b); !slices.Equal(got, want) {
			t.Errorf("align of %.30q and %.30q differs from the reference", p[0], p[1])
		}
	}
}

// FuzzAlign: align's steps are the reference's on any pair of sequences.
func FuzzAlign(f *testing.F) {
	f.Add("abcab", "abdab")
	f.Add("aaab", "aab")
	f.Fuzz(func(t *testing.T, x, y string) {
		if len(x) > 200 || len(y) > 200 || strings.ContainsRune(x+y, '\ufffd') {
			return
		}
		a, b := stems(x), stems(y)
		if got, want := align(a, b), alignRef(a, b); !slices.Equal(got, want) {
			t.Errorf("align(%q, %q) = %v, want %v", x, y, got, want)
		}
	})
}
