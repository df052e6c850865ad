package neural

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/models/convert"
)

// encodeLowRank writes f in the layout parseLowRank reads, rounding the
// values to half precision (tests only: the shipped file is written by
// scripts/e7tune/export.py).
func encodeLowRank(f lowRankFile) []byte {
	b := append([]byte(lowRankMagic), f.Base[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(f.Updates)))
	for _, u := range f.Updates {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(u.Name)))
		b = append(b, u.Name...)
		for _, d := range []int{u.In, u.Out, u.Rank} {
			b = binary.LittleEndian.AppendUint32(b, uint32(d))
		}
		for _, v := range append(append([]float32(nil), u.A...), u.B...) {
			b = binary.LittleEndian.AppendUint16(b, floatToHalf(v))
		}
	}
	return b
}

// floatToHalf converts a float32 of half range to binary16, truncating the
// mantissa: exact for every value halfToFloat gives.
func floatToHalf(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	switch {
	case f == 0:
		return sign
	case math.IsNaN(float64(f)):
		return 0x7e00
	case math.IsInf(float64(f), 0):
		return sign | 0x7c00
	case math.Abs(float64(f)) < 0x1p-14: // a subnormal half: a multiple of 2⁻²⁴
		return sign | uint16(math.Abs(float64(f))/0x1p-24)
	}
	exp := int((bits>>23)&0xff) - 127 + 15
	return sign | uint16(exp)<<10 | uint16((bits>>13)&0x3ff)
}

func tinyLowRank(base [32]byte) lowRankFile {
	return lowRankFile{Base: base, Updates: []lowRank{
		{Name: "W", In: 3, Out: 2, Rank: 1, A: []float32{1, 0, -2}, B: []float32{0.5, 0.25}},
		{Name: "V", In: 2, Out: 2, Rank: 2, A: []float32{1, 2, 3, 4}, B: []float32{1, 0, 0, 1}},
	}}
}

func TestHalfToFloat(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3800, 0.5}, {0x7bff, 65504},
		{0x0001, float32(math.Ldexp(1, -24))}, {0x0200, float32(math.Ldexp(1, -15))}, {0x3555, 0.333251953125},
	} {
		if got := halfToFloat(c.h); got != c.want {
			t.Errorf("halfToFloat(%#04x) = %g, want %g", c.h, got, c.want)
		}
	}
	if !math.IsInf(float64(halfToFloat(0x7c00)), 1) || !math.IsNaN(float64(halfToFloat(0x7e00))) {
		t.Error("half inf/NaN not decoded as inf/NaN")
	}
}

func TestParseLowRank(t *testing.T) {
	base := sha256.Sum256([]byte("base"))
	good := encodeLowRank(tinyLowRank(base))
	f, err := parseLowRank(good)
	if err != nil {
		t.Fatal(err)
	}
	if f.Base != base || len(f.Updates) != 2 || f.Updates[1].Name != "V" || fmt.Sprint(f.Updates[0].A, f.Updates[0].B) != "[1 0 -2] [0.5 0.25]" {
		t.Fatalf("round trip gave %+v", f)
	}
	nan := tinyLowRank(base)
	nan.Updates[0].B[1] = float32(math.NaN())
	dup := tinyLowRank(base)
	dup.Updates[1].Name = "W"
	zero := tinyLowRank(base)
	zero.Updates[0].Rank, zero.Updates[0].A = 0, nil
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"magic", append([]byte("CGLORA\x02"), good[7:]...), "bad magic"},
		{"empty", nil, "bad magic"},
		{"no count", good[:7+32+2], "count"},
		{"zero updates", append(append([]byte(lowRankMagic), base[:]...), 0, 0, 0, 0), "0 updates"},
		{"huge count", append(append([]byte(lowRankMagic), base[:]...), 0xff, 0xff, 0xff, 0x7f), "do not fit"},
		{"truncated values", good[:len(good)-3], "needs"},
		{"trailing", append(append([]byte(nil), good...), 0), "after the last update"},
		{"not finite", encodeLowRank(nan), "not finite"},
		{"duplicate", encodeLowRank(dup), "appears twice"},
		{"zero rank", encodeLowRank(zero), "rank 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := parseLowRank(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func FuzzParseLowRank(f *testing.F) {
	f.Add(encodeLowRank(tinyLowRank([32]byte{1})))
	f.Add([]byte(lowRankMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		lf, err := parseLowRank(b)
		if err != nil {
			return
		}
		for _, u := range lf.Updates {
			if len(u.A) != u.In*u.Rank || len(u.B) != u.Rank*u.Out {
				t.Fatalf("update %q: %d×%d rank %d with %d and %d values", u.Name, u.In, u.Out, u.Rank, len(u.A), len(u.B))
			}
		}
		if !bytes.Equal(encodeLowRank(lf), b) {
			t.Fatal("a parsed file does not encode back to its bytes")
		}
	})
}

