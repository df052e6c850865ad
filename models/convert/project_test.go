package convert

import (
	"bytes"
	"math"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/cgraph/cgraph/models/runtime"
)

// tokenModel is h = x·W, x [batch, tokens, 3] → h [batch, tokens, 4]: a
// stand-in for an encoder's token states.
func tokenModel(t testing.TB) []byte {
	t.Helper()
	md := &Model{IRVersion: 8, Opset: 17, ProducerName: "project_test", Graph: &Graph{
		Name:         "tokens",
		Nodes:        []*Node{{Name: "mm", OpType: "MatMul", Inputs: []string{"x", "W"}, Outputs: []string{"h"}}},
		Initializers: []*Tensor{FloatTensor("W", []int64{3, 4}, []float32{1, 0, 2, -1, 0, 1, 1, 3, 0.5, -2, 0, 1})},
		Inputs:       []ValueInfo{{Name: "x", Elem: Float, Shape: []Dim{{Param: "batch"}, {Param: "tokens"}, {Value: 3}}}},
		Outputs:      []ValueInfo{{Name: "h", Elem: Float, Shape: []Dim{{Param: "batch"}, {Param: "tokens"}, {Value: 4}}}},
	}}
	var b bytes.Buffer
	if _, err := md.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// runOutputs runs model on x [B, T, 3] and returns the named outputs.
func runOutputs(t testing.TB, model []byte, B, T int, x []float32, names ...string) [][]float32 {
	t.Helper()
	if err := runtime.Initialize(""); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, []string{"x"}, names, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	in, err := ort.NewTensor(ort.NewShape(int64(B), int64(T), 3), x)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Destroy()
	out := make([]ort.Value, len(names))
	if err := s.Run([]ort.Value{in}, out); err != nil {
		t.Fatal(err)
	}
	res := make([][]float32, len(names))
	for i, v := range out {
		res[i] = append([]float32(nil), v.(*ort.Tensor[float32]).GetData()...)
		v.Destroy()
	}
	return res
}

var testProjection = Projection{In: 4, Out: 2,
	Mean:       []float32{0.5, -1, 0, 2},
	Components: []float32{1, 0, -1, 0.5, 0, 2, 1, -1}, // 2×4
}

// TestAddProjectionRuns checks that the new output is (h − mean)·Cᵀ per
// token, as computed here, that h is bit for bit what the model gave
// before, and that the same arguments give the same bytes.
func TestAddProjectionRuns(t *testing.T) {
	model := tokenModel(t)
	p := testProjection
	patched, err := AddProjection(model, "h", "tokens_p", p)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := AddProjection(model, "h", "tokens_p", p)
	if !bytes.Equal(patched, again) {
		t.Error("two calls gave different bytes")
	}
	const B, T = 2, 3
	x := make([]float32, B*T*3)
	for i := range x {
		x[i] = float32(math.Sin(float64(i) * 1.7))
	}
	before := runOutputs(t, model, B, T, x, "h")[0]
	got := runOutputs(t, patched, B, T, x, "h", "tokens_p")
	if !equalBits(got[0], before) {
		t.Errorf("h changed: %v, was %v", got[0], before)
	}
	if len(got[1]) != B*T*p.Out {
		t.Fatalf("projection has %d values, want %d", len(got[1]), B*T*p.Out)
	}
	for tok := range B * T {
		h := before[tok*p.In : (tok+1)*p.In]
		for j := range p.Out {
			var want float64
			for k := range p.In {
				want += float64(h[k]-p.Mean[k]) * float64(p.Components[j*p.In+k])
			}
			if g := got[1][tok*p.Out+j]; math.Abs(float64(g)-want) > 1e-5 {
				t.Errorf("token %d component %d: %v, want %v", tok, j, g, want)
			}
		}
	}
}

func equalBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func TestAddProjectionRefuses(t *testing.T) {
	model := tokenModel(t)
	wide := testProjection
	wide.In, wide.Mean, wide.Components = 3, wide.Mean[:3], wide.Components[:6]
	short := testProjection
	short.Mean = short.Mean[:3]
	for _, tc := range []struct {
		name, input, output string
		model               []byte
		p                   Projection
		want                string
	}{
		{"no such output", "x2", "tokens_p", model, testProjection, `no output "x2"`},
		{"an input, not an output", "x", "tokens_p", model, testProjection, `no output "x"`},
		{"width", "h", "tokens_p", model, wide, "is 4 wide, the projection takes 3"},
		{"sizes", "h", "tokens_p", model, short, "3 means"},
		{"taken by an initializer", "h", "W", model, testProjection, `already has a value named "W"`},
		{"taken by a node", "h", "h", model, testProjection, "give a new name"},
		{"empty name", "h", "", model, testProjection, "give a new name"},
		{"garbage", "h", "tokens_p", []byte{0xff, 0xff, 0xff}, testProjection, "model"},
		{"no graph", "h", "tokens_p", []byte{0x08, 0x08}, testProjection, "0 graphs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := bytes.Clone(tc.model)
			_, err := AddProjection(tc.model, tc.input, tc.output, tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one saying %q", err, tc.want)
			}
			if !bytes.Equal(before, tc.model) {
				t.Error("the model's bytes changed")
			}
		})
	}
}

// FuzzAddProjection: any bytes give an error or a model whose graph
// now names the projection, never a panic, and the input is never
// changed.
func FuzzAddProjection(f *testing.F) {
	f.Add(tokenModel(f))
	f.Add([]byte{0x3a, 0x02, 0x62, 0x00})
	f.Fuzz(func(t *testing.T, model []byte) {
		before := bytes.Clone(model)
		out, err := AddProjection(model, "h", "tokens_p", testProjection)
		if !bytes.Equal(before, model) {
			t.Fatal("the model's bytes changed")
		}
		if err != nil {
			return
		}
		names, width, err := graphNamesOf(out, "tokens_p")
		if err != nil || width != int64(testProjection.Out) || !names["tokens_p/centered"] {
			t.Fatalf("patched model does not declare the projection: width %d, err %v", width, err)
		}
	})
}

// graphNamesOf is graphNames over a whole model's one graph.
func graphNamesOf(model []byte, output string) (map[string]bool, int64, error) {
	var names map[string]bool
	var width int64
	err := eachField(model, func(num protowire.Number, v []byte) error {
		if num != modelGraph {
			return nil
		}
		var err error
		names, width, err = graphNames(v, output)
		return err
	})
	return names, width, err
}
