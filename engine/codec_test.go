package engine

import (
	"bytes"
	"testing"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

func TestPostingKeyRoundTrip(t *testing.T) {
	for _, c := range []struct {
		term string
		doc  record.DocNum
	}{{"a", 0}, {"fmt.errorf", 7}, {string(make([]byte, 300)), 1 << 31}, {"", 3}} {
		k := postingKey([]byte(c.term), c.doc)
		term, doc, err := parsePostingKey(k)
		if err != nil || string(term) != c.term || doc != c.doc {
			t.Errorf("%q/%d: got %q/%d %v", c.term, c.doc, term, doc, err)
		}
	}
	// Keys of one term share a prefix no other term's keys start with.
	a, b := postingKey([]byte("ab"), 1), postingKey([]byte("abc"), 1)
	if bytes.HasPrefix(b, a[:len(a)-4]) {
		t.Error("term ab's prefix also prefixes term abc")
	}
}

func FuzzParsePostingKey(f *testing.F) {
	f.Add(postingKey([]byte("rocksdb"), 42))
	f.Add(postingKey(spladeTerm(1234), 0))
	f.Add([]byte("s/docs"))
	f.Add([]byte{'p', 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, k []byte) {
		term, doc, err := parsePostingKey(k)
		if err != nil {
			return
		}
		if got := postingKey(term, doc); !bytes.Equal(got, k) {
			t.Fatalf("%x parsed to %q/%d which encodes to %x", k, term, doc, got)
		}
	})
}

func FuzzDecodeValues(f *testing.F) {
	f.Add(encodeVector([]float32{1, 2, 3}))
	f.Add(encodeEntities(fingerprint.Entities{Names: []string{"a", "b"}, Vector: fingerprint.Dense{0.5}}))
	f.Add(encodeSlotRecord(slotRecord{Status: 1, Producer: fingerprint.Producer{Model: "m"}, Dims: 384}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := decodeVector(b); err == nil && !bytes.Equal(encodeVector(v), b) {
			t.Fatalf("vector %x re-encodes differently", b)
		}
		if e, err := decodeEntities(b); err == nil && !bytes.Equal(encodeEntities(e), b) {
			t.Fatalf("entities %x re-encode differently", b)
		}
		if r, err := decodeSlotRecord(b); err == nil && !bytes.Equal(encodeSlotRecord(r), b) {
			t.Fatalf("slot record %x re-encodes differently", b)
		}
		_, _ = decodeHyper(b)
	})
}

func TestValueRoundTrips(t *testing.T) {
	h := fingerprint.Hyper{Bits: make([]uint64, fingerprint.HyperWords), Projection: fingerprint.Dense{1, -2}}
	h.Bits[3] = 0xdeadbeef
	got, err := decodeHyper(encodeHyper(h))
	if err != nil || got.Bits[3] != 0xdeadbeef || len(got.Projection) != 2 || got.Projection[1] != -2 {
		t.Fatalf("hyper: %v %v", got.Projection, err)
	}
	if _, err := decodeVector(append(encodeVector([]float32{1}), 0)); err == nil {
		t.Error("trailing byte accepted")
	}
	if _, err := decodeVector(append([]byte{2}, encodeVector([]float32{1})[1:]...)); err == nil {
		t.Error("unknown version accepted")
	}
}
