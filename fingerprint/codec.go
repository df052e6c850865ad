package fingerprint

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/cgraph/cgraph/record"
)

// Magic opens every encoded fingerprint (FORMAT.md).
const Magic = "CGFP"

// Version is the format version Encode writes. Decode reads every version in
// decodableVersions. Versions are never reused; a new layout is a new number.
const Version uint16 = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Encode returns the binary form of f (FORMAT.md): magic, version, the
// non-missing slots in slot order, a CRC-32C. It refuses a fingerprint that
// does not Validate. Cost O(size of f).
func Encode(f *Fingerprint) ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("encode fingerprint: %w", err)
	}
	e := &encbuf{b: make([]byte, 0, encodedSize(f))}
	e.b = append(e.b, Magic...)
	e.u16(Version)
	n := 0
	for _, en := range f.Slots {
		if en.Status != StatusMissing {
			n++
		}
	}
	e.u8(uint8(n))
	for _, s := range Slots() {
		en := f.Slots[s.Index()]
		if en.Status == StatusMissing {
			continue
		}
		encodeEntry(e, s, en)
	}
	e.u32(crc32.Checksum(e.b, castagnoli))
	return e.b, nil
}

func encodeEntry(e *encbuf, s SlotID, en Entry) {
	e.u8(uint8(s))
	e.u8(uint8(en.Status))
	e.str(en.Producer.Model)
	e.b = append(e.b, en.Producer.SHA256[:]...)
	e.str(en.Note)
	if en.Value == nil {
		e.u8(0)
		e.u32(0)
		return
	}
	e.u8(uint8(en.Value.Kind()))
	e.u32(uint32(en.Value.size()))
	en.Value.appendPayload(e)
}

// encodedSize is the exact length Encode produces for a valid f.
func encodedSize(f *Fingerprint) int {
	n := len(Magic) + 2 + 1 + 4
	for _, en := range f.Slots {
		if en.Status == StatusMissing {
			continue
		}
		n += 2 + 4 + len(en.Producer.Model) + 32 + 4 + len(en.Note) + 1 + 4
		if en.Value != nil {
			n += en.Value.size()
		}
	}
	return n
}

func f32sSize(v []float32) int { return 4 + 4*len(v) }

func strsSize(ss []string) int {
	n := 4
	for _, s := range ss {
		n += 4 + len(s)
	}
	return n
}

func (v Dense) size() int     { return f32sSize(v) }
func (v Pair) size() int      { return f32sSize(v.A) + f32sSize(v.B) }
func (v TermFreqs) size() int { return strsSize(v.Terms) + 4*len(v.Counts) }
func (v Sparse) size() int    { return 4 + 8*len(v.Indices) }
func (v Tokens) size() int    { return 8 + 4*len(v.Data) }
func (v Hyper) size() int     { return 4 + 8*len(v.Bits) + f32sSize(v.Projection) }
func (v Timestamp) size() int { return 8 }
func (v Periodic) size() int  { return 8 + f32sSize(v.Features) }
func (v Sequence) size() int  { return 8 + f32sSize(v.Features) }
func (v Entities) size() int  { return strsSize(v.Names) + f32sSize(v.Vector) }

// Decode parses an encoded fingerprint. It accepts only canonical encodings —
// those Encode produces — so that Encode(Decode(b)) == b. Errors wrap
// record.ErrCorrupt and say what was wrong and where.
func Decode(b []byte) (*Fingerprint, error) {
	if len(b) < len(Magic)+2+1+4 {
		return nil, fmt.Errorf("fingerprint: %w: %d bytes is shorter than the smallest fingerprint", record.ErrCorrupt, len(b))
	}
	body, sum := b[:len(b)-4], b[len(b)-4:]
	want := uint32(sum[0]) | uint32(sum[1])<<8 | uint32(sum[2])<<16 | uint32(sum[3])<<24
	if got := crc32.Checksum(body, castagnoli); got != want {
		return nil, fmt.Errorf("fingerprint: %w: checksum mismatch (stored %08x, computed %08x)", record.ErrCorrupt, want, got)
	}
	return decodeBody(body)
}

