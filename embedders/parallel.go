package embedders

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls fn(i) for every i < n, on up to GOMAXPROCS goroutines when n
// is large enough to pay for them (at least 8 items per goroutine), else on
// the calling goroutine. fn must be safe to call concurrently for distinct i.
// It is how a slot spreads its per-document CPU work (parsing, projections,
// hypervectors) over the cores while the models run on a GPU.
func ForEach(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/8)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}
