// Command train builds the sentence classifier's model (default.model) from
// labelled sentences and labelled transcripts, and measures what it does to
// extraction, leave one source out.
//
//	go run ./capture/extract/sentclass/train -out capture/extract/sentclass/default.model
//	go run ./capture/extract/sentclass/train -cv          # leave one transcript set out, a grid of policies
//	go run ./capture/extract/sentclass/train -score heldout5,heldout6 -veto 0.9 -add 0.6
//
// Sources (paths relative to capture/extract/testdata): sentences/*.jsonl,
// lines {"speaker", "text", "label"} written by helpers blind to the rules;
// and the transcript sets named by -sets, whose sentences take the label of
// the gold decision or preference whose key they contain, and "none"
// otherwise. Training is deterministic (fixed seed, sorted inputs), so the
// same sources give the same model bytes.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/capture/captureeval"
	"github.com/cgraph/cgraph/capture/claudecode"
	"github.com/cgraph/cgraph/capture/extract"
	"github.com/cgraph/cgraph/capture/extract/sentclass"
)

var withPrev = flag.Bool("prev", true, "read the other side's previous message")

func main() {
	dir := flag.String("dir", "capture/extract/testdata", "the testdata folder")
	sets := flag.String("sets", DefaultSets, "transcript sets to train on")
	out := flag.String("out", "", "write the model trained on every source here")
	cv := flag.Bool("cv", false, "leave each transcript set out in turn and score it over a grid of policies")
	score := flag.String("score", "", "transcript sets to score with the model trained on -sets (rules alone beside it)")
	veto := flag.Float64("veto", 2, "policy: a rule's sentence is dropped when P(none) ≥ veto")
	addD := flag.Float64("add-decision", 2, "policy: a sentence no rule took is a decision when P(decision) ≥ this")
	addP := flag.Float64("add-preference", 2, "policy: a user's sentence no rule took is a preference when P(preference) ≥ this")
	asst := flag.Bool("assistant", false, "policy: the classifier adds the assistant's decisions too")
	l2 := flag.Float64("l2", DefaultL2, "weight decay per step")
	poolOnly := flag.String("pool", "", "with -cv: pool only these sets (the ones the rules were not tuned to), all when empty")
	corpusWeight := flag.Float64("corpus-weight", DefaultCorpusWeight, "weight of a sentences/*.jsonl example against a transcript's")
	flag.Parse()

	src, err := load(*dir, split(*sets))
	if err != nil {
		log.Fatal(err)
	}
	setNames := split(*sets)
	train := func(leave string) *sentclass.Model { return src.train(leave, *corpusWeight, *l2) }
	switch {
	case *cv:
		crossValidate(*dir, setNames, split(*poolOnly), train, extract.Policy{Veto: *veto, AddDecision: *addD, AddPreference: *addP, AssistantToo: *asst})
	case *score != "":
		m := train("")
		for _, s := range split(*score) {
			pol := extract.Policy{Veto: *veto, AddDecision: *addD, AddPreference: *addP, AssistantToo: *asst}
			base := scoreSet(filepath.Join(*dir, s), extract.Options{Policy: extract.RulesOnly, Sentences: m})
			got := scoreSet(filepath.Join(*dir, s), extract.Options{Policy: pol, Sentences: m})
			fmt.Printf("%s rules alone: %s\n%s %+v: %s\n", s, brief(base), s, pol, brief(got))
			show(got)
		}
	}
	if *out != "" {
		b, err := train("").MarshalText()
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(*out, b, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("wrote %s (%d bytes)\n", *out, len(b))
	}
}

// crossValidate scores each transcript set with the model trained on every
// other source, over a grid of policies, and prints pooled decision and
// preference precision and recall per policy; show's policy also per set,
// with what it missed and made up.
func crossValidate(dir string, sets, pool []string, train func(string) *sentclass.Model, showPol extract.Policy) {
	var grid []extract.Policy
	for _, v := range []float64{2} {
		for _, a := range []float64{2, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5} {
			for _, asst := range []bool{false, true} {
				grid = append(grid, extract.Policy{Veto: v, AddDecision: a, AddPreference: a, AssistantToo: asst})
			}
		}
	}
	grid = append(grid, showPol)
	pooled := make([]captureeval.Score, len(grid))
	for i := range pooled {
		pooled[i] = captureeval.NewScore()
	}
	for _, s := range sets {
		if len(pool) > 0 && !slices.Contains(pool, s) {
			continue
		}
		m := train(s)
		for i, pol := range grid {
			sc := scoreSet(filepath.Join(dir, s), extract.Options{Policy: pol, Sentences: m})
			pooled[i].Add(sc)
			if i == len(grid)-1 {
				fmt.Printf("%-12s %+v  %s\n", s, pol, brief(sc))
				show(sc)
			}
		}
	}
	fmt.Println("pooled, each set scored by the model trained without it:")
	for i, pol := range grid {
		fmt.Printf("veto %.2f dec %.2f pref %.2f asst %-5v  %s\n", pol.Veto, pol.AddDecision, pol.AddPreference, pol.AssistantToo, brief(pooled[i]))
	}
}

// show lists the decisions and preferences a score missed or made up.
func show(sc captureeval.Score) {
	for _, x := range sc.Missed {
		if strings.Contains(x, "decision") || strings.Contains(x, "preference") {
			fmt.Println("  missed", x)
		}
	}
	for _, x := range sc.Spurious {
		if strings.Contains(x, "Decision:") || strings.Contains(x, "Preference:") {
			fmt.Println("  spurious", x)
		}
	}
}

func brief(s captureeval.Score) string {
	var b strings.Builder
	for _, k := range []capture.Kind{capture.KindDecision, capture.KindPreference} {
		c := s.Kinds[k]
		if c == nil {
			c = &captureeval.Counts{}
		}
		fmt.Fprintf(&b, "%s P %d/%d R %d/%d  ", k, c.Matched, c.Predicted, c.Matched, c.Gold)
	}
	return b.String()
}

func scoreSet(dir string, opt extract.Options) captureeval.Score {
	golds, _ := filepath.Glob(filepath.Join(dir, "*.gold.json"))
	total := captureeval.NewScore()
	for _, gp := range golds {
		g, err := captureeval.LoadGold(gp)
		if err != nil {
			log.Fatal(err)
		}
		res, err := claudecode.ReadFile(filepath.Join(dir, g.Transcript), claudecode.Cursor{}, claudecode.Options{Final: true})
		if err != nil {
			log.Fatal(err)
		}
		total.Add(captureeval.Match(extract.Session(res.Turns, opt), g))
	}
	return total
}

// DefaultSets and DefaultCorpusWeight are what default.model is built from.
const (
	DefaultSets         = "transcripts,heldout,heldout2,heldout3,heldout4,heldout5,heldout6"
	DefaultCorpusWeight = 0.5
	DefaultL2           = 1e-4
)

// sources are the labelled examples: the sentence files' and each
// transcript set's.
type sources struct {
	sentences map[string][]sentclass.Example
	sets      []string
	trans     map[string][]labelled
}

// load reads the sentence files and the named transcript sets of dir.
func load(dir string, sets []string) (*sources, error) {
	src := &sources{sets: sets, trans: map[string][]labelled{}}
	var err error
	if src.sentences, err = loadSentences(filepath.Join(dir, "sentences")); err != nil {
		return nil, err
	}
	for _, s := range sets {
		if src.trans[s], err = loadSet(filepath.Join(dir, s)); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// train fits a model on every source but the transcript set leave, a
// sentence file's example weighing corpusWeight against a transcript's.
func (src *sources) train(leave string, corpusWeight, l2 float64) *sentclass.Model {
	var ex []sentclass.Example
	for _, f := range slices.Sorted(maps.Keys(src.sentences)) {
		for _, e := range src.sentences[f] {
			e.Weight = corpusWeight
			ex = append(ex, e)
		}
	}
	for _, s := range src.sets {
		if s == leave {
			continue
		}
		for _, l := range src.trans[s] {
			ex = append(ex, l.examples...)
		}
	}
	return sentclass.Train(ex, sentclass.TrainOptions{Seed: 1, L2: l2})
}

type labelled struct{ examples []sentclass.Example }

// loadSet labels every sentence of a transcript set by its gold file.
func loadSet(dir string) ([]labelled, error) {
	golds, err := filepath.Glob(filepath.Join(dir, "*.gold.json"))
	if err != nil || len(golds) == 0 {
		return nil, fmt.Errorf("%s: no gold files", dir)
	}
	sort.Strings(golds)
	var out []labelled
	for _, gp := range golds {
		g, err := captureeval.LoadGold(gp)
		if err != nil {
			return nil, err
		}
		res, err := claudecode.ReadFile(filepath.Join(dir, g.Transcript), claudecode.Cursor{}, claudecode.Options{Final: true})
		if err != nil {
			return nil, err
		}
		var l labelled
		for _, s := range extract.Sentences(res.Turns) {
			e := sentclass.Example{Input: sentclass.Input{User: s.User, Text: s.Text}, Label: sentclass.None}
			if *withPrev {
				e.Prev = s.Prev
			}
			for _, m := range g.Memories {
				if (m.Kind == capture.KindDecision || m.Kind == capture.KindPreference) && strings.Contains(norm(s.Text), norm(m.Key)) {
					e.Label = sentclass.Decision
					if m.Kind == capture.KindPreference {
						e.Label = sentclass.Preference
					}
				}
			}
			l.examples = append(l.examples, e)
		}
		out = append(out, l)
	}
	return out, nil
}

// loadSentences reads every sentences/*.jsonl file.
func loadSentences(dir string) (map[string][]sentclass.Example, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := map[string][]sentclass.Example{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for ln := 1; sc.Scan(); ln++ {
			var r struct{ Speaker, Prev, Text, Label string }
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", f, ln, err)
			}
			l, ok := sentclass.ParseLabel(r.Label)
			if !ok || (r.Speaker != "user" && r.Speaker != "assistant") {
				return nil, fmt.Errorf("%s:%d: label %q speaker %q", f, ln, r.Label, r.Speaker)
			}
			in := sentclass.Input{User: r.Speaker == "user", Text: r.Text}
			if *withPrev {
				in.Prev = r.Prev
			}
			out[f] = append(out[f], sentclass.Example{Input: in, Label: l})
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func split(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
