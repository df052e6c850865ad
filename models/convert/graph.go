package convert

import (
	"fmt"
	"math"
)

// builder appends nodes and initializers to a graph. Every value is named by
// the caller, and each node is named after its output, so the same build
// always gives the same graph.
type builder struct {
	g     *Graph
	names map[string]bool
}

func newBuilder(name string) *builder {
	return &builder{g: &Graph{Name: name}, names: map[string]bool{}}
}

// claim records a value name; a second value with the same name is a bug in
// the graph builder, not in the input, so it panics.
func (b *builder) claim(name string) string {
	if b.names[name] {
		panic(fmt.Sprintf("convert: value %q defined twice", name))
	}
	b.names[name] = true
	return name
}

// op appends a node computing out from in, and returns out.
func (b *builder) op(opType, out string, in []string, attrs ...Attribute) string {
	b.g.Nodes = append(b.g.Nodes, &Node{Name: b.claim(out), OpType: opType, Inputs: in, Outputs: []string{out}, Attrs: attrs})
	return out
}

// weight adds a float initializer and returns its name.
func (b *builder) weight(name string, dims []int64, data []float32) string {
	b.g.Initializers = append(b.g.Initializers, FloatTensor(b.claim(name), dims, data))
	return name
}

// scalar adds a float32 scalar constant.
func (b *builder) scalar(name string, v float32) string {
	return b.weight(name, nil, []float32{v})
}

// ints adds an int64 constant; dims nil makes a scalar.
func (b *builder) ints(name string, dims []int64, v ...int64) string {
	b.g.Initializers = append(b.g.Initializers, Int64Tensor(b.claim(name), dims, v))
	return name
}

// linear computes x·Wᵀ + bias for a weight stored as [out, in] (the PyTorch
// Linear layout), transposing it once here so the graph multiplies by
// [in, out].
func (b *builder) linear(name, x string, p linearParams) string {
	wt := transpose(p.W, p.Out, p.In)
	mm := b.op("MatMul", name+".matmul", []string{x, b.weight(name+".weight_t", []int64{int64(p.In), int64(p.Out)}, wt)})
	return b.op("Add", name+".out", []string{mm, b.weight(name+".bias", []int64{int64(p.Out)}, p.B)})
}

// layerNorm normalises the last axis of x (opset 17 LayerNormalization).
func (b *builder) layerNorm(name, x string, gamma, beta []float32, eps float32) string {
	d := []int64{int64(len(gamma))}
	return b.op("LayerNormalization", name+".out",
		[]string{x, b.weight(name+".gamma", d, gamma), b.weight(name+".beta", d, beta)},
		IntAttr("axis", -1), FloatAttr("epsilon", eps))
}

// gelu is the exact GELU, x·½·(1 + erf(x/√2)), written with Erf as BERT's
// "gelu" activation defines it.
func (b *builder) gelu(name, x string) string {
	scaled := b.op("Div", name+".div", []string{x, b.scalar(name+".sqrt2", float32(math.Sqrt2))})
	erf := b.op("Erf", name+".erf", []string{scaled})
	plus := b.op("Add", name+".add", []string{erf, b.scalar(name+".one", 1)})
	prod := b.op("Mul", name+".mul", []string{x, plus})
	return b.op("Mul", name+".out", []string{prod, b.scalar(name+".half", 0.5)})
}

// transpose returns the [cols, rows] transpose of m, which is [rows, cols]
// row-major.
func transpose(m []float32, rows, cols int) []float32 {
	t := make([]float32, len(m))
	for r := range rows {
		for c := range cols {
			t[c*rows+r] = m[r*cols+c]
		}
	}
	return t
}
