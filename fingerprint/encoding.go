package fingerprint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// encbuf appends little-endian values to a byte slice. It cannot fail.
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

// errShort is the first error of a decbuf that ran out of bytes.
var errShort = errors.New("unexpected end of data")

// decbuf reads little-endian values and keeps the first error: after it, every
// read returns a zero value, so callers check err once at the end (tsdb Decbuf
// style). Lengths are checked against the remaining bytes before allocating.
type decbuf struct {
	b   []byte
	off int // bytes consumed, for error messages
	err error
}

func (d *decbuf) fail(err error) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: %w", d.off, err)
	}
}

func (d *decbuf) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.fail(errShort)
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	d.off += n
	return out
}

func (d *decbuf) u8() uint8 {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decbuf) u16() uint16 {
	if b := d.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (d *decbuf) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decbuf) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decbuf) i64() int64   { return int64(d.u64()) }
func (d *decbuf) f32() float32 { return math.Float32frombits(d.u32()) }

// count reads a u32 element count and checks that count elements of at least
// size bytes each fit in what is left.
func (d *decbuf) count(size int) int {
	n := d.u32()
	if d.err != nil {
		return 0
	}
	if uint64(n)*uint64(size) > uint64(len(d.b)) {
		d.fail(fmt.Errorf("count %d of %d-byte elements exceeds the %d bytes left", n, size, len(d.b)))
		return 0
	}
	return int(n)
}

func (d *decbuf) str() string {
	n := d.count(1)
	return string(d.take(n))
}

func (d *decbuf) f32s() []float32 {
	n := d.count(4)
	if d.err != nil || n == 0 {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = d.f32()
	}
	return out
}
