// Package decbuf is the one decoder of stored bytes the module's codecs share:
// the fingerprint codec, the cellar's record encoding and the engine's derived
// family values.
//
// A Decbuf keeps its first error (prometheus/tsdb's Decbuf): after a failed
// read every later read returns a zero value and consumes nothing, so a
// decoder reads all its fields and checks Err once at the end. Every length
// and count is checked against the bytes left before anything is allocated,
// so corrupt input can never make a decoder allocate more than the input
// could hold. Reads never panic.
//
// Every error wraps record.ErrCorrupt and says at which byte it happened.
// Its text does not name the corruption: the caller wraps it with what it was
// decoding (a family and key, a slot and payload), and says so once.
//
// The package knows byte layouts, never formats: magic numbers, versions and
// the meaning of fields stay with the codec that owns them.
package decbuf

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cgraph/cgraph/record"
)

// Error is a Decbuf's first error: the offset in the input the decoder had
// reached (a bad count or length is reported just after it), and what was
// wrong. errors.Is(err, record.ErrCorrupt)
// holds for every Error.
type Error struct {
	Off int
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("at byte %d: %v", e.Off, e.Err) }

// Unwrap returns the cause and record.ErrCorrupt.
func (e *Error) Unwrap() []error { return []error{e.Err, record.ErrCorrupt} }

// Decbuf reads values from a byte slice and keeps its first error. The zero
// value reads nothing. Not safe for concurrent use.
type Decbuf struct {
	b         []byte
	off       int  // offset of b[0] in the whole input, for errors
	canonical bool // refuse uvarints longer than their shortest form
	err       error
}

// New returns a decoder of b.
func New(b []byte) Decbuf { return Decbuf{b: b} }

// NewAt returns a decoder of b, a part of a larger input that starts at byte
// off of it, so that its errors name offsets in the whole.
func NewAt(b []byte, off int) Decbuf { return Decbuf{b: b, off: off} }

// NewCanonical returns a decoder of b for a format in which every value has
// one encoding: a uvarint longer than its shortest form is corruption.
func NewCanonical(b []byte) Decbuf { return Decbuf{b: b, canonical: true} }

// Err returns the first error, or nil.
func (d *Decbuf) Err() error { return d.err }

// Len returns the number of bytes left.
func (d *Decbuf) Len() int { return len(d.b) }

// Off returns the offset of the next byte to read in the whole input.
func (d *Decbuf) Off() int { return d.off }

// Fail records a corruption at the current offset, formatted as fmt.Errorf
// does, unless an error is already kept.
func (d *Decbuf) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = &Error{Off: d.off, Err: fmt.Errorf(format, args...)}
	}
}

// Done ends a decoder that must consume its whole input: bytes left over are
// corruption. It returns the first error, or nil.
func (d *Decbuf) Done() error {
	if d.err == nil && len(d.b) != 0 {
		d.Fail("%d trailing bytes", len(d.b))
	}
	return d.err
}

// Bytes returns the next n bytes, or nil on error or when fewer are left. The
// result aliases the input (its capacity is n, so appending to it copies).
func (d *Decbuf) Bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.short(n)
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	d.off += n
	return out
}

func (d *Decbuf) short(n int) {
	if n == 1 {
		d.Fail("truncated: want 1 more byte")
		return
	}
	d.Fail("truncated: want %d bytes, have %d", n, len(d.b))
}

// Byte reads one byte.
func (d *Decbuf) Byte() byte {
	if b := d.Bytes(1); b != nil {
		return b[0]
	}
	return 0
}

// Le16 reads a little-endian uint16.
func (d *Decbuf) Le16() uint16 {
	if b := d.Bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

// Le32 reads a little-endian uint32.
func (d *Decbuf) Le32() uint32 {
	if b := d.Bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// Le64 reads a little-endian uint64.
func (d *Decbuf) Le64() uint64 {
	if b := d.Bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// Be32 reads a big-endian uint32.
func (d *Decbuf) Be32() uint32 {
	if b := d.Bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// Be64 reads a big-endian uint64.
func (d *Decbuf) Be64() uint64 {
	if b := d.Bytes(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// LeFloat32 reads an IEEE-754 float32, little endian.
func (d *Decbuf) LeFloat32() float32 { return math.Float32frombits(d.Le32()) }

// BeFloat64 reads an IEEE-754 float64, big endian.
func (d *Decbuf) BeFloat64() float64 { return math.Float64frombits(d.Be64()) }

// LeFloat32s reads n little-endian float32s; nil when n is 0 or on error.
// n is checked against the bytes left before allocating.
func (d *Decbuf) LeFloat32s(n int) []float32 {
	raw := d.fixed(n, 4)
	if len(raw) == 0 {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

// Le64s reads n little-endian uint64s; nil when n is 0 or on error. n is
// checked against the bytes left before allocating.
func (d *Decbuf) Le64s(n int) []uint64 {
	raw := d.fixed(n, 8)
	if len(raw) == 0 {
		return nil
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return out
}

// fixed reads n elements of size bytes, checking n without multiplying, so a
// huge n cannot wrap around.
func (d *Decbuf) fixed(n, size int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)/size {
		d.Fail("truncated: want %d×%d bytes, have %d", n, size, len(d.b))
		return nil
	}
	return d.Bytes(n * size)
}

// Le32Count reads a little-endian uint32 count of elements of at least size
// bytes each (size ≥ 1) and checks that they fit in the bytes left.
func (d *Decbuf) Le32Count(size int) int {
	n := d.Le32()
	if d.err != nil {
		return 0
	}
	if uint64(n)*uint64(size) > uint64(len(d.b)) {
		d.Fail("count %d of %d-byte elements exceeds the %d bytes left", n, size, len(d.b))
		return 0
	}
	return int(n)
}

// Le32Str reads a string behind a little-endian uint32 byte length.
func (d *Decbuf) Le32Str() string { return string(d.Bytes(d.Le32Count(1))) }

// Uvarint reads an unsigned LEB128 varint. A decoder from NewCanonical
// refuses one longer than its shortest form.
func (d *Decbuf) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.Fail("bad uvarint")
		return 0
	}
	if d.canonical && n != uvarintLen(v) {
		d.Fail("uvarint %d in %d bytes, not its shortest form", v, n)
		return 0
	}
	d.b = d.b[n:]
	d.off += n
	return v
}

// UvarintMax reads a uvarint and refuses one above limit.
func (d *Decbuf) UvarintMax(limit uint64) uint64 {
	v := d.Uvarint()
	if d.err == nil && v > limit {
		d.Fail("value %d over the limit %d", v, limit)
		return 0
	}
	return v
}

// UvarintStr reads a string behind a uvarint byte length of at most limit.
func (d *Decbuf) UvarintStr(limit uint64) string {
	n := d.UvarintMax(limit)
	if d.err == nil && n > uint64(len(d.b)) {
		d.Fail("truncated: want %d bytes, have %d", n, len(d.b))
		return ""
	}
	return string(d.Bytes(int(n)))
}

// uvarintLen is the length of v's shortest uvarint encoding.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
