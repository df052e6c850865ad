package cellar

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

var update = flag.Bool("update", false, "rewrite testdata fixtures (only when adding a new format version)")

// fixtureMemory is the memory encoded in testdata/record_v1.bin.
func fixtureMemory() record.Memory {
	return record.Memory{
		ID:          record.ID{0x01, 0x93, 0x4b, 0x2a, 0x7c, 0x3e, 0x7b, 0x2a, 0x9d, 0x4e, 0x1f, 0x2a, 0x3b, 0x4c, 0x5d, 0x6e},
		DocNum:      4242,
		Content:     "Use weighted RRF (K=60) to fuse ranked lists — never raw score sums.",
		Type:        record.TypeDecision,
		Tags:        []string{"fusion", "ranking", "ARCH-21"},
		Source:      "docs/design.md",
		Session:     "session-2024-11-05",
		Sequence:    17,
		CreatedAt:   time.Date(2024, 11, 5, 9, 30, 0, 123456789, time.UTC),
		UpdatedAt:   time.Date(2024, 11, 5, 9, 31, 0, 0, time.UTC),
		AccessedAt:  time.Date(2024, 12, 1, 8, 0, 0, 5, time.UTC),
		AccessCount: 3,
		Importance:  0.75,
		Revision:    1, // what a v1 record decodes to
	}
}

// fixtureMemoryV2 is fixtureMemory with the fields record version 2 added.
func fixtureMemoryV2() record.Memory {
	m := fixtureMemory()
	m.Project, m.Revision = "cgraph", 3
	m.Meta = map[string]string{"ticket": "ARCH-21", "file": "pipeline/wrrf.go"}
	return m
}

// fixtureMemoryV3 is fixtureMemoryV2 with the field record version 3
// added: an end of validity.
func fixtureMemoryV3() record.Memory {
	m := fixtureMemoryV2()
	m.ValidUntil = time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	return m
}

// TestRecordFixtureV1 keeps format v1 records decoding forever: the fixture
// was written by the first release of the codec and must not change.
func TestRecordFixtureV1(t *testing.T) {
	want := fixtureMemory()
	if *update {
		t.Skip("the v1 fixture is frozen: only a build that wrote version 1 may rewrite it")
	}
	b := readRecordFixture(t, "record_v1.bin", want)
	// Versions 2 and 3 are the v1 fields followed by their own: the v1
	// layout must not have moved.
	enc := encodeRecord(nil, &want)
	if enc[1] != recordVersion3 || !bytes.Equal(enc[2:len(b)], b[2:]) {
		t.Fatalf("the v1 fields changed place in the record: add a new record version instead\n got %x\nwant %x…", enc, b)
	}
}

// TestRecordFixtureV2 pins the v2 layout of the fields it added: version
// 3 writes them in the same place, then valid_until (zero here).
func TestRecordFixtureV2(t *testing.T) {
	want := fixtureMemoryV2()
	if *update {
		t.Skip("the v2 fixture is frozen: only a build that wrote version 2 may rewrite it")
	}
	b := readRecordFixture(t, "record_v2.bin", want)
	enc := encodeRecord(nil, &want)
	if enc[1] != recordVersion3 || !bytes.Equal(enc[2:len(b)], b[2:]) || !bytes.Equal(enc[len(b):], make([]byte, 8)) {
		t.Fatalf("the v2 fields changed place in the record: add a new record version instead\n got %x\nwant %x + 8 zero bytes", enc, b)
	}
}

// TestRecordFixtureV3 pins the v3 layout: the v2 fields, then valid_until
// (int64 BE Unix ns).
func TestRecordFixtureV3(t *testing.T) {
	want := fixtureMemoryV3()
	b := readRecordFixture(t, "record_v3.bin", want)
	if enc := encodeRecord(nil, &want); !bytes.Equal(enc, b) {
		t.Fatalf("encoding changed for record v3: add a new record version instead\n got %x\nwant %x", enc, b)
	}
	if n := int64(binary.BigEndian.Uint64(b[len(b)-8:])); n != want.ValidUntil.UnixNano() {
		t.Fatalf("valid_until is not the last 8 bytes: %d", n)
	}
}

// readRecordFixture returns testdata/name (rewritten from want with
// -update) after checking that it decodes to want.
func readRecordFixture(t *testing.T, name string, want record.Memory) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, encodeRecord(nil, &want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeRecord(b)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s decodes to\n%+v\nwant\n%+v", name, got, want)
	}
	return b
}