// TestLowRankMerge merges the tiny update into a graph holding W [3,2] and
// V [2,2] and reads the initializers back: each is W + A·B; a base of
// another sha256 or a W of other dims is refused.
func TestLowRankMerge(t *testing.T) {
	w, v := []float32{1, 2, 3, 4, 5, 6}, []float32{0, 0, 0, 0}
	model := func(wDims []int64) []byte {
		md := &convert.Model{IRVersion: 8, Opset: 17, Graph: &convert.Graph{Name: "g",
			Nodes: []*convert.Node{
				{Name: "a", OpType: "MatMul", Inputs: []string{"x", "W"}, Outputs: []string{"h"}},
				{Name: "b", OpType: "MatMul", Inputs: []string{"h", "V"}, Outputs: []string{"y"}},
			},
			Initializers: []*convert.Tensor{convert.FloatTensor("W", wDims, w), convert.FloatTensor("V", []int64{2, 2}, v)},
			Inputs:       []convert.ValueInfo{{Name: "x", Elem: convert.Float, Shape: []convert.Dim{{Value: 1}, {Value: 3}}}},
			Outputs:      []convert.ValueInfo{{Name: "y", Elem: convert.Float, Shape: []convert.Dim{{Value: 1}, {Value: 2}}}},
		}}
		var b bytes.Buffer
		if _, err := md.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	base := model([]int64{3, 2})
	sum := sha256.Sum256(base)
	f := tinyLowRank(sum)
	merged := bytes.Clone(base)
	if err := f.merge(merged, sum); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	read := func(name string) convert.FloatPatch {
		return func(_ []int64, x []float32) error { got[name] = fmt.Sprint(x); return nil }
	}
	if err := convert.PatchFloats(merged, map[string]convert.FloatPatch{"W": read("W"), "V": read("V")}); err != nil {
		t.Fatal(err)
	}
	// W + [1 0 -2]ᵀ·[0.5 0.25]; V + [[1 2] [3 4]]·I
	if got["W"] != "[1.5 2.25 3 4 4 5.5]" || got["V"] != "[1 2 3 4]" {
		t.Errorf("merged W %s, V %s; want [1.5 2.25 3 4 4 5.5] and [1 2 3 4]", got["W"], got["V"])
	}
	if err := tinyLowRank(sha256.Sum256([]byte("other"))).merge(bytes.Clone(base), sum); err == nil || !strings.Contains(err.Error(), "fitted on the ONNX file") {
		t.Errorf("merge into another file: %v", err)
	}
	other := model([]int64{2, 3})
	if err := tinyLowRank(sha256.Sum256(other)).merge(other, sha256.Sum256(other)); err == nil || !strings.Contains(err.Error(), "dims [2 3]") {
		t.Errorf("merge into a W of other dims: %v", err)
	}
}

// BenchmarkTuneMerge is what a tuned slot's first query costs before its
// session opens, past reading the file: hashing the installed fp32 file
// and adding the shipped update to its matrices in place — E7's 36 of
// MiniLM's, E1's 72 of e5's (go test ./embedders/neural -run '^$' -bench TuneMerge).
func BenchmarkTuneMerge(b *testing.B) {
	l, err := newLoader(Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, tf := range tuneFiles {
		b.Run(tf.name, func(b *testing.B) {
			lm, why, err := l.get(tf.model)
			if err != nil || lm == nil {
				b.Skipf("%s not installed: %v %s", tf.model, err, why)
			}
			f, err := tf.parse()
			if err != nil {
				b.Fatal(err)
			}
			data, err := os.ReadFile(lm.rc.ONNXPath)
			if err != nil {
				b.Fatal(err)
			}
			orig := bytes.Clone(data)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				// What derive does: hash the installed file (the
				// manifest's check, which merge reuses), then patch its
				// bytes in place.
				sum := sha256.Sum256(data)
				if err := f.merge(data, sum); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				copy(data, orig)
				b.StartTimer()
			}
		})
	}
}
