// Package hdc is the E9 slot: hyperdimensional character n-gram codes. A text
// becomes a 10,000-bit hypervector in which texts that share most character
// trigrams — the same words with a typo — stay close in Hamming distance, while
// unrelated texts sit near the random baseline of 0.5. A 256-d dense projection
// of the hypervector feeds ANN indexes.
//
// Encoding: every rune gets a pseudo-random 10,000-bit vector C(r) derived from
// a fixed seed (no table to ship). A trigram abc is bound as
// ρ²(C(a)) ⊕ ρ(C(b)) ⊕ C(c), where ρ is a cyclic rotation by one bit (the
// permutation marks the position inside the trigram), and all trigrams of the
// text are bundled by bitwise majority. Everything here is deterministic, pure
// and safe for concurrent use.
package hdc

import (
	"math"
	"math/bits"
	"strings"
	"sync"
	"unicode"

	"github.com/cgraph/cgraph/fingerprint"
)

const (
	nbits = fingerprint.HyperBits
	words = fingerprint.HyperWords
	// N is the n-gram length.
	N = 3
	// ProjectionDims is the length of the dense projection.
	ProjectionDims = 256
	// seed fixes the random vectors; it is part of the producer identity.
	seed = 0x6367726170683039 // "cgraph09"
)

type hv [words]uint64

// splitmix64 is the PRNG step that derives every random vector.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// randomHV fills v with bits drawn from key.
func randomHV(v *hv, key uint64) {
	s := seed ^ key*0xd1b54a32d192ed03
	for i := range v {
		v[i] = splitmix64(&s)
	}
	v[words-1] &= 1<<(nbits%64) - 1
}

// rotate sets dst to src cyclically rotated by k bits within nbits
// (bit i moves to (i+k) mod nbits). Cost O(nbits).
func rotate(dst, src *hv, k int) {
	*dst = hv{}
	for i := 0; i < nbits; i++ {
		if src[i>>6]>>(i&63)&1 != 0 {
			j := (i + k) % nbits
			dst[j>>6] |= 1 << (j & 63)
		}
	}
}

// charVectors holds ρ^p(C(r)) for ASCII runes and each position p in a
// trigram, built on first use (about 480 KB, a few ms) so that programs that
// never encode pay nothing; other runes are computed on demand.
var charVectors = sync.OnceValue(func() *[N][128]hv {
	t := new([N][128]hv)
	for r := range 128 {
		var c hv
		randomHV(&c, uint64(r))
		for p := range N {
			rotate(&t[p][r], &c, N-1-p)
		}
	}
	return t
})

// charVector returns ρ^(N-1-p)(C(r)) in out.
func charVector(out *hv, r rune, p int) {
	if r >= 0 && r < 128 {
		*out = charVectors()[p][r]
		return
	}
	var c hv
	randomHV(&c, uint64(r))
	rotate(out, &c, N-1-p)
}

// normalize lower-cases text and folds every run of non-letter, non-digit
// runes into one space, with a space at both ends so that word starts and ends
// are trigrams of their own.
func normalize(text string) []rune {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return []rune(b.String())
}

// tieBreaker is bundled in when the number of trigrams is even, so that the
// majority has no ties (the usual HDC convention).
var tieBreaker = func() hv {
	var v hv
	randomHV(&v, math.MaxUint64)
	return v
}()

