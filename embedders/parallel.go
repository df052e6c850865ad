package embedders

import "github.com/cgraph/cgraph/internal/parallel"

// ForEach calls fn(i) for every i < n, on up to GOMAXPROCS goroutines when n
// is large enough to pay for them (internal/parallel), else on the calling
// goroutine. fn must be safe to call concurrently for distinct i. It is how
// a slot spreads its per-document CPU work (parsing, projections,
// hypervectors) over the cores while the models run on a GPU.
func ForEach(n int, fn func(i int)) { parallel.ForEach(n, fn) }
