package indexes

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

func TestTokenMatrixRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	data := randMatrix(rng, 9, 24)
	m, err := QuantizeTokens(24, data)
	must(t, err)
	b, err := m.AppendBinary(nil)
	must(t, err)
	if len(b) != 1+1+1+9*4+9*24 {
		t.Fatalf("encoded %d bytes, want %d", len(b), 1+1+1+9*4+9*24)
	}
	got, err := DecodeTokenMatrix(b)
	must(t, err)
	b2, _ := got.AppendBinary(nil)
	if !bytes.Equal(b, b2) || got.Rows() != 9 || got.Dim() != 24 {
		t.Fatal("decode(encode(m)) differs from m")
	}
	for r := range 9 {
		row := got.Row(r)
		for i, v := range row {
			if d := v - data[r*24+i]; d > m.scale[r]/2+1e-7 || d < -m.scale[r]/2-1e-7 {
				t.Fatalf("row %d value %d: dequantized %v, original %v, scale %v", r, i, v, data[r*24+i], m.scale[r])
			}
		}
	}
}

// TestTokenMatrixGolden pins format version 1 with a fixture that must keep
// decoding: a 2×3 matrix [[1, −0.5, 0], [0, 0, 0]].
func TestTokenMatrixGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/token_matrix_v1.hex")
	must(t, err)
	b, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	must(t, err)
	m, err := DecodeTokenMatrix(b)
	must(t, err)
	if m.Rows() != 2 || m.Dim() != 3 {
		t.Fatalf("fixture decodes to %d×%d, want 2×3", m.Rows(), m.Dim())
	}
	want, _ := QuantizeTokens(3, []float32{1, -0.5, 0, 0, 0, 0})
	enc, _ := want.AppendBinary(nil)
	if !bytes.Equal(enc, b) {
		t.Fatalf("encoding changed:\n got %x\nwant %x (fixture)", enc, b)
	}
}

func TestDecodeTokenMatrixErrors(t *testing.T) {
	good, _ := QuantizeTokens(2, []float32{1, 2})
	enc, _ := good.AppendBinary(nil)
	nanScale := append([]byte(nil), enc...)
	copy(nanScale[3:7], []byte{0, 0, 0xc0, 0x7f})
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "empty value"},
		{"version", append([]byte{9}, enc[1:]...), "format version 9"},
		{"zero width", []byte{1, 0, 1}, "bad width"},
		{"huge rows", []byte{1, 2, 0xff, 0xff, 0xff, 0xff, 0x0f}, "bad row count"},
		{"truncated", enc[:len(enc)-1], "needs 6 bytes"},
		{"trailing", append(append([]byte(nil), enc...), 0), "needs 6 bytes"},
		{"NaN scale", nanScale, "scale is NaN"},
	} {
		if _, err := DecodeTokenMatrix(c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func FuzzDecodeTokenMatrix(f *testing.F) {
	m, _ := QuantizeTokens(3, []float32{1, -0.5, 0, 0, 0, 0})
	enc, _ := m.AppendBinary(nil)
	f.Add(enc)
	f.Add([]byte{1, 1, 1, 0, 0, 0x80, 0x3f, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeTokenMatrix(b)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to the same bytes and scores without error.
		again, _ := m.AppendBinary(nil)
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoding %x gave %x", b, again)
		}
		q := make([]float32, m.Dim())
		q[0] = 1
		hits, _, err := MaxSim(q, m.Dim(), []record.DocNum{1}, func(record.DocNum) (TokenMatrix, bool, error) { return m, true, nil })
		if err != nil || len(hits) != 1 {
			t.Fatalf("MaxSim on a decoded matrix: %v, %v", hits, err)
		}
	})
}

func TestMaxSimLoader(t *testing.T) {
	m, _ := QuantizeTokens(2, []float32{1, 0, 0, 1})
	boom := errors.New("disk on fire")
	load := func(d record.DocNum) (TokenMatrix, bool, error) {
		switch d {
		case 1:
			return m, true, nil
		case 2:
			return TokenMatrix{}, false, nil
		case 3:
			w, _ := QuantizeTokens(3, []float32{1, 0, 0})
			return w, true, nil
		}
		return TokenMatrix{}, false, boom
	}
	hits, missing, err := MaxSim([]float32{1, 0, 0.5, 0.5}, 2, []record.DocNum{2, 1, 1}, load)
	must(t, err)
	// query tokens (1,0) and (.5,.5) against doc tokens (1,0), (0,1): 1 + 0.5.
	if len(hits) != 1 || hits[0].Doc != 1 || hits[0].Score != 1.5 || len(missing) != 1 || missing[0] != 2 {
		t.Fatalf("hits %v missing %v", hits, missing)
	}
	if _, _, err := MaxSim([]float32{1, 0}, 2, []record.DocNum{9}, load); !errors.Is(err, boom) {
		t.Errorf("loader error not wrapped: %v", err)
	}
	if _, _, err := MaxSim([]float32{1, 0}, 2, []record.DocNum{3}, load); err == nil || !strings.Contains(err.Error(), "3-wide tokens") {
		t.Errorf("width mismatch: %v", err)
	}
}

// TestQuantizeTokensRows checks QuantizeTokens against the definition
// (scale max|row|/127, math.Round of value/scale) on real-shaped data,
// ties at .5 included, and its refusal of a non-finite value, named by
// its place in the whole matrix.
func TestQuantizeTokensRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim = 128
	data := make([]float32, 40*dim)
	for i := range data {
		data[i] = float32(rng.NormFloat64())
	}
	copy(data[dim:], []float32{127, 0.5, -0.5, 1.5, -1.5, 63.5}) // scale 1: exact ties
	clear(data[2*dim : 3*dim])                                   // an all-zero row
	m, err := QuantizeTokens(dim, data)
	if err != nil {
		t.Fatal(err)
	}
	for r := range m.Rows() {
		row := data[r*dim : (r+1)*dim]
		var mx float32
		for _, e := range row {
			mx = max(mx, float32(math.Abs(float64(e))))
		}
		s := mx / 127
		if m.scale[r] != s {
			t.Fatalf("row %d: scale %v, want %v", r, m.scale[r], s)
		}
		for i, e := range row {
			want := int8(0)
			if s != 0 {
				want = int8(math.Round(float64(e / s)))
			}
			if got := m.q[r*dim+i]; got != want {
				t.Fatalf("row %d value %d (%v): %d, want %d", r, i, e, got, want)
			}
		}
	}
	if got := m.q[dim : dim+6]; !slices.Equal(got, []int8{127, 1, -1, 2, -2, 64}) {
		t.Errorf("ties round to %v, want half away from zero", got)
	}
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
		d := slices.Clone(data)
		d[5*dim+7] = bad
		if _, err := QuantizeTokens(dim, d); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("element %d is", 5*dim+7)) {
			t.Errorf("%v at %d: err %v", bad, 5*dim+7, err)
		}
	}
}

