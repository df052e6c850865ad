package convert

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// namedTensor is one float32 tensor for encodeSafetensors.
type namedTensor struct {
	name  string
	shape []int64
	data  []float32
}

// encodeSafetensors writes tensors in the given order as a safetensors file
// image: u64 header length, JSON header, little-endian data.
func encodeSafetensors(t testing.TB, ts []namedTensor) []byte {
	t.Helper()
	hdr := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var data []byte
	for _, x := range ts {
		begin := len(data)
		for _, v := range x.data {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
		}
		shape := x.shape
		if shape == nil {
			shape = []int64{}
		}
		hdr[x.name] = map[string]any{"dtype": "F32", "shape": shape, "data_offsets": []int{begin, len(data)}}
	}
	js, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	return append(append(out, js...), data...)
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSafetensorsRoundTrip(t *testing.T) {
	img := encodeSafetensors(t, []namedTensor{
		{"b", []int64{2, 3}, []float32{1, 2, 3, 4, 5, -6.5}},
		{"a", []int64{1}, []float32{float32(math.Inf(-1))}},
		{"empty", []int64{0, 4}, nil},
	})
	st, err := OpenSafetensors(writeFile(t, t.TempDir(), "m.safetensors", img))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if names := []string{st.Tensors[0].Name, st.Tensors[1].Name, st.Tensors[2].Name}; !slices.Equal(names, []string{"a", "b", "empty"}) {
		t.Errorf("tensors not sorted by name: %v", names)
	}
	if st.Metadata["format"] != "pt" {
		t.Errorf("metadata = %v", st.Metadata)
	}
	data, shape, err := st.Float32("b")
	if err != nil || !slices.Equal(shape, []int64{2, 3}) || !slices.Equal(data, []float32{1, 2, 3, 4, 5, -6.5}) {
		t.Fatalf("b = %v %v %v", data, shape, err)
	}
	if _, _, err := st.Float32("missing"); err == nil || !strings.Contains(err.Error(), `no tensor "missing"`) {
		t.Errorf("missing tensor: %v", err)
	}
}

func TestParseHeaderRejects(t *testing.T) {
	cases := []struct{ name, js, want string }{
		{"not json", `{"a":`, "unexpected end"},
		{"unknown dtype", `{"a":{"dtype":"F12","shape":[1],"data_offsets":[0,4]}}`, "unknown dtype"},
		{"size mismatch", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, "needs 8 bytes"},
		{"gap", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, "starts at byte 4, want 0"},
		{"overlap", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, "want 4"},
		{"short data", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, "cover 4 bytes of data, the file holds 8"},
		{"negative dim", `{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, "negative dimension"},
		{"reversed offsets", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}`, "0 <= begin <= end"},
		{"unknown field", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}}`, "unknown field"},
		{"overflow", `{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, "too many elements"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dataLen := int64(4)
			if c.name == "short data" {
				dataLen = 8
			}
			_, err := ParseHeader([]byte(c.js), dataLen)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestOpenSafetensorsRejectsBadLength(t *testing.T) {
	dir := t.TempDir()
	huge := binary.LittleEndian.AppendUint64(nil, 1<<40)
	for name, img := range map[string][]byte{
		"huge":  append(huge, `{}`...),
		"short": {1, 2, 3},
		"array": append(binary.LittleEndian.AppendUint64(nil, 2), `[]`...),
	} {
		if _, err := OpenSafetensors(writeFile(t, dir, name, img)); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}

func TestFloat32RefusesOtherDTypes(t *testing.T) {
	js := `{"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`
	img := append(binary.LittleEndian.AppendUint64(nil, uint64(len(js))), js...)
	st, err := OpenSafetensors(writeFile(t, t.TempDir(), "h.safetensors", append(img, 0, 0, 0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := st.Float32("h"); err == nil || !strings.Contains(err.Error(), "only F32") {
		t.Fatalf("F16 tensor: %v", err)
	}
}

// FuzzParseHeader: any header ParseHeader accepts describes tensors whose
// byte ranges lie inside the data and match their shapes.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`), int64(4))
	f.Add([]byte(`{"__metadata__":{"format":"pt"},"w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]},"b":{"dtype":"I64","shape":[],"data_offsets":[8,16]}}`), int64(16))
	f.Add([]byte(`{}`), int64(0))
	f.Add([]byte(`{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}`), int64(0))
	f.Fuzz(func(t *testing.T, js []byte, dataLen int64) {
		h, err := ParseHeader(js, dataLen)
		if err != nil {
			return
		}
		var covered int64
		for _, ti := range h.Tensors {
			n, err := numElements(ti.Shape)
			if err != nil {
				t.Fatalf("accepted shape %v: %v", ti.Shape, err)
			}
			if ti.Begin < 0 || ti.End > dataLen || ti.End-ti.Begin != n*dtypeSizes[ti.DType] {
				t.Fatalf("accepted tensor %+v with %d bytes of data", ti, dataLen)
			}
			covered += ti.End - ti.Begin
		}
		if covered != dataLen {
			t.Fatalf("accepted tensors covering %d of %d bytes", covered, dataLen)
		}
	})
}
