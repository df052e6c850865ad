package cellar

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cgraph/cgraph/record"
)

// Record encoding of the memories family (FORMAT.md, "memories"). Every
// record starts with recordMagic and a version byte; a decoder refuses a
// version it does not know, so old binaries never misread new records.
const (
	recordMagic    byte = 0xC6
	recordVersion1 byte = 1
)

// typeCodes are the on-disk numbers of memory types. They never shift: new
// types get new numbers, pinned by TestFormatConstants.
var typeCodes = map[record.Type]byte{
	record.TypeFact:         1,
	record.TypeDecision:     2,
	record.TypeError:        3,
	record.TypePattern:      4,
	record.TypeCode:         5,
	record.TypeConversation: 6,
	record.TypeNote:         7,
	record.TypePreference:   8,
}

var typeByCode = func() map[byte]record.Type {
	m := make(map[byte]record.Type, len(typeCodes))
	for t, c := range typeCodes {
		m[c] = t
	}
	return m
}()

// maxDecodeLen bounds any length field a decoder accepts, so corrupt input
// cannot make it allocate gigabytes.
const maxDecodeLen = 1 << 30

// encodeRecord appends the v1 encoding of m to dst. Cost: one allocation
// when dst is too small.
func encodeRecord(dst []byte, m *record.Memory) []byte {
	dst = append(dst, recordMagic, recordVersion1)
	dst = append(dst, m.ID[:]...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(m.DocNum))
	dst = append(dst, typeCodes[m.Type])
	dst = appendString(dst, m.Content)
	dst = binary.AppendUvarint(dst, uint64(len(m.Tags)))
	for _, t := range m.Tags {
		dst = appendString(dst, t)
	}
	dst = appendString(dst, m.Source)
	dst = appendString(dst, m.Session)
	dst = binary.AppendUvarint(dst, m.Sequence)
	dst = appendTime(dst, m.CreatedAt)
	dst = appendTime(dst, m.UpdatedAt)
	dst = appendTime(dst, m.AccessedAt)
	dst = binary.AppendUvarint(dst, m.AccessCount)
	dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(m.Importance))
	return dst
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// appendTime writes unix nanoseconds as a big-endian int64; the zero time
// (never) is written as 0.
func appendTime(dst []byte, t time.Time) []byte {
	var n int64
	if !t.IsZero() {
		n = t.UnixNano()
	}
	return binary.BigEndian.AppendUint64(dst, uint64(n))
}

// decbuf reads a byte slice and keeps its first error, so decoders check once
// at the end (the tsdb Decbuf habit).
type decbuf struct {
	b   []byte
	err error
}

func (d *decbuf) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

func (d *decbuf) byte1() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 1 {
		d.fail("truncated: want 1 more byte")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decbuf) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b) < n {
		d.fail("truncated: want %d bytes, have %d", n, len(d.b))
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decbuf) be32() uint32 {
	p := d.bytes(4)
	if p == nil {
		return 0
	}
	return binary.BigEndian.Uint32(p)
}

func (d *decbuf) be64() uint64 {
	p := d.bytes(8)
	if p == nil {
		return 0
	}
	return binary.BigEndian.Uint64(p)
}

func (d *decbuf) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad uvarint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decbuf) length() int {
	n := d.uvarint()
	if n > maxDecodeLen {
		d.fail("length %d over the limit %d", n, maxDecodeLen)
		return 0
	}
	return int(n)
}

func (d *decbuf) str() string {
	return string(d.bytes(d.length()))
}

func (d *decbuf) time() time.Time {
	n := int64(d.be64())
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// decodeRecord decodes a memories value. It never panics on any input and
// returns an error wrapping record.ErrCorrupt for bytes that are not a record it
// knows, including trailing garbage.
func decodeRecord(b []byte) (record.Memory, error) {
	var m record.Memory
	d := decbuf{b: b}
	if magic := d.byte1(); d.err == nil && magic != recordMagic {
		return m, fmt.Errorf("memory record: magic byte %#x, want %#x: %w", magic, recordMagic, record.ErrCorrupt)
	}
	if v := d.byte1(); d.err == nil && v != recordVersion1 {
		return m, fmt.Errorf("memory record: version %d, this cgraph reads version %d (upgrade cgraph): %w",
			v, recordVersion1, record.ErrCorrupt)
	}
	copy(m.ID[:], d.bytes(16))
	m.DocNum = record.DocNum(d.be32())
	code := d.byte1()
	m.Content = d.str()
	if nTags := d.length(); d.err == nil && nTags > 0 {
		if nTags > len(d.b) { // every tag takes at least one byte
			d.fail("%d tags in %d bytes", nTags, len(d.b))
		} else {
			m.Tags = make([]string, nTags)
			for i := range m.Tags {
				m.Tags[i] = d.str()
			}
		}
	}
	m.Source = d.str()
	m.Session = d.str()
	m.Sequence = d.uvarint()
	m.CreatedAt = d.time()
	m.UpdatedAt = d.time()
	m.AccessedAt = d.time()
	m.AccessCount = d.uvarint()
	m.Importance = math.Float64frombits(d.be64())
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return record.Memory{}, fmt.Errorf("memory record: %w: %w", d.err, record.ErrCorrupt)
	}
	t, ok := typeByCode[code]
	if !ok {
		return record.Memory{}, fmt.Errorf("memory record: unknown type code %d: %w", code, record.ErrCorrupt)
	}
	m.Type = t
	return m, nil
}
