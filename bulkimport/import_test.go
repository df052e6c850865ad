package bulkimport_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cgraph/cgraph/bulkimport"
	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// traced is a real store whose two halves of AddBatch report to the test:
// each store call waits (up to a minute) until the next batch's prepare
// has begun, which only a pipelined import lets happen; with overlap set,
// each prepare waits so for the next prepare too, which only several
// batches in flight let happen. failAt makes that batch's store fail as a
// broken disk would.
type traced struct {
	*engine.Engine
	mu      sync.Mutex
	began   []chan struct{} // began[k] closes when batch k's prepare starts
	order   []string
	failAt  int
	batches int
	overlap bool
	// reverse makes batch k call the engine only once batch k+1's
	// engine prepare has returned: the last batch is prepared first.
	reverse  bool
	prepared []chan struct{} // prepared[k] closes when batch k's engine prepare returns
	patience time.Duration   // how long a wait lasts (0: a minute)
}

// waitBegan waits up to a minute for batch k's prepare to start; false if
// it did not.
func (t *traced) waitBegan(k int) bool {
	if k >= t.batches {
		return true
	}
	patience := t.patience
	if patience == 0 {
		patience = time.Minute
	}
	select {
	case <-t.began[k]:
		return true
	case <-time.After(patience):
		return false
	}
}

func (t *traced) note(s string) {
	t.mu.Lock()
	t.order = append(t.order, s)
	t.mu.Unlock()
}

func (t *traced) PrepareBatch(ctx context.Context, ns []record.NewMemory) (func(context.Context) ([]record.Memory, error), error) {
	// k is the batch's place in the file (every test uses batches of 4 of
	// jsonl's lines), not the order of the calls, which batches prepared
	// side by side may make in either order.
	var line int
	if _, err := fmt.Sscanf(ns[0].Content, "pipelined memory number %d", &line); err != nil {
		return nil, fmt.Errorf("traced: batch starting %.40q: %w", ns[0].Content, err)
	}
	k := (line - 1) / 4
	t.note(fmt.Sprintf("prepare %d", k))
	close(t.began[k])
	if t.overlap && !t.waitBegan(k+1) {
		t.note(fmt.Sprintf("prepare %d never saw prepare %d", k, k+1))
	}
	if t.reverse && k+1 < t.batches {
		<-t.prepared[k+1]
	}
	store, err := t.Engine.PrepareBatch(ctx, ns)
	close(t.prepared[k])
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) ([]record.Memory, error) {
		if !t.waitBegan(k + 1) {
			t.note(fmt.Sprintf("store %d never saw prepare %d", k, k+1))
		}
		t.note(fmt.Sprintf("store %d", k))
		if k == t.failAt {
			return nil, errors.New("disk full")
		}
		return store(ctx)
	}, nil
}

func newTraced(t *testing.T, batches, failAt int) *traced {
	t.Helper()
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(filepath.Join(t.TempDir(), "s"), engine.Options{Create: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	tr := &traced{Engine: e, failAt: failAt, batches: batches}
	for range batches + 1 {
		tr.began = append(tr.began, make(chan struct{}))
		tr.prepared = append(tr.prepared, make(chan struct{}))
	}
	return tr
}

func jsonl(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "{\"content\": \"pipelined memory number %d\"}\n", i)
	}
	return b.String()
}

func memories(t *testing.T, e *engine.Engine) uint64 {
	t.Helper()
	st, err := e.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Memories
}

