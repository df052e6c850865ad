package extract_test

import (
	"path/filepath"
	"testing"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/capture/captureeval"
	"github.com/cgraph/cgraph/capture/claudecode"
	"github.com/cgraph/cgraph/capture/extract"
)

// scoreFixture extracts every transcript of one fixture directory
// (testdata/transcripts, the one the rules were built on, or
// testdata/heldout) and scores it.
func scoreFixture(t testing.TB, dir string) (captureeval.Score, int) {
	t.Helper()
	golds, err := filepath.Glob(filepath.Join(dir, "*.gold.json"))
	if err != nil || len(golds) == 0 {
		t.Fatalf("no gold files: %v", err)
	}
	total := captureeval.NewScore()
	for _, gp := range golds {
		g, err := captureeval.LoadGold(gp)
		if err != nil {
			t.Fatal(err)
		}
		res, err := claudecode.ReadFile(filepath.Join(dir, g.Transcript), claudecode.Cursor{}, claudecode.Options{Final: true})
		if err != nil {
			t.Fatal(err)
		}
		plan := extract.Session(res.Turns, extract.Options{})
		total.Add(captureeval.Match(plan, g))
	}
	return total, len(golds)
}

// TestExtractionQuality prints precision and recall per kind on the
// labelled fixture and fails below the goal of issue 29: precision ≥ 0.8
// at recall ≥ 0.5 for errors+fixes and for decisions, and no secret in any
// memory. Run it with -v to see the table and what was missed.
func TestExtractionQuality(t *testing.T) {
	checkQuality(t, "testdata/transcripts")
}

// TestExtractionHeldOut is TestExtractionQuality on the sessions the rules
// were not built on (testdata/sessions_heldout.py): the figure to expect
// from a transcript nobody has read.
func TestExtractionHeldOut(t *testing.T) {
	checkQuality(t, "testdata/heldout")
}

// TestExtractionBlind is the same on testdata/heldout2, sessions a helper
// wrote without reading the rules (sessions_heldout2.py).
func TestExtractionBlind(t *testing.T) {
	checkQuality(t, "testdata/heldout2")
}

// checkQuality scores one fixture directory, prints the table (and with -v
// every miss and spurious memory) and fails on a leaked secret or below
// issue 29's goal.
func checkQuality(t *testing.T, dir string) {
	s, n := scoreFixture(t, dir)
	t.Logf("%s: %d transcripts\n%s", dir, n, captureeval.Table(s))
	if testing.Verbose() {
		for _, m := range s.Missed {
			t.Logf("missed   %s", m)
		}
		for _, m := range s.Spurious {
			t.Logf("spurious %s", m)
		}
	}
	for _, l := range s.Leaks {
		t.Errorf("secret leaked: %s", l)
	}
	goals := []struct {
		name string
		c    captureeval.Counts
	}{
		{"errors+fixes", s.Union(capture.KindError, capture.KindFix)},
		{"decisions", *s.Kinds[capture.KindDecision]},
	}
	for _, g := range goals {
		if g.c.Precision() < 0.8 || g.c.Recall() < 0.5 {
			t.Errorf("%s: precision %.2f recall %.2f, goal precision ≥ 0.80 at recall ≥ 0.50", g.name, g.c.Precision(), g.c.Recall())
		}
	}
	if s.Links.Predicted > 0 && s.Links.Precision() < 0.8 {
		t.Errorf("fixes links: precision %.2f, want ≥ 0.80", s.Links.Precision())
	}
}

// BenchmarkExtraction measures reading and extracting the whole fixture.
func BenchmarkExtraction(b *testing.B) {
	paths, _ := filepath.Glob("testdata/transcripts/*.jsonl")
	var all [][]capture.Turn
	for _, p := range paths {
		res, err := claudecode.ReadFile(p, claudecode.Cursor{}, claudecode.Options{Final: true})
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, res.Turns)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, ts := range all {
			extract.Session(ts, extract.Options{})
		}
	}
}
