// Package parallel spreads independent per-item work over the cores. It is
// the one copy of that loop for the model runtime (tokenizing, unpacking a
// GPU batch) and the embedders (per-document CPU work while the models run
// on a GPU); it knows nothing about either.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// MinPerWorker is the fewest items a goroutine is started for: smaller
// calls (a query) stay on the calling goroutine.
const MinPerWorker = 8

// ForEach calls fn(i) for every i < n, on up to GOMAXPROCS goroutines when n
// is large enough to pay for them (at least MinPerWorker items per
// goroutine), else on the calling goroutine. fn must be safe to call
// concurrently for distinct i. It returns when every call has.
func ForEach(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/MinPerWorker)
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
