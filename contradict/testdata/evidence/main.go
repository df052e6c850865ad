// Command evidence records the "same subject" evidence of every labelled
// pair (contradict/testdata/pairs.jsonl) with the installed models: the E1
// cosine of the two e5-small-v2 vectors, the Jaccard overlap of their E6
// keyword terms and of their E11 entity names — what engine.findSimilar
// computes on write. It writes contradict/testdata/evidence.jsonl.
//
//	go run ./contradict/testdata/evidence [-models DIR]
//
// It lives under testdata so that `go build ./...` and the layer rules do
// not see it: it reaches the embedders directly, which no face may.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/fingerprint"
)

type pair struct {
	ID  string `json:"id"`
	Old string `json:"old"`
	New string `json:"new"`
}

type evidence struct {
	ID  string  `json:"id"`
	E1  float64 `json:"e1"`
	E6  float64 `json:"e6"`
	E11 float64 `json:"e11"`
}

func main() {
	models := flag.String("models", "", "models directory (default: the installed one)")
	in := flag.String("pairs", "contradict/testdata/pairs.jsonl", "labelled pairs")
	out := flag.String("out", "contradict/testdata/evidence.jsonl", "where to write the evidence")
	flag.Parse()
	if err := run(*models, *in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "evidence:", err)
		os.Exit(1)
	}
}

func run(models, in, out string) error {
	ctx := context.Background()
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root)", err)
	}
	defer f.Close()
	var pairs []pair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		pairs = append(pairs, p)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	reg, closeModels, err := engine.LoadModels(ctx, engine.ModelsConfig{ModelsDir: models})
	if err != nil {
		return err
	}
	defer closeModels()
	slots := []fingerprint.SlotID{fingerprint.E1, fingerprint.E6, fingerprint.E11}
	for _, s := range slots {
		if st := reg.Get(s).Status(); st.State == fingerprint.StatusUnavailable {
			return fmt.Errorf("slot %s is unavailable: %s (run make setup)", s, st.Reason)
		}
	}
	docs := make([]embedders.Input, 0, 2*len(pairs))
	for _, p := range pairs {
		docs = append(docs, embedders.Input{Text: p.Old}, embedders.Input{Text: p.New})
	}
	fps := make([]fingerprint.Fingerprint, len(docs))
	if err := reg.EmbedSlots(ctx, docs, slots, fps); err != nil {
		return err
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	for i, p := range pairs {
		a, b := &fps[2*i], &fps[2*i+1]
		ev := evidence{ID: p.ID, E1: round(cosine(dense(a), dense(b))), E6: round(fingerprint.SortedJaccard(terms(a), terms(b))), E11: 1}
		if na, nb := names(a), names(b); len(na)+len(nb) > 0 {
			ev.E11 = round(fingerprint.SortedJaccard(na, nb))
		}
		if err := enc.Encode(ev); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func dense(fp *fingerprint.Fingerprint) []float32 {
	d, _ := fp.Get(fingerprint.E1).Value.(fingerprint.Dense)
	return d
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

func terms(fp *fingerprint.Fingerprint) []string {
	tf, _ := fp.Get(fingerprint.E6).Value.(fingerprint.TermFreqs)
	return set(tf.Terms)
}

func names(fp *fingerprint.Fingerprint) []string {
	switch e := fp.Get(fingerprint.E11).Value.(type) {
	case fingerprint.Entities:
		return set(e.Names)
	case *fingerprint.Entities:
		return set(e.Names)
	}
	return nil
}

func set(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
