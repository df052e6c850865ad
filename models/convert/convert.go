package convert

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Kind names a conversion: the input format and the architecture it holds.
// The strings are part of the model manifest format.
type Kind string

// SafetensorsBertMLM converts a Hugging Face BertForMaskedLM checkpoint
// (model.safetensors with float32 weights, plus its config.json) into an
// ONNX graph with output "logits" [batch, sequence, vocab].
const SafetensorsBertMLM Kind = "safetensors-bert-mlm"

// Version is the version of the bytes this package writes for each Kind. It
// is recorded in every produced file (producer_version); raise it with any
// change to the output, together with the pinned sha256 of every converted
// model in the manifest.
const Version = "1"

// Input files each conversion reads, by the file names the manifest uses.
const (
	WeightsFile = "model.safetensors"
	ConfigFile  = "config.json"
)

var kindInputs = map[Kind][]string{
	SafetensorsBertMLM: {WeightsFile, ConfigFile},
}

// Inputs returns the file names conversion k reads, or an error for an
// unknown kind. The caller must not modify the slice.
func Inputs(k Kind) ([]string, error) {
	in, ok := kindInputs[k]
	if !ok {
		known := make([]string, 0, len(kindInputs))
		for _, kk := range Kinds() {
			known = append(known, string(kk))
		}
		return nil, fmt.Errorf("unknown conversion %q (known: %s)", k, strings.Join(known, ", "))
	}
	return in, nil
}

// Convert runs conversion k over inputs (file name, as Inputs lists, to
// path) and writes the ONNX model to w. The caller checks the inputs'
// sha256 first and the output's after: Convert trusts neither. Cost: reads
// every weight once and holds it in memory about twice (as read, and as
// encoded), then streams the encoding to w.
func Convert(k Kind, inputs map[string]string, w io.Writer) error {
	names, err := Inputs(k)
	if err != nil {
		return err
	}
	for _, n := range names {
		if inputs[n] == "" {
			return fmt.Errorf("conversion %s needs input %s", k, n)
		}
	}
	return BertMLM(inputs[WeightsFile], inputs[ConfigFile], w)
}

// BertMLM converts a BertForMaskedLM checkpoint to ONNX, writing it to w.
func BertMLM(weightsPath, configPath string, w io.Writer) (err error) {
	cfg, err := ReadBertConfig(configPath)
	if err != nil {
		return err
	}
	st, err := OpenSafetensors(weightsPath)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	params, err := loadBert(st, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(weightsPath), err)
	}
	m := &Model{
		IRVersion:       irVersion,
		Opset:           opset,
		ProducerName:    "cgraph models/convert",
		ProducerVersion: string(SafetensorsBertMLM) + "/" + Version,
		Doc:             bertDoc(cfg),
		Graph:           buildBertMLM(params, cfg),
	}
	if _, err := m.WriteTo(w); err != nil {
		return err
	}
	return nil
}

func bertDoc(c BertConfig) string {
	return fmt.Sprintf("BertForMaskedLM converted from safetensors: %d layers, hidden %d, %d heads, intermediate %d, vocab %d, decoder tied: %v. Output logits [batch, sequence, vocab].",
		c.NumLayers, c.HiddenSize, c.NumHeads, c.IntermediateSize, c.VocabSize, c.tied())
}

// ConvertFile runs Convert into path through path+".tmp" and a rename, so a
// reader never sees a half-written model.
func ConvertFile(k Kind, inputs map[string]string, path string) (err error) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp) // never leave a partial model behind; err says why
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	err = Convert(k, inputs, bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", tmp, cerr)
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("install converted model: %w", err)
	}
	return nil
}

// Kinds lists the known conversions, sorted.
func Kinds() []Kind {
	ks := make([]Kind, 0, len(kindInputs))
	for k := range kindInputs {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b Kind) int { return strings.Compare(string(a), string(b)) })
	return ks
}
