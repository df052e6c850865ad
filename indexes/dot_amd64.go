package indexes

import "golang.org/x/sys/cpu"

// useDotSSE41 says whether dotF32I8 runs its SSE4.1 kernel (PMOVSXBD is
// SSE4.1; GOAMD64=v1 does not promise it).
var useDotSSE41 = cpu.X86.HasSSE41

// dotF32I8SSE41 is dotF32I8Go for len(q) >= 4 and len(v) == len(q).
//
//go:noescape
func dotF32I8SSE41(q []float32, v []int8) float32
