package runtime

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestSignatureMatchesONNXRuntime: for every tiny model, what signature
// reads from the protobuf is what an ONNX Runtime session reports.
func TestSignatureMatchesONNXRuntime(t *testing.T) {
	if err := initRuntime(LibraryPathFor(DeviceCPU)); err != nil {
		t.Skip(err)
	}
	paths, err := filepath.Glob("testdata/tiny/*.onnx")
	if err != nil || len(paths) < 3 {
		t.Fatalf("tiny models: %v %v", paths, err)
	}
	for _, id := range []string{"e5-small-v2", "e5-small-v2-q", "all-minilm-l6-v2"} { // real ones where installed
		for _, dir := range modelDirs(id) {
			if p := filepath.Join(dir, "model.onnx"); fileExists(p) {
				paths = append(paths, p)
				break
			}
		}
	}
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			gotIn, gotOut, err := signature(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			wantIn, wantOut, err := ort.GetInputOutputInfo(p)
			if err != nil {
				t.Fatal(err)
			}
			same := func(what string, got, want []ort.InputOutputInfo) {
				if len(got) != len(want) {
					t.Fatalf("%s: got %v, ONNX Runtime says %v", what, got, want)
				}
				for i := range got {
					g, w := got[i], want[i]
					if g.Name != w.Name || g.OrtValueType != w.OrtValueType || g.DataType != w.DataType || !slices.Equal(g.Dimensions, w.Dimensions) {
						t.Errorf("%s %d: got %v, ONNX Runtime says %v", what, i, g, w)
					}
				}
			}
			same("inputs", gotIn, wantIn)
			same("outputs", gotOut, wantOut)
		})
	}
}

// cudaOnlyModel is a one-node graph of com.microsoft RemovePadding, an
// operator ONNX Runtime has a CUDA kernel for and no CPU kernel (the
// packed fp16 models use it), with one initializer that is also listed
// as a graph input (the pre-IR-4 habit), which sessions do not report.
func cudaOnlyModel() []byte {
	str := func(b []byte, num protowire.Number, s string) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, s)
	}
	msg := func(b []byte, num protowire.Number, m []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, m)
	}
	vi := func(name string, elem int, dims ...any) []byte {
		var shape []byte
		for _, d := range dims {
			var dim []byte
			switch d := d.(type) {
			case int:
				dim = protowire.AppendTag(dim, 1, protowire.VarintType)
				dim = protowire.AppendVarint(dim, uint64(d))
			case string:
				dim = str(dim, 2, d)
			}
			shape = msg(shape, 1, dim)
		}
		tt := protowire.AppendTag(nil, 1, protowire.VarintType)
		tt = protowire.AppendVarint(tt, uint64(elem))
		tt = msg(tt, 2, shape)
		return msg(str(nil, 1, name), 2, msg(nil, 1, tt))
	}
	var node []byte
	node = str(node, 1, "input")
	node = str(node, 1, "sequence_token_count")
	for _, o := range []string{"output", "token_offset", "cumulated_seq_len", "max_seq_len"} {
		node = str(node, 2, o)
	}
	node = str(node, 4, "RemovePadding")
	node = str(node, 7, "com.microsoft")
	var init []byte
	init = protowire.AppendTag(init, 1, protowire.VarintType) // dims
	init = protowire.AppendVarint(init, 1)
	init = protowire.AppendTag(init, 2, protowire.VarintType) // data_type int32
	init = protowire.AppendVarint(init, 6)
	init = str(init, 8, "unused_scale")
	init = msg(init, 9, []byte{1, 0, 0, 0}) // raw_data
	var g []byte
	g = msg(g, 1, node)
	g = str(g, 2, "packed")
	g = msg(g, 5, init)
	g = msg(g, 11, vi("input", 10, "batch", "seq", 384))
	g = msg(g, 11, vi("sequence_token_count", 6, "batch"))
	g = msg(g, 11, vi("unused_scale", 6, 1))
	g = msg(g, 12, vi("output", 10, "tokens", 384))
	g = msg(g, 12, vi("token_offset", 6, "batch", "seq"))
	g = msg(g, 12, vi("cumulated_seq_len", 6, "batch_plus_1"))
	g = msg(g, 12, vi("max_seq_len", 6, 1))
	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType) // ir_version
	m = protowire.AppendVarint(m, 8)
	m = msg(m, 7, g)
	for _, dom := range []struct {
		name    string
		version uint64
	}{{"", 17}, {"com.microsoft", 1}} {
		var op []byte
		op = str(op, 1, dom.name)
		op = protowire.AppendTag(op, 2, protowire.VarintType)
		op = protowire.AppendVarint(op, dom.version)
		m = msg(m, 8, op)
	}
	return m
}

