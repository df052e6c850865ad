package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cgraph/cgraph/models/convert"
	"github.com/cgraph/cgraph/models/tokenizer"
)

// tinyWeights are the parameters tiny_models.py put into the tiny ONNX models; the tests
// recompute every output from them without ONNX Runtime.
type tinyWeights struct {
	H, V int
	E    [][]float32 `json:"E"`
	TT   [][]float32 `json:"TT"`
	P    [][]float32 `json:"P"`
	W    [][]float32 `json:"W"`
	Bias []float32   `json:"bias"`
}

func loadTinyWeights(t *testing.T) tinyWeights {
	t.Helper()
	data, err := os.ReadFile("testdata/tiny/weights.json")
	if err != nil {
		t.Fatal(err)
	}
	var w tinyWeights
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// hidden is tanh(E[id] + TT[0] + P[t]) (withType) or tanh(E[id] + P[t]).
func (w tinyWeights) hidden(id tokenizer.TokenID, pos int, withType bool) []float64 {
	h := make([]float64, w.H)
	for d := range h {
		s := float64(w.E[id][d]) + float64(w.P[pos][d])
		if withType {
			s += float64(w.TT[0][d])
		}
		h[d] = math.Tanh(s)
	}
	return h
}

func tinyConfig(onnx string) Config {
	return Config{
		ID:            "tiny",
		ONNXPath:      "testdata/tiny/" + onnx,
		TokenizerPath: "testdata/tiny/tokenizer.json",
		Dims:          8,
		MaxLength:     16,
		BatchSize:     3,
	}
}

func openTiny(t *testing.T, cfg Config) *Model {
	t.Helper()
	m, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m
}

// tinyTexts have different lengths (so batches pad) and more texts than a batch;
// the last is longer than MaxLength 16.
var tinyTexts = []string{
	"the quick brown fox",
	"hello",
	"a memory of an error and its fix in go code",
	"data",
	"search the vector store for the token model",
	"the lazy dog",
	strings.Repeat("hello world ", 12),
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestTinyTokenVectors(t *testing.T) {
	w := loadTinyWeights(t)
	m := openTiny(t, tinyConfig("tiny_encoder.onnx"))
	got, err := m.TokenVectors(context.Background(), ViewPassage, tinyTexts)
	if err != nil {
		t.Fatal(err)
	}
	for i, tm := range got {
		enc, err := m.Tokenizer().Encode(tinyTexts[i], 16)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tm.IDs, enc.IDs) || tm.Dim != 8 || len(tm.Data) != len(enc.IDs)*8 {
			t.Fatalf("text %d: ids %v dim %d data %d, want ids %v", i, tm.IDs, tm.Dim, len(tm.Data), enc.IDs)
		}
		if tm.Truncated != (i == len(tinyTexts)-1) || tm.Tokens != len(enc.IDs) {
			t.Errorf("text %d: meta %+v", i, tm.Meta)
		}
		for pos, id := range tm.IDs {
			want := w.hidden(id, pos, true)
			for d, v := range tm.Row(pos) {
				if !near(float64(v), want[d], 1e-5) {
					t.Fatalf("text %d token %d dim %d: %v want %v", i, pos, d, v, want[d])
				}
			}
		}
	}
}

// TestTinyMapTokens: fn sees text i's own token states (recomputed from the
// weights) and pooled vector, under its index, and MapTokens returns fn's
// results in input order; EmbedWithTokens keeps what MapTokens lends.
func TestTinyMapTokens(t *testing.T) {
	w := loadTinyWeights(t)
	m := openTiny(t, tinyConfig("tiny_encoder.onnx"))
	ctx := context.Background()
	type sums struct {
		i    int
		rows []float64 // each token's sum of its state
		vec  []float32
	}
	got, err := MapTokens(ctx, m, "", tinyTexts, func(i int, p Pooled) sums {
		s := sums{i: i, vec: p.Vector}
		for r := range len(p.Tokens.IDs) {
			var x float64
			for _, v := range p.Tokens.Row(r) {
				x += float64(v)
			}
			s.rows = append(s.rows, x)
		}
		return s
	})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := m.EmbedWithTokens(ctx, "", tinyTexts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		enc, err := m.Tokenizer().Encode(tinyTexts[i], 16)
		if err != nil {
			t.Fatal(err)
		}
		if s.i != i || len(s.rows) != len(enc.IDs) {
			t.Fatalf("result %d: index %d, %d rows; want index %d, %d rows", i, s.i, len(s.rows), i, len(enc.IDs))
		}
		for pos, id := range enc.IDs {
			var want float64
			for _, v := range w.hidden(id, pos, true) {
				want += v
			}
			if !near(s.rows[pos], want, 1e-4) {
				t.Fatalf("text %d token %d: sum %v want %v", i, pos, s.rows[pos], want)
			}
		}
		if !slices.Equal(s.vec, kept[i].Vector) {
			t.Errorf("text %d: pooled vector differs from EmbedWithTokens'", i)
		}
		for pos := range enc.IDs {
			var x float64
			for _, v := range kept[i].Tokens.Row(pos) {
				x += float64(v)
			}
			if !near(x, s.rows[pos], 1e-6) {
				t.Fatalf("text %d token %d: EmbedWithTokens kept %v, the run gave %v", i, pos, x, s.rows[pos])
			}
		}
	}
}

func TestTinyPooling(t *testing.T) {
	w := loadTinyWeights(t)
	tests := []struct {
		name      string
		pooling   Pooling
		normalize bool
	}{
		{"mean", PoolMean, false},
		{"mean-norm", PoolMean, true},
		{"cls", PoolCLS, false},
		{"cls-norm", PoolCLS, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig("tiny_encoder.onnx")
			cfg.Pooling, cfg.Normalize = tc.pooling, tc.normalize
			m := openTiny(t, cfg)
			got, err := m.Embed(context.Background(), ViewPassage, tinyTexts)
			if err != nil {
				t.Fatal(err)
			}
			for i, dv := range got {
				enc, _ := m.Tokenizer().Encode(tinyTexts[i], 16)
				want := make([]float64, 8)
				if tc.pooling == PoolCLS {
					want = w.hidden(enc.IDs[0], 0, true)
				} else {
					for pos, id := range enc.IDs {
						for d, v := range w.hidden(id, pos, true) {
							want[d] += v / float64(len(enc.IDs))
						}
					}
				}
				if tc.normalize {
					var n float64
					for _, v := range want {
						n += v * v
					}
					for d := range want {
						want[d] /= math.Sqrt(n)
					}
				}
				for d := range want {
					if !near(float64(dv.Vector[d]), want[d], 1e-5) {
						t.Fatalf("text %d dim %d: %v want %v", i, d, dv.Vector[d], want[d])
					}
				}
				if dv.Truncated != (i == len(tinyTexts)-1) {
					t.Errorf("text %d: Truncated=%v", i, dv.Truncated)
				}
			}
		})
	}
}

