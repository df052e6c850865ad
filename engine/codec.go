package engine

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/internal/decbuf"
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

// newValueDecoder starts decoding a value of this file: canonical uvarints,
// and the version byte read and checked.
func newValueDecoder(b []byte) *decbuf.Decbuf {
	d := decbuf.NewCanonical(b)
	if v := d.Byte(); d.Err() == nil && v != valueVersion {
		d.Fail("value version %d, this build reads %d: upgrade cgraph", v, valueVersion)
	}
	return &d
}

// done ends a value decoder: trailing bytes are corruption too, and the
// error says the value is corrupt (the caller names family and key).
func done(d *decbuf.Decbuf) error {
	if err := d.Done(); err != nil {
		return fmt.Errorf("%w: %w", err, record.ErrCorrupt)
	}
	return nil
}

// maxDim bounds decoded dimensions so a corrupt length cannot allocate much.
const maxDim = 1 << 16

func decodeVector(b []byte) ([]float32, error) {
	d := newValueDecoder(b)
	v := d.LeFloat32s(int(d.UvarintMax(maxDim)))
	return v, done(d)
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
	d := newValueDecoder(b)
	var h fingerprint.Hyper
	h.Bits = d.Le64s(fingerprint.HyperWords)
	h.Projection = d.LeFloat32s(int(d.UvarintMax(maxDim)))
	return h, done(d)
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

// maxNames and maxNameBytes bound a decoded entity set.
const (
	maxNames     = 1 << 20
	maxNameBytes = 1 << 16
)

func decodeEntities(b []byte) (fingerprint.Entities, error) {
	d := newValueDecoder(b)
	n := d.UvarintMax(maxNames)
	var e fingerprint.Entities
	for i := uint64(0); i < n && d.Err() == nil; i++ {
		e.Names = append(e.Names, d.UvarintStr(maxNameBytes))
	}
	e.Vector = d.LeFloat32s(int(d.UvarintMax(maxDim)))
	return e, done(d)
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
func postingKey(term []byte, doc record.DocNum) []byte {
	k := make([]byte, 0, 1+binary.MaxVarintLen16+len(term)+4)
	k = append(k, postingPrefix)
	k = binary.AppendUvarint(k, uint64(len(term)))
	k = append(k, term...)
	return binary.BigEndian.AppendUint32(k, uint32(doc))
}

// maxTermBytes bounds a term in a posting key.
const maxTermBytes = 1 << 12

// parsePostingKey splits a posting key into its term and doc. The term
// aliases k.
func parsePostingKey(k []byte) (term []byte, doc record.DocNum, err error) {
	if len(k) < 1 || k[0] != postingPrefix {
		return nil, 0, fmt.Errorf("posting key %x: no 'p' prefix: %w", k, record.ErrCorrupt)
	}
	d := decbuf.NewCanonical(k[1:])
	n := d.UvarintMax(maxTermBytes)
	if d.Err() != nil {
		return nil, 0, fmt.Errorf("posting key %x: bad term length: %w", k, record.ErrCorrupt)
	}
	if uint64(d.Len()) != n+4 {
		return nil, 0, fmt.Errorf("posting key %x: %d bytes after the term length %d, want %d: %w", k, d.Len(), n, n+4, record.ErrCorrupt)
	}
	return d.Bytes(int(n)), record.DocNum(d.Be32()), nil
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
func docKey(doc record.DocNum) []byte { return binary.BigEndian.AppendUint32(nil, uint32(doc)) }
