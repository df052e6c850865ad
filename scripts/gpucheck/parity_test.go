package main

import (
	"context"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/cgraph/cgraph/models/convert"
	"github.com/cgraph/cgraph/models/runtime"
)

// TestTokenParity: the same weights agree token for token (cosine 1 over
// every row, here the plain file against the one with a pooled output), and
// two models that tokenize a text differently (a passage prefix) are
// refused rather than compared row against the wrong row.
func TestTokenParity(t *testing.T) {
	open := func(file, prefix string) *runtime.Model {
		m, err := runtime.Open(runtime.Config{ID: "tiny", ONNXPath: "../../models/runtime/testdata/tiny/" + file,
			TokenizerPath: "../../models/runtime/testdata/tiny/tokenizer.json", Dims: 8, MaxLength: 16, BatchSize: 3, PassagePrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Close() })
		return m
	}
	texts := []string{"the quick brown fox", "hello", "a memory of an error and its fix in go code"}
	p, err := tokenParity(context.Background(), open("tiny_encoder.onnx", ""), open("tiny_encoder_pooled_mean.onnx", ""), texts)
	if err != nil || p.What != "token states" || p.MinCosine < 0.999999 || p.Texts != 3 {
		t.Fatalf("%+v %v; want the token states to agree", p, err)
	}
	if q, err := tokenParity(context.Background(), open("tiny_encoder.onnx", ""), open("tiny_encoder.onnx", "hello "), texts); err == nil {
		t.Fatalf("%+v: texts tokenized differently compared row by row", q)
	}
}

// TestProjectedParity: a file with a projection in its graph agrees with
// the same projection of the plain file's token states on the host; a
// projection other than the graph's is caught (worst cosine well below 1).
func TestProjectedParity(t *testing.T) {
	proj := convert.Projection{In: 8, Out: 3, Mean: make([]float32, 8), Components: make([]float32, 24)}
	for i := range proj.Components {
		proj.Components[i] = float32(math.Sin(float64(i) + 0.5))
	}
	raw, err := os.ReadFile("../../models/runtime/testdata/tiny/tiny_encoder_pooled_mean.onnx")
	if err != nil {
		t.Fatal(err)
	}
	patched, err := convert.AddProjection(raw, "last_hidden_state", "tokens_test", proj)
	if err != nil {
		t.Fatal(err)
	}
	cfg := runtime.Config{ID: "tiny", ONNXPath: "tiny-projected", ONNXData: patched, TokenOutput: "tokens_test",
		TokenizerPath: "../../models/runtime/testdata/tiny/tokenizer.json", Dims: 8, MaxLength: 16, BatchSize: 3}
	g, err := runtime.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cfg.ONNXPath, cfg.ONNXData, cfg.TokenOutput = "../../models/runtime/testdata/tiny/tiny_encoder.onnx", nil, ""
	c, err := runtime.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	texts := []string{"the quick brown fox", "hello", "a memory of an error and its fix in go code"}
	p, err := projectedParity(context.Background(), g, c, texts, proj)
	if err != nil || p.MinCosine < 0.99999 || p.Texts != 3 {
		t.Fatalf("%+v %v; want the graph's projection to agree with the host's", p, err)
	}
	other := proj
	other.Components = slices.Clone(proj.Components)
	slices.Reverse(other.Components)
	if q, err := projectedParity(context.Background(), g, c, texts, other); err != nil || q.MinCosine > 0.9 {
		t.Fatalf("%+v %v: another projection not told apart", q, err)
	}
	if _, err := projectedParity(context.Background(), c, c, texts, proj); err == nil {
		t.Fatal("a file without the projection compared as if it had one")
	}
}
