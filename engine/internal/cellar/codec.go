package cellar

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cgraph/cgraph/internal/decbuf"
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

// decodeTime reads appendTime's encoding.
func decodeTime(d *decbuf.Decbuf) time.Time {
	n := int64(d.Be64())
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
	d := decbuf.New(b)
	if magic := d.Byte(); d.Err() == nil && magic != recordMagic {
		return m, fmt.Errorf("memory record: magic byte %#x, want %#x: %w", magic, recordMagic, record.ErrCorrupt)
	}
	if v := d.Byte(); d.Err() == nil && v != recordVersion1 {
		return m, fmt.Errorf("memory record: version %d, this cgraph reads version %d (upgrade cgraph): %w",
			v, recordVersion1, record.ErrCorrupt)
	}
	copy(m.ID[:], d.Bytes(16))
	m.DocNum = record.DocNum(d.Be32())
	code := d.Byte()
	m.Content = d.UvarintStr(maxDecodeLen)
	if nTags := d.UvarintMax(maxDecodeLen); d.Err() == nil && nTags > 0 {
		if nTags > uint64(d.Len()) { // every tag takes at least one byte
			d.Fail("%d tags in %d bytes", nTags, d.Len())
		} else {
			m.Tags = make([]string, nTags)
			for i := range m.Tags {
				m.Tags[i] = d.UvarintStr(maxDecodeLen)
			}
		}
	}
	m.Source = d.UvarintStr(maxDecodeLen)
	m.Session = d.UvarintStr(maxDecodeLen)
	m.Sequence = d.Uvarint()
	m.CreatedAt = decodeTime(&d)
	m.UpdatedAt = decodeTime(&d)
	m.AccessedAt = decodeTime(&d)
	m.AccessCount = d.Uvarint()
	m.Importance = d.BeFloat64()
	if err := d.Done(); err != nil {
		return record.Memory{}, fmt.Errorf("memory record: %w: %w", err, record.ErrCorrupt)
	}
	t, ok := typeByCode[code]
	if !ok {
		return record.Memory{}, fmt.Errorf("memory record: unknown type code %d: %w", code, record.ErrCorrupt)
	}
	m.Type = t
	return m, nil
}