func TestTinySplade(t *testing.T) {
	w := loadTinyWeights(t)
	cfg := tinyConfig("tiny_mlm.onnx")
	cfg.Task, cfg.Dims = TaskMaskedLM, 0
	m := openTiny(t, cfg)
	got, err := m.Sparse(context.Background(), ViewPassage, tinyTexts)
	if err != nil {
		t.Fatal(err)
	}
	for i, sv := range got {
		enc, _ := m.Tokenizer().Encode(tinyTexts[i], 16)
		want := make([]float64, w.V)
		for pos, id := range enc.IDs {
			h := w.hidden(id, pos, false) // tiny_mlm has no token_type_ids input
			for v := range w.V {
				logit := float64(w.Bias[v])
				for d := range w.H {
					logit += h[d] * float64(w.W[d][v])
				}
				want[v] = math.Max(want[v], math.Log1p(math.Max(logit, 0)))
			}
		}
		var wantTerms []tokenizer.TokenID
		for v, x := range want {
			if x > 1e-6 {
				wantTerms = append(wantTerms, tokenizer.TokenID(v))
			}
		}
		if len(sv.Terms) != len(sv.Weights) || len(sv.Terms) == 0 {
			t.Fatalf("text %d: %d terms, %d weights", i, len(sv.Terms), len(sv.Weights))
		}
		if !slices.IsSorted(sv.Terms) {
			t.Errorf("text %d: terms not ascending", i)
		}
		for k, term := range sv.Terms {
			if !near(float64(sv.Weights[k]), want[term], 1e-4) || sv.Weights[k] <= 0 {
				t.Fatalf("text %d term %d: %v want %v", i, term, sv.Weights[k], want[term])
			}
		}
		// Terms with weights so small that float32 rounding decides are allowed to differ.
		for _, term := range wantTerms {
			if _, found := slices.BinarySearch(sv.Terms, term); !found && want[term] > 1e-4 {
				t.Fatalf("text %d: term %d (weight %v) missing", i, term, want[term])
			}
		}
	}
}

