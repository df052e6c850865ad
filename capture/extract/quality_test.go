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
	checkQuality(t, "testdata/transcripts", true)
}

// TestExtractionHeldOut is TestExtractionQuality on testdata/heldout
// (sessions_heldout.py), written after the rules and scored once before
// they were changed for it; in-sample since, so it gates like the fixture.
func TestExtractionHeldOut(t *testing.T) {
	checkQuality(t, "testdata/heldout", true)
}

// TestExtractionBlind is the same on testdata/heldout2, sessions a helper
// wrote without reading the rules (sessions_heldout2.py); the rules were
// changed for it after its blind score, so it gates too.
func TestExtractionBlind(t *testing.T) {
	checkQuality(t, "testdata/heldout2", true)
}

// TestExtractionBlind2 reports, and does not gate, testdata/heldout3:
// twelve sessions a second helper wrote blind after the rules had been
// changed for heldout2. Its first score was the out-of-sample figure of
// be27053; 17f26c2 then changed a rule for its misses (commands that change
// state, read by their verb), so it is in-sample since and heldout4 is the
// blind set. It gates only on leaked secrets: below the goal still.
func TestExtractionBlind2(t *testing.T) {
	checkQuality(t, "testdata/heldout3", false)
}

// TestExtractionBlind3 reports, and does not gate, testdata/heldout4:
// twelve sessions a third helper wrote blind, from a brief with no example
// phrasings, after every rule change of the twenty-fifth session. Its first
// score was the out-of-sample figure of those rules; the sentence classifier
// was then trained on its sentences, so it is in-sample since. It gates only
// on leaked secrets.
func TestExtractionBlind3(t *testing.T) {
	checkQuality(t, "testdata/heldout4", false)
}

// checkQuality scores one fixture directory, prints the table (and with -v
// every miss and spurious memory) and fails on a leaked secret, and with
// gate below issue 29's goal.
func checkQuality(t *testing.T, dir string, gate bool) {
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
	fail := t.Errorf
	if !gate {
		fail = t.Logf
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
			fail("%s: precision %.2f recall %.2f, goal precision ≥ 0.80 at recall ≥ 0.50", g.name, g.c.Precision(), g.c.Recall())
		}
	}
	if s.Links.Predicted > 0 && s.Links.Precision() < 0.8 {
		fail("fixes links: precision %.2f, want ≥ 0.80", s.Links.Precision())
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

// TestExtractionBlind4 and TestExtractionBlind5 report, and do not gate,
// testdata/heldout5 and testdata/heldout6: twelve sessions each, written
// blind (from gen.py and sessions.py only) by two more helpers after the
// sentence classifier was trained. Their first scores are the out-of-sample
// figures (docs/BENCHMARKS.md, "Decisions and preferences by a trained
// classifier"). Keep them blind; a leaked secret fails them all the same.
func TestExtractionBlind4(t *testing.T) { checkQuality(t, "testdata/heldout5", false) }

func TestExtractionBlind5(t *testing.T) { checkQuality(t, "testdata/heldout6", false) }

// TestExtractionBlind6 and TestExtractionBlind7 report, and do not gate,
// testdata/heldout7 and testdata/heldout8: written blind by two more helpers
// while ecba726 was chosen, scored once with it, never tuned to nor
// read. Their scores are the figures an unseen transcript should expect.
// Keep them blind: running them with -v lists their misses, and a change
// made for those spends them.
func TestExtractionBlind6(t *testing.T) { checkQuality(t, "testdata/heldout7", false) }

func TestExtractionBlind7(t *testing.T) { checkQuality(t, "testdata/heldout8", false) }
