package main

import (
	"context"
	"testing"

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
