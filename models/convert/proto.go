package convert

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Protobuf wire types used by ONNX messages.
const (
	wireVarint  = 0
	wireLen     = 2
	wireFixed32 = 5
)

// msg is one protobuf message in wire format, kept as a list of byte slices
// whose concatenation is the encoding. Embedding a message appends its
// slices, so large payloads (tensor data) are referenced, never copied, on
// their way to the file. Fields are written in the order the methods are
// called: callers fix that order, which keeps the output deterministic.
type msg struct {
	parts [][]byte
	size  int
}

func (m *msg) add(p []byte) {
	if len(p) == 0 {
		return
	}
	m.parts = append(m.parts, p)
	m.size += len(p)
}

func appendKey(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

// varint writes an int64, int32 or enum field; negative values take ten
// bytes, as protobuf encodes them.
func (m *msg) varint(field int, v int64) {
	m.add(binary.AppendUvarint(appendKey(nil, field, wireVarint), uint64(v)))
}

// fixed32 writes a float field given its IEEE 754 bits.
func (m *msg) fixed32(field int, bits uint32) {
	m.add(binary.LittleEndian.AppendUint32(appendKey(nil, field, wireFixed32), bits))
}

// bytes writes a bytes field; p is referenced, not copied, and must not
// change before the message is written.
func (m *msg) bytes(field int, p []byte) {
	m.add(binary.AppendUvarint(appendKey(nil, field, wireLen), uint64(len(p))))
	m.add(p)
}

func (m *msg) string(field int, s string) { m.bytes(field, []byte(s)) }

// embed writes sub as a length-delimited field.
func (m *msg) embed(field int, sub *msg) {
	m.add(binary.AppendUvarint(appendKey(nil, field, wireLen), uint64(sub.size)))
	m.parts = append(m.parts, sub.parts...)
	m.size += sub.size
}

// writeTo writes the encoding to w.
func (m *msg) writeTo(w io.Writer) (int64, error) {
	var n int64
	for _, p := range m.parts {
		k, err := w.Write(p)
		n += int64(k)
		if err != nil {
			return n, fmt.Errorf("write onnx: %w", err)
		}
	}
	return n, nil
}

// encoded returns the encoding as one slice (for small messages and tests).
func (m *msg) encoded() []byte {
	b := make([]byte, 0, m.size)
	for _, p := range m.parts {
		b = append(b, p...)
	}
	return b
}
