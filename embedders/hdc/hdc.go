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
// The bundle is counted trigram-major: eight trigrams at a time, each word of
// their bound vectors is folded into per-word carry-save state (Harley–Seal:
// ones, twos and fours; only the eights ripple into the bit-sliced counter
// planes, plane j holding bit j of 64 counts), so the 24 character vectors of
// a group are read once, in order. The majority is a bit-sliced comparison
// of each word's counters with half the count.
// Cost O(len(text)·HyperWords) cheap word operations, plus O(HyperBits) per
// distinct non-ASCII rune.
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
	depth := bits.Len(uint(total))
	st := statePool.Get().(*bundleState)
	defer statePool.Put(st)
	st.reset(depth)
	// parts returns the three vectors whose XOR is input i: trigram i, the
	// tie breaker (index n when the count is even), or nothing beyond.
	parts := func(i int) (a, b, c *hv) {
		switch {
		case i < n:
			return vec[i][0], vec[i+1][1], vec[i+2][2]
		case i == n && total != n:
			return &tieBreaker, &zeroHV, &zeroHV
		}
		return &zeroHV, &zeroHV, &zeroHV
	}
	for i := 0; i < total; i += 8 {
		var g [8][N]*hv
		for k := range 8 {
			g[k][0], g[k][1], g[k][2] = parts(i + k)
		}
		for w := range words {
			in := func(k int) uint64 { return g[k][0][w] ^ g[k][1][w] ^ g[k][2][w] }
			var twosA, twosB, foursA, foursB, eights uint64
			twosA, st.ones[w] = csa(st.ones[w], in(0), in(1))
			twosB, st.ones[w] = csa(st.ones[w], in(2), in(3))
			foursA, st.twos[w] = csa(st.twos[w], twosA, twosB)
			twosA, st.ones[w] = csa(st.ones[w], in(4), in(5))
			twosB, st.ones[w] = csa(st.ones[w], in(6), in(7))
			foursB, st.twos[w] = csa(st.twos[w], twosA, twosB)
			eights, st.fours[w] = csa(st.fours[w], foursA, foursB)
			st.ripple(3, w, eights)
		}
	}
	half := uint64(total / 2)
	for w := range words {
		st.ripple(0, w, st.ones[w])
		st.ripple(1, w, st.twos[w])
		st.ripple(2, w, st.fours[w])
		// count > half, bit-sliced from the top plane down.
		var gt uint64
		eq := ^uint64(0)
		for j := depth - 1; j >= 0; j-- {
			p := st.planes[j][w]
			if half>>j&1 == 0 {
				gt |= eq & p
				eq &^= p
			} else {
				eq &= p
			}
		}
		out[w] = gt
	}
	out[words-1] &= 1<<(nbits%64) - 1
	return out
}

// zeroHV is the vector that adds nothing to a bundle.
var zeroHV hv

// bundleState is Encode's carry-save state and counter planes, one word
// lane per hypervector word; recycled through statePool (~30 KB).
type bundleState struct {
	ones, twos, fours hv
	planes            [64]hv
	depth             int
}

var statePool = sync.Pool{New: func() any { return new(bundleState) }}

// reset clears the state for counts of depth bits.
func (s *bundleState) reset(depth int) {
	s.ones, s.twos, s.fours = hv{}, hv{}, hv{}
	for j := range max(depth, 4) {
		s.planes[j] = hv{}
	}
	s.depth = depth
}

// ripple adds v, weighted 2^from, into word w of the counter planes.
func (s *bundleState) ripple(from, w int, v uint64) {
	for j := from; v != 0 && j < 64; j++ {
		t := s.planes[j][w] & v
		s.planes[j][w] ^= v
		v = t
	}
}

// csa is a carry-save adder: the sum bits and carry bits of a + b + c, lane by lane.
func csa(a, b, c uint64) (carry, sum uint64) {
	u := a ^ b
	return (a & b) | (u & c), u ^ c
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
