package engine

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/record"
)

// TestDeferredSlots: with DeferSlots a memory is stored and searchable in
// its other spaces at once, its deferred slots pending (persisted across a
// reopen); FillPending completes them to exactly the values a synchronous
// write computes; a delete or an update of a pending memory leaves nothing
// pending; the background filler completes writes by itself.
func TestDeferredSlots(t *testing.T) {
	ctx := context.Background()
	deferred := []fingerprint.SlotID{fingerprint.E5, fingerprint.E7}
	dir := filepath.Join(t.TempDir(), "s")
	open := func(manual bool) *Engine {
		s, err := Open(dir, Options{Create: true, Embedders: hashRegistry(t, ""), DeferSlots: deferred, ManualFill: manual})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open(true)
	ms := addAll(t, s, texts)
	if n, err := s.Pending(ctx); err != nil || n != len(texts) {
		t.Fatalf("pending after a deferred write: %d, %v", n, err)
	}
	fp, err := s.Fingerprint(ctx, ms[0].ID)
	if err != nil || fp.Get(fingerprint.E5).Status != fingerprint.StatusMissing || fp.Get(fingerprint.E1).Status != fingerprint.StatusPresent {
		t.Fatalf("a deferred memory's fingerprint: E5 %v, E1 %v, %v", fp.Get(fingerprint.E5).Status, fp.Get(fingerprint.E1).Status, err)
	}
	res, err := s.Search(ctx, SearchRequest{Query: texts[2], Mode: pipeline.ModeE1Only, TopK: 1})
	if err != nil || len(res.Memories) != 1 || res.Memories[0].ID != ms[2].ID {
		t.Fatalf("E1 search before the filler: %v, %v", hitIDs(res), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(true)
	if n, _ := s.Pending(ctx); n != len(texts) {
		t.Fatalf("pending after a reopen: %d, want %d", n, len(texts))
	}
	if err := s.Delete(ctx, ms[7].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, ms[6].ID, record.Change{Content: ptr("Note: the updated memory computes every slot itself")}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Pending(ctx); n != len(texts)-2 {
		t.Fatalf("pending after a delete and an update: %d, want %d", n, len(texts)-2)
	}
	if n, err := s.FillPending(ctx, 3); err != nil || n != 3 {
		t.Fatalf("FillPending(3): %d, %v", n, err)
	}
	if n, err := s.FillPending(ctx, 100); err != nil || n != len(texts)-5 {
		t.Fatalf("FillPending(100): %d, %v", n, err)
	}
	if n, _ := s.Pending(ctx); n != 0 {
		t.Fatalf("%d still pending", n)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("check after filling: %v", err)
	}
	// The filled values are the ones a synchronous write computes.
	sync := openStore(t, filepath.Join(t.TempDir(), "sync"), hashRegistry(t, ""))
	ref := addAll(t, sync, texts[:1])
	got, want := rawFingerprint(t, s, ms[0].ID), rawFingerprint(t, sync, ref[0].ID)
	if !bytes.Equal(got, want) {
		t.Fatal("a filled fingerprint differs from a synchronous one")
	}
	res, err = s.Search(ctx, SearchRequest{Query: texts[2], Mode: pipeline.ModeEmbedderFirst, Embedder: fingerprint.E7, TopK: 1})
	if err != nil || len(res.Memories) != 1 || res.Memories[0].ID != ms[2].ID {
		t.Fatalf("E7 search after filling: %v, %v", hitIDs(res), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// In the background: a write is completed without anyone asking.
	s = open(false)
	defer s.Close()
	m, err := s.Add(ctx, record.NewMemory{Content: "Note: filled by the background filler"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // a correctness wait, not a speed check
	for {
		fp, err := s.Fingerprint(ctx, m.ID)
		if err == nil && fp.Get(fingerprint.E7).Status == fingerprint.StatusPresent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background filler did not fill E7 in a minute: %v, last error %v", err, s.FillerErr())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n, _ := s.Pending(ctx); n != 0 {
		t.Fatalf("%d pending after the filler ran", n)
	}
}

// TestFillerWaitsForQuiet: the background filler starts at once when no
// write is recent, waits while writes arrive, gives up waiting at its
// deadline (then fills small batches), and leaves on stop.
func TestFillerWaitsForQuiet(t *testing.T) {
	f := &filler{stop: make(chan struct{})}
	if busy, stopped := f.waitQuiet(time.Now().Add(time.Hour)); busy || stopped {
		t.Fatalf("no write yet: busy %v, stopped %v", busy, stopped)
	}
	f.lastWrite.Store(time.Now().Add(time.Hour).UnixNano()) // a write "now" for as long as the test runs
	if busy, stopped := f.waitQuiet(time.Now().Add(-time.Second)); !busy || stopped {
		t.Fatalf("writes go on past the deadline: busy %v, stopped %v", busy, stopped)
	}
	done := make(chan bool)
	go func() {
		_, stopped := f.waitQuiet(time.Now().Add(time.Hour))
		done <- stopped
	}()
	close(f.stop)
	if !<-done {
		t.Fatal("waitQuiet did not leave on stop")
	}
}

// TestDeferE1: with E1 deferred too, a memory is found by keyword search
// as soon as it is stored, and by meaning (e1_only) once the filler ran.
func TestDeferE1(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "s"), Options{Create: true, Embedders: hashRegistry(t, ""),
		DeferSlots: []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E12}, ManualFill: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err := s.Add(ctx, record.NewMemory{Content: "the zebra cache evicts entries after ninety seconds"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, SearchRequest{Query: "zebra cache", Mode: ModeMultiSpace, TopK: 3})
	if err != nil || len(res.Memories) == 0 || res.Memories[0].ID != m.ID {
		t.Fatalf("keyword search before the fill: %v %v", hitIDs(res), err)
	}
	if res, _ = s.Search(ctx, SearchRequest{Query: "zebra cache", Mode: ModeE1Only, TopK: 3}); len(res.Memories) != 0 {
		t.Fatalf("E1 found a memory whose E1 is not computed yet: %v", hitIDs(res))
	}
	if n, err := s.FillPending(ctx, 100); err != nil || n != 1 {
		t.Fatalf("fill: %d %v", n, err)
	}
	if res, err = s.Search(ctx, SearchRequest{Query: "zebra cache", Mode: ModeE1Only, TopK: 3}); err != nil || len(res.Memories) == 0 || res.Memories[0].ID != m.ID {
		t.Fatalf("E1 after the fill: %v %v", hitIDs(res), err)
	}
}