// TestImportPreparesWhileItStores: with a store that splits AddBatch, batch
// k+1 is fingerprinted while batch k is written, the writes stay in line
// order, and every line is stored once, numbered in line order.
func TestImportPreparesWhileItStores(t *testing.T) {
	const size, lines = 4, 10 // batches of 4, 4, 2
	tr := newTraced(t, 3, -1)
	flushes := 0
	res, err := bulkimport.Import(context.Background(), tr, strings.NewReader(jsonl(lines)),
		bulkimport.Options{BatchSize: size, AfterFlush: func() { flushes++ }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != lines || res.Failed != 0 || flushes != 3 {
		t.Fatalf("result %+v after %d flushes; want %d added in 3", res, flushes, lines)
	}
	// Batches are prepared side by side (the prepares may note in either
	// order); each write comes after the next batch's prepare began, and
	// the writes come in line order.
	at := map[string]int{}
	for i, o := range tr.order {
		at[o] = i
	}
	for _, o := range []string{"prepare 0", "prepare 1", "prepare 2", "store 0", "store 1", "store 2"} {
		if _, ok := at[o]; !ok || len(tr.order) != 6 {
			t.Fatalf("order %v: want each batch prepared and written once, nothing else", tr.order)
		}
	}
	if !(at["prepare 1"] < at["store 0"] && at["prepare 2"] < at["store 1"] && at["store 0"] < at["store 1"] && at["store 1"] < at["store 2"]) {
		t.Fatalf("order %v: want store k after prepare k+1, and the stores in order", tr.order)
	}
	if n := memories(t, tr.Engine); n != lines {
		t.Fatalf("store holds %d memories, want %d", n, lines)
	}
	ms, err := tr.List(context.Background(), record.ListOptions{Limit: 1})
	if err != nil || len(ms) != 1 || ms[0].Content != fmt.Sprintf("pipelined memory number %d", lines) || ms[0].DocNum != lines-1 {
		t.Fatalf("newest memory %+v %v; want line %d as doc %d", ms, err, lines, lines-1)
	}
}

// TestImportStopsAtAFailedStore: a write that fails stops the import with
// the lines to resume from; the batch prepared meanwhile is not stored, and
// the batches before it are.
func TestImportStopsAtAFailedStore(t *testing.T) {
	tr := newTraced(t, 3, 1)
	res, err := bulkimport.Import(context.Background(), tr, strings.NewReader(jsonl(10)), bulkimport.Options{BatchSize: 4})
	if err == nil || !strings.Contains(err.Error(), "store lines 5-8 (4 memories stored before them; none of these): disk full: resume with --skip-lines 4") {
		t.Fatalf("error %v", err)
	}
	if res.Added != 4 {
		t.Fatalf("result %+v, want 4 added", res)
	}
	if n := memories(t, tr.Engine); n != 4 {
		t.Fatalf("store holds %d memories, want the first batch's 4", n)
	}
}

// TestImportOneBatchInFlight: InFlight 1 is one batch at a time through
// the two halves: no prepare starts before the batch before it is written
// (each wait below gives up after a short while and says so).
func TestImportOneBatchInFlight(t *testing.T) {
	tr := newTraced(t, 3, -1)
	tr.patience = 200 * time.Millisecond
	res, err := bulkimport.Import(context.Background(), tr, strings.NewReader(jsonl(10)), bulkimport.Options{BatchSize: 4, InFlight: 1})
	if err != nil || res.Added != 10 {
		t.Fatalf("%+v %v", res, err)
	}
	want := []string{"prepare 0", "store 0 never saw prepare 1", "store 0", "prepare 1", "store 1 never saw prepare 2", "store 1", "prepare 2", "store 2"}
	if got := strings.Join(tr.order, ", "); got != strings.Join(want, ", ") {
		t.Fatalf("order %s\nwant  %s", got, strings.Join(want, ", "))
	}
}

// TestImportPreparesBatchesSideBySide: with InFlight 3 batches are
// fingerprinted at once (each prepare waits for the next one to start),
// the writes stay in line order, and a line the store refuses fails alone,
// in its place, while the batches around it are on their way.
func TestImportPreparesBatchesSideBySide(t *testing.T) {
	tr := newTraced(t, 3, -1)
	tr.overlap = true
	in := strings.Split(strings.TrimSpace(jsonl(10)), "\n")
	long := strings.Repeat("a long line ", record.DefaultMaxContentBytes/12+1)
	in[5] = fmt.Sprintf("{\"content\": %q}", long) // line 6: within the import's limit, over the store's
	res, err := bulkimport.Import(context.Background(), tr, strings.NewReader(strings.Join(in, "\n")+"\n"),
		bulkimport.Options{BatchSize: 4, InFlight: 3, MaxContent: 4 * record.DefaultMaxContentBytes})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 9 || res.Failed != 1 || res.Errors[0].Line != 6 {
		t.Fatalf("result %+v; want 9 added and line 6 failed", res)
	}
	for _, o := range tr.order {
		if strings.Contains(o, "never") {
			t.Fatalf("no overlap: %s (order %v)", o, tr.order)
		}
	}
	stores := 0
	for _, o := range tr.order {
		if strings.HasPrefix(o, "store") {
			stores++
		}
	}
	if stores != 2 {
		t.Fatalf("%d batch writes (order %v); want 2: the batch with line 6 is refused when prepared and written one line at a time", stores, tr.order)
	}
	// Line order held: lines 5, 7, 8 (one at a time) written before lines 9-10.
	ms, err := tr.List(context.Background(), record.ListOptions{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]record.DocNum{}
	for _, m := range ms {
		doc[m.Content] = m.DocNum
	}
	for line, want := range map[int]record.DocNum{1: 0, 5: 4, 7: 5, 8: 6, 9: 7, 10: 8} {
		if got, ok := doc[fmt.Sprintf("pipelined memory number %d", line)]; !ok || got != want {
			t.Errorf("line %d is doc %d (stored %v), want %d", line, got, ok, want)
		}
	}
}

// TestImportTimesFollowLines: lines without a created_at get creation times
// in line order even when the batches reach the engine last batch first, so
// the newest memory listed is the file's last line (the engine stamps a
// time when its prepare runs, which side-by-side batches reach in any order).
func TestImportTimesFollowLines(t *testing.T) {
	tr := newTraced(t, 3, -1)
	tr.reverse = true
	res, err := bulkimport.Import(context.Background(), tr, strings.NewReader(jsonl(12)),
		bulkimport.Options{BatchSize: 4, InFlight: 3})
	if err != nil || res.Added != 12 {
		t.Fatalf("result %+v, %v; want 12 added", res, err)
	}
	ms, err := tr.List(context.Background(), record.ListOptions{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 12 || ms[0].Content != "pipelined memory number 12" {
		t.Fatalf("newest of %d listed is %q, want line 12", len(ms), ms[0].Content)
	}
	at := map[int]time.Time{}
	for _, m := range ms {
		var line int
		if _, err := fmt.Sscanf(m.Content, "pipelined memory number %d", &line); err != nil {
			t.Fatal(err)
		}
		at[line] = m.CreatedAt
	}
	for line := 2; line <= 12; line++ {
		if at[line].Before(at[line-1]) {
			t.Errorf("line %d created %v, before line %d (%v)", line, at[line], line-1, at[line-1])
		}
	}
}
