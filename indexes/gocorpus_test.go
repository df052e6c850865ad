package indexes

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// goComments returns up to n comment blocks (60–600 bytes) of the Go standard
// library on this machine, sorted and deduplicated: real English-and-identifier
// text for keyword-index benchmarks, with no fixture to ship.
func goComments(tb testing.TB, n int) []string {
	root := filepath.Join(runtime.GOROOT(), "src")
	seen := map[string]bool{}
	var blocks []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "testdata") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close() // read-only
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 16<<20) // some generated files have very long lines
		var cur []string
		flush := func() {
			t := strings.Join(cur, " ")
			cur = nil
			if len(t) >= 60 && len(t) <= 600 && !seen[t] && !strings.Contains(t, "Copyright") {
				seen[t] = true
				blocks = append(blocks, t)
			}
		}
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "//go:") {
				cur = append(cur, strings.TrimSpace(strings.TrimPrefix(l, "//")))
			} else if len(cur) > 0 {
				flush()
			}
		}
		return sc.Err()
	})
	if err != nil {
		tb.Skipf("Go sources not readable under %s: %v", root, err)
	}
	slices.Sort(blocks)
	return blocks[:min(n, len(blocks))]
}

// words lower-cases text and splits it at non-letters and camelCase humps; a
// stand-in for the E6 tokenizer good enough to give real term statistics.
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 1 {
			out = append(out, strings.ToLower(string(cur)))
		}
		cur = cur[:0]
	}
	prevLower := false
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = unicode.IsLower(r)
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return out
}

var goBM25 struct {
	once    sync.Once
	x       *BM25
	queries [][]string
}

func goBM25Index(b *testing.B) (*BM25, [][]string) {
	goBM25.once.Do(func() {
		blocks := goComments(b, 40000)
		x, _ := NewBM25("E6", DefaultBM25)
		var docs []record.DocNum
		var tfs []fingerprint.TermFreqs
		for i, t := range blocks {
			if i%80 == 0 && len(goBM25.queries) < 256 { // held-out first sentences
				q := t
				if j := strings.Index(q, ". "); j > 20 {
					q = q[:j]
				}
				goBM25.queries = append(goBM25.queries, words(q))
				continue
			}
			if w := words(t); len(w) > 0 {
				docs = append(docs, record.DocNum(len(docs)))
				tfs = append(tfs, tfOf(w...))
			}
		}
		must(b, x.Build(docs, tfs))
		goBM25.x = x
	})
	return goBM25.x, goBM25.queries
}

// BenchmarkBM25GoComments measures BM25 on ~40k real comment blocks of the Go
// standard library with natural-language queries (5–20 terms).
func BenchmarkBM25GoComments(b *testing.B) {
	for _, k := range []int{10, 100, 1000} {
		for _, alg := range []struct {
			name string
			a    algo
		}{{"auto", algoAuto}, {"maxscore", algoMaxScore}, {"exhaustive", algoExhaustive}} {
			b.Run(fmt.Sprintf("k=%d/%s", k, alg.name), func(b *testing.B) {
				x, qs := goBM25Index(b)
				if x == nil || len(qs) == 0 {
					b.Skip("no Go comment corpus")
				}
				for i := 0; b.Loop(); i++ {
					if _, err := x.search(qs[i%len(qs)], nil, k, nil, alg.a); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(x.Stats().Docs), "docs")
				b.ReportMetric(float64(x.Bytes())/float64(x.Stats().Docs), "B/doc")
			})
		}
	}
}

func TestBM25GoCommentsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the Go sources")
	}
	blocks := goComments(t, 3000)
	x, _ := NewBM25("E6", DefaultBM25)
	for i, b := range blocks[100:] {
		if w := words(b); len(w) > 0 {
			must(t, x.Add(record.DocNum(i), tfOf(w...)))
		}
	}
	for i, b := range blocks[:100] {
		q := words(b)
		for _, k := range []int{1, 10, 50} {
			got, _ := x.search(q, nil, k, nil, algoMaxScore)
			want, _ := x.SearchExhaustive(q, k, nil)
			sameHits(t, fmt.Sprintf("query %d k=%d", i, k), got, want)
		}
	}
}
