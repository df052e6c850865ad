package indexes

import (
	"slices"

	"github.com/viterin/vek/vek32"
)

// Precision selects how a Dense index keeps the vectors it reranks with.
type Precision uint8

const (
	// Float32 keeps unit vectors exactly (4 bytes per dimension); scores are the
	// float32 cosine.
	Float32 Precision = iota
	// Int8 keeps each unit vector as int8 with a per-vector scale (1 byte per
	// dimension + 4): a quarter of the RAM, cosines off by at most about 0.004,
	// reranking about 3× slower per candidate (Go has no int8 SIMD).
	Int8
)

// String names the precision.
func (p Precision) String() string {
	switch p {
	case Float32:
		return "float32"
	case Int8:
		return "int8"
	}
	return "precision(?)"
}

// rows is a contiguous row-major store of unit vectors at one precision. It is
// not safe for concurrent use; Dense locks.
type rows struct {
	dim   int
	prec  Precision
	f32   []float32 // Float32 rows
	i8    []int8    // Int8 rows
	scale []float32 // Int8 per-row scales
}

func (s *rows) len() int {
	if s.prec == Int8 {
		return len(s.scale)
	}
	return len(s.f32) / s.dim
}

func (s *rows) bytes() int { return 4*len(s.f32) + len(s.i8) + 4*len(s.scale) }

// push appends a row.
func (s *rows) push(v []float32) {
	if s.prec == Int8 {
		n := len(s.i8)
		s.i8 = slices.Grow(s.i8, len(v))[:n+len(v)]
		mx, _ := maxAbs(v)
		s.scale = append(s.scale, quantizeInto(s.i8[n:], v, mx))
		return
	}
	s.f32 = append(s.f32, v...)
}

// set overwrites row r.
func (s *rows) set(r int, v []float32) {
	if s.prec == Int8 {
		mx, _ := maxAbs(v)
		s.scale[r] = quantizeInto(s.i8[r*s.dim:(r+1)*s.dim], v, mx)
		return
	}
	copy(s.f32[r*s.dim:(r+1)*s.dim], v)
}

// move copies row src over row dst.
func (s *rows) move(dst, src int) {
	if s.prec == Int8 {
		copy(s.i8[dst*s.dim:(dst+1)*s.dim], s.i8[src*s.dim:])
		s.scale[dst] = s.scale[src]
		return
	}
	copy(s.f32[dst*s.dim:(dst+1)*s.dim], s.f32[src*s.dim:])
}

// permuted returns a new store whose row i is row order[i] of s.
func (s *rows) permuted(order []int32) rows {
	out := rows{dim: s.dim, prec: s.prec}
	if s.prec == Int8 {
		out.i8, out.scale = make([]int8, len(order)*s.dim), make([]float32, len(order))
		for i, r := range order {
			copy(out.i8[i*s.dim:(i+1)*s.dim], s.i8[int(r)*s.dim:])
			out.scale[i] = s.scale[r]
		}
		return out
	}
	out.f32 = make([]float32, len(order)*s.dim)
	for i, r := range order {
		copy(out.f32[i*s.dim:(i+1)*s.dim], s.f32[int(r)*s.dim:])
	}
	return out
}

// truncate keeps the first n rows.
func (s *rows) truncate(n int) {
	if s.prec == Int8 {
		s.i8, s.scale = s.i8[:n*s.dim], s.scale[:n]
		return
	}
	s.f32 = s.f32[:n*s.dim]
}

// row returns a copy of row r as float32.
func (s *rows) row(r int) []float32 { return s.rowInto(make([]float32, s.dim), r) }

// rowInto writes row r as float32 into dst (Dim long) and returns it: row
// without the allocation, for a pass over every row (recentring).
func (s *rows) rowInto(dst []float32, r int) []float32 {
	dst = dst[:s.dim]
	if s.prec == Int8 {
		sc := s.scale[r]
		for i, v := range s.i8[r*s.dim : (r+1)*s.dim] {
			dst[i] = float32(v) * sc
		}
		return dst
	}
	copy(dst, s.f32[r*s.dim:(r+1)*s.dim])
	return dst
}

// meanInto writes the mean of rows 0..n-1 (as rowInto reads them, summed in
// float64 in row order) into dst, or zeros when n is 0; scratch is one Dim-long
// row. Build and recentring share it, so an index opened from a store centres
// its sketches exactly where the Adds that filled the store did.
func (s *rows) meanInto(dst []float32, n int, scratch []float32) {
	sum := make([]float64, s.dim)
	for r := range n {
		for j, v := range s.rowInto(scratch, r) {
			sum[j] += float64(v)
		}
	}
	for j := range dst {
		dst[j] = 0
		if n > 0 {
			dst[j] = float32(sum[j] / float64(n))
		}
	}
}

// dot returns q·row r.
func (s *rows) dot(q []float32, r int) float32 {
	if s.prec == Int8 {
		return dotF32I8(q, s.i8[r*s.dim:(r+1)*s.dim]) * s.scale[r]
	}
	return vek32.Dot(q, s.f32[r*s.dim:(r+1)*s.dim])
}

// dotF32I8 is q·v for an int8 row v: dotF32I8Go's value, computed by an
// SSE4.1 kernel where the CPU has one (dot_amd64.s: the same four lanes,
// the same products and sums in the same order, so the same bits; ~4×
// faster: the scalar loop's int-to-float conversions are most of its time).
func dotF32I8(q []float32, v []int8) float32 {
	v = v[:len(q)]
	if useDotSSE41 && len(q) >= 4 {
		return dotF32I8SSE41(q, v)
	}
	return dotF32I8Go(q, v)
}

// dotF32I8Go defines dotF32I8: four partial sums, element i going to sum
// i mod 4 in order, the elements past the last multiple of four to the
// first sum, then ((s0+s1)+s2)+s3. Each product is rounded to float32
// before it is added (the conversions forbid fusing into an FMA), so the
// result does not depend on the instruction set.
func dotF32I8Go(q []float32, v []int8) float32 {
	v = v[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += float32(q[i] * float32(v[i]))
		s1 += float32(q[i+1] * float32(v[i+1]))
		s2 += float32(q[i+2] * float32(v[i+2]))
		s3 += float32(q[i+3] * float32(v[i+3]))
	}
	for ; i < len(q); i++ {
		s0 += float32(q[i] * float32(v[i]))
	}
	return s0 + s1 + s2 + s3
}