func TestRecordRoundTrip(t *testing.T) {
	tests := []record.Memory{
		fixtureMemory(),
		fixtureMemoryV2(),
		fixtureMemoryV3(),
		{Content: "x", Type: record.TypeNote, Revision: 1},
		{ID: record.NewID(), DocNum: math.MaxUint32, Content: "最大", Type: record.TypePreference, Tags: []string{""},
			Sequence: math.MaxUint64, AccessCount: math.MaxUint64, Importance: 1, Revision: math.MaxUint32,
			Meta: map[string]string{"": ""}, CreatedAt: time.Unix(0, 1).UTC(), UpdatedAt: time.Unix(0, math.MaxInt64).UTC()},
	}
	for _, m := range tests {
		got, err := decodeRecord(encodeRecord(nil, &m))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip\n got %+v\nwant %+v", got, m)
		}
	}
}

func TestDecodeRecordErrors(t *testing.T) {
	m := fixtureMemory()
	good := encodeRecord(nil, &m)
	tests := []struct {
		name, want string
		b          []byte
	}{
		{"empty", "truncated", nil},
		{"bad magic", "magic byte", append([]byte{0x00}, good[1:]...)},
		{"newer version", "version 4", append([]byte{recordMagic, 4}, good[2:]...)},
		{"revision 0", "revision 0", func() []byte {
			m := fixtureMemory()
			b := encodeRecord(nil, &m)
			return append(append(b[:len(b)-10], 0, 0), make([]byte, 8)...) // revision 0, no metadata, valid
		}()},
		{"meta out of order", "out of order", func() []byte {
			m := fixtureMemory()
			b := encodeRecord(nil, &m)
			return append(append(b[:len(b)-9], 2, 1, 'b', 0, 1, 'a', 0), make([]byte, 8)...)
		}()},
		{"v3 without valid_until", "truncated", func() []byte {
			m := fixtureMemoryV3()
			b := encodeRecord(nil, &m)
			return b[:len(b)-8]
		}()},
		{"truncated", "truncated", good[:len(good)-5]},
		{"trailing", "trailing", append(append([]byte{}, good...), 0)},
		{"bad type", "unknown type code", func() []byte { b := bytes.Clone(good); b[2+16+4] = 99; return b }()},
		{"huge length", "over the limit", append(append([]byte{recordMagic, 1}, make([]byte, 21)...), 0xff, 0xff, 0xff, 0xff, 0x0f)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeRecord(tt.b)
			if !errors.Is(err, record.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want record.ErrCorrupt mentioning %q", err, tt.want)
			}
		})
	}
}

// FuzzDecodeRecord: decoding never panics, and whatever decodes re-encodes
// to bytes that decode to the same record.
func FuzzDecodeRecord(f *testing.F) {
	m := fixtureMemory()
	f.Add(encodeRecord(nil, &m))
	f.Add(encodeRecord(nil, &record.Memory{Type: record.TypeNote}))
	f.Add([]byte{recordMagic, recordVersion1})
	for _, name := range []string{"record_v1.bin", "record_v2.bin", "record_v3.bin"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeRecord(b)
		if err != nil {
			if !errors.Is(err, record.ErrCorrupt) {
				t.Fatalf("decode error does not wrap record.ErrCorrupt: %v", err)
			}
			return
		}
		enc := encodeRecord(nil, &m)
		m2, err := decodeRecord(enc)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if enc2 := encodeRecord(nil, &m2); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable:\n%x\n%x", enc, enc2)
		}
	})
}

