package fingerprint

import (
	"bytes"
	"fmt"
	"hash/crc32"

	"github.com/cgraph/cgraph/internal/decbuf"
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
// record.ErrCorrupt and say what was wrong and where. What it returns holds
// no reference to b (every string and slice is copied out), so b may be a
// buffer its owner reuses or frees right after (TestDecodeKeepsNoReference).
func Decode(b []byte) (*Fingerprint, error) { return decodeChecked(b, nil) }

// decodeChecked checks b's checksum and decodes its body, keeping the
// payloads of the slots keep marks (nil: all).
func decodeChecked(b []byte, keep *slotMask) (*Fingerprint, error) {
	if len(b) < len(Magic)+2+1+4 {
		return nil, fmt.Errorf("fingerprint: %w: %d bytes is shorter than the smallest fingerprint", record.ErrCorrupt, len(b))
	}
	body, sum := b[:len(b)-4], b[len(b)-4:]
	want := uint32(sum[0]) | uint32(sum[1])<<8 | uint32(sum[2])<<16 | uint32(sum[3])<<24
	if got := crc32.Checksum(body, castagnoli); got != want {
		return nil, fmt.Errorf("fingerprint: %w: checksum mismatch (stored %08x, computed %08x)", record.ErrCorrupt, want, got)
	}
	return decodeSome(body, keep)
}

// DecodeSlots is Decode for a reader that needs only some slots (a write's
// near-duplicate evidence reads E6 and E11 of each close memory): the
// checksum and every entry's header are checked as Decode checks them,
// but only the payloads of slots are decoded; the other entries are left
// missing, their payloads unread. Since it does not read them, it accepts
// a fingerprint whose other payloads Decode would refuse.
func DecodeSlots(b []byte, slots ...SlotID) (*Fingerprint, error) {
	var keep slotMask
	for _, s := range slots {
		if s.Valid() {
			keep[s.Index()] = true
		}
	}
	return decodeChecked(b, &keep)
}

// slotMask says which slots' payloads a decode keeps (nil: all).
type slotMask [NumSlots]bool

// decodeBody decodes everything before the checksum. It is separate so that
// the fuzz test reaches the payload decoders without forging checksums.
func decodeBody(b []byte) (*Fingerprint, error) { return decodeSome(b, nil) }

// decodeSome is decodeBody keeping the payloads of the slots keep marks.
func decodeSome(b []byte, keep *slotMask) (*Fingerprint, error) {
	d := decbuf.New(b)
	if m := d.Bytes(len(Magic)); m == nil || !bytes.Equal(m, []byte(Magic)) {
		return nil, fmt.Errorf("fingerprint: %w: missing magic %q (is this a cgraph fingerprint?)", record.ErrCorrupt, Magic)
	}
	v := d.Le16()
	dec, ok := decodersByVersion[v]
	if d.Err() == nil && !ok {
		return nil, fmt.Errorf("fingerprint: %w: format version %d is not known to this build (it reads %v); upgrade cgraph", record.ErrCorrupt, v, knownVersions())
	}
	if d.Err() != nil {
		return nil, fmt.Errorf("fingerprint: %w: %w", record.ErrCorrupt, d.Err())
	}
	f, err := dec(&d, keep)
	if err != nil {
		return nil, fmt.Errorf("fingerprint: %w: version %d: %w", record.ErrCorrupt, v, err)
	}
	return f, nil
}

// decodersByVersion maps each readable format version to its decoder.
var decodersByVersion = map[uint16]func(*decbuf.Decbuf, *slotMask) (*Fingerprint, error){
	1: decodeV1,
}

func knownVersions() []uint16 { return []uint16{1} }

func decodeV1(d *decbuf.Decbuf, keep *slotMask) (*Fingerprint, error) {
	f := &Fingerprint{}
	n := int(d.Byte())
	if n > NumSlots {
		return nil, fmt.Errorf("%d slot entries, at most %d", n, NumSlots)
	}
	last := SlotID(0)
	for i := 0; i < n && d.Err() == nil; i++ {
		s := SlotID(d.Byte())
		if d.Err() == nil && (!s.Valid() || s <= last) {
			return nil, fmt.Errorf("entry %d: slot %d invalid or not after %s (entries are in ascending slot order, once each)", i, uint8(s), last)
		}
		last = s
		en, err := decodeEntry(d, s, keep == nil || keep[s.Index()])
		if err != nil {
			return nil, fmt.Errorf("slot %s: %w", s, err)
		}
		if d.Err() == nil && (keep == nil || keep[s.Index()]) {
			if err := en.Check(s); err != nil {
				return nil, err
			}
			f.Slots[s.Index()] = en
		}
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	if d.Len() != 0 {
		return nil, fmt.Errorf("%d trailing bytes after the last entry", d.Len())
	}
	return f, nil
}

// decodeEntry reads one entry; without payload it checks the entry's
// header and skips its payload, leaving the entry missing.
func decodeEntry(d *decbuf.Decbuf, s SlotID, payload bool) (Entry, error) {
	var en Entry
	en.Status = Status(d.Byte())
	en.Producer.Model = d.Le32Str()
	copy(en.Producer.SHA256[:], d.Bytes(32))
	en.Note = d.Le32Str()
	k := Kind(d.Byte())
	plen := d.Le32Count(1)
	body := d.Bytes(plen)
	if d.Err() != nil {
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
	if !payload {
		return Entry{}, nil
	}
	pd := decbuf.NewAt(body, d.Off()-plen)
	v := payloadDecoders[k](&pd)
	if pd.Err() == nil && pd.Len() != 0 {
		pd.Fail("%d unread payload bytes", pd.Len())
	}
	if pd.Err() != nil {
		return en, fmt.Errorf("%s payload: %w", k, pd.Err())
	}
	en.Value = v
	return en, nil
}

// payloadDecoders holds one decoder per Kind; each mirrors appendPayload.
var payloadDecoders = [numKinds]func(d *decbuf.Decbuf) Value{
	KindDense:     func(d *decbuf.Decbuf) Value { return Dense(f32s(d)) },
	KindPair:      func(d *decbuf.Decbuf) Value { return Pair{A: f32s(d), B: f32s(d)} },
	KindTermFreqs: decodeTermFreqs,
	KindSparse:    decodeSparse,
	KindTokens:    decodeTokens,
	KindHyper:     decodeHyper,
	KindTimestamp: func(d *decbuf.Decbuf) Value { return Timestamp{UnixMilli: int64(d.Le64())} },
	KindPeriodic:  func(d *decbuf.Decbuf) Value { return Periodic{UnixMilli: int64(d.Le64()), Features: f32s(d)} },
	KindSequence:  func(d *decbuf.Decbuf) Value { return Sequence{Position: d.Le64(), Features: f32s(d)} },
	KindEntities:  decodeEntities,
}

// f32s reads a u32 count and that many float32s (encbuf.f32s).
func f32s(d *decbuf.Decbuf) []float32 { return d.LeFloat32s(d.Le32Count(4)) }

func (v Dense) appendPayload(e *encbuf) { e.f32s(v) }
func (v Pair) appendPayload(e *encbuf)  { e.f32s(v.A); e.f32s(v.B) }

func (v TermFreqs) appendPayload(e *encbuf) {
	e.u32(uint32(len(v.Terms)))
	for i, t := range v.Terms {
		e.str(t)
		e.u32(v.Counts[i])
	}
}

func decodeTermFreqs(d *decbuf.Decbuf) Value {
	n := d.Le32Count(8)
	var t TermFreqs
	if n > 0 {
		t.Terms, t.Counts = make([]string, n), make([]uint32, n)
	}
	for i := 0; i < n; i++ {
		t.Terms[i] = d.Le32Str()
		t.Counts[i] = d.Le32()
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

func decodeSparse(d *decbuf.Decbuf) Value {
	n := d.Le32Count(8)
	var s Sparse
	if n > 0 {
		s.Indices, s.Weights = make([]uint32, n), make([]float32, n)
	}
	for i := range s.Indices {
		s.Indices[i] = d.Le32()
	}
	for i := range s.Weights {
		s.Weights[i] = d.LeFloat32()
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

func decodeTokens(d *decbuf.Decbuf) Value {
	t := Tokens{Dim: d.Le32()}
	rows := d.Le32()
	if d.Err() != nil {
		return t
	}
	if t.Dim == 0 {
		d.Fail("token matrix dimension 0")
		return t
	}
	total := uint64(rows) * uint64(t.Dim)
	if total > uint64(d.Len())/4 { // not total*4: 2³¹×2³¹×4 wraps to 0
		d.Fail("%d×%d token matrix exceeds the %d bytes left", rows, t.Dim, d.Len())
		return t
	}
	t.Data = d.LeFloat32s(int(total))
	return t
}

func (v Hyper) appendPayload(e *encbuf) {
	e.u32(HyperBits)
	for _, w := range v.Bits {
		e.u64(w)
	}
	e.f32s(v.Projection)
}

func decodeHyper(d *decbuf.Decbuf) Value {
	var h Hyper
	if n := d.Le32(); d.Err() == nil && n != HyperBits {
		d.Fail("hypervector of %d bits, this build reads %d", n, HyperBits)
		return h
	}
	h.Bits = d.Le64s(HyperWords)
	h.Projection = f32s(d)
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

func decodeEntities(d *decbuf.Decbuf) Value {
	n := d.Le32Count(4)
	var en Entities
	if n > 0 {
		en.Names = make([]string, n)
	}
	for i := range en.Names {
		en.Names[i] = d.Le32Str()
	}
	en.Vector = f32s(d)
	return en
}
