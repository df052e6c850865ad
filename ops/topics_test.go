package ops

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// TestTopicsComparesWithTheSavedSnapshot: the first run has nothing to
// compare with and saves; the second compares with it; a read-only store
// cannot save and says so.
func TestTopicsComparesWithTheSavedSnapshot(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	addTopicNotes(t, e)
	first, err := Topics(ctx, e, TopicsRequest{Compare: true, Save: true})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Saved || first.Stability != nil || first.Analysis == nil || len(first.Analysis.Items) != 12 {
		t.Fatalf("first run: saved %v, stability %v", first.Saved, first.Stability)
	}
	second, err := Topics(ctx, e, TopicsRequest{Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	if second.Saved || second.Stability == nil || second.Stability.Common != 12 || !second.Previous.Equal(first.Analysis.Time) {
		t.Fatalf("second run: saved %v, stability %+v, previous %v", second.Saved, second.Stability, second.Previous)
	}
	dir := e.Dir()
	ro, err := engine.Open(dir, engine.Options{ReadOnly: true, Embedders: e.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	third, err := Topics(ctx, ro, TopicsRequest{Save: true})
	if err != nil {
		t.Fatal(err)
	}
	if third.Saved || !strings.Contains(strings.Join(third.Report.Notes, " "), "not saved") {
		t.Fatalf("read-only run: saved %v, notes %q", third.Saved, third.Report.Notes)
	}
}

// addTopicNotes stores 12 notes on three subjects, four each: three
// topics to find.
func addTopicNotes(t *testing.T, e *engine.Engine) {
	t.Helper()
	for i := range 12 {
		subject := []string{"rocksdb column family compaction", "onnx runtime session threads", "mcp stdio json rpc framing"}[i%3]
		if _, err := e.Add(context.Background(), record.NewMemory{Content: fmt.Sprintf("%s note %d about %s", subject, i, subject)}); err != nil {
			t.Fatal(err)
		}
	}
}
