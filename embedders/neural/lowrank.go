package neural

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cgraph/cgraph/models/convert"
)

// lowRankFile is a low-rank (LoRA) update of one ONNX model's weight
// matrices: for each named float32 initializer W [In, Out] (the right-hand
// side of a MatMul, as the langchain4j/Xenova exports store x·W), the merged
// model holds W + A·B, with A [In, Rank] and B [Rank, Out] (any scale folded
// into B). Base is the sha256 of the ONNX file it was fitted on; merging it
// into another file is refused, since initializer names and values differ
// between exports and precisions.
type lowRankFile struct {
	Base    [32]byte
	Updates []lowRank
}

// lowRank is one matrix's update.
type lowRank struct {
	Name          string
	In, Out, Rank int
	A, B          []float32 // In×Rank and Rank×Out, row-major
}

// lowRankMagic starts the file: "CGLORA", format version 1.
//
// Layout (little endian): magic, the base ONNX sha256 (32 bytes), uint32
// count, then per update uint16 name length, the name, uint32 In, Out,
// Rank, and A then B as IEEE 754 half floats (row-major). Half precision
// keeps the shipped file small; the fitter evaluates the rounded values.
const lowRankMagic = "CGLORA\x01"

// maxLowRankDim bounds In, Out and Rank so that a corrupt header cannot ask
// for gigabytes.
const maxLowRankDim = 1 << 16

func parseLowRank(data []byte) (lowRankFile, error) {
	var f lowRankFile
	if !bytes.HasPrefix(data, []byte(lowRankMagic)) {
		return f, fmt.Errorf("low-rank update: bad magic (want %q)", lowRankMagic)
	}
	r := bytes.NewReader(data[len(lowRankMagic):])
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &f.Base); err != nil {
		return f, fmt.Errorf("low-rank update: base sha256: %w", err)
	}
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return f, fmt.Errorf("low-rank update: count: %w", err)
	}
	if n == 0 || int(n) > r.Len()/14 { // an update takes at least 14 bytes
		return f, fmt.Errorf("low-rank update: %d updates do not fit %d bytes", n, r.Len())
	}
	seen := map[string]bool{}
	for k := range int(n) {
		var nl uint16
		if err := binary.Read(r, binary.LittleEndian, &nl); err != nil {
			return f, fmt.Errorf("low-rank update %d: name length: %w", k, err)
		}
		name := make([]byte, nl)
		if _, err := r.Read(name); err != nil || nl == 0 {
			return f, fmt.Errorf("low-rank update %d: name of %d bytes: %v", k, nl, err)
		}
		var dims [3]uint32
		if err := binary.Read(r, binary.LittleEndian, &dims); err != nil {
			return f, fmt.Errorf("low-rank update %q: dims: %w", name, err)
		}
		u := lowRank{Name: string(name), In: int(dims[0]), Out: int(dims[1]), Rank: int(dims[2])}
		if u.In == 0 || u.Out == 0 || u.Rank == 0 || u.In > maxLowRankDim || u.Out > maxLowRankDim || u.Rank > maxLowRankDim {
			return f, fmt.Errorf("low-rank update %q: dims %d×%d rank %d", u.Name, u.In, u.Out, u.Rank)
		}
		if seen[u.Name] {
			return f, fmt.Errorf("low-rank update %q appears twice", u.Name)
		}
		seen[u.Name] = true
		na, nb := u.In*u.Rank, u.Rank*u.Out
		if r.Len() < 2*(na+nb) {
			return f, fmt.Errorf("low-rank update %q: %d×%d rank %d needs %d bytes, %d left", u.Name, u.In, u.Out, u.Rank, 2*(na+nb), r.Len())
		}
		half := make([]uint16, na+nb)
		if err := binary.Read(r, binary.LittleEndian, half); err != nil {
			return f, fmt.Errorf("low-rank update %q: values: %w", u.Name, err)
		}
		vals := make([]float32, len(half))
		for i, h := range half {
			if vals[i] = halfToFloat(h); math.IsNaN(float64(vals[i])) || math.IsInf(float64(vals[i]), 0) {
				return f, fmt.Errorf("low-rank update %q: value %d is not finite", u.Name, i)
			}
		}
		u.A, u.B = vals[:na], vals[na:]
		f.Updates = append(f.Updates, u)
	}
	if r.Len() != 0 {
		return f, fmt.Errorf("low-rank update: %d bytes after the last update", r.Len())
	}
	return f, nil
}

// patches gives convert.PatchFloats one patch per update: W += A·B, after
// checking W's dims are [In, Out].
func (f lowRankFile) patches() map[string]convert.FloatPatch {
	ps := make(map[string]convert.FloatPatch, len(f.Updates))
	for _, u := range f.Updates {
		ps[u.Name] = func(dims []int64, w []float32) error {
			if len(dims) != 2 || dims[0] != int64(u.In) || dims[1] != int64(u.Out) {
				return fmt.Errorf("dims %v, the update is %d×%d", dims, u.In, u.Out)
			}
			for i := range u.In {
				row := w[i*u.Out : (i+1)*u.Out]
				for r, a := range u.A[i*u.Rank : (i+1)*u.Rank] {
					if a == 0 {
						continue
					}
					for j, b := range u.B[r*u.Out : (r+1)*u.Out] {
						row[j] += a * b
					}
				}
			}
			return nil
		}
	}
	return ps
}

// merge adds every update to base, the bytes of the ONNX file the
// updates were fitted on (sum is their sha256, which must be Base), in
// place. On an error base may be partly patched: discard it.
func (f lowRankFile) merge(base []byte, sum [32]byte) error {
	if sum != f.Base {
		return fmt.Errorf("low-rank update fitted on the ONNX file with sha256 %x, not %x", f.Base[:6], sum[:6])
	}
	return convert.PatchFloats(base, f.patches())
}

// halfToFloat converts IEEE 754 binary16 bits to a float32.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: normalise
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
