package engine

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// This file holds the value and key layouts package memory writes into the
// engine's derived families (engine/FORMAT.md, "Derived families"). Every
// value starts with a version byte; decoders refuse other versions and
// trailing bytes, and their errors wrap record.ErrCorrupt.

// valueVersion is the version byte of every value layout in this file.
const valueVersion = 1

// encodeVector is a dense-family value: version, uvarint dim, dim × float32
// little endian.
func encodeVector(v []float32) []byte {
	b := make([]byte, 0, 1+binary.MaxVarintLen32+4*len(v))
	b = append(b, valueVersion)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return appendFloats(b, v)
}

func appendFloats(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// decbuf reads a value and keeps its first error (tsdb's Decbuf).
type decbuf struct {
	b   []byte
	err error
}

func (d *decbuf) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%s: %w", fmt.Sprintf(format, a...), record.ErrCorrupt)
	}
}

func (d *decbuf) byte1() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 1 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decbuf) uvarint(limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || n != uvarintLen(v) {
		d.fail("bad varint")
		return 0
	}
	if v > limit {
		d.fail("count %d above %d", v, limit)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decbuf) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b) < n {
		d.fail("truncated: want %d bytes, have %d", n, len(d.b))
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decbuf) floats(n int) []float32 {
	raw := d.bytes(4 * n)
	if raw == nil {
		return nil
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v
}

func (d *decbuf) version() {
	if v := d.byte1(); d.err == nil && v != valueVersion {
		d.fail("value version %d, this build reads %d: upgrade cgraph", v, valueVersion)
	}
}

func (d *decbuf) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	return d.err
}

// maxDim bounds decoded dimensions so a corrupt length cannot allocate much.
const maxDim = 1 << 16

func decodeVector(b []byte) ([]float32, error) {
	d := decbuf{b: b}
	d.version()
	n := d.uvarint(maxDim)
	v := d.floats(int(n))
	return v, d.done()
}

// encodeHyper is the e9_hdc value: version, HyperWords × uint64 little
// endian, then the projection as uvarint dim + float32s.
func encodeHyper(h fingerprint.Hyper) []byte {
	b := make([]byte, 0, 1+8*fingerprint.HyperWords+binary.MaxVarintLen32+4*len(h.Projection))
	b = append(b, valueVersion)
	for _, w := range h.Bits {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	b = binary.AppendUvarint(b, uint64(len(h.Projection)))
	return appendFloats(b, h.Projection)
}

func decodeHyper(b []byte) (fingerprint.Hyper, error) {
	d := decbuf{b: b}
	d.version()
	raw := d.bytes(8 * fingerprint.HyperWords)
	var h fingerprint.Hyper
	if raw != nil {
		h.Bits = make([]uint64, fingerprint.HyperWords)
		for i := range h.Bits {
			h.Bits[i] = binary.LittleEndian.Uint64(raw[8*i:])
		}
	}
	n := d.uvarint(maxDim)
	h.Projection = d.floats(int(n))
	return h, d.done()
}

// encodeEntities is the e11_entity value: version, uvarint count, the names
// as uvarint length + bytes, then the entity vector as uvarint dim (0: none)
// + float32s.
func encodeEntities(e fingerprint.Entities) []byte {
	b := []byte{valueVersion}
	b = binary.AppendUvarint(b, uint64(len(e.Names)))
	for _, n := range e.Names {
		b = binary.AppendUvarint(b, uint64(len(n)))
		b = append(b, n...)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Vector)))
	return appendFloats(b, e.Vector)
}

// maxNames bounds a decoded entity set.
const maxNames = 1 << 20

func decodeEntities(b []byte) (fingerprint.Entities, error) {
	d := decbuf{b: b}
	d.version()
	n := d.uvarint(maxNames)
	var e fingerprint.Entities
	for i := uint64(0); i < n && d.err == nil; i++ {
		l := d.uvarint(1 << 16)
		e.Names = append(e.Names, string(d.bytes(int(l))))
	}
	dim := d.uvarint(maxDim)
	if dim > 0 {
		e.Vector = d.floats(int(dim))
	}
	return e, d.done()
}

// Posting keys of e6_sparse_inverted and e13_splade_inverted: one key per
// (term, doc), so adding or deleting a document is point writes and never a
// read-modify-write of a shared list (an LSM turns those into write
// amplification and makes concurrent batches conflict):
//
//	'p' + uvarint(len(term)) + term + doc (4, BE)  → posting value
//
// E6 terms are the token bytes; E13 terms are the vocabulary index as 4
// bytes BE. Values: E6 uvarint term count; E13 float32 weight, little endian.
// Statistics keys start with 's' and never collide with postings.
const (
	postingPrefix = 'p'
	statPrefix    = 's'
)

var (
	statDocsKey   = []byte("s/docs")   // uint64 BE: documents with postings
	statLengthKey = []byte("s/length") // uint64 BE: Σ document lengths (E6: Σ term counts)
)

// postingKey returns the key of term's posting of doc.
func postingKey(term []byte, doc uint32) []byte {
	k := make([]byte, 0, 1+binary.MaxVarintLen16+len(term)+4)
	k = append(k, postingPrefix)
	k = binary.AppendUvarint(k, uint64(len(term)))
	k = append(k, term...)
	return binary.BigEndian.AppendUint32(k, doc)
}

// maxTermBytes bounds a term in a posting key.
const maxTermBytes = 1 << 12

// parsePostingKey splits a posting key into its term and doc. The term
// aliases k.
func parsePostingKey(k []byte) (term []byte, doc uint32, err error) {
	if len(k) < 1 || k[0] != postingPrefix {
		return nil, 0, fmt.Errorf("posting key %x: no 'p' prefix: %w", k, record.ErrCorrupt)
	}
	n, w := binary.Uvarint(k[1:])
	if w <= 0 || w != uvarintLen(n) || n > maxTermBytes {
		return nil, 0, fmt.Errorf("posting key %x: bad term length: %w", k, record.ErrCorrupt)
	}
	rest := k[1+w:]
	if uint64(len(rest)) != n+4 {
		return nil, 0, fmt.Errorf("posting key %x: %d bytes after the term length %d, want %d: %w", k, len(rest), n, n+4, record.ErrCorrupt)
	}
	return rest[:n], binary.BigEndian.Uint32(rest[n:]), nil
}

// spladeTerm is the term bytes of a vocabulary index.
func spladeTerm(i uint32) []byte { return binary.BigEndian.AppendUint32(nil, i) }

func encodeU64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func decodeU64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%d bytes, want 8: %w", len(b), record.ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b), nil
}

// docKey is the 4-byte BE doc number, the key of per-doc families.
func docKey(doc uint32) []byte { return binary.BigEndian.AppendUint32(nil, doc) }

// uvarintLen is the length of v's canonical (shortest) uvarint; decoders
// refuse longer encodings so every key and value has one form.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
