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

// PatchFloats changes model in place: each float32 initializer named in
// patches is passed through its patch (a learned low-rank update added to
// a weight matrix, for one) and written back over its own raw_data, so the
// model keeps its size and every other byte, and the same model and patches
// always give the same bytes. It first finds and checks every named
// initializer — one that is missing, of another type, or holding its values
// elsewhere than raw_data (as every exporter writes weights) is an error
// naming it, and model is left as it was — then runs the patches in the
// graph's order. A patch that fails leaves the ones before it applied: pass
// a copy you discard on error.
func PatchFloats(model []byte, patches map[string]FloatPatch) error {
	var targets []floatTarget
	err := eachField(model, func(num protowire.Number, v []byte) error {
		if num != modelGraph {
			return nil
		}
		return eachField(v, func(num protowire.Number, t []byte) error {
			if num != graphInitializer {
				return nil
			}
			ft, ok, err := findTensor(t, patches)
			if ok {
				targets = append(targets, ft)
			}
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("patch onnx: %w", err)
	}
	found := make(map[string]bool, len(targets))
	for _, ft := range targets {
		if found[ft.name] {
			return fmt.Errorf("patch onnx: initializer %q appears twice", ft.name)
		}
		found[ft.name] = true
	}
	var missing []string
	for name := range patches {
		if !found[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("patch onnx: no initializer named %s in the model", strings.Join(missing, ", "))
	}
	for _, ft := range targets {
		w := make([]float32, len(ft.raw)/4)
		for i := range w {
			w[i] = math.Float32frombits(binary.LittleEndian.Uint32(ft.raw[4*i:]))
		}
		if err := patches[ft.name](slices.Clone(ft.dims), w); err != nil {
			return fmt.Errorf("patch onnx: initializer %q: %w", ft.name, err)
		}
		for i, x := range w {
			binary.LittleEndian.PutUint32(ft.raw[4*i:], math.Float32bits(x))
		}
	}
	return nil
}

// floatTarget is one initializer to patch: raw is its raw_data, a window
// into the model's bytes.
type floatTarget struct {
	name string
	dims []int64
	raw  []byte
}

// eachField passes each length-delimited field of a message to fn (its
// value is a window into b).
func eachField(b []byte, fn func(protowire.Number, []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("bad field tag: %w", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(m))
		}
		if typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n : n+m])
			if err := fn(num, v); err != nil {
				return err
			}
		}
		b = b[n+m:]
	}
	return nil
}

// findTensor reads one TensorProto and, when its name is in patches,
// checks it is a float32 tensor with its values in raw_data and returns it.
func findTensor(t []byte, patches map[string]FloatPatch) (floatTarget, bool, error) {
	var (
		ft                floatTarget
		dtype             uint64
		hasRaw, elsewhere bool
	)
	for b := t; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return ft, false, fmt.Errorf("initializer: bad field tag: %w", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return ft, false, fmt.Errorf("initializer field %d: %w", num, protowire.ParseError(m))
		}
		v := b[n : n+m]
		b = b[n+m:]
		switch {
		case num == tensorName && typ == protowire.BytesType:
			s, _ := protowire.ConsumeBytes(v)
			ft.name = string(s)
		case num == tensorDataType && typ == protowire.VarintType:
			dtype, _ = protowire.ConsumeVarint(v)
		case num == tensorDims && typ == protowire.VarintType:
			d, _ := protowire.ConsumeVarint(v)
			ft.dims = append(ft.dims, int64(d))
		case num == tensorDims && typ == protowire.BytesType: // packed
			p, _ := protowire.ConsumeBytes(v)
			for len(p) > 0 {
				d, k := protowire.ConsumeVarint(p)
				if k < 0 {
					return ft, false, fmt.Errorf("initializer dims: %w", protowire.ParseError(k))
				}
				ft.dims, p = append(ft.dims, int64(d)), p[k:]
			}
		case num == tensorRawData && typ == protowire.BytesType:
			ft.raw, _ = protowire.ConsumeBytes(v)
			hasRaw = true
		case num == tensorFloatData || num == tensorExternal || num == tensorLocation:
			elsewhere = true
		}
	}
	if _, ok := patches[ft.name]; !ok {
		return ft, false, nil
	}
	count := int64(1)
	for _, d := range ft.dims {
		if d < 0 || (d > 0 && count > math.MaxInt32/d) {
			return ft, false, fmt.Errorf("initializer %q has dims %v", ft.name, ft.dims)
		}
		count *= d
	}
	switch {
	case dtype != tensorTypeFloat32:
		return ft, false, fmt.Errorf("initializer %q has data type %d, not float32 (1)", ft.name, dtype)
	case elsewhere || !hasRaw:
		return ft, false, fmt.Errorf("initializer %q keeps its values outside raw_data (float_data or external data)", ft.name)
	case int64(len(ft.raw)) != 4*count:
		return ft, false, fmt.Errorf("initializer %q holds %d bytes for dims %v (%d floats)", ft.name, len(ft.raw), ft.dims, count)
	}
	return ft, true, nil
}
