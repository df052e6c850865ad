package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Percentile returns the p-th percentile (0–100) of xs by linear
// interpolation between closest ranks (numpy's default); NaN for no values.
// xs is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	pos := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func summarize(ms []float64) Latency {
	if len(ms) == 0 {
		return Latency{}
	}
	return Latency{P50: Percentile(ms, 50), P95: Percentile(ms, 95), Mean: mean(ms)}
}

// BootstrapResamples is the number of resamples for bootstrap intervals.
const BootstrapResamples = 2000

// BootstrapCI returns the percentile-bootstrap 95% interval of the mean of xs
// (resampling values with replacement), seeded and deterministic.
// Cost: O(BootstrapResamples · len(xs)).
func BootstrapCI(xs []float64, seed uint64) CI {
	if len(xs) == 0 {
		return CI{}
	}
	r := rand.New(rand.NewPCG(seed, 0xb007))
	means := make([]float64, BootstrapResamples)
	for b := range means {
		s := 0.0
		for range xs {
			s += xs[r.IntN(len(xs))]
		}
		means[b] = s / float64(len(xs))
	}
	return CI{Lo: Percentile(means, 2.5), Hi: Percentile(means, 97.5)}
}

// ExactPermutationLimit is the largest number of pairs for which
// RandomizationTest enumerates all 2^n sign assignments instead of sampling.
const ExactPermutationLimit = 16

// RandomizationPermutations is the number of sampled sign flips above the exact limit.
const RandomizationPermutations = 20000

// RandomizationTest returns the two-sided p-value of the paired randomisation
// (sign-flip) test of "mean delta = 0": the share of sign assignments whose
// |mean| is at least the observed |mean|. Up to ExactPermutationLimit pairs it
// enumerates every assignment (exact p); above, it samples
// RandomizationPermutations assignments and returns (hits+1)/(samples+1).
// Identical runs (all deltas 0) give p = 1.
func RandomizationTest(deltas []float64, seed uint64) float64 {
	n := len(deltas)
	if n == 0 {
		return 1
	}
	obs := math.Abs(mean(deltas))
	const eps = 1e-12
	if n <= ExactPermutationLimit {
		hits := 0
		for mask := 0; mask < 1<<n; mask++ {
			s := 0.0
			for i, d := range deltas {
				if mask&(1<<i) != 0 {
					s -= d
				} else {
					s += d
				}
			}
			if math.Abs(s/float64(n)) >= obs-eps {
				hits++
			}
		}
		return float64(hits) / float64(int(1)<<n)
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	hits := 0
	for range RandomizationPermutations {
		// One random bit per delta, 64 per draw; the sign is applied
		// without a branch (random signs defeat branch prediction).
		s := 0.0
		var bits uint64
		for i, d := range deltas {
			if i&63 == 0 {
				bits = r.Uint64()
			}
			s += d * float64(1-2*int64(bits&1))
			bits >>= 1
		}
		if math.Abs(s/float64(n)) >= obs-eps {
			hits++
		}
	}
	return float64(hits+1) / float64(RandomizationPermutations+1)
}
