package runtime

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/models/tokenizer"
)

// TestBuckets: every text lands in exactly one run, runs ascend in length, none
// exceeds the text or padded-token cap unless it holds one text alone.
func TestBuckets(t *testing.T) {
	lens := []int{5, 1, 40, 3, 3, 12, 100, 7, 2, 9, 30, 3}
	encs := make([]tokenizer.Encoding, len(lens))
	for i, n := range lens {
		encs[i].IDs = make([]tokenizer.TokenID, n)
	}
	for _, tc := range []struct{ maxTexts, maxTokens int }{{3, 0}, {256, 40}, {4, 24}, {1, 0}, {100, 1}} {
		got := buckets(encs, tc.maxTexts, tc.maxTokens)
		var seen []int
		prev := 0
		for _, b := range got {
			longest := 0
			for _, i := range b {
				if lens[i] < prev {
					t.Errorf("%+v: runs not in ascending length: %v", tc, got)
				}
				prev = lens[i]
				longest = max(longest, lens[i])
			}
			if len(b) > 1 && (len(b) > tc.maxTexts || (tc.maxTokens > 0 && len(b)*longest > tc.maxTokens)) {
				t.Errorf("%+v: run %v (%d texts × %d tokens) breaks the caps", tc, b, len(b), longest)
			}
			seen = append(seen, b...)
		}
		slices.Sort(seen)
		for i, v := range seen {
			if v != i {
				t.Fatalf("%+v: runs %v do not cover every text once", tc, got)
			}
		}
	}
	// With a padded-token cap, short texts share larger runs than long ones.
	got := buckets(encs, 256, 40)
	if len(got[0]) <= len(got[len(got)-1]) {
		t.Errorf("cap 40: first run %v not larger than last %v", got[0], got[len(got)-1])
	}
}

// TestTinyOrderAcrossBuckets: texts of shuffled lengths, cut into many small
// runs by both caps and tokenized on several goroutines, come back in input
// order — each vector equals the one the text gets alone.
func TestTinyOrderAcrossBuckets(t *testing.T) {
	words := strings.Fields("the quick brown fox hello a memory of an error and its fix in go code data search vector store token model lazy dog")
	rng := rand.New(rand.NewPCG(7, 33))
	texts := make([]string, 41)
	for i := range texts {
		n := 1 + rng.IntN(14)
		w := make([]string, n)
		for k := range w {
			w[k] = words[rng.IntN(len(words))]
		}
		texts[i] = strings.Join(w, " ")
	}
	for _, runs := range []int{1, 3} { // 3: batches on three goroutines (the cuda pipeline)
		t.Run("runs="+strconv.Itoa(runs), func(t *testing.T) { testOrderAcrossBuckets(t, texts, runs) })
	}
}

func testOrderAcrossBuckets(t *testing.T, texts []string, runs int) {
	cfg := tinyConfig("tiny_encoder.onnx")
	cfg.BatchSize, cfg.MaxBatchTokens, cfg.ConcurrentRuns = 5, 24, runs
	m := openTiny(t, cfg)
	ctx := context.Background()
	before := m.Stats()
	got, err := m.Embed(ctx, ViewPassage, texts)
	if err != nil {
		t.Fatal(err)
	}
	st := m.Stats().Sub(before)
	if st.Texts != int64(len(texts)) || st.Batches < int64(len(texts)/5) || st.PaddedTokens < st.Tokens || st.Run <= 0 {
		t.Errorf("stats %+v for %d texts", st, len(texts))
	}
	for i, text := range texts {
		alone, err := m.Embed(ctx, ViewPassage, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		for d, v := range alone[0].Vector {
			if !near(float64(v), float64(got[i].Vector[d]), 1e-6) {
				t.Fatalf("text %d %q dim %d: batched %v, alone %v", i, text, d, got[i].Vector[d], v)
			}
		}
		if got[i].Tokens != alone[0].Tokens {
			t.Fatalf("text %d: %d tokens batched, %d alone", i, got[i].Tokens, alone[0].Tokens)
		}
	}
	// A bad text among many (the parallel tokenizer) still fails the call, naming
	// the lowest bad index.
	bad := slices.Clone(texts)
	bad[17], bad[30] = "   ", ""
	if _, err := m.Embed(ctx, ViewPassage, bad); err == nil || !strings.Contains(err.Error(), "text 17") {
		t.Fatalf("bad texts 17 and 30: %v", err)
	}
}
