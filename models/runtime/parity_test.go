package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// modelDirs are the places a test looks for an installed model: $CGRAPH_MODELS/<id>,
// then the default models directory <cache>/models/<id>.
func modelDirs(id string) []string {
	var dirs []string
	if d := os.Getenv("CGRAPH_MODELS"); d != "" {
		dirs = append(dirs, filepath.Join(d, id))
	}
	// LibraryPath is <cache>/onnxruntime/<version>/lib when not overridden.
	cache := filepath.Dir(filepath.Dir(filepath.Dir(LibraryPath())))
	if os.Getenv("CGRAPH_ORT_LIB") != "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache", "cgraph")
		}
	}
	return append(dirs, filepath.Join(cache, "models", id))
}

// installedModel finds the ONNX file and tokenizer.json of model id, or skips the test
// saying where it looked and how to install the model.
func installedModel(t testing.TB, id string) (onnxPath, tokPath string) {
	t.Helper()
	dirs := modelDirs(id)
	for _, dir := range dirs {
		onnx, _ := filepath.Glob(filepath.Join(dir, "*.onnx"))
		toks, _ := filepath.Glob(filepath.Join(dir, "*tokenizer*.json"))
		if len(onnx) == 1 && len(toks) == 1 {
			return onnx[0], toks[0]
		}
	}
	t.Skipf("model %s is not installed (looked for one *.onnx and one *tokenizer*.json in %s); install it with `cgraph models pull %s` or set CGRAPH_MODELS", id, strings.Join(dirs, ", "), id)
	return "", ""
}