// Encode returns the hypervector of text in fingerprint layout. A text without
// letters or digits gives the all-zero vector.
//
// The bundle is computed word by word: for each 64-bit word, the trigram words
// are summed in a bit-sliced counter held in registers (plane j holds bit j of
// 64 counts, so an add is a ripple carry), then the majority is read off.
// Cost O(len(text)·HyperWords·log len(text)) cheap word operations, plus
// O(HyperBits) per distinct non-ASCII rune.
func Encode(text string) []uint64 {
	rs := normalize(text)
	out := make([]uint64, words)
	n := len(rs) - N + 1
	if n <= 0 {
		return out
	}
	// vec[i][p] is ρ^(N-1-p)(C(rs[i])), shared across repeated runes.
	ascii := charVectors()
	vec := make([][N]*hv, len(rs))
	var other map[rune]*[N]hv
	for i, r := range rs {
		if r >= 0 && r < 128 {
			for p := range N {
				vec[i][p] = &ascii[p][r]
			}
			continue
		}
		if other == nil {
			other = map[rune]*[N]hv{}
		}
		vs, ok := other[r]
		if !ok {
			vs = new([N]hv)
			for p := range N {
				charVector(&vs[p], r, p)
			}
			other[r] = vs
		}
		for p := range N {
			vec[i][p] = &vs[p]
		}
	}
	total := n
	if total%2 == 0 {
		total++ // the tie breaker
	}
	half := total / 2
	// input returns trigram i's word w; index n is the tie breaker when the
	// count is even, and anything beyond is zero (it adds nothing).
	input := func(i, w int) uint64 {
		switch {
		case i < n:
			return vec[i][0][w] ^ vec[i+1][1][w] ^ vec[i+2][2][w]
		case i == n && total != n:
			return tieBreaker[w]
		}
		return 0
	}
	depth := bits.Len(uint(total))
	var planes [64]uint64
	for w := range words {
		clear(planes[:])
		// Harley–Seal: carry-save adders fold eight inputs into ones, twos
		// and fours; only the eights ripple into the counter planes.
		var ones, twos, fours uint64
		for i := 0; i < total; i += 8 {
			var twosA, twosB, foursA, foursB, eights uint64
			twosA, ones = csa(ones, input(i, w), input(i+1, w))
			twosB, ones = csa(ones, input(i+2, w), input(i+3, w))
			foursA, twos = csa(twos, twosA, twosB)
			twosA, ones = csa(ones, input(i+4, w), input(i+5, w))
			twosB, ones = csa(ones, input(i+6, w), input(i+7, w))
			foursB, twos = csa(twos, twosA, twosB)
			eights, fours = csa(fours, foursA, foursB)
			ripple(&planes, 3, eights)
		}
		ripple(&planes, 0, ones)
		ripple(&planes, 1, twos)
		ripple(&planes, 2, fours)
		var m uint64
		for b := range 64 {
			cnt := 0
			for j := range depth {
				cnt |= int(planes[j]>>b&1) << j
			}
			if cnt > half {
				m |= 1 << b
			}
		}
		out[w] = m
	}
	out[words-1] &= 1<<(nbits%64) - 1
	return out
}

// csa is a carry-save adder: the sum bits and carry bits of a + b + c, lane by lane.
func csa(a, b, c uint64) (carry, sum uint64) {
	u := a ^ b
	return (a & b) | (u & c), u ^ c
}

// ripple adds v, weighted 2^from, into the bit-sliced counter planes.
func ripple(planes *[64]uint64, from int, v uint64) {
	for j := from; v != 0 && j < 64; j++ {
		t := planes[j] & v
		planes[j] ^= v
		v = t
	}
}

// Similarity is 1 − Hamming(a, b)/HyperBits: 1 for equal vectors, about 0.5
// for unrelated ones. Cost O(HyperWords).
func Similarity(a, b []uint64) float64 { return fingerprint.HammingSimilarity(a, b) }

// projection assigns every bit to one of ProjectionDims buckets with a sign
// (a count sketch), fixed by the seed.
var projBucket, projSign = func() ([nbits]uint8, [nbits]int8) {
	var bk [nbits]uint8
	var sg [nbits]int8
	s := uint64(seed ^ 0x5052)
	for i := range nbits {
		r := splitmix64(&s)
		bk[i] = uint8(r % ProjectionDims)
		sg[i] = int8(1 - 2*int(r>>63))
	}
	return bk, sg
}()

// Project returns the unit-length ProjectionDims-d dense projection of a
// hypervector: bit i contributes ±1 (bit value as ±1, times a fixed random
// sign) to a fixed random bucket. The cosine of two projections estimates
// 2·Similarity − 1, the ±1-vector cosine, so ANN over projections ranks like
// Hamming similarity. Cost O(HyperBits).
func Project(v []uint64) []float32 {
	var acc [ProjectionDims]int32
	for i := range nbits {
		x := int32(2*int(v[i>>6]>>(i&63)&1) - 1)
		acc[projBucket[i]] += x * int32(projSign[i])
	}
	out := make([]float32, ProjectionDims)
	var ss float64
	for i, a := range acc {
		ss += float64(a) * float64(a)
		out[i] = float32(a)
	}
	if ss > 0 {
		inv := float32(1 / math.Sqrt(ss))
		for i := range out {
			out[i] *= inv
		}
	}
	return out
}
