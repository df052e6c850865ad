//go:build !amd64

package indexes

const useDotSSE41 = false

func dotF32I8SSE41(q []float32, v []int8) float32 { return dotF32I8Go(q, v) }
