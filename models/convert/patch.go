package convert

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the ONNX messages PatchFloats reads (onnx.proto).
const (
	modelGraph        = 7
	graphInitializer  = 5
	tensorDims        = 1
	tensorDataType    = 2
	tensorFloatData   = 4
	tensorName        = 8
	tensorRawData     = 9
	tensorExternal    = 13
	tensorLocation    = 14
	tensorTypeFloat32 = 1
)

// FloatPatch changes one float32 initializer in place: w holds its values
// (row-major, dims as the graph declares them). It must not keep w.
type FloatPatch func(dims []int64, w []float32) error

// PatchFloats returns a copy of the ONNX model in which each float32
// initializer named in patches has been passed through its patch (a learned
// low-rank update added to a weight matrix, for one). Every other byte of the
// model is copied as it is, so the same model and the same patches always
// give the same file. An initializer must hold its values in raw_data (as
// every exporter writes weights); one named in patches that is missing, of
// another type, or stored elsewhere is an error naming it, and nothing is
// returned.
func PatchFloats(model []byte, patches map[string]FloatPatch) ([]byte, error) {
	done := make(map[string]bool, len(patches))
	out, err := rewriteFields(model, func(num protowire.Number, v []byte) ([]byte, bool, error) {
		if num != modelGraph {
			return nil, false, nil
		}
		g, err := rewriteFields(v, func(num protowire.Number, v []byte) ([]byte, bool, error) {
			if num != graphInitializer {
				return nil, false, nil
			}
			return patchTensor(v, patches, done)
		})
		return g, true, err
	})
	if err != nil {
		return nil, fmt.Errorf("patch onnx: %w", err)
	}
	var missing []string
	for name := range patches {
		if !done[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("patch onnx: no initializer named %s in the model", strings.Join(missing, ", "))
	}
	return out, nil
}

// rewriteFields copies a message's fields, passing each length-delimited
// one to fn: when fn says replace, its bytes take the field's value.
func rewriteFields(b []byte, fn func(protowire.Number, []byte) ([]byte, bool, error)) ([]byte, error) {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, fmt.Errorf("bad field tag: %w", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, fmt.Errorf("field %d: %w", num, protowire.ParseError(m))
		}
		field := b[:n+m]
		b = b[n+m:]
		if typ != protowire.BytesType {
			out = append(out, field...)
			continue
		}
		v, _ := protowire.ConsumeBytes(field[n:])
		nv, replace, err := fn(num, v)
		if err != nil {
			return nil, err
		}
		if !replace {
			out = append(out, field...)
			continue
		}
		out = protowire.AppendTag(out, num, protowire.BytesType)
		out = protowire.AppendBytes(out, nv)
	}
	return out, nil
}

// patchTensor rewrites one TensorProto's raw_data when its name is in
// patches; others are left alone (replace false).
func patchTensor(t []byte, patches map[string]FloatPatch, done map[string]bool) ([]byte, bool, error) {
	var (
		name              string
		dims              []int64
		dtype             uint64
		raw               []byte
		hasRaw, elsewhere bool
	)
	for b := t; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false, fmt.Errorf("initializer: bad field tag: %w", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, false, fmt.Errorf("initializer field %d: %w", num, protowire.ParseError(m))
		}
		v := b[n : n+m]
		b = b[n+m:]
		switch {
		case num == tensorName && typ == protowire.BytesType:
			s, _ := protowire.ConsumeBytes(v)
			name = string(s)
		case num == tensorDataType && typ == protowire.VarintType:
			dtype, _ = protowire.ConsumeVarint(v)
		case num == tensorDims && typ == protowire.VarintType:
			d, _ := protowire.ConsumeVarint(v)
			dims = append(dims, int64(d))
		case num == tensorDims && typ == protowire.BytesType: // packed
			p, _ := protowire.ConsumeBytes(v)
			for len(p) > 0 {
				d, k := protowire.ConsumeVarint(p)
				if k < 0 {
					return nil, false, fmt.Errorf("initializer dims: %w", protowire.ParseError(k))
				}
				dims, p = append(dims, int64(d)), p[k:]
			}
		case num == tensorRawData && typ == protowire.BytesType:
			raw, _ = protowire.ConsumeBytes(v)
			hasRaw = true
		case num == tensorFloatData || num == tensorExternal || num == tensorLocation:
			elsewhere = true
		}
	}
	patch, ok := patches[name]
	if !ok {
		return nil, false, nil
	}
	if done[name] {
		return nil, false, fmt.Errorf("initializer %q appears twice", name)
	}
	count := int64(1)
	for _, d := range dims {
		if d < 0 || (d > 0 && count > math.MaxInt32/d) {
			return nil, false, fmt.Errorf("initializer %q has dims %v", name, dims)
		}
		count *= d
	}
	switch {
	case dtype != tensorTypeFloat32:
		return nil, false, fmt.Errorf("initializer %q has data type %d, not float32 (1)", name, dtype)
	case elsewhere || !hasRaw:
		return nil, false, fmt.Errorf("initializer %q keeps its values outside raw_data (float_data or external data)", name)
	case int64(len(raw)) != 4*count:
		return nil, false, fmt.Errorf("initializer %q holds %d bytes for dims %v (%d floats)", name, len(raw), dims, count)
	}
	w := make([]float32, count)
	for i := range w {
		w[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	if err := patch(slices.Clone(dims), w); err != nil {
		return nil, false, fmt.Errorf("initializer %q: %w", name, err)
	}
	nraw := make([]byte, 0, len(raw))
	for _, x := range w {
		nraw = binary.LittleEndian.AppendUint32(nraw, math.Float32bits(x))
	}
	done[name] = true
	nt, err := rewriteFields(t, func(num protowire.Number, v []byte) ([]byte, bool, error) {
		return nraw, num == tensorRawData, nil
	})
	return nt, true, err
}
