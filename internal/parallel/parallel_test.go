package parallel

import (
	"sync/atomic"
	"testing"
)

// TestForEachCallsEveryIndexOnce over sizes below, at and above the
// worker threshold.
func TestForEachCallsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, MinPerWorker - 1, 2 * MinPerWorker, 1000} {
		calls := make([]atomic.Int32, n)
		ForEach(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}
