package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// TestReadersBesideAWriter: one goroutine adds and deletes memories (every
// slot written: the hash registry) while eight read them through Get,
// Fingerprint, List and Search in every mode, for CGRAPH_RW_SECONDS seconds
// (default 2; the long form is 60, under -race). Zero errors are allowed but
// a deleted memory's ErrNotFound; every memory a reader gets is whole: its
// content is one the writer wrote, and its fingerprint has an entry in every
// slot the registry fills.
func TestReadersBesideAWriter(t *testing.T) {
	secs := 2
	if v, err := strconv.Atoi(os.Getenv("CGRAPH_RW_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	s := openStore(t, filepath.Join(t.TempDir(), "s"), hashRegistry(t, "rw"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs)*time.Second)
	defer cancel()
	p, err := profiles.Lookup("pipeline_full")
	if err != nil {
		t.Fatal(err)
	}

	var written sync.Map // content → true, stored before its Add: a reader may see the memory before Add returns
	var adds, deletes, reads, searches atomic.Int64
	errc := make(chan error, 64)
	fail := func(err error) {
		select {
		case errc <- err:
		default:
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { // the writer
		var live []record.ID
		for i := 0; ctx.Err() == nil; i++ {
			content := fmt.Sprintf("memory %d: %s", i, texts[i%len(texts)])
			written.Store(content, true)
			m, err := s.Add(context.Background(), record.NewMemory{Content: content, Session: "rw", Tags: []string{"rw"}})
			if err != nil {
				fail(fmt.Errorf("add %d: %w", i, err))
				return
			}
			live = append(live, m.ID)
			adds.Add(1)
			if i%4 == 3 { // delete an older one
				id := live[0]
				live = live[1:]
				if err := s.Delete(context.Background(), id); err != nil {
					fail(fmt.Errorf("delete %s: %w", id, err))
					return
				}
				deletes.Add(1)
			}
		}
	})
	modes := []pipeline.Mode{pipeline.ModeMultiSpace, pipeline.ModePipeline, pipeline.ModeE1Only}
	for r := range 8 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				ms, err := s.List(context.Background(), record.ListOptions{Limit: 20})
				if err != nil {
					fail(fmt.Errorf("reader %d list: %w", r, err))
					return
				}
				for _, m := range ms {
					checkWhole(s, m.ID, &written, fail)
					reads.Add(1)
				}
				res, err := s.Search(context.Background(), SearchRequest{Query: texts[(r+i)%len(texts)], Profile: p, Mode: modes[i%len(modes)], TopK: 5, Partial: false})
				if err != nil && !errors.Is(err, record.ErrNotFound) && !strings.Contains(err.Error(), "empty store") {
					fail(fmt.Errorf("reader %d search: %w", r, err))
					return
				}
				for _, m := range res.Memories {
					if _, ok := written.Load(m.Content); !ok {
						fail(fmt.Errorf("search returned %s with content %q, not what was written", m.ID, m.Content))
					}
				}
				searches.Add(1)
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if adds.Load() == 0 || reads.Load() == 0 || searches.Load() == 0 {
		t.Fatalf("nothing happened: %d adds, %d reads, %d searches", adds.Load(), reads.Load(), searches.Load())
	}
	t.Logf("%d s: %d adds, %d deletes, %d whole-memory reads, %d searches by 8 readers, 0 errors", secs, adds.Load(), deletes.Load(), reads.Load(), searches.Load())
}

// checkWhole reads id the way a client would and fails on a half memory. A
// memory deleted between the list and the read is fine.
func checkWhole(s *Engine, id record.ID, written *sync.Map, fail func(error)) {
	m, err := s.Get(context.Background(), id)
	if errors.Is(err, record.ErrNotFound) {
		return
	}
	if err != nil {
		fail(fmt.Errorf("get %s: %w", id, err))
		return
	}
	if _, ok := written.Load(m.Content); !ok {
		fail(fmt.Errorf("get %s: content %q is not what was written", id, m.Content))
		return
	}
	fp, err := s.Fingerprint(context.Background(), id)
	if errors.Is(err, record.ErrNotFound) {
		return
	}
	if err != nil {
		fail(fmt.Errorf("fingerprint %s: %w", id, err))
		return
	}
	for _, sl := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E6, fingerprint.E7, fingerprint.E9, fingerprint.E12, fingerprint.E13} {
		if e := fp.Get(sl); e.Status == fingerprint.StatusUnavailable && e.Note == "" {
			fail(fmt.Errorf("memory %s: slot %s missing from its fingerprint", id, sl))
		}
	}
}
