package convert

import (
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBertConfigRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(*BertConfig)
		want string
	}{
		{"architecture", func(c *BertConfig) { c.Architectures = []string{"BertModel"} }, "want BertForMaskedLM"},
		{"model type", func(c *BertConfig) { c.ModelType = "roberta" }, "want bert"},
		{"activation", func(c *BertConfig) { c.HiddenAct = "gelu_new" }, "only the exact (erf) gelu"},
		{"relative positions", func(c *BertConfig) { c.PositionEmbeddingType = "relative_key" }, "only absolute"},
		{"heads", func(c *BertConfig) { c.NumHeads = 3 }, "not a multiple"},
		{"zero vocab", func(c *BertConfig) { c.VocabSize = 0 }, "vocab_size must be positive"},
		{"eps", func(c *BertConfig) { c.LayerNormEps = 0 }, "layer_norm_eps"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tinyBertConfig(false)
			if err := c.Check(); err != nil {
				t.Fatalf("valid config refused: %v", err)
			}
			tc.edit(&c)
			if err := c.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// TestConvertRejectsBadCheckpoints: a missing or misshapen tensor, or a
// config that does not match the weights, fails naming the tensor, and
// ConvertFile leaves nothing behind.
func TestConvertRejectsBadCheckpoints(t *testing.T) {
	c, ts, _ := tinyCheckpoint(tinyVariants[0])
	drop := func(name string) []namedTensor {
		return slices.DeleteFunc(slices.Clone(ts), func(x namedTensor) bool { return x.name == name })
	}
	reshape := slices.Clone(ts)
	reshape[0] = namedTensor{reshape[0].name, []int64{127 * 8}, reshape[0].data}
	wide := c
	wide.IntermediateSize = 32
	cases := []struct {
		name string
		cfg  BertConfig
		ts   []namedTensor
		want string
	}{
		{"missing layer weight", c, drop("bert.encoder.layer.1.output.dense.weight"), `no tensor "bert.encoder.layer.1.output.dense.weight"`},
		{"missing decoder bias", c, drop("cls.predictions.bias"), `no tensor "cls.predictions.decoder.bias"`},
		{"wrong shape", c, reshape, "the config implies [127 8]"},
		{"config mismatch", wide, ts, "intermediate.dense.weight\" has shape [16 8], the config implies [32 8]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "model.onnx")
			err := ConvertFile(SafetensorsBertMLM, writeCheckpoint(t, dir, tc.cfg, tc.ts), out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to mention %q", err, tc.want)
			}
			for _, p := range []string{out, out + ".tmp"} {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s left behind after a failed conversion", p)
				}
			}
		})
	}
}

func TestConvertInputs(t *testing.T) {
	if in, err := Inputs(SafetensorsBertMLM); err != nil || !slices.Equal(in, []string{"model.safetensors", "config.json"}) {
		t.Fatalf("Inputs = %v, %v", in, err)
	}
	if _, err := Inputs("onnx-from-nothing"); err == nil || !strings.Contains(err.Error(), "safetensors-bert-mlm") {
		t.Fatalf("unknown kind: %v", err)
	}
	if err := Convert(SafetensorsBertMLM, map[string]string{WeightsFile: "x"}, io.Discard); err == nil || !strings.Contains(err.Error(), "needs input config.json") {
		t.Fatalf("missing input: %v", err)
	}
	if got := Kinds(); !slices.Equal(got, []Kind{SafetensorsBertMLM}) {
		t.Fatalf("Kinds = %v", got)
	}
}

// TestWireEncoding pins the protobuf encoding of small messages against
// bytes worked out by hand from the wire format.
func TestWireEncoding(t *testing.T) {
	cases := []struct {
		name string
		m    *msg
		want string
	}{
		{"varint", func() *msg { m := &msg{}; m.varint(1, 150); return m }(), "089601"},
		{"negative int64", func() *msg { m := &msg{}; m.varint(3, -1); return m }(), "18ffffffffffffffffff01"},
		{"float attribute", FloatAttr("eps", 1).marshal(), "0a03657073150000803fa00101"},
		{"ints attribute", IntsAttr("perm", 0, 2).marshal(), "0a047065726d40004002a00107"},
		{"int64 tensor", Int64Tensor("c", []int64{1}, []int64{5}).marshal(), "080110074201634a080500000000000000"},
		{"symbolic dim", ValueInfo{Name: "x", Elem: Int64, Shape: []Dim{{Param: "b"}, {Value: 3}}}.marshal(), "0a0178120f0a0d080712090a031201620a020803"},
	}
	for _, c := range cases {
		if got := hex.EncodeToString(c.m.encoded()); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