// decodeBody decodes everything before the checksum. It is separate so that
// the fuzz test reaches the payload decoders without forging checksums.
func decodeBody(b []byte) (*Fingerprint, error) {
	d := &decbuf{b: b}
	if m := d.take(len(Magic)); m == nil || !bytes.Equal(m, []byte(Magic)) {
		return nil, fmt.Errorf("fingerprint: %w: missing magic %q (is this a cgraph fingerprint?)", record.ErrCorrupt, Magic)
	}
	v := d.u16()
	dec, ok := decodersByVersion[v]
	if d.err == nil && !ok {
		return nil, fmt.Errorf("fingerprint: %w: format version %d is not known to this build (it reads %v); upgrade cgraph", record.ErrCorrupt, v, knownVersions())
	}
	if d.err != nil {
		return nil, fmt.Errorf("fingerprint: %w: %w", record.ErrCorrupt, d.err)
	}
	f, err := dec(d)
	if err != nil {
		return nil, fmt.Errorf("fingerprint: %w: version %d: %w", record.ErrCorrupt, v, err)
	}
	return f, nil
}

// decodersByVersion maps each readable format version to its decoder.
var decodersByVersion = map[uint16]func(*decbuf) (*Fingerprint, error){
	1: decodeV1,
}

func knownVersions() []uint16 { return []uint16{1} }

