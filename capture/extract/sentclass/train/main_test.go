package main

import (
	"math"
	"os"
	"testing"

	"github.com/cgraph/cgraph/capture/extract/sentclass"
)

// TestDefaultModelIsBuiltFromItsSources retrains the shipped model from the
// labelled sources in testdata and checks that default.model gives every
// source sentence the same probabilities, within 0.01 (the bytes match on
// amd64; another CPU may fuse a multiply-add differently): a changed
// sentence file or transcript set must come with a rebuilt model
// (go run ./capture/extract/sentclass/train -out capture/extract/sentclass/default.model).
func TestDefaultModelIsBuiltFromItsSources(t *testing.T) {
	src, err := load("../../testdata", split(DefaultSets))
	if err != nil {
		t.Fatal(err)
	}
	fresh := src.train("", DefaultCorpusWeight, DefaultL2)
	b, err := os.ReadFile("../default.model")
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := sentclass.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	var all []sentclass.Example
	for _, ex := range src.sentences {
		all = append(all, ex...)
	}
	for _, s := range src.sets {
		for _, l := range src.trans[s] {
			all = append(all, l.examples...)
		}
	}
	worst, at := 0.0, ""
	for _, e := range all {
		p, q := fresh.Probs(e.Input), shipped.Probs(e.Input)
		for l := range p {
			if d := math.Abs(p[l] - q[l]); d > worst {
				worst, at = d, e.Text
			}
		}
	}
	if worst > 0.01 {
		t.Fatalf("default.model is not what its sources train (%.3f apart on %q): rebuild it with go run ./capture/extract/sentclass/train -out capture/extract/sentclass/default.model", worst, at)
	}
	t.Logf("%d sentences, largest difference %.2g", len(all), worst)
}
