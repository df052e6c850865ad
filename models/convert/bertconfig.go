package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// BertConfig is the part of a Hugging Face BertConfig (config.json) that the
// BERT masked-LM conversion reads.
type BertConfig struct {
	Architectures         []string `json:"architectures"`
	ModelType             string   `json:"model_type"`
	VocabSize             int      `json:"vocab_size"`
	HiddenSize            int      `json:"hidden_size"`
	NumLayers             int      `json:"num_hidden_layers"`
	NumHeads              int      `json:"num_attention_heads"`
	IntermediateSize      int      `json:"intermediate_size"`
	HiddenAct             string   `json:"hidden_act"`
	LayerNormEps          float64  `json:"layer_norm_eps"`
	MaxPositions          int      `json:"max_position_embeddings"`
	TypeVocabSize         int      `json:"type_vocab_size"`
	PositionEmbeddingType string   `json:"position_embedding_type"`
	// TieWordEmbeddings is nil when config.json does not say; Hugging Face
	// then ties the decoder to the word embeddings.
	TieWordEmbeddings *bool `json:"tie_word_embeddings"`
}

// ReadBertConfig reads and checks a config.json.
func ReadBertConfig(path string) (BertConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return BertConfig{}, fmt.Errorf("read bert config: %w", err)
	}
	var c BertConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return BertConfig{}, fmt.Errorf("bert config %s: %w", path, err)
	}
	if err := c.Check(); err != nil {
		return BertConfig{}, fmt.Errorf("bert config %s: %w", path, err)
	}
	return c, nil
}

// Check refuses configurations the graph builder does not reproduce
// exactly: another architecture, an activation other than exact GELU,
// relative position embeddings, sizes that do not divide into heads.
func (c BertConfig) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !slices.Contains(c.Architectures, "BertForMaskedLM") {
		bad("architectures %v: want BertForMaskedLM", c.Architectures)
	}
	if c.ModelType != "bert" {
		bad("model_type %q: want bert", c.ModelType)
	}
	if c.HiddenAct != "gelu" {
		bad("hidden_act %q: only the exact (erf) gelu is converted", c.HiddenAct)
	}
	if c.PositionEmbeddingType != "" && c.PositionEmbeddingType != "absolute" {
		bad("position_embedding_type %q: only absolute position embeddings are converted", c.PositionEmbeddingType)
	}
	for name, v := range map[string]int{
		"vocab_size": c.VocabSize, "hidden_size": c.HiddenSize, "num_hidden_layers": c.NumLayers,
		"num_attention_heads": c.NumHeads, "intermediate_size": c.IntermediateSize,
		"max_position_embeddings": c.MaxPositions, "type_vocab_size": c.TypeVocabSize,
	} {
		if v <= 0 {
			bad("%s must be positive, got %d", name, v)
		}
	}
	if c.NumHeads > 0 && c.HiddenSize%c.NumHeads != 0 {
		bad("hidden_size %d is not a multiple of num_attention_heads %d", c.HiddenSize, c.NumHeads)
	}
	if !(c.LayerNormEps > 0 && c.LayerNormEps < 1) {
		bad("layer_norm_eps %g: want a small positive number", c.LayerNormEps)
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// tied reports whether the MLM decoder shares the word embeddings.
func (c BertConfig) tied() bool { return c.TieWordEmbeddings == nil || *c.TieWordEmbeddings }