// FuzzQuantizeMatchesDefinition checks the branch-free maxAbs and
// quantizeInto against the definition (max of math.Abs; math.Round of
// value/scale) on arbitrary float32 bit patterns: signed zeros,
// subnormals, exact ties and values near the float32 limits. A row whose
// scale underflows to 0 while its maximum is not 0 (a maximum below ~1e-43)
// has no defined quantisation and is skipped.
func FuzzQuantizeMatchesDefinition(f *testing.F) {
	seed := func(vs ...float32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return b
	}
	f.Add(seed(127, 0.5, -0.5, 1.5, -1.5, 63.5, float32(math.Copysign(0, -1))))
	f.Add(seed(-3, 2, -1, 0))
	f.Add(seed(math.MaxFloat32, -math.MaxFloat32, 1e-30, -1e-38))
	f.Add(seed(float32(math.NaN()), 1))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v := make([]float32, len(raw)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		var want float32
		finite := true
		for _, e := range v {
			a := float32(math.Abs(float64(e)))
			if math.IsNaN(float64(e)) || math.IsInf(float64(e), 0) {
				finite = false
			} else {
				want = max(want, a)
			}
		}
		mx, ok := maxAbs(v)
		if ok != finite || (ok && math.Float32bits(mx) != math.Float32bits(want)) {
			t.Fatalf("maxAbs(%v) = %v, %v; want %v, %v", v, mx, ok, want, finite)
		}
		if !ok || (want != 0 && want/127 == 0) {
			return
		}
		q := make([]int8, len(v))
		s := quantizeInto(q, v, mx)
		if s != want/127 {
			t.Fatalf("scale %v, want %v", s, want/127)
		}
		for i, e := range v {
			w := int8(0)
			if s != 0 {
				w = int8(math.Round(float64(e / s)))
			}
			if q[i] != w {
				t.Fatalf("value %d (%v, scale %v): %d, want %d", i, e, s, q[i], w)
			}
		}
	})
}

// BenchmarkQuantizeTokens quantizes one E12 matrix of a ~200-token code
// memory (the write path's encoding, issue 33).
func BenchmarkQuantizeTokens(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]float32, 205*128)
	for i := range data {
		data[i] = float32(rng.NormFloat64())
	}
	for b.Loop() {
		if _, err := QuantizeTokens(128, data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppendQuantized checks that AppendQuantized writes what
// QuantizeTokens then AppendBinary write, after what b held, and that a
// refusal appends nothing.
func TestAppendQuantized(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range [][2]int{{1, 1}, {3, 8}, {205, 128}, {300, 130}} {
		rows, dim := shape[0], shape[1]
		data := make([]float32, rows*dim)
		for i := range data {
			data[i] = float32(rng.NormFloat64())
		}
		m, err := QuantizeTokens(dim, data)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := m.AppendBinary([]byte("head"))
		got, err := AppendQuantized([]byte("head"), dim, data)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%dx%d: AppendQuantized differs from QuantizeTokens+AppendBinary (err %v)", rows, dim, err)
		}
		data[len(data)-1] = float32(math.NaN())
		if got, err := AppendQuantized([]byte("head"), dim, data); err == nil || string(got) != "head" {
			t.Errorf("%dx%d with a NaN: %q, %v; want the refusal and nothing appended", rows, dim, got, err)
		}
	}
	if _, err := AppendQuantized(nil, 0, []float32{1}); err == nil {
		t.Error("width 0 accepted")
	}
}