// TestSignatureOfCUDAOnlyGraph: a graph no CPU session can load (ONNX
// Runtime's own reader fails on it here) is read by signature, so a model
// of CUDA-only operators opens on cuda.
func TestSignatureOfCUDAOnlyGraph(t *testing.T) {
	data := cudaOnlyModel()
	ins, outs, err := signature(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := func(v ort.InputOutputInfo, name string, dt ort.TensorElementDataType, dims ...int64) {
		t.Helper()
		if v.Name != name || v.OrtValueType != ort.ONNXTypeTensor || v.DataType != dt || !slices.Equal(v.Dimensions, ort.Shape(dims)) {
			t.Errorf("got %v, want %s %v %v", v, name, dt, dims)
		}
	}
	if len(ins) != 2 || len(outs) != 4 {
		t.Fatalf("inputs %v outputs %v: want 2 inputs (the initializer-backed one left out) and 4 outputs", ins, outs)
	}
	want(ins[0], "input", ort.TensorElementDataTypeFloat16, -1, -1, 384)
	want(ins[1], "sequence_token_count", ort.TensorElementDataTypeInt32, -1)
	want(outs[0], "output", ort.TensorElementDataTypeFloat16, -1, 384)
	want(outs[3], "max_seq_len", ort.TensorElementDataTypeInt32, 1)
	if err := initRuntime(LibraryPathFor(DeviceCPU)); err != nil {
		return
	}
	if _, _, err := ort.GetInputOutputInfoWithONNXData(data); err == nil {
		t.Log("this ONNX Runtime reads the CUDA-only graph on the CPU too (a CUDA build?)")
	} else if !strings.Contains(err.Error(), "RemovePadding") {
		t.Errorf("ONNX Runtime's reader failed for another reason than the CUDA-only kernel: %v", err)
	}
}

func TestSignatureRefuses(t *testing.T) {
	good := cudaOnlyModel()
	noOut := func() []byte { // the model with its graph's outputs dropped
		var g []byte
		mustEach := func(b []byte, fn func(protowire.Number, protowire.Type, []byte)) {
			if err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte) error { fn(num, typ, v); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		var m []byte
		mustEach(good, func(num protowire.Number, typ protowire.Type, v []byte) {
			if num != 7 {
				return
			}
			mustEach(v, func(num protowire.Number, typ protowire.Type, f []byte) {
				if num == 12 {
					return
				}
				g = protowire.AppendTag(g, num, typ)
				if typ == protowire.BytesType {
					g = protowire.AppendBytes(g, f)
				} else {
					g = append(g, f...)
				}
			})
		})
		m = protowire.AppendTag(m, 7, protowire.BytesType)
		return protowire.AppendBytes(m, g)
	}()
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "no graph"},
		{"truncated", good[:len(good)/2], "past the end"},
		{"garbage", []byte(strings.Repeat("not a protobuf ", 10)), "field"},
		{"no graph", good[:2], "no graph"},
		{"no outputs", noOut, "no outputs"},
		{"group wire type", []byte{0x0b, 0x0c}, "unsupported wire type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := signature(bytes.NewReader(tc.data), int64(len(tc.data)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// FuzzSignature: any bytes give an error or a signature with outputs,
// never a panic.
func FuzzSignature(f *testing.F) {
	f.Add(cudaOnlyModel())
	for _, p := range []string{"testdata/tiny/tiny_encoder.onnx", "testdata/tiny/tiny_pooled.onnx"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ins, outs, err := signature(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if len(outs) == 0 {
			t.Fatalf("no error and no outputs (inputs %v)", ins)
		}
	})
}
