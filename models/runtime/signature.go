package runtime

import (
	"errors"
	"fmt"
	"io"

	ort "github.com/yalue/onnxruntime_go"
	"google.golang.org/protobuf/encoding/protowire"
)

// signature reads an ONNX model's graph inputs and outputs straight from
// its protobuf — ModelProto.graph (7): initializer (5), input (11), output
// (12) — as ONNX Runtime's session would report them: graph inputs that
// an initializer backs are left out, a symbolic or missing dimension is
// -1. It reads only field headers, the initializers' names and the small
// input and output messages, never the weights, so it costs microseconds
// where a throwaway ONNX Runtime session cost a graph load; and it needs
// no kernel, so a graph of CUDA-only operators (the packed fp16 models'
// RemovePadding and PackedAttention) is read on any machine.
//
// It must not be taken as proof that the file loads: a model whose graph
// is broken past its inputs and outputs passes here and fails when the
// session is created. Errors say what is malformed and where.
func signature(r io.ReaderAt, size int64) (ins, outs []ort.InputOutputInfo, err error) {
	graph := span{-1, -1}
	err = eachFieldAt(r, 0, size, func(f fieldAt) error {
		if f.num == 7 && f.typ == protowire.BytesType {
			graph = span{f.off, f.off + f.len}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("model: %w", err)
	}
	if graph.start < 0 {
		return nil, nil, errors.New("model: no graph")
	}
	inits := map[string]bool{}
	var inMsgs, outMsgs [][]byte
	err = eachFieldAt(r, graph.start, graph.end, func(f fieldAt) error {
		if f.typ != protowire.BytesType {
			return nil
		}
		switch f.num {
		case 5:
			name, err := tensorName(r, f.off, f.off+f.len)
			if err != nil {
				return fmt.Errorf("initializer at byte %d: %w", f.off, err)
			}
			inits[name] = true
		case 11, 12:
			if f.len > 1<<20 {
				return fmt.Errorf("graph %s at byte %d: %d bytes, too long for a value's description", ioName(f.num), f.off, f.len)
			}
			b := make([]byte, f.len)
			if _, err := r.ReadAt(b, f.off); err != nil {
				return fmt.Errorf("graph %s at byte %d: %w", ioName(f.num), f.off, err)
			}
			if f.num == 11 {
				inMsgs = append(inMsgs, b)
			} else {
				outMsgs = append(outMsgs, b)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("graph: %w", err)
	}
	for _, b := range inMsgs {
		v, err := valueInfo(b)
		if err != nil {
			return nil, nil, fmt.Errorf("graph input: %w", err)
		}
		if !inits[v.Name] {
			ins = append(ins, v)
		}
	}
	for _, b := range outMsgs {
		v, err := valueInfo(b)
		if err != nil {
			return nil, nil, fmt.Errorf("graph output: %w", err)
		}
		outs = append(outs, v)
	}
	if len(outs) == 0 {
		return nil, nil, errors.New("graph: no outputs")
	}
	return ins, outs, nil
}

func ioName(num protowire.Number) string {
	if num == 11 {
		return "input"
	}
	return "output"
}

type span struct{ start, end int64 }

// fieldAt is one protobuf field of a message read through an io.ReaderAt:
// its number and wire type, and for a length-delimited field where its
// bytes are.
type fieldAt struct {
	num      protowire.Number
	typ      protowire.Type
	off, len int64
}

// eachFieldAt calls fn for each field of the message in r's bytes
// [start, end), reading only the field headers.
func eachFieldAt(r io.ReaderAt, start, end int64, fn func(fieldAt) error) error {
	for off := start; off < end; {
		tag, n, err := varintAt(r, off, end)
		if err != nil {
			return fmt.Errorf("field at byte %d: %w", off, err)
		}
		num, typ := protowire.DecodeTag(tag)
		if num < protowire.MinValidNumber {
			return fmt.Errorf("field at byte %d: invalid field number %d", off, num)
		}
		f := fieldAt{num: num, typ: typ, off: off + n}
		switch typ {
		case protowire.VarintType:
			_, m, err := varintAt(r, f.off, end)
			if err != nil {
				return fmt.Errorf("field %d at byte %d: %w", num, off, err)
			}
			f.len = m
		case protowire.Fixed32Type:
			f.len = 4
		case protowire.Fixed64Type:
			f.len = 8
		case protowire.BytesType:
			l, m, err := varintAt(r, f.off, end)
			if err != nil {
				return fmt.Errorf("field %d at byte %d: %w", num, off, err)
			}
			f.off += m
			if l > uint64(end-f.off) {
				return fmt.Errorf("field %d at byte %d: %d bytes, past the end (truncated?)", num, off, l)
			}
			f.len = int64(l)
		default:
			return fmt.Errorf("field %d at byte %d: unsupported wire type %d", num, off, typ)
		}
		if f.off+f.len > end {
			return fmt.Errorf("field %d at byte %d: past the end (truncated?)", num, off)
		}
		if err := fn(f); err != nil {
			return err
		}
		off = f.off + f.len
	}
	return nil
}

// varintAt reads the varint at off (before end): its value and length.
func varintAt(r io.ReaderAt, off, end int64) (uint64, int64, error) {
	var buf [binaryMaxVarint]byte
	n := min(int64(len(buf)), end-off)
	got, err := r.ReadAt(buf[:n], off)
	if int64(got) < n && err != nil {
		return 0, 0, err
	}
	v, m := protowire.ConsumeVarint(buf[:got])
	if m < 0 {
		return 0, 0, protowire.ParseError(m)
	}
	return v, int64(m), nil
}

const binaryMaxVarint = 10

// tensorName is a TensorProto's name (field 8), read without its data.
func tensorName(r io.ReaderAt, start, end int64) (string, error) {
	name := ""
	err := eachFieldAt(r, start, end, func(f fieldAt) error {
		if f.num != 8 || f.typ != protowire.BytesType {
			return nil
		}
		b := make([]byte, f.len)
		if _, err := r.ReadAt(b, f.off); err != nil {
			return err
		}
		name = string(b)
		return nil
	})
	return name, err
}

// valueInfo decodes a ValueInfoProto: name (1) and type (2).
func valueInfo(b []byte) (ort.InputOutputInfo, error) {
	var v ort.InputOutputInfo
	err := eachField(b, func(num protowire.Number, typ protowire.Type, val []byte) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			v.Name = string(val)
		case num == 2 && typ == protowire.BytesType:
			return typeProto(val, &v)
		}
		return nil
	})
	if err != nil {
		return v, fmt.Errorf("%q: %w", v.Name, err)
	}
	return v, nil
}

// typeProto decodes a TypeProto into v: a tensor's element type and
// shape, or which other kind of value it is.
func typeProto(b []byte, v *ort.InputOutputInfo) error {
	return eachField(b, func(num protowire.Number, typ protowire.Type, val []byte) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1: // tensor_type
			v.OrtValueType = ort.ONNXTypeTensor
			return tensorType(val, v)
		case 4:
			v.OrtValueType = ort.ONNXTypeSequence
		case 5:
			v.OrtValueType = ort.ONNXTypeMap
		case 8:
			v.OrtValueType = ort.ONNXTypeSparseTensor
		case 9:
			v.OrtValueType = ort.ONNXTypeOptional
		}
		return nil
	})
}

// tensorType decodes TypeProto.Tensor: elem_type (1), shape (2).
func tensorType(b []byte, v *ort.InputOutputInfo) error {
	return eachField(b, func(num protowire.Number, typ protowire.Type, val []byte) error {
		switch {
		case num == 1 && typ == protowire.VarintType:
			e, _ := protowire.ConsumeVarint(val)
			v.DataType = ort.TensorElementDataType(e)
		case num == 2 && typ == protowire.BytesType:
			v.Dimensions = ort.Shape{}
			return eachField(val, func(num protowire.Number, typ protowire.Type, dim []byte) error {
				if num != 1 || typ != protowire.BytesType {
					return nil
				}
				d := int64(-1) // dim_param or nothing: symbolic
				err := eachField(dim, func(num protowire.Number, typ protowire.Type, x []byte) error {
					if num == 1 && typ == protowire.VarintType {
						u, _ := protowire.ConsumeVarint(x)
						d = int64(u)
					}
					return nil
				})
				v.Dimensions = append(v.Dimensions, d)
				return err
			})
		}
		return nil
	})
}

// eachField calls fn for each field of the message b: a varint field's
// val is its varint bytes, a length-delimited field's its contents.
func eachField(b []byte, fn func(protowire.Number, protowire.Type, []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(m))
		}
		val := b[n : n+m]
		if typ == protowire.BytesType {
			val, _ = protowire.ConsumeBytes(val)
		}
		if err := fn(num, typ, val); err != nil {
			return err
		}
		b = b[n+m:]
	}
	return nil
}