func TestTinyQueryPrefix(t *testing.T) {
	cfg := tinyConfig("tiny_encoder.onnx")
	cfg.QueryPrefix, cfg.PassagePrefix = "search ", "data "
	m := openTiny(t, cfg)
	q, err := m.TokenVectors(context.Background(), ViewQuery, []string{"fox"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.TokenVectors(context.Background(), ViewPassage, []string{"fox"})
	if err != nil {
		t.Fatal(err)
	}
	want := func(prefix string) []tokenizer.TokenID {
		enc, err := m.Tokenizer().Encode(prefix+"fox", 16)
		if err != nil {
			t.Fatal(err)
		}
		return enc.IDs
	}
	if !slices.Equal(q[0].IDs, want("search ")) || !slices.Equal(p[0].IDs, want("data ")) {
		t.Fatalf("query ids %v passage ids %v", q[0].IDs, p[0].IDs)
	}
}

// TestTinyConcurrent shares one Model across goroutines; results equal the serial ones.
func TestTinyConcurrent(t *testing.T) {
	for _, tc := range []struct{ runs, sessions int }{{2, 1}, {1, 3}, {4, 2}} {
		t.Run(fmt.Sprintf("runs=%d,sessions=%d", tc.runs, tc.sessions), func(t *testing.T) {
			cfg := tinyConfig("tiny_encoder.onnx")
			cfg.ConcurrentRuns, cfg.Sessions = tc.runs, tc.sessions
			testConcurrentCalls(t, openTiny(t, cfg))
		})
	}
}

// TestTinySessions: every session of a pool computes the same vectors as a
// model with one, the pool raises ConcurrentRuns to its size, and a closed
// pool refuses calls.
func TestTinySessions(t *testing.T) {
	ctx := context.Background()
	one := openTiny(t, tinyConfig("tiny_encoder.onnx"))
	want, err := one.Embed(ctx, ViewPassage, tinyTexts)
	if err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig("tiny_encoder.onnx")
	cfg.Sessions = 3
	m, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Config().ConcurrentRuns; got != 3 {
		t.Errorf("ConcurrentRuns = %d with 3 sessions, want 3", got)
	}
	if len(m.sess) != 3 {
		t.Fatalf("%d sessions open, want 3", len(m.sess))
	}
	for range 3 * len(m.sess) { // one text per call: each call takes the next free session
		got, err := m.Embed(ctx, ViewPassage, tinyTexts[2:3])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[0].Vector, want[2].Vector) {
			t.Fatalf("a pooled session's vector differs from the single session's")
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Embed(ctx, ViewPassage, tinyTexts[:1]); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed pool: %v, want ErrClosed", err)
	}
}

// testConcurrentCalls runs 8 concurrent Embed calls on m and checks each
// against one call's vectors.
func testConcurrentCalls(t *testing.T, m *Model) {
	ctx := context.Background()
	want, err := m.Embed(ctx, ViewPassage, tinyTexts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			texts := tinyTexts[g%len(tinyTexts):]
			got, err := m.Embed(ctx, ViewPassage, texts)
			if err != nil {
				errs <- err
				return
			}
			for i := range got {
				if !slices.Equal(got[i].Vector, want[i+g%len(tinyTexts)].Vector) {
					errs <- os.ErrInvalid
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestTinyProfile: with ProfilePrefix the session writes ONNX Runtime's
// trace of the nodes it ran when it closes.
func TestTinyProfile(t *testing.T) {
	cfg := tinyConfig("tiny_encoder.onnx")
	cfg.ProfilePrefix = filepath.Join(t.TempDir(), "ort")
	m, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Embed(context.Background(), ViewPassage, tinyTexts[:2]); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(cfg.ProfilePrefix + "_*.json")
	if err != nil || len(files) != 1 {
		t.Fatalf("profile files %v (%v), want one", files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var events []struct {
		Cat  string         `json:"cat"`
		Args map[string]any `json:"args"`
	}
	if err := json.Unmarshal(data, &events); err != nil {
		t.Fatalf("profile is not a JSON trace: %v", err)
	}
	nodes := 0
	for _, e := range events {
		if e.Cat == "Node" && e.Args["provider"] == "CPUExecutionProvider" {
			nodes++
		}
	}
	if nodes == 0 {
		t.Fatalf("no node events on the CPU provider among %d events", len(events))
	}
}

// TestTinyPooledOutput: a model with its own pooled output of the config's
// pooling (scripts/pooled) is run for that output alone, and its vectors
// are the CPU pooling's over padded batches; a pooled output of the other
// pooling is left unused, and so is any with CPUPooling.
func TestTinyPooledOutput(t *testing.T) {
	for _, tc := range []struct {
		file       string
		pooling    Pooling
		cpuPooling bool
		want       string
	}{
		{"tiny_encoder_pooled_mean.onnx", PoolMean, false, "pooled_mean"},
		{"tiny_encoder_pooled_cls.onnx", PoolCLS, false, "pooled_cls"},
		{"tiny_encoder_pooled_cls.onnx", PoolMean, false, ""},
		{"tiny_encoder_pooled_mean.onnx", PoolCLS, false, ""},
		{"tiny_encoder_pooled_mean.onnx", PoolMean, true, ""},
		{"tiny_encoder.onnx", PoolMean, false, ""},
	} {
		t.Run(fmt.Sprintf("%s/%s/cpu-pooling=%v", tc.file, tc.pooling, tc.cpuPooling), func(t *testing.T) {
			cfg := tinyConfig(tc.file)
			cfg.Pooling, cfg.Normalize, cfg.CPUPooling = tc.pooling, true, tc.cpuPooling
			m := openTiny(t, cfg)
			if got := m.PooledOutput(); got != tc.want {
				t.Fatalf("pooled output %q, want %q", got, tc.want)
			}
			ref := tinyConfig("tiny_encoder.onnx")
			ref.Pooling, ref.Normalize = tc.pooling, true
			want, err := openTiny(t, ref).Embed(context.Background(), ViewPassage, tinyTexts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Embed(context.Background(), ViewPassage, tinyTexts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i].Meta != want[i].Meta || len(got[i].Vector) != 8 {
					t.Fatalf("text %d: meta %+v dims %d, want %+v and 8", i, got[i].Meta, len(got[i].Vector), want[i].Meta)
				}
				for d, v := range want[i].Vector {
					if !near(float64(got[i].Vector[d]), float64(v), 1e-6) {
						t.Fatalf("text %d dim %d: %v, CPU pooling gives %v", i, d, got[i].Vector[d], v)
					}
				}
			}
			tv, err := m.TokenVectors(context.Background(), ViewPassage, tinyTexts[:2])
			if err != nil || len(tv) != 2 || tv[0].Dim != 8 {
				t.Fatalf("token vectors beside a pooled output: %v %v", tv, err)
			}
		})
	}
}

// TestTinyProjectedOutput: a model with Config.TokenOutput beside its
// pooled output hands MapTokens the projected rows and the pooled vector
// from one run per batch (convert.AddProjection writes the output here),
// equal to projecting the token states on the host; a file without the
// output, or without a pooled one, runs as before; an output of the wrong
// shape is refused at Open.
func TestTinyProjectedOutput(t *testing.T) {
	proj := convert.Projection{In: 8, Out: 3, Mean: make([]float32, 8), Components: make([]float32, 24)}
	for i := range proj.Mean {
		proj.Mean[i] = float32(i) / 10
	}
	for i := range proj.Components {
		proj.Components[i] = float32(math.Cos(float64(i)))
	}
	patch := func(file string) []byte {
		t.Helper()
		b, err := os.ReadFile("testdata/tiny/" + file)
		if err != nil {
			t.Fatal(err)
		}
		out, err := convert.AddProjection(b, "last_hidden_state", "tokens_test", proj)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	ctx := context.Background()
	ref := tinyConfig("tiny_encoder_pooled_mean.onnx")
	ref.Normalize = true
	want, err := MapTokens(ctx, openTiny(t, ref), "", tinyTexts, func(_ int, p Pooled) Pooled {
		p.Tokens.Data = slices.Clone(p.Tokens.Data)
		return p
	})
	if err != nil {
		t.Fatal(err)
	}

	cfg := ref
	cfg.ONNXData, cfg.TokenOutput = patch("tiny_encoder_pooled_mean.onnx"), "tokens_test"
	m := openTiny(t, cfg)
	if got := m.ProjectedOutput(); got != "tokens_test" {
		t.Fatalf("projected output %q, want tokens_test", got)
	}
	before := m.Stats()
	got, err := m.EmbedWithTokens(ctx, "", tinyTexts)
	if err != nil {
		t.Fatal(err)
	}
	if st := m.Stats().Sub(before); st.Batches != int64((len(tinyTexts)+cfg.BatchSize-1)/cfg.BatchSize) {
		t.Errorf("%d runs for %d texts in batches of %d", st.Batches, len(tinyTexts), cfg.BatchSize)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Tokens.Output != "tokens_test" || g.Tokens.Dim != proj.Out || len(g.Tokens.IDs) != len(w.Tokens.IDs) || g.Meta != w.Meta {
			t.Fatalf("text %d: output %q dim %d, %d tokens (want %d), meta %+v", i, g.Tokens.Output, g.Tokens.Dim, len(g.Tokens.IDs), len(w.Tokens.IDs), g.Meta)
		}
		for d, v := range w.Vector {
			if !near(float64(g.Vector[d]), float64(v), 1e-6) {
				t.Fatalf("text %d pooled dim %d: %v, want %v", i, d, g.Vector[d], v)
			}
		}
		for r := range w.Tokens.IDs {
			h := w.Tokens.Row(r)
			for j := range proj.Out {
				var x float64
				for k := range proj.In {
					x += float64(h[k]-proj.Mean[k]) * float64(proj.Components[j*proj.In+k])
				}
				if !near(float64(g.Tokens.Row(r)[j]), x, 1e-5) {
					t.Fatalf("text %d token %d component %d: %v, host projection %v", i, r, j, g.Tokens.Row(r)[j], x)
				}
			}
		}
	}

	for _, tc := range []struct{ name, file, output string }{
		{"no pooled output", "tiny_encoder.onnx", "tokens_test"},
		{"output not in the file", "tiny_encoder_pooled_mean.onnx", "tokens_other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ref
			c.ONNXData, c.TokenOutput = patch(tc.file), tc.output
			m := openTiny(t, c)
			if m.ProjectedOutput() != "" {
				t.Fatalf("projected output %q", m.ProjectedOutput())
			}
			p, err := m.EmbedWithTokens(ctx, "", tinyTexts[:1])
			if err != nil || p[0].Tokens.Dim != 8 || p[0].Tokens.Output != "" {
				t.Fatalf("token states expected: dim %d output %q, %v", p[0].Tokens.Dim, p[0].Tokens.Output, err)
			}
		})
	}
	c := ref
	c.TokenOutput = "pooled_mean" // rank 2
	if _, err := Open(c); err == nil || !strings.Contains(err.Error(), "projected token output must be") {
		t.Errorf("a rank-2 token output: %v", err)
	}
	c = cfg
	c.TokenOutputDims = 4
	if _, err := Open(c); err == nil || !strings.Contains(err.Error(), "has 3 dims, the caller reads 4") {
		t.Errorf("a token output of another width: %v", err)
	}
	c.TokenOutputDims = 3
	openTiny(t, c)
}
