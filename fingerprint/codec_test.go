package fingerprint

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata (only for a new format version)")

// vec returns a deterministic vector of n values starting at seed.
func vec(n int, seed float32) Dense {
	v := make(Dense, n)
	for i := range v {
		v[i] = seed + float32(i)*0.25 - float32(n)/8
	}
	return v
}

func producer(name string) Producer {
	return Producer{Model: name, SHA256: sha256.Sum256([]byte(name))}
}

// fullFingerprint has every slot set, with every status and every kind.
func fullFingerprint(dim int) *Fingerprint {
	hv := make([]uint64, HyperWords)
	for i := range hv {
		hv[i] = 0x9e3779b97f4a7c15 * uint64(i+1)
	}
	hv[HyperWords-1] &= 1<<(HyperBits%64) - 1
	f := &Fingerprint{}
	set := func(s SlotID, e Entry) {
		if err := f.Set(s, e); err != nil {
			panic(err)
		}
	}
	set(E1, Entry{Status: StatusPresent, Producer: producer("intfloat/e5-small-v2"), Value: vec(dim, 1)})
	set(E2, Entry{Status: StatusPresent, Producer: producer("cgraph/e2"), Value: Timestamp{UnixMilli: 1_763_800_000_123}})
	set(E3, Entry{Status: StatusPresent, Producer: producer("cgraph/e3"), Value: Periodic{UnixMilli: 1_763_800_000_123, Features: vec(12, 0)}})
	set(E4, Entry{Status: StatusUnavailable, Note: "memory has no session"})
	set(E5, Entry{Status: StatusPresent, Producer: producer("e5-causal"), Value: Pair{A: vec(dim, 2), B: vec(dim, -2)}})
	set(E6, Entry{Status: StatusPresent, Producer: producer("cgraph/e6"), Value: TermFreqs{Terms: []string{"getuserbyid", "id", "user"}, Counts: []uint32{1, 3, 2}}})
	set(E7, Entry{Status: StatusPresent, Producer: producer("all-MiniLM-L6-v2"), Value: vec(dim, 3)})
	set(E8, Entry{Status: StatusUnavailable, Note: "no model installed for E8; run cgraph models pull"})
	set(E9, Entry{Status: StatusPresent, Producer: producer("cgraph/e9"), Value: Hyper{Bits: hv, Projection: vec(256, 0.5)}})
	set(E10, Entry{Status: StatusPresent, Producer: producer("e10"), Value: Pair{A: vec(dim, 4), B: vec(dim, 5)}})
	set(E11, Entry{Status: StatusFallback, Note: "entity set only; no entity vector model", Producer: producer("cgraph/e11"), Value: Entities{Names: []string{"err:ENOENT", "lib:rocksdb", "path:cmd/main.go"}}})
	set(E12, Entry{Status: StatusFallback, Note: "E1 token states, PCA to 128", Producer: producer("e12"), Value: Tokens{Dim: 4, Data: []float32{1, 2, 3, 4, -1, -2, -3, float32(math.Inf(1))}}})
	set(E13, Entry{Status: StatusPresent, Producer: producer("splade"), Value: Sparse{Indices: []uint32{3, 70, 30521}, Weights: []float32{0.5, 1.25, 2}}})
	return f
}

func TestRoundTrip(t *testing.T) {
	cases := map[string]*Fingerprint{
		"empty":     {},
		"full-384d": fullFingerprint(384),
		"full-8d":   fullFingerprint(8),
		"empty-values": func() *Fingerprint {
			f := &Fingerprint{}
			_ = f.Set(E1, Entry{Status: StatusPresent, Value: Dense(nil)})
			_ = f.Set(E6, Entry{Status: StatusPresent, Value: TermFreqs{}})
			_ = f.Set(E11, Entry{Status: StatusPresent, Value: Entities{}})
			return f
		}(),
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			g, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			sameSlots(t, b, g)
			if !reflect.DeepEqual(f, g) {
				t.Fatalf("round trip changed the fingerprint:\n got %+v\nwant %+v", g, f)
			}
			b2, err := Encode(g)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("re-encoding differs (err %v)", err)
			}
		})
	}
}

