package neural

import (
	"context"
	"errors"
	"fmt"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/runtime"
)

// slotBuilder builds one model-backed slot from the loader. It returns an
// embedders.Unavailable (never an error) when the slot's model is missing.
type slotBuilder func(l *loader) ([]embedders.Embedder, error)

// one adapts a builder of one slot.
func one(b func(l *loader) (embedders.Embedder, error)) slotBuilder {
	return func(l *loader) ([]embedders.Embedder, error) {
		e, err := b(l)
		if err != nil {
			return nil, err
		}
		return []embedders.Embedder{e}, nil
	}
}

// builders are the model-backed slots. E1 and E12 are built together (without
// a ColBERT model they share e5-small-v2's run), and so are E7 and E10 (they
// share all-MiniLM-L6-v2's run).
var builders = []slotBuilder{
	buildE1E12, one(buildE5), buildE7E10, one(buildE8), one(buildE11), one(buildE13),
}

// Registry returns the full 13-slot registry: the model-free slots
// (modelfree.Embedders) plus a model-backed embedder for every slot whose
// model is installed; slots whose model is missing are
// embedders.NewUnavailable with a reason naming the model and `cgraph models
// pull <id>`. close releases the ONNX sessions. It never fails because a
// model is missing; it fails when an installed model cannot be opened (a
// corrupt file: `cgraph models verify` says which).
func Registry(ctx context.Context, cfg Config) (r *embedders.Registry, close func() error, err error) {
	if _, err := runtime.ParseDevice(string(cfg.Device)); err != nil {
		return nil, nil, fmt.Errorf("neural: %w", err)
	}
	switch cfg.Precision {
	case PrecisionDefault, PrecisionFP32, PrecisionInt8, PrecisionFP16:
	default:
		return nil, nil, fmt.Errorf("neural: unknown precision %q (want %q, %q, %q or empty for the default)", cfg.Precision, PrecisionFP32, PrecisionInt8, PrecisionFP16)
	}
	if cfg, err = cfg.fp16(); err != nil {
		return nil, nil, err
	}
	l, err := newLoader(cfg)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, l.close())
		}
	}()
	free, err := modelfree.Embedders(cfg.ModelFree)
	if err != nil {
		return nil, nil, fmt.Errorf("neural: %w", err)
	}
	byslot := map[fingerprint.SlotID]embedders.Embedder{}
	for _, e := range free {
		byslot[e.Slot()] = e
	}
	for _, b := range builders {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("neural: %w", err)
		}
		es, err := b(l)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range es {
			byslot[e.Slot()] = e // a model-backed E11 replaces the set-only one
		}
	}
	if cfg.OpenNow {
		if err := l.openAll(ctx); err != nil {
			return nil, nil, err
		}
	}
	var es []embedders.Embedder
	for _, s := range fingerprint.Slots() {
		if e, ok := byslot[s]; ok {
			es = append(es, e)
		}
	}
	r, err = embedders.NewRegistry(es...)
	if err != nil {
		return nil, nil, fmt.Errorf("neural: %w", err)
	}
	return r, l.close, nil
}