// FuzzRecordRoundTrip: any memory the store can hold survives encoding.
func FuzzRecordRoundTrip(f *testing.F) {
	f.Add([]byte{1, 2}, uint32(7), "content", uint8(3), "a,b", "src", "sess", uint64(9), int64(1), int64(2), int64(0), uint64(4), 0.5,
		"proj", uint32(2), "k=v,j=w", int64(3))
	f.Fuzz(func(t *testing.T, id []byte, doc uint32, content string, typ uint8, tags, source, session string,
		seq uint64, created, updated, accessed int64, count uint64, imp float64, project string, revision uint32, meta string, until int64) {
		m := record.Memory{DocNum: record.DocNum(doc), Content: content, Type: record.Types()[int(typ)%len(typeCodes)],
			Source: source, Session: session, Sequence: seq, AccessCount: count, Importance: imp,
			Project: project, Revision: max(revision, 1)}
		if meta != "" {
			m.Meta = map[string]string{}
			for _, kv := range strings.Split(meta, ",") {
				k, v, _ := strings.Cut(kv, "=")
				m.Meta[k] = v
			}
		}
		copy(m.ID[:], id)
		if tags != "" {
			m.Tags = strings.Split(tags, ",")
		}
		for _, p := range []struct {
			dst *time.Time
			n   int64
		}{{&m.CreatedAt, created}, {&m.UpdatedAt, updated}, {&m.AccessedAt, accessed}, {&m.ValidUntil, until}} {
			if p.n != 0 {
				*p.dst = time.Unix(0, p.n).UTC()
			}
		}
		got, err := decodeRecord(encodeRecord(nil, &m))
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(got.Importance) != math.Float64bits(m.Importance) {
			t.Fatalf("importance %v, want %v", got.Importance, m.Importance)
		}
		got.Importance, m.Importance = 0, 0
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip\n got %+v\nwant %+v", got, m)
		}
	})
}

// FuzzKeys: index keys round-trip and sort like what they encode.
func FuzzKeys(f *testing.F) {
	f.Add(int64(1), int64(2), "s", "t", uint64(1), uint64(2), []byte{1})
	f.Add(int64(-5), int64(5), "", "a", uint64(0), uint64(math.MaxUint64), []byte{0xff})
	f.Fuzz(func(t *testing.T, t1, t2 int64, s1, s2 string, q1, q2 uint64, idb []byte) {
		var id record.ID
		copy(id[:], idb)
		a, b := time.Unix(0, t1), time.Unix(0, t2)
		ka, kb := createdKey(a, id), createdKey(b, id)
		if got, err := parseCreatedKey(ka); err != nil || got != id {
			t.Fatalf("parseCreatedKey: %s, %v", got, err)
		}
		if (t1 < t2) != (bytes.Compare(ka, kb) < 0) {
			t.Fatalf("created keys of %d and %d sort wrongly", t1, t2)
		}
		if len(s1) > math.MaxUint16 || len(s2) > math.MaxUint16 {
			return
		}
		k1, k2 := sequenceKey(s1, q1), sequenceKey(s1, q2)
		if (q1 < q2) != (bytes.Compare(k1, k2) < 0) {
			t.Fatalf("sequence keys of %d and %d sort wrongly", q1, q2)
		}
		p := sequencePrefix(s1)
		if !bytes.HasPrefix(k1, p) || binary.BigEndian.Uint64(k1[len(p):]) != q1 {
			t.Fatalf("sequence key %x does not hold prefix %x and seq %d", k1, p, q1)
		}
		// Another session's keys never fall inside this session's range.
		if s1 != s2 {
			other := sequenceKey(s2, q2)
			if bytes.Compare(other, p) >= 0 && (prefixEnd(p) == nil || bytes.Compare(other, prefixEnd(p)) < 0) {
				t.Fatalf("session %q key %x falls in the range of session %q", s2, other, s1)
			}
		}
		if d := record.DocNum(q1); !bytes.Equal(docnumDocKey(d)[1:], docKey(d)) || len(docnumIDKey(id)) != 17 {
			t.Fatal("docnum keys malformed")
		}
	})
}