// TestFixtureV1 pins format version 1: the fixture written when v1 shipped must
// keep decoding to the same fingerprint, and v1 encoding must not drift.
func TestFixtureV1(t *testing.T) {
	path := filepath.Join("testdata", "fingerprint_v1.bin")
	want := fullFingerprint(8)
	if *update {
		b, err := Encode(want)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	if !bytes.HasPrefix(b, []byte("CGFP\x01\x00")) {
		t.Fatalf("fixture does not start with magic and version 1: % x", b[:6])
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("v1 fixture no longer decodes: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("v1 fixture decodes differently:\n got %+v\nwant %+v", got, want)
	}
	if Version == 1 {
		again, _ := Encode(want)
		if !bytes.Equal(again, b) {
			t.Fatalf("v1 encoding drifted from the fixture")
		}
	}
}

// TestEnumNumbers pins numbers that are part of the format.
func TestEnumNumbers(t *testing.T) {
	pins := []struct {
		got, want uint8
	}{
		{uint8(StatusPresent), 1}, {uint8(StatusFallback), 2}, {uint8(StatusUnavailable), 3},
		{uint8(KindDense), 1}, {uint8(KindPair), 2}, {uint8(KindTermFreqs), 3}, {uint8(KindSparse), 4},
		{uint8(KindTokens), 5}, {uint8(KindHyper), 6}, {uint8(KindTimestamp), 7}, {uint8(KindPeriodic), 8},
		{uint8(KindSequence), 9}, {uint8(KindEntities), 10},
	}
	for i, p := range pins {
		if p.got != p.want {
			t.Errorf("pin %d: value %d, format says %d", i, p.got, p.want)
		}
	}
	for k := Kind(1); k < numKinds; k++ {
		if strings.HasPrefix(k.String(), "kind(") || payloadDecoders[k] == nil {
			t.Errorf("kind %d has no name or decoder", k)
		}
	}
	for _, s := range Slots() {
		if s.Kind() == 0 {
			t.Errorf("%s has no kind", s)
		}
	}
}

func TestEntryCheckRejects(t *testing.T) {
	cases := []struct {
		name string
		slot SlotID
		e    Entry
		want string
	}{
		{"wrong kind", E1, Entry{Status: StatusPresent, Value: TermFreqs{}}, "stores dense"},
		{"no value", E1, Entry{Status: StatusPresent}, "needs a value"},
		{"unavailable without reason", E13, Entry{Status: StatusUnavailable}, "note saying why"},
		{"unavailable with value", E1, Entry{Status: StatusUnavailable, Note: "x", Value: Dense{1}}, "carries no value"},
		{"fallback without note", E12, Entry{Status: StatusFallback, Value: Tokens{Dim: 1}}, "note naming"},
		{"bad status", E1, Entry{Status: 9, Value: Dense{1}}, "unknown status"},
		{"pair dims", E5, Entry{Status: StatusPresent, Value: Pair{A: Dense{1, 2}, B: Dense{1}}}, "same dimension"},
		{"unsorted terms", E6, Entry{Status: StatusPresent, Value: TermFreqs{Terms: []string{"b", "a"}, Counts: []uint32{1, 1}}}, "ascending"},
		{"zero count", E6, Entry{Status: StatusPresent, Value: TermFreqs{Terms: []string{"a"}, Counts: []uint32{0}}}, "count 0"},
		{"sparse dup", E13, Entry{Status: StatusPresent, Value: Sparse{Indices: []uint32{4, 4}, Weights: []float32{1, 1}}}, "ascending"},
		{"ragged tokens", E12, Entry{Status: StatusPresent, Value: Tokens{Dim: 3, Data: []float32{1, 2}}}, "multiple"},
		{"short hyper", E9, Entry{Status: StatusPresent, Value: Hyper{Bits: make([]uint64, 3)}}, "words"},
		{"dup entity", E11, Entry{Status: StatusPresent, Value: Entities{Names: []string{"a", "a"}}}, "ascending"},
	}
	for _, c := range cases {
		var f Fingerprint
		err := f.Set(c.slot, c.e)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if f.Get(c.slot).Status != StatusMissing {
			t.Errorf("%s: rejected entry was stored", c.name)
		}
	}
	bad := fullFingerprint(4)
	bad.Slots[E1.Index()].Value = Dense(nil)
	bad.Slots[E1.Index()].Status = StatusPresent
	bad.Slots[E6.Index()].Value = Dense{1}
	if _, err := Encode(bad); err == nil || !strings.Contains(err.Error(), "E6") {
		t.Errorf("Encode of an invalid fingerprint: %v, want an error naming E6", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	good, err := Encode(fullFingerprint(4))
	if err != nil {
		t.Fatal(err)
	}
	reseal := func(body []byte) []byte {
		e := &encbuf{b: append([]byte(nil), body...)}
		e.u32(crcOf(body))
		return e.b
	}
	body := good[:len(good)-4]
	flip := append([]byte(nil), good...)
	flip[20] ^= 1
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "shorter"},
		{"bad magic", reseal(append([]byte("XXXX"), body[4:]...)), "magic"},
		{"future version", reseal(append([]byte("CGFP\x02\x00"), body[6:]...)), "version 2 is not known"},
		{"checksum", flip, "checksum"},
		{"truncated", reseal(body[:len(body)-3]), "bytes left"},
		{"trailing", reseal(append(append([]byte(nil), body...), 0)), "trailing"},
		{"too many entries", reseal([]byte("CGFP\x01\x00\x0e")), "at most 13"},
		{"slot zero", reseal([]byte("CGFP\x01\x00\x01\x00")), "slot 0 invalid"},
	}
	for _, c := range cases {
		_, err := Decode(c.b)
		if err == nil || !errors.Is(err, record.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want record.ErrCorrupt containing %q", c.name, err, c.want)
		}
	}
}

func crcOf(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// TestDecodeHugeTokenMatrix: a token matrix whose element count times four
// wraps around uint64 is refused, not allocated.
func TestDecodeHugeTokenMatrix(t *testing.T) {
	e := &encbuf{b: []byte(Magic)}
	e.u16(Version)
	e.u8(1)
	e.u8(uint8(E12))
	e.u8(uint8(StatusPresent))
	e.str("")
	e.b = append(e.b, make([]byte, 32)...)
	e.str("")
	e.u8(uint8(KindTokens))
	e.u32(8)
	e.u32(1 << 31) // dim
	e.u32(1 << 31) // rows: 2^62 values, 2^64 bytes
	_, err := decodeBody(e.b)
	if !errors.Is(err, record.ErrCorrupt) || !strings.Contains(err.Error(), "token matrix") {
		t.Fatalf("error %v, want record.ErrCorrupt about the token matrix", err)
	}
}

func TestMatryoshka128(t *testing.T) {
	v := make([]float32, 384)
	for i := range v {
		v[i] = 1
	}
	m := Matryoshka128(v)
	if len(m) != 128 {
		t.Fatalf("len %d", len(m))
	}
	var ss float64
	for _, x := range m {
		ss += float64(x) * float64(x)
	}
	if math.Abs(ss-1) > 1e-5 || math.Abs(float64(m[0])-1/math.Sqrt(128)) > 1e-6 {
		t.Errorf("not unit length or wrong values: |m|²=%v m[0]=%v", ss, m[0])
	}
	if v[0] != 1 {
		t.Error("input modified")
	}
	if Matryoshka128(v[:100]) != nil {
		t.Error("short vector should give nil")
	}
	z := Matryoshka128(make([]float32, 128))
	if len(z) != 128 || z[5] != 0 {
		t.Error("zero vector should stay zero")
	}
}

// FuzzDecode: Decode never panics, and whatever decodes re-encodes to the same
// bytes. decodeBody is fuzzed too so that the payload decoders are reached
// without the fuzzer having to forge a CRC. Seeds are a few KB, so run it with
// a bounded minimisation, or the fuzzer spends its time minimising:
//
//	go test -run '^$' -fuzz FuzzDecode -fuzztime 60s -fuzzminimizetime 50x ./fingerprint
func FuzzDecode(f *testing.F) {
	for _, fp := range []*Fingerprint{{}, fullFingerprint(2), fullFingerprint(8)} {
		b, err := Encode(fp)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)-4])
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "fingerprint_v1.bin")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if fp, err := Decode(b); err == nil {
			sameSlots(t, b, fp)
			again, err := Encode(fp)
			if err != nil {
				t.Fatalf("decoded fingerprint does not encode: %v", err)
			}
			if !bytes.Equal(again, b) {
				t.Fatalf("Encode(Decode(b)) != b")
			}
		}
		if fp, err := decodeBody(b); err == nil {
			again, err := Encode(fp)
			if err != nil {
				t.Fatalf("decoded body does not encode: %v", err)
			}
			if !bytes.Equal(again[:len(again)-4], b) {
				t.Fatalf("Encode(decodeBody(b)) != b")
			}
		}
	})
}

