package convert

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/cgraph/cgraph/models/runtime"
)

// matMulModel is y = x·W + b with W [3, 2] and b [2] as initializers, and
// one more initializer, an int64 the patch must leave alone.
func matMulModel(t testing.TB, w []float32) []byte {
	t.Helper()
	md := &Model{IRVersion: 8, Opset: 17, ProducerName: "patch_test", Graph: &Graph{
		Name: "mm",
		Nodes: []*Node{
			{Name: "mm", OpType: "MatMul", Inputs: []string{"x", "W"}, Outputs: []string{"xw"}},
			{Name: "add", OpType: "Add", Inputs: []string{"xw", "b"}, Outputs: []string{"y"}},
		},
		Initializers: []*Tensor{
			FloatTensor("W", []int64{3, 2}, w),
			FloatTensor("b", []int64{2}, []float32{0.5, -0.5}),
			Int64Tensor("unused", []int64{1}, []int64{7}),
		},
		Inputs:  []ValueInfo{{Name: "x", Elem: Float, Shape: []Dim{{Param: "batch"}, {Value: 3}}}},
		Outputs: []ValueInfo{{Name: "y", Elem: Float, Shape: []Dim{{Param: "batch"}, {Value: 2}}}},
	}}
	var b bytes.Buffer
	if _, err := md.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// runMatMul runs model on x [1, 3] through ONNX Runtime.
func runMatMul(t testing.TB, model []byte, x []float32) []float32 {
	t.Helper()
	if err := runtime.Initialize(""); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, []string{"x"}, []string{"y"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	in, err := ort.NewTensor(ort.NewShape(1, 3), x)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Destroy()
	out := []ort.Value{nil}
	if err := s.Run([]ort.Value{in}, out); err != nil {
		t.Fatal(err)
	}
	defer out[0].Destroy()
	return append([]float32(nil), out[0].(*ort.Tensor[float32]).GetData()...)
}

func TestPatchFloatsChangesWhatRuns(t *testing.T) {
	w := []float32{1, 2, 3, 4, 5, 6}
	model := matMulModel(t, w)
	x := []float32{1, 10, 100}
	if got := fmt.Sprint(runMatMul(t, model, x)); got != "[531.5 641.5]" {
		t.Fatalf("unpatched model gives %s", got)
	}
	var sawDims []int64
	patched := bytes.Clone(model)
	err := PatchFloats(patched, map[string]FloatPatch{"W": func(dims []int64, v []float32) error {
		sawDims = dims
		v[1] += 1  // W[0][1]
		v[4] -= 10 // W[2][0]
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sawDims) != "[3 2]" {
		t.Errorf("patch saw dims %v, want [3 2]", sawDims)
	}
	// y0 = 1·1 + 10·3 + 100·(5−10) + 0.5; y1 = 1·(2+1) + 10·4 + 100·6 − 0.5
	if got := fmt.Sprint(runMatMul(t, patched, x)); got != "[-468.5 642.5]" {
		t.Errorf("patched model gives %s, want [-468.5 642.5]", got)
	}
	// The same patch gives the same bytes; a no-op patch leaves the model as it was.
	again := bytes.Clone(model)
	if err := PatchFloats(again, map[string]FloatPatch{"W": func(_ []int64, v []float32) error { v[1] += 1; v[4] -= 10; return nil }}); err != nil || !bytes.Equal(again, patched) {
		t.Errorf("patching twice gave different bytes (err %v)", err)
	}
	same := bytes.Clone(model)
	if err := PatchFloats(same, map[string]FloatPatch{"b": func([]int64, []float32) error { return nil }}); err != nil || !bytes.Equal(same, model) {
		t.Errorf("a patch that changes nothing changed the model (err %v)", err)
	}
}

func TestPatchFloatsRefuses(t *testing.T) {
	model := matMulModel(t, []float32{1, 2, 3, 4, 5, 6})
	noop := func([]int64, []float32) error { return nil }
	for _, c := range []struct {
		name    string
		model   []byte
		patches map[string]FloatPatch
		want    string
		intact  bool // refused before any patch ran: the bytes are as they were
	}{
		{"missing", model, map[string]FloatPatch{"W": noop, "nope": noop, "also": noop}, "no initializer named also, nope", true},
		{"not float", model, map[string]FloatPatch{"unused": noop}, `"unused" has data type 7`, true},
		{"patch error", model, map[string]FloatPatch{"W": func([]int64, []float32) error { return fmt.Errorf("shape") }}, `"W": shape`, false},
		{"truncated", model[:len(model)-9], map[string]FloatPatch{"W": noop}, "patch onnx", true},
		{"garbage", []byte{0xff, 0xff, 0xff}, map[string]FloatPatch{"W": noop}, "patch onnx", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Clone(c.model)
			err := PatchFloats(b, c.patches)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v; want one containing %q", err, c.want)
			}
			if c.intact && !bytes.Equal(b, c.model) {
				t.Error("a refused patch changed the model's bytes")
			}
		})
	}
}

// FuzzPatchFloats: any bytes give a model or an error, never a panic, and a
// successful patch of a float initializer keeps the rest of the bytes.
func FuzzPatchFloats(f *testing.F) {
	f.Add(matMulModel(f, []float32{1, 2, 3, 4, 5, 6}))
	f.Add([]byte{0x3a, 0x02, 0x2a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		orig := bytes.Clone(b)
		err := PatchFloats(b, map[string]FloatPatch{"W": func(_ []int64, v []float32) error {
			for i := range v {
				v[i] = 0
			}
			return nil
		}})
		if err != nil && !bytes.Equal(b, orig) { // the patch never fails: any error is a refusal
			t.Fatalf("refused (%v) but changed the bytes", err)
		}
	})
}
