package engine

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// TestFeedbackOnRealStore: with the real models, a query that names the
// symptom ("database writes stall during compaction") finds the fix that
// names it; pseudo-relevance feedback from that top document brings up the
// tuning note that shares the fix's settings but not the query's words —
// through RM3's expansion terms on E6 and Rocchio on E1 — and the trace
// shows the documents and terms.
func TestFeedbackOnRealStore(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds 13 memories with real models")
	}
	ctx := context.Background()
	raw, err := os.ReadFile("testdata/feedback_corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, t.TempDir(), neuralRegistry(t))
	ms := addAll(t, s, strings.Split(strings.TrimSpace(string(raw)), "\n"))
	fix, tuning := ms[0].ID, ms[1].ID
	p := profiles.Profile{Name: "e1_e6"}
	p.Weights.Set(fingerprint.E1, 0.5)
	p.Weights.Set(fingerprint.E6, 0.5)
	rankOf := func(res SearchResult, id record.ID) int {
		return slices.IndexFunc(res.Memories, func(m record.Memory) bool { return m.ID == id })
	}
	for _, mode := range []pipeline.Mode{pipeline.ModeMultiSpace, pipeline.ModePipeline} {
		t.Run(mode.String(), func(t *testing.T) {
			req := SearchRequest{Query: "database writes stall during compaction", Mode: mode, Profile: p, TopK: 10, NoThresholds: true,
				Now: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
			off, err := s.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			req.Feedback = 1
			on, err := s.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if rankOf(off, fix) != 0 || rankOf(on, fix) != 0 {
				t.Fatalf("the fix ranks %d without feedback, %d with: want first both times", rankOf(off, fix), rankOf(on, fix))
			}
			before, after := rankOf(off, tuning), rankOf(on, tuning)
			if before < 0 {
				before = len(off.Memories)
			}
			t.Logf("tuning note: rank %d without feedback, %d with", before, after)
			if after < 0 || after >= before {
				t.Errorf("the tuning note ranks %d without feedback and %d with: want it to move up", before, after)
			}
			var note string
			for _, tr := range on.Trace {
				if tr.Stage == pipeline.StageFeedback {
					note = tr.Note
				}
			}
			for _, want := range []string{"top 1 documents", "E1", "E6 expansion terms:", "level0_slowdown_writes_trigger"} {
				if !strings.Contains(note, want) {
					t.Errorf("feedback trace %q lacks %q", note, want)
				}
			}
			for _, tr := range off.Trace {
				if tr.Stage == pipeline.StageFeedback {
					t.Errorf("feedback off, yet the trace has %+v", tr)
				}
			}
		})
	}
	for _, n := range []int{-1, pipeline.MaxFeedback + 1} {
		_, err := s.Search(ctx, SearchRequest{Query: "compaction", Feedback: n})
		var ve *record.ValidationError
		if !errors.As(err, &ve) || ve.Field != "feedback" {
			t.Errorf("feedback %d: error %v, want a validation error on feedback", n, err)
		}
	}
}
