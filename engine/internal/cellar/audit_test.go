package cellar

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

// FuzzDecodeKept: the kept-memory decoder never panics, wraps
// record.ErrCorrupt on every refusal, and what it accepts encodes back to
// the same bytes.
func FuzzDecodeKept(f *testing.F) {
	id, other := record.NewID(), record.NewID()
	m := record.Memory{ID: id, Content: "kept", Type: record.TypeNote, CreatedAt: time.Unix(1, 0).UTC(), UpdatedAt: time.Unix(2, 0).UTC(), Importance: 0.5, Revision: 2}
	h := m
	h.Revision, h.Content = 1, "first"
	k := Kept{Memory: m, History: []record.Memory{h}, Fingerprint: []byte{1, 2, 3},
		Relations: []record.Relation{{From: id, To: other, Type: record.RelInforms, Weight: 0.5, CreatedAt: time.Unix(3, 0).UTC()}}}
	f.Add(encodeKept(&k))
	f.Add(encodeKept(&Kept{Memory: m}))
	f.Add([]byte("CGKP\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeKept(b)
		if err != nil {
			if !errors.Is(err, record.ErrCorrupt) {
				t.Fatalf("error without ErrCorrupt: %v", err)
			}
			return
		}
		if again := encodeKept(&got); !bytes.Equal(again, b) {
			// Record decoding accepts version 1 records, which encode as
			// version 2: compare by decoding again.
			back, err := DecodeKept(again)
			if err != nil || back.Memory.ID != got.Memory.ID || len(back.History) != len(got.History) || len(back.Relations) != len(got.Relations) || !bytes.Equal(back.Fingerprint, got.Fingerprint) {
				t.Fatalf("round trip: %+v, %v", back, err)
			}
		}
	})
}

// TestCheckAuditKeys: a delete kept under an action with its entry checks
// clean, and Restore puts the memory and its relation back; check names a
// kept memory without its entry, a kept memory stored again, a kept value
// that does not decode, an entry without its magic and a key of the wrong
// length.
func TestCheckAuditKeys(t *testing.T) {
	ctx := context.Background()
	e := openTest(t, filepath.Join(t.TempDir(), "store"), Options{Create: true})
	a, err := e.Add(ctx, record.NewMemory{Content: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Add(ctx, record.NewMemory{Content: "b"})
	if err != nil {
		t.Fatal(err)
	}
	action := [16]byte(record.NewID())
	bt, err := e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := bt.Link(record.Relation{From: a.ID, To: b.ID, Type: record.RelFixes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if err := bt.Commit(); err != nil {
		t.Fatal(err)
	}
	bt, err = e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := bt.DeleteKeeping(a.ID, action, []byte("fp"))
	if err != nil || len(kept.Relations) != 1 {
		t.Fatalf("DeleteKeeping: %+v, %v", kept, err)
	}
	bt.PutAuditEntry(action, []byte(AuditEntryMagic+"\x01{}"))
	if err := bt.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("a kept delete with its entry: %v", err)
	}
	// The same delete without its entry: named.
	kb := e.kv.newBatch()
	kb.del(FamDefault, AuditEntryKey(action))
	other := [16]byte(record.NewID())
	kb.put(FamDefault, auditKeptKey(other), []byte("CGKP\x01garbage"))
	kb.put(FamDefault, AuditEntryKey([16]byte(record.NewID())), []byte("{}"))
	kb.put(FamDefault, append(bytes.Clone(AuditEntryPrefix), 1, 2, 3), []byte(AuditEntryMagic))
	if err := e.kv.write(kb, true); err != nil {
		t.Fatal(err)
	}
	kb.destroy()
	err = e.Check(ctx)
	for _, want := range []string{"has no audit entry", "kept memory:", "does not start with", "is not an audit key"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Check: %v; want a problem mentioning %q", err, want)
		}
	}
	kb = e.kv.newBatch()
	kb.put(FamDefault, AuditEntryKey(action), []byte(AuditEntryMagic+"\x01{}"))
	for _, k := range [][]byte{auditKeptKey(other), append(bytes.Clone(AuditEntryPrefix), 1, 2, 3)} {
		kb.del(FamDefault, k)
	}
	it := e.kv.iter(FamDefault, AuditEntryPrefix, prefixEnd(AuditEntryPrefix))
	for it.first(); it.valid(); it.next() {
		if k := it.key(); !bytes.Equal(k, AuditEntryKey(action)) {
			kb.del(FamDefault, bytes.Clone(k))
		}
	}
	it.close()
	if err := e.kv.write(kb, true); err != nil {
		t.Fatal(err)
	}
	kb.destroy()
	if err := e.Check(ctx); err != nil {
		t.Fatalf("after removing the bad keys: %v", err)
	}
	// Restore: the memory with its relation, a new doc number, the kept
	// value gone; a second restore finds nothing.
	bt, err = e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	back, err := bt.Restore(action)
	if err != nil || back.Memory.ID != a.ID || back.Memory.DocNum == a.DocNum || len(back.Relations) != 1 || string(back.Fingerprint) != "fp" {
		t.Fatalf("Restore: %+v, %v", back, err)
	}
	if err := bt.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("after Restore: %v", err)
	}
	if rels, err := e.Relations(ctx, b.ID); err != nil || len(rels) != 1 || rels[0].From != a.ID {
		t.Fatalf("relation after Restore: %+v, %v", rels, err)
	}
	bt, err = e.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer bt.Abort()
	if _, err := bt.Restore(action); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("a second Restore: %v", err)
	}
}
