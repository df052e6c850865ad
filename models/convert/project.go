package convert

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the ONNX messages AddProjection reads besides
// PatchFloats' (onnx.proto).
const (
	graphNode      = 1
	graphInput     = 11
	graphOutput    = 12
	nodeOutput     = 2
	valueInfoName  = 1
	valueInfoType  = 2
	typeTensor     = 1
	tensorElemType = 1
	tensorShape    = 2
	shapeDim       = 1
)

// Projection is a linear map applied to every token state of a graph
// output in the graph itself: out = (x − Mean)·Componentsᵀ per token,
// Components Out×In row-major (E12's PCA, neural.E12Projection).
type Projection struct {
	In, Out    int
	Mean       []float32 // In
	Components []float32 // Out×In
}

// AddProjection returns model with one more graph output, output, holding
// p applied to every token of input, a float32 [batch, tokens, p.In]
// graph output: two initializers (output+"/mean", output+"/components",
// the components transposed to In×Out for MatMul) and two ai.onnx nodes
// (Sub, MatMul) appended to the graph, and output declared as float32
// [batch, tokens, p.Out]. Every byte of model outside its graph is kept and
// every existing node, initializer and output is unchanged, so input is
// bit for bit what model gives; the same arguments always give the same
// bytes.
//
// On a GPU this moves E12's projection of e5's token states (~1 ms of
// host CPU per document at 200 tokens) into the model's run and copies
// p.Out instead of p.In floats a token to the host (issue 33).
//
// Errors name what is wrong: model's protobuf malformed, no graph, input
// not a float32 rank-3 graph output of width p.In, a name output needs
// already taken, p's sizes inconsistent. model is not changed.
func AddProjection(model []byte, input, output string, p Projection) ([]byte, error) {
	if p.In <= 0 || p.Out <= 0 || len(p.Mean) != p.In || len(p.Components) != p.In*p.Out {
		return nil, fmt.Errorf("add projection: %d×%d map with %d means and %d components", p.Out, p.In, len(p.Mean), len(p.Components))
	}
	if output == "" || output == input {
		return nil, fmt.Errorf("add projection: output name %q: give a new name", output)
	}
	graph, err := oneGraph(model)
	if err != nil {
		return nil, fmt.Errorf("add projection: %w", err)
	}
	_, width, err := graphNames(graph, input)
	if err != nil {
		return nil, fmt.Errorf("add projection: %w", err)
	}
	if width != int64(p.In) {
		return nil, fmt.Errorf("add projection: output %q is %d wide, the projection takes %d", input, width, p.In)
	}
	mean, comps, centered := output+"/mean", output+"/components", output+"/centered"
	compsT := transpose(p.Components, p.Out, p.In) // In×Out
	out, err := AppendGraph(model, &Graph{
		Nodes: []*Node{
			{Name: centered, OpType: "Sub", Inputs: []string{input, mean}, Outputs: []string{centered}},
			{Name: output, OpType: "MatMul", Inputs: []string{centered, comps}, Outputs: []string{output}},
		},
		Initializers: []*Tensor{
			FloatTensor(mean, []int64{int64(p.In)}, p.Mean),
			FloatTensor(comps, []int64{int64(p.In), int64(p.Out)}, compsT),
		},
		Outputs: []ValueInfo{{Name: output, Elem: Float, Shape: []Dim{{Param: "batch"}, {Param: "tokens"}, {Value: int64(p.Out)}}}},
	})
	if err != nil {
		return nil, fmt.Errorf("add projection: %w", err)
	}
	return out, nil
}

// AppendGraph returns model with add's nodes (after the graph's own, so
// they may read any value it defines), initializers and outputs appended
// to its one graph; add's name, inputs and doc are not used. Every other
// byte of model is kept. A value name add defines (a node output, an
// initializer) that the graph already has is an error, and model is not
// changed.
func AppendGraph(model []byte, add *Graph) ([]byte, error) {
	graph, err := oneGraph(model)
	if err != nil {
		return nil, err
	}
	names, _, err := graphNames(graph, "")
	if err != nil {
		return nil, err
	}
	m := &msg{}
	for _, n := range add.Nodes {
		for _, o := range n.Outputs {
			if names[o] {
				return nil, fmt.Errorf("the graph already has a value named %q", o)
			}
		}
		m.embed(graphNode, n.marshal())
	}
	for _, t := range add.Initializers {
		if names[t.Name] {
			return nil, fmt.Errorf("the graph already has a value named %q", t.Name)
		}
		m.embed(graphInitializer, t.marshal())
	}
	for _, v := range add.Outputs {
		m.embed(graphOutput, v.marshal())
	}
	newGraph := slices.Concat(graph, m.encoded())
	out := make([]byte, 0, len(model)+len(newGraph)-len(graph))
	for b := model; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		k := protowire.ConsumeFieldValue(num, typ, b[n:]) // checked by oneGraph
		if num == modelGraph && typ == protowire.BytesType {
			out = protowire.AppendTag(out, modelGraph, protowire.BytesType)
			out = protowire.AppendBytes(out, newGraph)
		} else {
			out = append(out, b[:n+k]...)
		}
		b = b[n+k:]
	}
	return out, nil
}

