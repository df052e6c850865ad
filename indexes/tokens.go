package indexes

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/cgraph/cgraph/record"
)

// TokenMatrix is a quantized E12 token matrix: Rows() token vectors of Dim()
// values, row r stored as int8 values q[r·dim … (r+1)·dim) times the float32
// scale[r] = max|row|/127. It costs Dim()+4 bytes per token (a quarter of
// float32) and changes each value by at most scale/2. A TokenMatrix is immutable
// once made and safe for concurrent reads.
type TokenMatrix struct {
	dim   int
	q     []int8
	scale []float32
}

// Dim returns the width of a token vector.
func (m TokenMatrix) Dim() int { return m.dim }

// Rows returns the number of token vectors.
func (m TokenMatrix) Rows() int { return len(m.scale) }

// Bytes is the heap size of the matrix data.
func (m TokenMatrix) Bytes() int { return len(m.q) + 4*len(m.scale) }

// Row returns token r dequantized into a new slice.
func (m TokenMatrix) Row(r int) []float32 {
	out := make([]float32, m.dim)
	for i, v := range m.q[r*m.dim : (r+1)*m.dim] {
		out[i] = float32(v) * m.scale[r]
	}
	return out
}

// maxAbs is max|v|, and whether every value of v is finite. It compares
// bit patterns: with the sign bit cleared, a float32's bits order as its
// magnitude does, and NaN and ±Inf are the patterns from 0x7f800000 up.
// Branch-free, so a row of random signs costs no mispredictions (a
// compare-and-branch loop took ~4 ns a value on token states).
func maxAbs(v []float32) (mx float32, finite bool) {
	var m uint32
	for _, e := range v {
		m = max(m, math.Float32bits(e)&0x7fffffff)
	}
	if m >= 0x7f800000 { // NaN or ±Inf
		return 0, false
	}
	return math.Float32frombits(m), true
}

// quantizeInto maps v to int8 in dst (len(v) values) with scale mx/127,
// given mx = max|v| (round to nearest; an all-zero row gets scale 0, and
// the error per value is at most scale/2); it returns the scale. Values
// round half away from zero (math.Round): x ± 0.5, with x's sign, is exact
// in float64 for a float32 x of |x| ≤ 127, and the conversion truncates
// toward zero. Taking the half's sign from x's bits keeps the loop free
// of branches.
func quantizeInto[T int8 | byte](dst []T, v []float32, mx float32) float32 {
	if mx == 0 {
		clear(dst[:len(v)])
		return 0
	}
	s := mx / 127
	dst = dst[:len(v)]
	for i, e := range v {
		x := float64(e / s)
		half := math.Float64frombits(0x3fe0000000000000 | math.Float64bits(x)&(1<<63)) // ±0.5
		dst[i] = T(int8(x + half))
	}
	return s
}

// QuantizeTokens quantizes a row-major float32 token matrix of width dim.
// It rejects an empty matrix, a length that is not a multiple of dim, and
// non-finite values. One pass over each row finds its scale and checks it;
// the second writes its values straight into the matrix.
func QuantizeTokens(dim int, data []float32) (TokenMatrix, error) {
	if err := checkTokens(dim, data); err != nil {
		return TokenMatrix{}, err
	}
	rows := len(data) / dim
	m := TokenMatrix{dim: dim, q: make([]int8, len(data)), scale: make([]float32, rows)}
	for r := range rows {
		v := data[r*dim : (r+1)*dim]
		mx, finite := maxAbs(v)
		if !finite { // the first bad value is in this row
			return TokenMatrix{}, checkVector("quantize tokens", data, len(data), false)
		}
		m.scale[r] = quantizeInto(m.q[r*dim:(r+1)*dim], v, mx)
	}
	return m, nil
}

// checkTokens refuses a token matrix shape QuantizeTokens cannot take.
func checkTokens(dim int, data []float32) error {
	if dim <= 0 {
		return fmt.Errorf("quantize tokens: width %d must be positive", dim)
	}
	if len(data) == 0 || len(data)%dim != 0 {
		return fmt.Errorf("quantize tokens: token matrix has %d values, not a positive multiple of the token width %d", len(data), dim)
	}
	return nil
}

