package memory

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
)

func modelFreeRegistry(t testing.TB) *embedders.Registry {
	t.Helper()
	r, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func openStore(t testing.TB, dir string, reg *embedders.Registry) *Store {
	t.Helper()
	s, err := Open(dir, Options{Engine: engine.Options{Create: true}, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var texts = []string{
	"Decision: pin github.com/linxGnu/grocksdb at v1.7.15 because librocksdb-dev 7.8.3 lacks newer C functions",
	"Error: authentication failed for user admin; fix: rotate the token in config/auth.yaml",
	"Pattern: wrap errors with fmt.Errorf and %w so callers can use errors.Is",
	"The HNSW library coder/hnsw returned wrong neighbours; we chose an exact scan with sign sketches",
	"Conversation: the user prefers tabs over spaces in Makefiles",
}

func addAll(t testing.TB, s *Store, ts []string) []engine.Memory {
	t.Helper()
	var ns []engine.NewMemory
	for i, x := range ts {
		ns = append(ns, engine.NewMemory{Content: x, CreatedAt: time.Date(2026, 3, 1, 10, i, 0, 0, time.UTC)})
	}
	ms, err := s.AddBatch(context.Background(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestSmokeAddSearchDelete(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), modelFreeRegistry(t))
	ms := addAll(t, s, texts)
	res, err := s.Search(ctx, SearchRequest{Query: "authentication token", Mode: pipeline.ModeEmbedderFirst, Embedder: fingerprint.E6})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) == 0 || res.Memories[0].ID != ms[1].ID {
		t.Fatalf("E6 top hit: %+v", res.Memories)
	}
	p, _ := profiles.Lookup("typo_tolerant")
	res, err = s.Search(ctx, SearchRequest{Query: "authetication", Profile: p, Mode: pipeline.ModeEmbedderFirst, Embedder: fingerprint.E9})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("E9: %v", res.Hits)
	if err := s.Delete(ctx, ms[1].ID); err != nil {
		t.Fatal(err)
	}
	res, err = s.Search(ctx, SearchRequest{Query: "authentication token", Mode: pipeline.ModeEmbedderFirst, Embedder: fingerprint.E6})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(res.Memories, func(m engine.Memory) bool { return m.ID == ms[1].ID }) {
		t.Fatal("deleted memory found")
	}
	_, err = s.Search(ctx, SearchRequest{Query: "x", Mode: pipeline.ModeE1Only})
	t.Logf("e1_only on modelfree: %v", err)
	if err != nil && !errors.Is(err, pipeline.ErrUnavailable) {
		t.Log("not unavailable")
	}
	for _, si := range s.Slots() {
		t.Logf("%s %s docs=%d ram=%d %s", si.Slot, si.Status.State, si.Docs, si.RAMBytes, si.Stored)
	}
}