// oneGraph returns model's graph, checking that the protobuf parses and
// holds exactly one.
func oneGraph(model []byte) ([]byte, error) {
	var graph []byte
	var graphs int
	if err := eachField(model, func(num protowire.Number, v []byte) error {
		if num == modelGraph {
			graph, graphs = v, graphs+1
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if graphs != 1 {
		return nil, fmt.Errorf("model has %d graphs, want 1", graphs)
	}
	return graph, nil
}

// graphNames returns every value name graph defines (node outputs,
// initializers, graph inputs and outputs) and, unless input is "", the
// static last dimension of the float32 rank-3 graph output named input.
func graphNames(graph []byte, input string) (map[string]bool, int64, error) {
	names := map[string]bool{}
	width := int64(-1)
	found := false
	err := eachField(graph, func(num protowire.Number, v []byte) error {
		switch num {
		case graphNode:
			return eachField(v, func(num protowire.Number, s []byte) error {
				if num == nodeOutput {
					names[string(s)] = true
				}
				return nil
			})
		case graphInitializer:
			return eachField(v, func(num protowire.Number, s []byte) error {
				if num == tensorName {
					names[string(s)] = true
				}
				return nil
			})
		case graphInput, graphOutput:
			name, w, err := rank3Float(v)
			if err != nil {
				return err
			}
			names[name] = true
			if num == graphOutput && name == input {
				found, width = true, w
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("graph: %w", err)
	}
	if input == "" {
		return names, 0, nil
	}
	if !found {
		return nil, 0, fmt.Errorf("the graph has no output %q", input)
	}
	if width <= 0 {
		return nil, 0, fmt.Errorf("output %q is not a float32 [batch, tokens, width] tensor of a fixed width", input)
	}
	return names, width, nil
}

// rank3Float reads a ValueInfoProto: its name and, for a float32 tensor of
// rank 3 whose last dimension is fixed, that dimension (else -1).
func rank3Float(v []byte) (string, int64, error) {
	var name string
	var tensor []byte
	err := eachField(v, func(num protowire.Number, s []byte) error {
		switch num {
		case valueInfoName:
			name = string(s)
		case valueInfoType:
			return eachField(s, func(num protowire.Number, t []byte) error {
				if num == typeTensor {
					tensor = t
				}
				return nil
			})
		}
		return nil
	})
	if err != nil || tensor == nil {
		return name, -1, err
	}
	elem, dims, err := tensorType(tensor)
	if err != nil || elem != uint64(Float) || len(dims) != 3 {
		return name, -1, err
	}
	return name, dims[2], nil
}

// tensorType reads a TypeProto.Tensor: its element type and each
// dimension's fixed size (-1 when symbolic or missing).
func tensorType(t []byte) (uint64, []int64, error) {
	var elem uint64
	var dims []int64
	for b := t; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return 0, nil, protowire.ParseError(m)
		}
		switch {
		case num == tensorElemType && typ == protowire.VarintType:
			elem, _ = protowire.ConsumeVarint(b[n:])
		case num == tensorShape && typ == protowire.BytesType:
			shape, _ := protowire.ConsumeBytes(b[n:])
			if err := eachField(shape, func(num protowire.Number, d []byte) error {
				if num != shapeDim {
					return nil
				}
				dims = append(dims, dimValue(d))
				return nil
			}); err != nil {
				return 0, nil, err
			}
		}
		b = b[n+m:]
	}
	return elem, dims, nil
}

// dimValue is a TensorShapeProto.Dimension's dim_value, or -1.
func dimValue(d []byte) int64 {
	for b := d; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return -1
		}
		if num == 1 && typ == protowire.VarintType {
			v, m := protowire.ConsumeVarint(b[n:])
			if m < 0 {
				return -1
			}
			return int64(v)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return -1
		}
		b = b[n+m:]
	}
	return -1
}