// AppendQuantized appends the encoding (AppendBinary) of
// QuantizeTokens(dim, data) to b, quantizing straight into it: what a
// write stores of a memory's token matrix, without the TokenMatrix in
// between. It refuses what QuantizeTokens refuses, and then appends
// nothing.
func AppendQuantized(b []byte, dim int, data []float32) ([]byte, error) {
	if err := checkTokens(dim, data); err != nil {
		return b, err
	}
	rows := len(data) / dim
	b = appendTokenHeader(b, dim, rows, len(data))
	scales := len(b)
	b = b[:scales+4*rows+len(data)]
	values := b[scales+4*rows:]
	for r := range rows {
		v := data[r*dim : (r+1)*dim]
		mx, finite := maxAbs(v)
		if !finite {
			return b[:scales-tokenHeaderLen(dim, rows)], checkVector("quantize tokens", data, len(data), false)
		}
		s := quantizeInto(values[r*dim:(r+1)*dim], v, mx)
		binary.LittleEndian.PutUint32(b[scales+4*r:], math.Float32bits(s))
	}
	return b, nil
}

// appendTokenHeader appends an encoded matrix's header to b, with room for
// its scales and n values after it.
func appendTokenHeader(b []byte, dim, rows, n int) []byte {
	b = slices.Grow(b, tokenHeaderLen(dim, rows)+4*rows+n) // one allocation at most
	b = append(b, tokenFormatV1)
	b = binary.AppendUvarint(b, uint64(dim))
	return binary.AppendUvarint(b, uint64(rows))
}

// tokenHeaderLen is the length of the header appendTokenHeader writes.
func tokenHeaderLen(dim, rows int) int {
	return 1 + uvarintLen(uint64(dim)) + uvarintLen(uint64(rows))
}

// tokenFormatV1 is the first byte of an encoded TokenMatrix. Values never change;
// a new layout gets a new number.
const tokenFormatV1 = 1

// AppendBinary appends the encoding of m to b:
//
//	version  byte   (1)
//	dim      uvarint
//	rows     uvarint
//	scales   rows × float32, little endian
//	values   rows × dim × int8
//
// It is the value layout of the engine's e12_late_interaction column family, so
// the store can load one candidate's matrix without decoding a fingerprint.
func (m TokenMatrix) AppendBinary(b []byte) ([]byte, error) {
	b = appendTokenHeader(b, m.dim, len(m.scale), len(m.q))
	for _, s := range m.scale {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
	}
	n := len(b)
	b = b[:n+len(m.q)]
	for i, v := range m.q {
		b[n+i] = byte(v)
	}
	return b, nil
}

// maxTokenRows and maxTokenDim bound decoded sizes so a corrupt header cannot ask
// for gigabytes.
const (
	maxTokenRows = 1 << 16
	maxTokenDim  = 1 << 12
)

// DecodeTokenMatrix decodes what AppendBinary wrote. Errors say which part is
// wrong; the caller adds the column family and key.
func DecodeTokenMatrix(b []byte) (TokenMatrix, error) {
	if len(b) == 0 {
		return TokenMatrix{}, fmt.Errorf("decode token matrix: empty value")
	}
	if b[0] != tokenFormatV1 {
		return TokenMatrix{}, fmt.Errorf("decode token matrix: format version %d, this build reads version %d", b[0], tokenFormatV1)
	}
	b = b[1:]
	dim, n := binary.Uvarint(b)
	if n <= 0 || dim == 0 || dim > maxTokenDim || n != uvarintLen(dim) {
		return TokenMatrix{}, fmt.Errorf("decode token matrix: bad width (varint status %d, value %d, limit %d)", n, dim, maxTokenDim)
	}
	b = b[n:]
	rows, n := binary.Uvarint(b)
	if n <= 0 || rows == 0 || rows > maxTokenRows || n != uvarintLen(rows) {
		return TokenMatrix{}, fmt.Errorf("decode token matrix: bad row count (varint status %d, value %d, limit %d)", n, rows, maxTokenRows)
	}
	b = b[n:]
	if want := rows*4 + rows*dim; uint64(len(b)) != want {
		return TokenMatrix{}, fmt.Errorf("decode token matrix: %d×%d matrix needs %d bytes after the header, value has %d", rows, dim, want, len(b))
	}
	m := TokenMatrix{dim: int(dim), scale: make([]float32, rows), q: make([]int8, rows*dim)}
	for r := range m.scale {
		s := math.Float32frombits(binary.LittleEndian.Uint32(b[4*r:]))
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) || s < 0 {
			return TokenMatrix{}, fmt.Errorf("decode token matrix: row %d scale is %v, want a finite value ≥ 0", r, s)
		}
		m.scale[r] = s
	}
	for i, v := range b[4*rows:] {
		m.q[i] = int8(v)
	}
	return m, nil
}

