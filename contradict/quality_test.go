package contradict

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
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
	return loadSet(t, "testdata")
}

// loadSet reads dir's pairs.jsonl and the evidence recorded for them in
// dir's evidence.jsonl.
func loadSet(t *testing.T, dir string) ([]labelled, map[string]Evidence) {
	t.Helper()
	var ps []labelled
	readJSONL(t, dir+"/pairs.jsonl", func(b []byte) error {
		var p labelled
		err := json.Unmarshal(b, &p)
		ps = append(ps, p)
		return err
	})
	ev := map[string]Evidence{}
	readJSONL(t, dir+"/evidence.jsonl", func(b []byte) error {
		var r recorded
		err := json.Unmarshal(b, &r)
		ev[r.ID] = Evidence{E1: r.E1, E6: r.E6, E11: r.E11}
		return err
	})
	for _, p := range ps {
		if _, ok := ev[p.ID]; !ok {
			t.Fatalf("pair %s has no recorded evidence: run `go run ./contradict/testdata/evidence -pairs contradict/%s/pairs.jsonl -out contradict/%s/evidence.jsonl` from the repository root after editing the pairs", p.ID, dir, dir)
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

// scoreKey names one row of a score table: a split and a label.
type scoreKey struct{ split, label string }

// scored is Judge's result on a set of labelled pairs.
type scored struct {
	scores    map[scoreKey]*score
	confusion map[string]map[Kind]int // gold label → decision → pairs
	splits    []string
}

// scorePairs judges every pair with DefaultRules and counts, per split
// (and "all") and per label (contradiction, update, and conflict =
// either), true and false positives and false negatives. With -v and
// CONTRADICT_SHOW set to a split, it logs that split's pairs judged wrong
// on conflict.
func scorePairs(t *testing.T, ps []labelled, ev map[string]Evidence, splits ...string) scored {
	t.Helper()
	r := scored{scores: map[scoreKey]*score{}, confusion: map[string]map[Kind]int{}, splits: splits}
	if len(splits) > 1 {
		r.splits = append(r.splits, "all")
	}
	for _, split := range r.splits {
		for _, l := range []string{"contradiction", "update", "conflict"} {
			r.scores[scoreKey{split, l}] = &score{}
		}
	}
	for _, p := range ps {
		j := Judge(p.Old, p.New, ev[p.ID], DefaultRules)
		if r.confusion[p.Label] == nil {
			r.confusion[p.Label] = map[Kind]int{}
		}
		r.confusion[p.Label][j.Kind]++
		gold := map[string]bool{"contradiction": p.Label == "contradiction", "update": p.Label == "update",
			"conflict": p.Label == "contradiction" || p.Label == "update"}
		got := map[string]bool{"contradiction": j.Kind == Contradiction, "update": j.Kind == Update, "conflict": j.Kind.Conflict()}
		for _, split := range []string{p.Split, "all"} {
			if split == "all" && len(r.splits) == 1 {
				continue
			}
			for l := range gold {
				s := r.scores[scoreKey{split, l}]
				if s == nil {
					t.Fatalf("pair %s: split %q is none of %v", p.ID, split, splits)
				}
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
			t.Logf("%s %-13s got %-13s E1 %.3f E6 %.2f old=%q new=%q\n      %s", p.ID, p.Label, j.Kind, ev[p.ID].E1, ev[p.ID].E6, p.Old, p.New, j.Reason)
		}
	}
	return r
}

// table is the scores with Wilson 95% intervals, and the confusion of gold
// labels with decisions.
func (r scored) table() string {
	tab := fmt.Sprintf("%-8s %-14s %9s %-14s %6s %-14s %4s %4s %4s\n", "split", "label", "precision", "", "recall", "", "tp", "fp", "fn")
	for _, split := range r.splits {
		for _, l := range []string{"contradiction", "update", "conflict"} {
			s := r.scores[scoreKey{split, l}]
			plo, phi := wilson(s.tp, s.tp+s.fp)
			rlo, rhi := wilson(s.tp, s.tp+s.fn)
			tab += fmt.Sprintf("%-8s %-14s %9.3f [%.2f, %.2f]   %6.3f [%.2f, %.2f]   %4d %4d %4d\n", split, l,
				s.precision(), plo, phi, s.recall(), rlo, rhi, s.tp, s.fp, s.fn)
		}
	}
	for _, l := range []string{"contradiction", "update", "distinct", "rewording"} {
		c := r.confusion[l]
		tab += fmt.Sprintf("gold %-13s → none %3d, contradiction %3d, update %3d\n", l, c[None], c[Contradiction], c[Update])
	}
	return tab
}

// wilson is the Wilson score 95% interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.96
	p, nf := float64(k)/float64(n), float64(n)
	c := (p + z*z/(2*nf)) / (1 + z*z/nf)
	h := z / (1 + z*z/nf) * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return max(0, c-h), min(1, c+h)
}

// TestPairsQuality scores Judge on the labelled pairs: per label
// (contradiction, update, and conflict = either), on the dev part and on
// the held-out third. It fails when the dev part misses the goal on
// contradictions or on conflicts.
func TestPairsQuality(t *testing.T) {
	ps, ev := loadPairs(t)
	r := scorePairs(t, ps, ev, "dev", "heldout")
	t.Logf("pairs %d; rules %+v\n%s", len(ps), DefaultRules, r.table())
	for _, l := range []string{"contradiction", "conflict"} {
		s := r.scores[scoreKey{"dev", l}]
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

// TestPairsBlind scores Judge on the sets written blind — by helpers who
// read neither the rules nor pairs.jsonl (testdata/README.md, "Blind
// sets"). blind7 and blind8 are the figure an unseen project's memories
// would see (scored once, never read); blind1–6 were read and tuned to
// after their first score. The pooled conflicts must stay above a floor
// under today's figures (precision 0.891, recall 0.573): a regression
// guard, not the goal.
func TestPairsBlind(t *testing.T) {
	var pooled score
	sets := []string{"blind1", "blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8"}
	ran := 0
	for _, set := range sets {
		t.Run(set, func(t *testing.T) {
			ran++
			ps, ev := loadSet(t, "testdata/"+set)
			r := scorePairs(t, ps, ev, "blind")
			t.Logf("%s: pairs %d; rules %+v\n%s", set, len(ps), DefaultRules, r.table())
			s := r.scores[scoreKey{"blind", "conflict"}]
			pooled.tp, pooled.fp, pooled.fn = pooled.tp+s.tp, pooled.fp+s.fp, pooled.fn+s.fn
		})
	}
	t.Logf("pooled conflicts: precision %.3f recall %.3f (tp %d fp %d fn %d)", pooled.precision(), pooled.recall(), pooled.tp, pooled.fp, pooled.fn)
	if ran < len(sets) {
		return // -run picked some sets: no pooled figure
	}
	if pooled.precision() < 0.85 || pooled.recall() < 0.45 {
		t.Errorf("pooled blind conflicts: precision %.3f recall %.3f, below the floor 0.85 at 0.45", pooled.precision(), pooled.recall())
	}
}