// TestFormatConstants pins every on-disk number and name of format v4.
// If this fails you changed the format: restore the constant, or add a new
// format version with a migration (FORMAT.md, "Versions").
func TestFormatConstants(t *testing.T) {
	if FormatVersion != 4 || recordMagic != 0xC6 || recordVersion1 != 1 || recordVersion2 != 2 || recordVersion3 != 3 || storeMagic != "cgraph-store" {
		t.Fatalf("format constants changed: version %d, record magic %#x, record versions %d %d %d, store magic %q",
			FormatVersion, recordMagic, recordVersion1, recordVersion2, recordVersion3, storeMagic)
	}
	wantRel := []string{"causes", "fixes", "supersedes", "contradicts", "informs", "example_of", "prerequisite_for", "led_to", "related_to"}
	for i, name := range wantRel {
		if got := record.RelationType(i + 1).String(); got != name {
			t.Fatalf("relation type code %d is %q, want %q", i+1, got, name)
		}
	}
	if relOutPrefix != 'o' || relInPrefix != 'i' {
		t.Fatal("relation key prefixes changed")
	}
	if string(AuditEntryPrefix) != "audit/e/" || string(auditKeptPrefix) != "audit/k/" || AuditEntryMagic != "CGAU" || keptMagic != "CGKP" || keptVersion != 1 {
		t.Fatal("audit log keys or magics changed")
	}
	wantTypes := map[record.Type]byte{"fact": 1, "decision": 2, "error": 3, "pattern": 4, "code": 5,
		"conversation": 6, "note": 7, "preference": 8}
	if !reflect.DeepEqual(typeCodes, wantTypes) {
		t.Fatalf("type codes changed: %v", typeCodes)
	}
	wantFamilies := []string{"default", "memories", "fingerprints", "docnums", "created_index", "sequence",
		"e1_matryoshka_128", "e1_semantic", "e5_cause", "e5_effect", "e7_code", "e8_source", "e8_target",
		"e9_hdc", "e10_intent", "e10_context", "e11_entity", "e6_sparse_inverted", "e13_splade_inverted",
		"e12_late_interaction", "topic_profiles", "synergy_matrix", "history", "relations", "pending", "content_hash"}
	if !reflect.DeepEqual(FamilyNames(), wantFamilies) {
		t.Fatalf("families changed: %v", FamilyNames())
	}
	// content_hash: SHA-256 of project, 0, content with white space collapsed.
	if h := contentHash("p", "  one\ttwo\n"); hex.EncodeToString(h[:]) != "4e95dd78e92b9313a8a77de7e6cf80b6108c02b1d07b7c80f62e92bd146504e5" {
		t.Fatalf("content hash changed: %x", h)
	}
	meta := []string{string(metaMagicKey), string(metaFormatKey), string(metaCreatedByKey), string(metaNextDocNumKey), string(metaMemoryCountKey)}
	wantMeta := []string{"meta/magic", "meta/format_version", "meta/created_by", "meta/next_docnum", "meta/memory_count"}
	if !reflect.DeepEqual(meta, wantMeta) || string(metaStoreIDKey) != "meta/store_id" {
		t.Fatalf("meta keys changed: %v, %s", meta, metaStoreIDKey)
	}
	if docnumByIDPrefix != 'i' || docnumByDocPrefix != 'd' {
		t.Fatal("docnums prefixes changed")
	}
	// Key layouts, byte for byte.
	id := fixtureMemory().ID
	created := time.Unix(0, 0x0102030405060708)
	checks := []struct{ name, got, want string }{
		{"docKey", string(docKey(0x01020304)), "\x01\x02\x03\x04"},
		{"docnumDocKey", string(docnumDocKey(0x01020304)), "d\x01\x02\x03\x04"},
		{"docnumIDKey", string(docnumIDKey(id)), "i" + string(id[:])},
		{"createdKey", string(createdKey(created, id)), "\x81\x02\x03\x04\x05\x06\x07\x08" + string(id[:])},
		{"sequenceKey", string(sequenceKey("ab", 0x0102)), "\x00\x02ab\x00\x00\x00\x00\x00\x00\x01\x02"},
		{"historyKey", string(historyKey(id, 0x0102)), string(id[:]) + "\x00\x00\x01\x02"},
		{"relationKey", string(relationKey('o', id, record.RelFixes, record.ID{})), "o" + string(id[:]) + "\x02" + string(make([]byte, 16))},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %x, want %x", c.name, c.got, c.want)
		}
	}
	// Every family says whether it holds per-memory keys that Delete must
	// remove; a new family must make that choice explicitly here. history
	// and relations hold keys under a memory's prefix, which Delete scans
	// (TestDeleteDropsHistoryAndRelations).
	noPerMemoryKeys := map[string]bool{"default": true, "e6_sparse_inverted": true, "e13_splade_inverted": true,
		"topic_profiles": true, "synergy_matrix": true, "history": true, "relations": true}
	for _, info := range families {
		if (info.keys == nil) != noPerMemoryKeys[info.name] {
			t.Errorf("family %s: per-memory keys %v; decide whether Delete must clean it", info.name, info.keys != nil)
		}
	}
}

// setMeta rewrites a metadata key of a closed store, as another build would.
func setMeta(t *testing.T, dir string, key, value []byte) {
	t.Helper()
	s, err := openRocks(dir, rocksWrite)
	if err != nil {
		t.Fatal(err)
	}
	b := s.newBatch()
	b.put(FamDefault, key, value)
	err = s.write(b, true)
	b.destroy()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
}

