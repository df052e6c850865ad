package fingerprint

import (
	"encoding/binary"
	"math"
)

// encbuf appends little-endian values to a byte slice. It cannot fail. Its
// reader is internal/decbuf's Decbuf, shared with the engine's codecs.
type encbuf struct{ b []byte }

func (e *encbuf) u8(v uint8)   { e.b = append(e.b, v) }
func (e *encbuf) u16(v uint16) { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *encbuf) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encbuf) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encbuf) i64(v int64)  { e.u64(uint64(v)) }
func (e *encbuf) f32(v float32) {
	e.u32(math.Float32bits(v))
}

// str writes a u32 byte length and the bytes.
func (e *encbuf) str(s string) {
	e.u32(uint32(len(s)))
	e.b = append(e.b, s...)
}

// f32s writes a u32 count and the values.
func (e *encbuf) f32s(v []float32) {
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.f32(x)
	}
}
