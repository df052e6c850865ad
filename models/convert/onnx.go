package convert

import (
	"encoding/binary"
	"io"
	"math"
)

// The ONNX messages below carry only the fields this package writes. Field
// numbers are those of onnx/onnx.proto (proto2): repeated scalars other than
// tensor data are written unpacked, as proto2 declares them.

// DataType is an ONNX TensorProto.DataType.
type DataType int32

// Element types used by the graphs this package builds.
const (
	Float DataType = 1
	Int64 DataType = 7
)

// Tensor is an ONNX TensorProto with its data in raw_data (little-endian).
type Tensor struct {
	Name string
	Type DataType
	Dims []int64
	Raw  []byte
}

// FloatTensor returns a float32 tensor holding data, which must have as many
// elements as dims say.
func FloatTensor(name string, dims []int64, data []float32) *Tensor {
	raw := make([]byte, 0, 4*len(data))
	for _, v := range data {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	return &Tensor{Name: name, Type: Float, Dims: dims, Raw: raw}
}

// Int64Tensor returns an int64 tensor holding data.
func Int64Tensor(name string, dims []int64, data []int64) *Tensor {
	raw := make([]byte, 0, 8*len(data))
	for _, v := range data {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
	}
	return &Tensor{Name: name, Type: Int64, Dims: dims, Raw: raw}
}

func (t *Tensor) marshal() *msg {
	m := &msg{}
	for _, d := range t.Dims {
		m.varint(1, d)
	}
	m.varint(2, int64(t.Type))
	m.string(8, t.Name)
	m.bytes(9, t.Raw)
	return m
}

// AttrType is an ONNX AttributeProto.AttributeType.
type AttrType int32

// Attribute types used here.
const (
	AttrFloat AttrType = 1
	AttrInt   AttrType = 2
	AttrInts  AttrType = 7
)

// Attribute is one node attribute; which value field is used follows Type.
type Attribute struct {
	Name string
	Type AttrType
	F    float32
	I    int64
	Ints []int64
}

// IntAttr is an integer attribute.
func IntAttr(name string, v int64) Attribute { return Attribute{Name: name, Type: AttrInt, I: v} }

// FloatAttr is a float attribute.
func FloatAttr(name string, v float32) Attribute { return Attribute{Name: name, Type: AttrFloat, F: v} }

// IntsAttr is a list-of-integers attribute.
func IntsAttr(name string, v ...int64) Attribute {
	return Attribute{Name: name, Type: AttrInts, Ints: v}
}

func (a Attribute) marshal() *msg {
	m := &msg{}
	m.string(1, a.Name)
	switch a.Type {
	case AttrFloat:
		m.fixed32(2, math.Float32bits(a.F))
	case AttrInt:
		m.varint(3, a.I)
	case AttrInts:
		for _, v := range a.Ints {
			m.varint(8, v)
		}
	}
	m.varint(20, int64(a.Type))
	return m
}

// Node is an ONNX NodeProto of the default (ai.onnx) domain.
type Node struct {
	Name    string
	OpType  string
	Inputs  []string
	Outputs []string
	Attrs   []Attribute
}

func (n *Node) marshal() *msg {
	m := &msg{}
	for _, s := range n.Inputs {
		m.string(1, s)
	}
	for _, s := range n.Outputs {
		m.string(2, s)
	}
	m.string(3, n.Name)
	m.string(4, n.OpType)
	for _, a := range n.Attrs {
		m.embed(5, a.marshal())
	}
	return m
}

// Dim is one dimension of a value's shape: a fixed size, or a named
// symbolic one (Param) when Value is 0.
type Dim struct {
	Value int64
	Param string
}

// ValueInfo declares a graph input or output: a tensor of Elem with Shape.
type ValueInfo struct {
	Name  string
	Elem  DataType
	Shape []Dim
}

func (v ValueInfo) marshal() *msg {
	shape := &msg{}
	for _, d := range v.Shape {
		dm := &msg{}
		if d.Param != "" {
			dm.string(2, d.Param)
		} else {
			dm.varint(1, d.Value)
		}
		shape.embed(1, dm)
	}
	tensor := &msg{}
	tensor.varint(1, int64(v.Elem))
	tensor.embed(2, shape)
	typ := &msg{}
	typ.embed(1, tensor)
	m := &msg{}
	m.string(1, v.Name)
	m.embed(2, typ)
	return m
}

// Graph is an ONNX GraphProto: nodes in topological order, initializers,
// inputs and outputs.
type Graph struct {
	Name         string
	Nodes        []*Node
	Initializers []*Tensor
	Inputs       []ValueInfo
	Outputs      []ValueInfo
	Doc          string
}

func (g *Graph) marshal() *msg {
	m := &msg{}
	for _, n := range g.Nodes {
		m.embed(1, n.marshal())
	}
	m.string(2, g.Name)
	for _, t := range g.Initializers {
		m.embed(5, t.marshal())
	}
	if g.Doc != "" {
		m.string(10, g.Doc)
	}
	for _, v := range g.Inputs {
		m.embed(11, v.marshal())
	}
	for _, v := range g.Outputs {
		m.embed(12, v.marshal())
	}
	return m
}

// Model is an ONNX ModelProto importing one version of the default opset.
type Model struct {
	IRVersion       int64
	Opset           int64
	ProducerName    string
	ProducerVersion string
	Doc             string
	Graph           *Graph
	// Metadata is written as metadata_props in this order.
	Metadata [][2]string
}

// WriteTo writes the model's protobuf encoding to w. Tensor data is
// written straight from the tensors, not copied first.
func (md *Model) WriteTo(w io.Writer) (int64, error) {
	m := &msg{}
	m.varint(1, md.IRVersion)
	m.string(2, md.ProducerName)
	m.string(3, md.ProducerVersion)
	if md.Doc != "" {
		m.string(6, md.Doc)
	}
	m.embed(7, md.Graph.marshal())
	opset := &msg{}
	opset.string(1, "")
	opset.varint(2, md.Opset)
	m.embed(8, opset)
	for _, kv := range md.Metadata {
		e := &msg{}
		e.string(1, kv[0])
		e.string(2, kv[1])
		m.embed(14, e)
	}
	return m.writeTo(w)
}