// uvarintLen is the length of v's canonical varint: a longer (padded)
// encoding of the same value is refused, so one matrix has one encoding
// (found by FuzzDecodeTokenMatrix: 0x81 0x00 is a second spelling of 1).
func uvarintLen(v uint64) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutUvarint(buf[:], v)
}

// TokenLoader fetches the quantized token matrix of a candidate; ok is false when
// the doc has none. The engine implements it over its column family; Late over
// memory.
type TokenLoader func(doc record.DocNum) (m TokenMatrix, ok bool, err error)

// MaxSim scores each candidate by Σ over query tokens of the maximum dot product
// with the candidate's (dequantized) tokens, and returns the scored candidates
// best first. Candidates the loader has no matrix for are not scored; they come
// back in missing (ascending, deduplicated) so the caller reports them — never
// silently dropped. A loader error stops the scoring and is returned wrapped.
// query is row-major with len(query) a positive multiple of dim; every matrix
// must have width dim. Cost: O(Σ tokens·dim·query rows) over the candidates.
func MaxSim(query []float32, dim int, candidates []record.DocNum, load TokenLoader) (hits Hits, missing []record.DocNum, err error) {
	if dim <= 0 || len(query) == 0 || len(query)%dim != 0 {
		return nil, nil, fmt.Errorf("MaxSim: query matrix has %d values, not a positive multiple of the token width %d", len(query), dim)
	}
	if err := checkVector("MaxSim: query", query, len(query), false); err != nil {
		return nil, nil, err
	}
	cands := slices.Clone(candidates)
	slices.Sort(cands)
	cands = slices.Compact(cands)
	// Load in order (the loader need not be safe for concurrent use), then
	// score on every core: the scoring is the cost.
	ms := make([]TokenMatrix, 0, len(cands))
	docs := make([]record.DocNum, 0, len(cands))
	for _, d := range cands {
		m, ok, err := load(d)
		if err != nil {
			return nil, nil, fmt.Errorf("MaxSim: load token matrix of doc %d: %w", d, err)
		}
		if !ok {
			missing = append(missing, d)
			continue
		}
		if m.dim != dim {
			return nil, nil, fmt.Errorf("MaxSim: doc %d has %d-wide tokens, the query %d-wide; the store was built by another model", d, m.dim, dim)
		}
		ms, docs = append(ms, m), append(docs, d)
	}
	hits = make(Hits, len(ms))
	workers := min(runtime.GOMAXPROCS(0), (len(ms)+maxSimChunk-1)/maxSimChunk)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf []float32
			for i := w; i < len(ms); i += workers {
				hits[i] = Hit{Doc: docs[i], Score: maxSimScore(query, dim, ms[i], &buf)}
			}
		})
	}
	wg.Wait()
	hits.SortByScore()
	return hits, missing, nil
}

// maxSimChunk is the fewest candidates worth a scoring goroutine.
const maxSimChunk = 16

// maxSimScore is Σ over the query's tokens of the best dot product with m's
// rows. buf is scratch space for m's rows as float32.
func maxSimScore(query []float32, dim int, m TokenMatrix, buf *[]float32) float32 {
	if cap(*buf) < len(m.q) {
		*buf = make([]float32, len(m.q))
	}
	dq := (*buf)[:len(m.q)]
	for i, v := range m.q { // one tight conversion pass; scales apply after the dot
		dq[i] = float32(v)
	}
	var sum float32
	for i := range len(query) / dim {
		qi := query[i*dim : (i+1)*dim]
		best := float32(math.Inf(-1))
		for r, s := range m.scale {
			if dot := s * vek32.Dot(qi, dq[r*dim:(r+1)*dim]); dot > best {
				best = dot
			}
		}
		sum += best
	}
	return sum
}