// sameSlots checks that DecodeSlots of b, for a few sets of slots, holds
// exactly fp's entries of those slots and nothing else.
func sameSlots(t *testing.T, b []byte, fp *Fingerprint) {
	t.Helper()
	for _, want := range [][]SlotID{nil, {E6, E11}, {E1}, Slots()} {
		got, err := DecodeSlots(b, want...)
		if err != nil {
			t.Fatalf("DecodeSlots(%v): %v where Decode succeeds", want, err)
		}
		for _, s := range Slots() {
			e := Entry{}
			if slices.Contains(want, s) {
				e = fp.Get(s)
			}
			if !reflect.DeepEqual(got.Get(s), e) {
				t.Fatalf("DecodeSlots(%v): slot %s is %+v, want %+v", want, s, got.Get(s), e)
			}
		}
	}
}

// TestDecodeSlots: DecodeSlots still refuses a damaged fingerprint
// (checksum); TestRoundTrip and FuzzDecode check what it keeps against
// Decode (sameSlots).
func TestDecodeSlots(t *testing.T) {
	b, err := Encode(fullFingerprint(3))
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(b)
	bad[len(bad)/2] ^= 1
	if _, err := DecodeSlots(bad, E6); !errors.Is(err, record.ErrCorrupt) {
		t.Errorf("a flipped byte: %v, want ErrCorrupt", err)
	}
}

