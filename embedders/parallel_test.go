package embedders

import (
	"sync/atomic"
	"testing"
)

// TestForEach: every index is visited exactly once, at any size.
func TestForEach(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 100, 1000} {
		seen := make([]atomic.Int32, n)
		ForEach(n, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}