func TestNewerFormatRefused(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	e := openTest(t, dir, Options{Create: true})
	m, err := e.Add(ctx, record.NewMemory{Content: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	setMeta(t, dir, metaFormatKey, binary.BigEndian.AppendUint32(nil, FormatVersion+1))
	setMeta(t, dir, metaCreatedByKey, []byte("cgraph 9.9"))
	for _, opts := range []Options{{}, {ReadOnly: true}, {Create: true}} {
		_, err := Open(dir, opts)
		if !errors.Is(err, record.ErrNewerFormat) || !strings.Contains(err.Error(), fmt.Sprintf("format version %d", FormatVersion+1)) ||
			!strings.Contains(err.Error(), fmt.Sprintf("up to %d", FormatVersion)) || !strings.Contains(err.Error(), "cgraph 9.9") {
			t.Fatalf("Open(%+v) of a newer store: %v", opts, err)
		}
	}
	// Refusing wrote nothing: back at this version the store opens with its memory.
	setMeta(t, dir, metaFormatKey, binary.BigEndian.AppendUint32(nil, FormatVersion))
	e = openTest(t, dir, Options{})
	if _, err := e.Get(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
}

func TestNotACgraphStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	e := openTest(t, dir, Options{Create: true})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	setMeta(t, dir, metaMagicKey, []byte("something else"))
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a cgraph store") {
		t.Fatalf("Open of a foreign RocksDB: %v", err)
	}
}

// FuzzParseMemoryID: parsing never panics; a parsed id prints as text that
// parses back to it.
func FuzzParseMemoryID(f *testing.F) {
	f.Add(fixtureMemory().ID.String())
	f.Add("urn:uuid:01934b2a-7c3e-7b2a-9d4e-1f2a3b4c5d6e")
	f.Add("{01934b2a-7c3e-7b2a-9d4e-1f2a3b4c5d6e}")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := record.ParseID(s)
		if err != nil {
			var ve *record.ValidationError
			if !errors.As(err, &ve) || ve.Fix == "" {
				t.Fatalf("bad id error is not a record.ValidationError with a fix: %v", err)
			}
			return
		}
		back, err := record.ParseID(id.String())
		if err != nil || back != id || len(id.String()) != 36 {
			t.Fatalf("%q parsed to %s, which parses back to %s, %v", s, id, back, err)
		}
	})
}

// FuzzParseMemoryType: only the listed types parse, case-insensitively.
func FuzzParseMemoryType(f *testing.F) {
	for _, t := range record.Types() {
		f.Add(string(t))
	}
	f.Add(" NOTE\n")
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := record.ParseType(s)
		if err != nil {
			return
		}
		if _, ok := typeCodes[typ]; !ok || !strings.EqualFold(strings.TrimSpace(s), string(typ)) {
			t.Fatalf("%q parsed to %q", s, typ)
		}
		if err := (record.NewMemory{Content: "x", Type: typ}).Validate(0); err != nil {
			t.Fatalf("parsed type %q fails Validate: %v", typ, err)
		}
	})
}

// FuzzValidate: Validate never panics, and what it accepts the record codec
// stores losslessly.
func FuzzValidate(f *testing.F) {
	f.Add("content", "note", "tag", "src", "sess", uint64(0), 0.5, int64(0))
	f.Add(" ", "bad", "\x00", "", "", uint64(3), 2.0, int64(-1))
	f.Fuzz(func(t *testing.T, content, typ, tag, source, session string, seq uint64, imp float64, created int64) {
		n := record.NewMemory{Content: content, Type: record.Type(typ), Tags: []string{tag}, Source: source,
			Session: session, Sequence: seq, Importance: imp}
		if created != 0 {
			n.CreatedAt = time.Unix(0, created)
		}
		err := n.Validate(1 << 10)
		if err != nil {
			var ve *record.ValidationError
			if !errors.As(err, &ve) || ve.Field == "" || ve.Problem == "" {
				t.Fatalf("Validate error without field and problem: %v", err)
			}
			return
		}
		m := record.Memory{Content: n.Content, Type: n.Type, Tags: n.Tags, Source: n.Source, Session: n.Session,
			Sequence: n.Sequence, CreatedAt: n.CreatedAt.UTC(), Importance: n.Importance, Revision: 1}
		if m.Type == "" {
			m.Type = record.TypeNote
		}
		if n.CreatedAt.IsZero() {
			m.CreatedAt = time.Time{}
		}
		got, err := decodeRecord(encodeRecord(nil, &m))
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("valid memory does not survive the codec: %+v, %v", got, err)
		}
	})
}
