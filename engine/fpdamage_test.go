package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// TestFlippedFingerprintBlock flips 16 bytes in a data block of the
// fingerprints family's table file (issue 27, item 4) and pins the way
// out: Check names the memories whose fingerprint no longer reads and
// says what to do (before: only the file and offset); reembed skips them,
// naming them (before: it failed for the whole store); delete of one
// works (before: the raw RocksDB error); check --repair rewrites the family
// without the damaged file, drops the other unreadable memories with their
// content, and the store checks clean and keeps taking writes (a
// compaction reading the damaged block would have stopped every write).
func TestFlippedFingerprintBlock(t *testing.T) {
	ctx := context.Background()
	reg := hashRegistry(t, "flip")
	src := openStore(t, filepath.Join(t.TempDir(), "src"), reg)
	ms := addAll(t, src, texts)
	dir := filepath.Join(t.TempDir(), "s")
	if err := src.Backup(ctx, dir); err != nil { // every value in table files
		t.Fatal(err)
	}
	raw, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tables := raw.cellar.TableFiles(cellar.FamFingerprints)
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 {
		t.Fatalf("fingerprints has %d table files, want 1: %v", len(tables), tables)
	}
	data, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 20; i < 36; i++ { // the first data block
		data[i] ^= 0xff
	}
	if err := os.WriteFile(tables[0], data, 0o644); err != nil {
		t.Fatal(err)
	}

	s, err := Open(dir, Options{Embedders: reg})
	if err != nil {
		t.Fatalf("the damaged store does not open: %v", err)
	}
	err = s.Check(ctx)
	var lost []record.ID
	for _, m := range ms {
		if err != nil && strings.Contains(err.Error(), "memory "+m.ID.String()+": its value is in a damaged block") {
			lost = append(lost, m.ID)
		}
	}
	if len(lost) == 0 || len(lost) == len(ms) || !strings.Contains(err.Error(), "check --repair") || !strings.Contains(err.Error(), "export") {
		t.Fatalf("Check names %d of %d memories: %v", len(lost), len(ms), err)
	}
	rep, err := s.Reembed(ctx, []fingerprint.SlotID{fingerprint.E7}, nil)
	if err != nil || !slices.Equal(rep.Unreadable, lost) || rep.Memories != 0 {
		t.Fatalf("reembed E7: %+v, %v; want it to skip %v", rep, err, lost)
	}
	if err := s.Delete(ctx, lost[0]); err != nil {
		t.Fatalf("delete of a memory whose fingerprint does not read: %v", err)
	}
	if _, err := s.Get(ctx, lost[0]); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("after the delete: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// check --repair, as the CLI runs it: records only.
	raw, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fr, err := raw.RepairFingerprints(ctx)
	if err != nil || !fr.Salvaged || fr.Kept != len(ms)-len(lost) || len(fr.Dropped) != len(lost)-1 {
		t.Fatalf("RepairFingerprints: %+v, %v; want %d kept, %d dropped", fr, err, len(ms)-len(lost), len(lost)-1)
	}
	for i, d := range fr.Dropped {
		if d.ID != lost[i+1] || d.Content == "" {
			t.Fatalf("dropped %+v, want %s with its content", d, lost[i+1])
		}
	}
	if slices.Contains(raw.cellar.TableFiles(cellar.FamFingerprints), tables[0]) {
		t.Fatalf("the damaged table file %s is still part of the family", tables[0])
	}
	for _, repair := range []func() error{
		func() error { _, err := raw.RepairRecords(ctx); return err },
		func() error { _, err := raw.RepairPostings(ctx); return err },
		func() error { _, err := raw.RepairLinks(ctx); return err },
		func() error { _, err := raw.RepairDerived(ctx); return err },
	} {
		if err := repair(); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Check(ctx); err != nil {
		t.Fatalf("after the repair: %v", err)
	}
	if fr, err := raw.RepairFingerprints(ctx); err != nil || fr.Salvaged {
		t.Fatalf("a second repair: %+v, %v", fr, err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{Embedders: reg})
	if err != nil {
		t.Fatalf("open after the repair: %v", err)
	}
	defer s.Close()
	for _, c := range []string{"after the repair one", "after the repair two"} {
		if _, err := s.Add(ctx, record.NewMemory{Content: c}); err != nil {
			t.Fatalf("add after the repair: %v", err)
		}
	}
	if rep, err := s.Reembed(ctx, []fingerprint.SlotID{fingerprint.E7}, nil); err != nil || len(rep.Unreadable) != 0 {
		t.Fatalf("reembed after the repair: %+v, %v", rep, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