func fileSHA256(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// vectorFixture is what models/testdata/gen/parity.py writes: pooled vectors from the
// reference pipeline (HF tokenizers + Python onnxruntime + numpy pooling).
type vectorFixture struct {
	Model      string `json:"model"`
	ONNXSHA256 string `json:"onnx_sha256"`
	Prefix     string `json:"prefix"`
	MaxLength  int    `json:"max_length"`
	Cases      []struct {
		Kind   string    `json:"kind"`
		Text   string    `json:"text"`
		Tokens int       `json:"tokens"`
		Mean   []float64 `json:"mean"`
		CLS    []float64 `json:"cls"`
	} `json:"cases"`
}

func cosine(a []float32, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * b[i]
		na += float64(a[i]) * float64(a[i])
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

// parityVectorModels are the models with reference vectors in testdata and the pooling
// each is served with (the other pooling is checked from the token vectors).
var parityVectorModels = []struct {
	id      string
	pooling Pooling
}{
	{"e5-small-v2", PoolMean},
	{"bge-small-en-v1.5", PoolCLS},
	{"all-minilm-l6-v2", PoolMean},
}

// TestParityVectors compares sentence vectors with the reference pipeline, in padded
// batches: cosine >= 0.999 for every text, for mean pooling (normalised) and CLS.
func TestParityVectors(t *testing.T) {
	for _, pm := range parityVectorModels {
		t.Run(pm.id, func(t *testing.T) { testParityVectors(t, pm.id, pm.pooling) })
	}
}

func testParityVectors(t *testing.T, id string, pooling Pooling) {
	onnxPath, tokPath := installedModel(t, id)
	var fx vectorFixture
	if err := json.Unmarshal(gunzipFile(t, "testdata/parity_"+id+"_vectors.json.gz"), &fx); err != nil {
		t.Fatal(err)
	}
	if sum := fileSHA256(t, onnxPath); sum != fx.ONNXSHA256 {
		t.Skipf("installed %s has sha256 %s but the fixture was made from %s; regenerate it with models/testdata/gen/parity.py", onnxPath, sum, fx.ONNXSHA256)
	}
	if len(fx.Cases) < 100 {
		t.Fatalf("fixture has %d cases, want >= 100", len(fx.Cases))
	}
	texts := make([]string, len(fx.Cases))
	for i, c := range fx.Cases {
		texts[i] = c.Text
	}
	m := openTiny(t, Config{
		ID: id, ONNXPath: onnxPath, TokenizerPath: tokPath,
		Pooling: pooling, Normalize: pooling == PoolMean, Dims: 384,
		MaxLength: fx.MaxLength, PassagePrefix: fx.Prefix, BatchSize: 16,
	})
	ctx := context.Background()
	dense, err := m.Embed(ctx, ViewPassage, texts)
	if err != nil {
		t.Fatal(err)
	}
	// The other pooling comes from the token vectors of a third of the texts (time).
	toks, err := m.TokenVectors(ctx, ViewPassage, texts[:len(texts)/3])
	if err != nil {
		t.Fatal(err)
	}
	worst := map[Pooling]float64{PoolMean: 1, PoolCLS: 1}
	truncated := 0
	for i, c := range fx.Cases {
		got := map[Pooling][]float32{}
		got[pooling] = dense[i].Vector
		switch {
		case i >= len(toks):
		case pooling == PoolMean:
			got[PoolCLS] = toks[i].Row(0)
		default:
			got[PoolMean] = meanPool(toks[i].Data, len(toks[i].IDs), toks[i].Dim, onesMask(len(toks[i].IDs)))
		}
		for p, want := range map[Pooling][]float64{PoolMean: c.Mean, PoolCLS: c.CLS} {
			if got[p] == nil {
				continue
			}
			cos := cosine(got[p], want)
			worst[p] = min(worst[p], cos)
			if cos < 0.999 {
				t.Errorf("case %d (%s) %.50q: %s cosine %.5f < 0.999", i, c.Kind, c.Text, p, cos)
			}
		}
		if dense[i].Tokens != c.Tokens {
			t.Errorf("case %d: %d tokens, reference %d", i, dense[i].Tokens, c.Tokens)
		}
		if dense[i].Truncated {
			truncated++
		}
	}
	if truncated == 0 {
		t.Error("no case was truncated; the fixture should cover long texts")
	}
	t.Logf("%d texts (%d truncated), served by %s pooling; worst cosine mean %.7f, cls %.7f", len(texts), truncated, pooling, worst[PoolMean], worst[PoolCLS])
}

func onesMask(n int) []int64 {
	m := make([]int64, n)
	for i := range m {
		m[i] = 1
	}
	return m
}

// TestE5TokenVectorsMatchPooling: the token vectors are the rows that mean pooling
// averages, so their normalised mean must equal Embed's vector.
func TestE5TokenVectorsMatchPooling(t *testing.T) {
	onnxPath, tokPath := installedModel(t, "e5-small-v2")
	m := openTiny(t, Config{ID: "e5-small-v2", ONNXPath: onnxPath, TokenizerPath: tokPath, Normalize: true, Dims: 384, QueryPrefix: "query: "})
	texts := []string{"how do I close a RocksDB column family handle", "defer db.Close()"}
	dense, err := m.Embed(context.Background(), ViewQuery, texts)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := m.TokenVectors(context.Background(), ViewQuery, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		mean := make([]float64, toks[i].Dim)
		for r := range toks[i].IDs {
			for d, v := range toks[i].Row(r) {
				mean[d] += float64(v)
			}
		}
		if cos := cosine(dense[i].Vector, mean); cos < 0.99999 {
			t.Errorf("text %d: cosine(Embed, mean of TokenVectors) = %.6f", i, cos)
		}
		if !slices.Equal(toks[i].IDs[:3], toks[0].IDs[:3]) { // [CLS] query :
			t.Errorf("text %d: ids %v do not start with the query prefix", i, toks[i].IDs[:3])
		}
	}
}

// TestQuantizedAgreement measures how far the int8 builds (manifest ids "<id>-q") drift
// from their fp32 reference vectors. Not a parity test (quantization changes the
// numbers); it guards against a broken or mismatched quantized file.
func TestQuantizedAgreement(t *testing.T) {
	for _, pm := range parityVectorModels {
		t.Run(pm.id+"-q", func(t *testing.T) {
			onnxPath, tokPath := installedModel(t, pm.id+"-q")
			var fx vectorFixture
			if err := json.Unmarshal(gunzipFile(t, "testdata/parity_"+pm.id+"_vectors.json.gz"), &fx); err != nil {
				t.Fatal(err)
			}
			texts := make([]string, len(fx.Cases))
			for i, c := range fx.Cases {
				texts[i] = c.Text
			}
			m := openTiny(t, Config{
				ID: pm.id + "-q", ONNXPath: onnxPath, TokenizerPath: tokPath,
				Pooling: pm.pooling, Normalize: true, Dims: 384,
				MaxLength: fx.MaxLength, PassagePrefix: fx.Prefix,
			})
			got, err := m.Embed(context.Background(), ViewPassage, texts)
			if err != nil {
				t.Fatal(err)
			}
			worst, sum := 1.0, 0.0
			for i, c := range fx.Cases {
				want := c.Mean
				if pm.pooling == PoolCLS {
					want = c.CLS
				}
				cos := cosine(got[i].Vector, want)
				worst, sum = min(worst, cos), sum+cos
			}
			mean := sum / float64(len(texts))
			t.Logf("%d texts: cosine to fp32 reference mean %.4f, worst %.4f", len(texts), mean, worst)
			// The int8 MiniLM drifts more (measured mean 0.9893, worst 0.9691);
			// that is why it is not a default install (embedders/neural). Its
			// floor pins the measured figure; the default int8 builds must keep
			// the 0.99 the default set was chosen on.
			floor := 0.99
			if pm.id == "all-minilm-l6-v2" {
				floor = 0.985
			}
			if mean < floor || worst < 0.95 {
				t.Errorf("quantized vectors drift too far: mean cosine %.4f (want >= %.3f), worst %.4f (want >= 0.95)", mean, floor, worst)
			}
		})
	}
}