// TestDecodeKeepsNoReference: what Decode and DecodeSlots return holds no
// reference to the bytes they read, so a caller may decode a value in place
// (a RocksDB pinned slice) and release it: overwriting the input after
// decoding changes nothing decoded, for a fingerprint with every kind of
// value.
func TestDecodeKeepsNoReference(t *testing.T) {
	b, err := Encode(fullFingerprint(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		decode func([]byte) (*Fingerprint, error)
	}{
		{"Decode", Decode},
		{"DecodeSlots", func(b []byte) (*Fingerprint, error) { return DecodeSlots(b, E6, E11, E9, E12, E5) }},
	} {
		want, err := tc.decode(b)
		if err != nil {
			t.Fatal(err)
		}
		buf := slices.Clone(b)
		got, err := tc.decode(buf)
		if err != nil {
			t.Fatal(err)
		}
		for i := range buf {
			buf[i] = 0xa5
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the decoded fingerprint changed with its input's bytes", tc.name)
		}
	}
}

// TestEncodedSize checks the size computation Encode relies on for its
// payload lengths and its single allocation.
func TestEncodedSize(t *testing.T) {
	for _, f := range []*Fingerprint{{}, fullFingerprint(3), fullFingerprint(384)} {
		b, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		if encodedSize(f) != len(b) || cap(b) != len(b) {
			t.Errorf("encodedSize %d, encoded %d bytes (cap %d)", encodedSize(f), len(b), cap(b))
		}
	}
}
