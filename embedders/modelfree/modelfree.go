// Package modelfree assembles the embedders that need no model — E2 recency,
// E3 periodicity, E4 sequence, E6 keywords, E9 hypervectors, E11 entity sets —
// and a registry in which the model-backed slots say they are unavailable
// until a model runtime provides them. It owns no algorithm itself.
package modelfree

import (
	"fmt"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/entities"
	"github.com/cgraph/cgraph/embedders/hdc"
	"github.com/cgraph/cgraph/embedders/keywords"
	"github.com/cgraph/cgraph/embedders/temporal"
	"github.com/cgraph/cgraph/fingerprint"
)

// Config holds the settings of the model-free slots.
type Config struct {
	// HalfLife is the E2 recency half-life; 0 means temporal.DefaultHalfLife.
	// It applies at query time and never requires re-embedding.
	HalfLife time.Duration
	// Location is where E3 reads hours and weekdays; nil means UTC. It is part
	// of the E3 producer identity.
	Location *time.Location
}

// Embedders returns the six model-free embedders, in slot order.
func Embedders(cfg Config) ([]embedders.Embedder, error) {
	rec, err := temporal.NewRecency(cfg.HalfLife)
	if err != nil {
		return nil, fmt.Errorf("model-free embedders: %w", err)
	}
	return []embedders.Embedder{
		rec,
		temporal.NewPeriodic(cfg.Location),
		temporal.SequenceEmbedder{},
		keywords.Embedder{},
		hdc.Embedder{},
		entities.Embedder{},
	}, nil
}

// ModelSlots are the slots that need a model. E11 is listed under Embedders
// too: its set is model-free, its vector is not.
var ModelSlots = []fingerprint.SlotID{
	fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E8,
	fingerprint.E10, fingerprint.E12, fingerprint.E13,
}

// NoModelReason is the unavailability reason of a model-backed slot in a
// registry built by Registry. It is stored in every memory's entry, so it is
// kept short; `cgraph models list` shows which model would serve the slot.
const NoModelReason = "needs a model; none installed (see cgraph models list)"

// Registry returns a registry of the model-free embedders plus the given
// extra ones (model-backed slots); every slot given neither way is
// unavailable with NoModelReason.
func Registry(cfg Config, extra ...embedders.Embedder) (*embedders.Registry, error) {
	es, err := Embedders(cfg)
	if err != nil {
		return nil, err
	}
	have := map[fingerprint.SlotID]bool{}
	for _, e := range append(es, extra...) {
		have[e.Slot()] = true
	}
	for _, s := range ModelSlots {
		if !have[s] {
			es = append(es, embedders.NewUnavailable(s, NoModelReason))
		}
	}
	r, err := embedders.NewRegistry(append(es, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("model-free registry: %w", err)
	}
	return r, nil
}
