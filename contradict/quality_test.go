package contradict

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

type labelled struct {
	ID, Label, Topic, Split, Old, New string
}

type recorded struct {
	ID          string
	E1, E6, E11 float64
}

func loadPairs(t *testing.T) ([]labelled, map[string]Evidence) {
	t.Helper()
	var ps []labelled
	readJSONL(t, "testdata/pairs.jsonl", func(b []byte) error {
		var p labelled
		err := json.Unmarshal(b, &p)
		ps = append(ps, p)
		return err
	})
	ev := map[string]Evidence{}
	readJSONL(t, "testdata/evidence.jsonl", func(b []byte) error {
		var r recorded
		err := json.Unmarshal(b, &r)
		ev[r.ID] = Evidence{E1: r.E1, E6: r.E6, E11: r.E11}
		return err
	})
	for _, p := range ps {
		if _, ok := ev[p.ID]; !ok {
			t.Fatalf("pair %s has no recorded evidence: run `go run ./contradict/testdata/evidence` from the repository root after editing pairs.jsonl", p.ID)
		}
	}
	return ps, ev
}

func readJSONL(t *testing.T, path string, each func([]byte) error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if err := each(sc.Bytes()); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// score counts, for one predicate on the gold label and one on the
// decision, true and false positives and false negatives.
type score struct{ tp, fp, fn int }

func (s score) precision() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s score) recall() float64    { return ratio(s.tp, s.tp+s.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// The goal of issue 31: precision ≥ 0.9 at recall ≥ 0.6.
const goalPrecision, goalRecall = 0.9, 0.6

// TestPairsQuality scores Judge on the labelled pairs: per label
// (contradiction, update, and conflict = either), on the dev part and on
// the held-out third. It fails when the dev part misses the goal on
// contradictions or on conflicts.
func TestPairsQuality(t *testing.T) {
	ps, ev := loadPairs(t)
	type key struct{ split, label string }
	scores := map[key]*score{}
	confusion := map[string]map[Kind]int{}
	for _, split := range []string{"dev", "heldout", "all"} {
		for _, l := range []string{"contradiction", "update", "conflict"} {
			scores[key{split, l}] = &score{}
		}
	}
	for _, p := range ps {
		j := Judge(p.Old, p.New, ev[p.ID], DefaultRules)
		if confusion[p.Label] == nil {
			confusion[p.Label] = map[Kind]int{}
		}
		confusion[p.Label][j.Kind]++
		gold := map[string]bool{"contradiction": p.Label == "contradiction", "update": p.Label == "update",
			"conflict": p.Label == "contradiction" || p.Label == "update"}
		got := map[string]bool{"contradiction": j.Kind == Contradiction, "update": j.Kind == Update, "conflict": j.Kind.Conflict()}
		for _, split := range []string{p.Split, "all"} {
			for l := range gold {
				s := scores[key{split, l}]
				switch {
				case gold[l] && got[l]:
					s.tp++
				case got[l]:
					s.fp++
				case gold[l]:
					s.fn++
				}
			}
		}
		if testing.Verbose() && os.Getenv("CONTRADICT_SHOW") == p.Split && gold["conflict"] != got["conflict"] {
			t.Logf("%s %-13s got %-13s old=%q new=%q\n      %s", p.ID, p.Label, j.Kind, p.Old, p.New, j.Reason)
		}
	}
	var tab string
	tab += fmt.Sprintf("%-8s %-14s %9s %6s %4s %4s %4s\n", "split", "label", "precision", "recall", "tp", "fp", "fn")
	for _, split := range []string{"dev", "heldout", "all"} {
		for _, l := range []string{"contradiction", "update", "conflict"} {
			s := scores[key{split, l}]
			tab += fmt.Sprintf("%-8s %-14s %9.3f %6.3f %4d %4d %4d\n", split, l, s.precision(), s.recall(), s.tp, s.fp, s.fn)
		}
	}
	t.Logf("pairs %d; rules %+v\n%s", len(ps), DefaultRules, tab)
	for _, l := range []string{"contradiction", "update", "distinct", "rewording"} {
		t.Logf("gold %-13s → none %3d, contradiction %3d, update %3d", l, confusion[l][None], confusion[l][Contradiction], confusion[l][Update])
	}
	for _, l := range []string{"contradiction", "conflict"} {
		s := scores[key{"dev", l}]
		if s.precision() < goalPrecision || s.recall() < goalRecall {
			t.Errorf("dev %s: precision %.3f recall %.3f, below the goal %.2f at %.2f", l, s.precision(), s.recall(), goalPrecision, goalRecall)
		}
	}
}

// TestTextReusedAcrossOldTexts: one prepared Text judged against every
// labelled pair's old text in turn (as a write judges one new memory
// against each close candidate) answers what a fresh Judge answers for
// each, in either order: nothing of one pair leaks into the next.
func TestTextReusedAcrossOldTexts(t *testing.T) {
	ps, ev := loadPairs(t)
	for _, order := range []string{"forward", "backward"} {
		shared := map[string]*Text{}
		for k := range ps {
			p := ps[k]
			if order == "backward" {
				p = ps[len(ps)-1-k]
			}
			nt := shared[p.New]
			if nt == nil {
				nt = NewText(p.New)
				shared[p.New] = nt
			}
			// every pair's new text also against the first pair's old text: a different subject
			for _, old := range []string{p.Old, ps[0].Old} {
				if got, want := nt.Judge(old, ev[p.ID], DefaultRules), Judge(old, p.New, ev[p.ID], DefaultRules); got != want {
					t.Fatalf("%s %s: reused Text %+v, fresh %+v", order, p.ID, got, want)
				}
			}
		}
	}
}
