package indexes_test

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
)

func ExampleBM25() {
	x, _ := indexes.NewBM25("E6", indexes.DefaultBM25)
	_ = x.Add(1, fingerprint.TermFreqs{Terms: []string{"error", "parse"}, Counts: []uint32{1, 2}})
	_ = x.Add(2, fingerprint.TermFreqs{Terms: []string{"config", "parse"}, Counts: []uint32{1, 1}})
	_ = x.Add(3, fingerprint.TermFreqs{Terms: []string{"error"}, Counts: []uint32{1}})
	hits, _ := x.Search([]string{"parse", "error"}, 2, nil)
	fmt.Println(hits.Docs())
	// Output: [1 3]
}

func ExampleDense() {
	x, _ := indexes.NewDense(indexes.DenseConfig{Name: "E1", Dim: 3})
	_ = x.Add(10, []float32{1, 0, 0})
	_ = x.Add(11, []float32{0.9, 0.1, 0})
	_ = x.Add(12, []float32{0, 1, 0})
	only := roaring.BitmapOf(11, 12) // e.g. the docs of one session
	hits, _ := x.Search([]float32{1, 0, 0}, 1, only)
	fmt.Println(hits.Docs())
	// Output: [11]
}