func decodeV1(d *decbuf) (*Fingerprint, error) {
	f := &Fingerprint{}
	n := int(d.u8())
	if n > NumSlots {
		return nil, fmt.Errorf("%d slot entries, at most %d", n, NumSlots)
	}
	last := SlotID(0)
	for i := 0; i < n && d.err == nil; i++ {
		s := SlotID(d.u8())
		if d.err == nil && (!s.Valid() || s <= last) {
			return nil, fmt.Errorf("entry %d: slot %d invalid or not after %s (entries are in ascending slot order, once each)", i, uint8(s), last)
		}
		last = s
		en, err := decodeEntry(d, s)
		if err != nil {
			return nil, fmt.Errorf("slot %s: %w", s, err)
		}
		if d.err == nil {
			if err := en.Check(s); err != nil {
				return nil, err
			}
			f.Slots[s.Index()] = en
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%d trailing bytes after the last entry", len(d.b))
	}
	return f, nil
}

func decodeEntry(d *decbuf, s SlotID) (Entry, error) {
	var en Entry
	en.Status = Status(d.u8())
	en.Producer.Model = d.str()
	copy(en.Producer.SHA256[:], d.take(32))
	en.Note = d.str()
	k := Kind(d.u8())
	plen := d.count(1)
	payload := d.take(plen)
	if d.err != nil {
		return en, nil
	}
	if en.Status == StatusMissing || en.Status >= numStatuses {
		return en, fmt.Errorf("status %d is not storable (present 1, fallback 2, unavailable 3)", uint8(en.Status))
	}
	if k == 0 {
		if plen != 0 {
			return en, fmt.Errorf("no value but a %d-byte payload", plen)
		}
		return en, nil
	}
	if k != s.Kind() {
		return en, fmt.Errorf("payload kind %s, but %s stores %s", k, s, s.Kind())
	}
	pd := &decbuf{b: payload, off: d.off - plen}
	v := payloadDecoders[k](pd)
	if pd.err == nil && len(pd.b) != 0 {
		pd.fail(fmt.Errorf("%d unread payload bytes", len(pd.b)))
	}
	if pd.err != nil {
		return en, fmt.Errorf("%s payload: %w", k, pd.err)
	}
	en.Value = v
	return en, nil
}

// payloadDecoders holds one decoder per Kind; each mirrors appendPayload.
var payloadDecoders = [numKinds]func(d *decbuf) Value{
	KindDense:     func(d *decbuf) Value { return Dense(d.f32s()) },
	KindPair:      func(d *decbuf) Value { return Pair{A: d.f32s(), B: d.f32s()} },
	KindTermFreqs: decodeTermFreqs,
	KindSparse:    decodeSparse,
	KindTokens:    decodeTokens,
	KindHyper:     decodeHyper,
	KindTimestamp: func(d *decbuf) Value { return Timestamp{UnixMilli: d.i64()} },
	KindPeriodic:  func(d *decbuf) Value { return Periodic{UnixMilli: d.i64(), Features: d.f32s()} },
	KindSequence:  func(d *decbuf) Value { return Sequence{Position: d.u64(), Features: d.f32s()} },
	KindEntities:  decodeEntities,
}

func (v Dense) appendPayload(e *encbuf) { e.f32s(v) }
func (v Pair) appendPayload(e *encbuf)  { e.f32s(v.A); e.f32s(v.B) }

func (v TermFreqs) appendPayload(e *encbuf) {
	e.u32(uint32(len(v.Terms)))
	for i, t := range v.Terms {
		e.str(t)
		e.u32(v.Counts[i])
	}
}

func decodeTermFreqs(d *decbuf) Value {
	n := d.count(8)
	var t TermFreqs
	if n > 0 {
		t.Terms, t.Counts = make([]string, n), make([]uint32, n)
	}
	for i := 0; i < n; i++ {
		t.Terms[i] = d.str()
		t.Counts[i] = d.u32()
	}
	return t
}

func (v Sparse) appendPayload(e *encbuf) {
	e.u32(uint32(len(v.Indices)))
	for _, x := range v.Indices {
		e.u32(x)
	}
	for _, w := range v.Weights {
		e.f32(w)
	}
}

func decodeSparse(d *decbuf) Value {
	n := d.count(8)
	var s Sparse
	if n > 0 {
		s.Indices, s.Weights = make([]uint32, n), make([]float32, n)
	}
	for i := range s.Indices {
		s.Indices[i] = d.u32()
	}
	for i := range s.Weights {
		s.Weights[i] = d.f32()
	}
	return s
}

func (v Tokens) appendPayload(e *encbuf) {
	e.u32(v.Dim)
	e.u32(uint32(v.Rows()))
	for _, x := range v.Data {
		e.f32(x)
	}
}

func decodeTokens(d *decbuf) Value {
	t := Tokens{Dim: d.u32()}
	rows := d.u32()
	if d.err != nil {
		return t
	}
	if t.Dim == 0 {
		d.fail(errors.New("token matrix dimension 0"))
		return t
	}
	total := uint64(rows) * uint64(t.Dim)
	if total > uint64(len(d.b))/4 { // not total*4: 2³¹×2³¹×4 wraps to 0
		d.fail(fmt.Errorf("%d×%d token matrix exceeds the %d bytes left", rows, t.Dim, len(d.b)))
		return t
	}
	if total > 0 {
		t.Data = make([]float32, total)
	}
	for i := range t.Data {
		t.Data[i] = d.f32()
	}
	return t
}

func (v Hyper) appendPayload(e *encbuf) {
	e.u32(HyperBits)
	for _, w := range v.Bits {
		e.u64(w)
	}
	e.f32s(v.Projection)
}

func decodeHyper(d *decbuf) Value {
	var h Hyper
	if n := d.u32(); d.err == nil && n != HyperBits {
		d.fail(fmt.Errorf("hypervector of %d bits, this build reads %d", n, HyperBits))
		return h
	}
	if d.err != nil || len(d.b) < HyperWords*8 {
		d.fail(errShort)
		return h
	}
	h.Bits = make([]uint64, HyperWords)
	for i := range h.Bits {
		h.Bits[i] = d.u64()
	}
	h.Projection = d.f32s()
	return h
}

func (v Timestamp) appendPayload(e *encbuf) { e.i64(v.UnixMilli) }
func (v Periodic) appendPayload(e *encbuf)  { e.i64(v.UnixMilli); e.f32s(v.Features) }
func (v Sequence) appendPayload(e *encbuf)  { e.u64(v.Position); e.f32s(v.Features) }

func (v Entities) appendPayload(e *encbuf) {
	e.u32(uint32(len(v.Names)))
	for _, n := range v.Names {
		e.str(n)
	}
	e.f32s(v.Vector)
}

func decodeEntities(d *decbuf) Value {
	n := d.count(4)
	var en Entities
	if n > 0 {
		en.Names = make([]string, n)
	}
	for i := range en.Names {
		en.Names[i] = d.str()
	}
	en.Vector = d.f32s()
	return en
}
