package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/internal/testdir"
	"github.com/cgraph/cgraph/record"
)

// TestCorruptionMatrix damages one derived family of a healthy store at a
// time, as a bit flip or a lost write would, and pins what a user sees:
// Check names the family and key; the store still opens (or refuses with
// an error naming the family) and never serves a wrong answer silently;
// check --repair mends what can be recomputed from the records, and the
// store then checks clean.
func TestCorruptionMatrix(t *testing.T) {
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "base")
	s := openStore(t, base, hashRegistry(t, "corrupt"))
	ms := addAll(t, s, texts)
	if _, err := s.Link(ctx, record.Relation{From: ms[5].ID, To: ms[1].ID, Type: record.RelFixes}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, ms[0].ID, record.Change{AddTags: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("the base store: %v", err)
	}
	doc := binary.BigEndian.AppendUint32(nil, uint32(ms[3].DocNum))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		put  func(b *cellar.Batch)
		// check is what Check must name.
		check string
		// refused: Open refuses before the repair, naming the family, with
		// record.ErrCorrupt and the repair command.
		refused string
		// e12: the repair drops memory 3's E12 matrix for reembed.
		e12 bool
		// undeletable memory: the fingerprint itself is lost; Check says
		// to delete it, Delete works, then the repair drops its postings.
		lostFingerprint bool
	}{
		{name: "orphan E6 posting", put: func(b *cellar.Batch) { b.Put(cellar.FamE6SparseInverted, postingKey([]byte("ghost"), 999), []byte{1}) },
			check: "e6_sparse_inverted/", refused: "e6_sparse_inverted"},
		{name: "orphan E13 posting", put: func(b *cellar.Batch) {
			b.Put(cellar.FamE13SpladeInverted, postingKey([]byte("ghost"), 999), []byte{0, 0, 0x80, 0x3f})
		}, check: "e13_splade_inverted/", refused: "e13_splade_inverted"},
		{name: "garbage E1 vector", put: func(b *cellar.Batch) { b.Put(cellar.FamE1Semantic, doc, []byte{9, 9, 9}) },
			check: "e1_semantic/3 differs", refused: "e1_semantic"},
		{name: "lost E1 vector", put: func(b *cellar.Batch) { b.Del(cellar.FamE1Semantic, doc) }, check: "e1_semantic/3 is missing"},
		{name: "garbage vector of a missing doc", put: func(b *cellar.Batch) {
			b.Put(cellar.FamE1Semantic, binary.BigEndian.AppendUint32(nil, 999), []byte{1})
		}, check: "e1_semantic/000003e7 belongs to no stored memory", refused: "e1_semantic"},
		{name: "garbage E9 hypervector", put: func(b *cellar.Batch) { b.Put(cellar.FamE9HDC, doc, []byte{1, 2}) }, check: "e9_hdc/3 differs", refused: "e9_hdc"},
		{name: "garbage E11 entity set", put: func(b *cellar.Batch) { b.Put(cellar.FamE11Entity, doc, []byte{1, 5, 'a'}) }, check: "e11_entity/3 differs", refused: "e11_entity"},
		{name: "garbage E12 matrix", put: func(b *cellar.Batch) { b.Put(cellar.FamE12LateInteraction, doc, []byte{1, 200}) },
			check: "e12_late_interaction/3", refused: "e12_late_interaction", e12: true},
		{name: "garbage fingerprint", put: func(b *cellar.Batch) { b.Put(cellar.FamFingerprints, ms[3].ID[:], []byte{0xff, 1, 2}) },
			check: "fingerprints/", lostFingerprint: true},
		{name: "relation without its mirror", put: func(b *cellar.Batch) {
			k := append([]byte{'i'}, ms[1].ID[:]...)
			k = append(append(k, byte(record.RelFixes)), ms[5].ID[:]...)
			b.Del(cellar.FamRelations, k)
		}, check: "mirror key"},
		{name: "history of no memory", put: func(b *cellar.Batch) {
			id := record.NewID()
			b.Put(cellar.FamHistory, binary.BigEndian.AppendUint32(id[:], 1), []byte{0xc6, 2})
		}, check: "history/"},
	}
	repair := func(t *testing.T, s *Engine) {
		t.Helper()
		if _, err := s.RepairPostings(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RepairLinks(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RepairDerived(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s")
			testdir.Copy(t, base, dir)
			raw, err := Open(dir, Options{}) // records only, as check --repair opens
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = raw.Close() }()
			b, err := raw.cellar.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tt.put(b)
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := raw.Check(ctx); err == nil || !strings.Contains(err.Error(), tt.check) {
				t.Fatalf("Check: %v; want a problem naming %q", err, tt.check)
			}
			if err := raw.Close(); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir, Options{Embedders: hashRegistry(t, "corrupt")})
			switch {
			case tt.refused != "":
				if err == nil || !errors.Is(err, record.ErrCorrupt) || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), "check --repair") {
					t.Fatalf("Open of the damaged store: %v; want a refusal naming %q and the repair", err, tt.refused)
				}
			case err != nil:
				t.Fatalf("Open of the damaged store: %v", err)
			default: // it opens and searches
				if _, err := s.Search(ctx, SearchRequest{Query: texts[1], Profile: mustProfile(t, "pipeline_full")}); err != nil {
					t.Fatalf("search of the damaged store: %v", err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if raw, err = Open(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			if tt.lostFingerprint {
				if err := raw.Delete(ctx, ms[3].ID); err != nil {
					t.Fatalf("delete of a memory with a lost fingerprint: %v", err)
				}
			}
			repair(t, raw)
			if err := raw.Check(ctx); err != nil {
				t.Fatalf("after repair: %v", err)
			}
			if tt.e12 {
				fp, err := raw.Fingerprint(ctx, ms[3].ID)
				if err != nil || fp.Get(fingerprint.E12).Status != fingerprint.StatusMissing {
					t.Fatalf("E12 of the repaired memory: %v, %v; want it marked missing for reembed", fp.Get(fingerprint.E12).Status, err)
				}
			}
			if err := raw.Close(); err != nil {
				t.Fatal(err)
			}
			s, err = Open(dir, Options{Embedders: hashRegistry(t, "corrupt")})
			if err != nil {
				t.Fatalf("Open after repair: %v", err)
			}
			defer s.Close()
			res, err := s.Search(ctx, SearchRequest{Query: texts[1], Profile: mustProfile(t, "pipeline_full")})
			if err != nil || len(res.Memories) == 0 || res.Memories[0].ID != ms[1].ID {
				t.Fatalf("search after repair: %v, %v; want %s first", hitIDs(res), err, ms[1].ID)
			}
			if tt.e12 {
				if n, err := s.Reembed(ctx, []fingerprint.SlotID{fingerprint.E12}, nil); err != nil || n.Memories != 1 {
					t.Fatalf("reembed E12 after the repair: %+v, %v", n, err)
				}
				if err := s.Check(ctx); err != nil {
					t.Fatalf("after reembed: %v", err)
				}
			}
		})
	}
}
