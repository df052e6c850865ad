package cellar

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
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
	// recordVersion2 adds project, revision and metadata after the v1
	// fields (FORMAT.md, "the record, version 2").
	recordVersion2 byte = 2
	// recordVersion3 adds valid_until after the v2 fields (FORMAT.md,
	// "the record, versions 1 to 3"; store format 4).
	recordVersion3 byte = 3
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

// encodeRecord appends the v3 encoding of m to dst: the v1 fields, then
// the project, the revision, the metadata sorted by key and the
// valid-until time. Cost: one allocation when dst is too small.
func encodeRecord(dst []byte, m *record.Memory) []byte {
	dst = append(dst, recordMagic, recordVersion3)
	dst = appendV1Fields(dst, m)
	dst = appendString(dst, m.Project)
	dst = binary.AppendUvarint(dst, uint64(max(m.Revision, 1)))
	keys := slices.Sorted(maps.Keys(m.Meta))
	dst = binary.AppendUvarint(dst, uint64(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = appendString(dst, m.Meta[k])
	}
	return appendTime(dst, m.ValidUntil)
}

// appendV1Fields appends the fields every record version starts with.
func appendV1Fields(dst []byte, m *record.Memory) []byte {
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
	version := d.Byte()
	if d.Err() == nil && (version < recordVersion1 || version > recordVersion3) {
		return m, fmt.Errorf("memory record: version %d, this cgraph reads versions up to %d (upgrade cgraph): %w",
			version, recordVersion3, record.ErrCorrupt)
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
	m.Revision = 1
	if version >= recordVersion2 {
		m.Project = d.UvarintStr(maxDecodeLen)
		if r := d.UvarintMax(math.MaxUint32); r > 0 {
			m.Revision = uint32(r)
		} else if d.Err() == nil {
			d.Fail("revision 0")
		}
		if n := d.UvarintMax(maxDecodeLen); d.Err() == nil && n > 0 {
			if n > uint64(d.Len())/2 { // every pair takes at least two bytes
				d.Fail("%d metadata pairs in %d bytes", n, d.Len())
			} else {
				m.Meta = make(map[string]string, n)
				prev := ""
				for i := range n {
					k, v := d.UvarintStr(maxDecodeLen), d.UvarintStr(maxDecodeLen)
					if d.Err() == nil && i > 0 && k <= prev {
						d.Fail("metadata keys out of order (%q after %q)", k, prev)
					}
					m.Meta[k], prev = v, k
				}
			}
		}
	}
	if version >= recordVersion3 {
		m.ValidUntil = decodeTime(&d)
	}
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
