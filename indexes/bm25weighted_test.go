package indexes

import (
	"math"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestBM25SearchWeighted: unit weights are Search, a weight of 2 is the term
// typed twice, a fractional weight scales the term's contribution exactly,
// and bad weights are refused with the term named.
func TestBM25SearchWeighted(t *testing.T) {
	x, err := NewBM25("E6", DefaultBM25)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range []string{"rocksdb compaction stall", "compaction tuning level0", "http server shutdown", "rocksdb level0 trigger"} {
		if err := x.Add(record.DocNum(i), tfOf(strings.Fields(doc)...)); err != nil {
			t.Fatal(err)
		}
	}
	score := func(hs Hits, d record.DocNum) float64 {
		for _, h := range hs {
			if h.Doc == d {
				return float64(h.Score)
			}
		}
		return 0
	}
	for _, exhaustive := range []bool{false, true} {
		for _, c := range []struct {
			name    string
			terms   []string
			weights []float64
			same    []string // Search with these terms gives the same scores
		}{
			{"unit weights", []string{"rocksdb", "compaction"}, []float64{1, 1}, []string{"rocksdb", "compaction"}},
			{"weight 2 is a repeat", []string{"rocksdb", "level0"}, []float64{2, 1}, []string{"rocksdb", "rocksdb", "level0"}},
			{"repeated term sums", []string{"level0", "level0"}, []float64{0.5, 0.5}, []string{"level0"}},
		} {
			got, err := x.SearchWeighted(c.terms, c.weights, 10, nil, exhaustive)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := x.Search(c.same, 10, nil)
			for d := range record.DocNum(4) {
				if math.Abs(score(got, d)-score(want, d)) > 1e-5 {
					t.Errorf("%s (exhaustive %v): doc %d scores %v, want %v", c.name, exhaustive, d, score(got, d), score(want, d))
				}
			}
		}
	}
	// A fractional weight scales exactly that term's contribution.
	base, _ := x.Search([]string{"compaction"}, 10, nil)
	lvl, _ := x.Search([]string{"level0"}, 10, nil)
	mixed, err := x.SearchWeighted([]string{"compaction", "level0"}, []float64{1, 0.3}, 10, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if w := score(base, 1) + 0.3*score(lvl, 1); math.Abs(score(mixed, 1)-w) > 1e-5 {
		t.Errorf("doc 1 scores %v, want %v", score(mixed, 1), w)
	}
	for _, bad := range []struct {
		terms   []string
		weights []float64
		want    string
	}{
		{[]string{"a"}, nil, "1 terms but 0 weights"},
		{[]string{"rocksdb"}, []float64{-1}, `"rocksdb" has weight -1`},
		{[]string{"rocksdb"}, []float64{math.NaN()}, `"rocksdb" has weight NaN`},
		{[]string{"rocksdb"}, []float64{math.Inf(1)}, `"rocksdb" has weight +Inf`},
	} {
		if _, err := x.SearchWeighted(bad.terms, bad.weights, 10, nil, false); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("weights %v: error %v, want %q", bad.weights, err, bad.want)
		}
	}
}
