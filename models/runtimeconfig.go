package models

import (
	"fmt"

	"github.com/cgraph/cgraph/models/runtime"
)

// RuntimeConfig maps the manifest entry to the plain configuration package
// runtime takes, with the files installed under the models directory dir:
//
//   - ONNXPath and TokenizerPath are the files of role onnx and tokenizer;
//   - pooling mean and cls become runtime.PoolMean and runtime.PoolCLS for a
//     dense encoder; splade_max (task masked_lm) becomes runtime.TaskMaskedLM,
//     served by Model.Sparse; a token_encoder (pooling none) is a
//     runtime.TaskEncoder served by Model.TokenVectors;
//   - Dims, MaxLength, Normalize, Output and the query and passage prefixes
//     copy over.
//
// Cross-encoders are refused: the runtime does not serve text pairs. It does
// not check that the files exist (runtime.Open does, naming them). Device,
// threads and batch size are the caller's to set.
func (m *Model) RuntimeConfig(dir string) (runtime.Config, error) {
	onnx, err := m.PathOf(dir, RoleONNX)
	if err != nil {
		return runtime.Config{}, err
	}
	tok, err := m.PathOf(dir, RoleTokenizer)
	if err != nil {
		return runtime.Config{}, err
	}
	cfg := runtime.Config{
		ID:            string(m.ID),
		ONNXPath:      onnx,
		TokenizerPath: tok,
		Output:        m.Output,
		Normalize:     m.Normalize,
		Dims:          m.Dims,
		MaxLength:     m.MaxLength,
		QueryPrefix:   m.QueryPrefix,
		PassagePrefix: m.PassagePrefix,
	}
	switch m.Task {
	case DenseEncoder:
		p, err := runtime.ParsePooling(string(m.Pooling))
		if err != nil {
			return runtime.Config{}, fmt.Errorf("model %s: dense encoder: %w", m.ID, err)
		}
		cfg.Task, cfg.Pooling = runtime.TaskEncoder, p
	case TokenEncoder:
		// Token vectors are read unpooled; Pooling only matters to Embed,
		// which a late-interaction model is not used for.
		cfg.Task, cfg.Pooling = runtime.TaskEncoder, runtime.PoolMean
	case MaskedLM:
		if m.Pooling != PoolSPLADEMax {
			return runtime.Config{}, fmt.Errorf("model %s: masked_lm needs pooling splade_max, the manifest says %q", m.ID, m.Pooling)
		}
		cfg.Task = runtime.TaskMaskedLM
		cfg.Normalize = false // SPLADE weights are never L2-normalised
	default:
		return runtime.Config{}, fmt.Errorf("model %s: the runtime cannot serve task %s (cross-encoders take text pairs; not supported yet)", m.ID, m.Task)
	}
	return cfg, nil
}
