package bench

import (
	"fmt"
	"strings"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
)

// Ablation is a profile with one slot's weight removed.
type Ablation struct {
	Slot    fingerprint.SlotID
	Profile profiles.Profile
}

// Ablations returns p with each weighted fused slot removed in turn: that
// slot's weight set to 0 and the other fused slots rescaled to keep their
// share, so each ablated profile keeps every profile rule. Stage-only slots
// (E12 rerank, E13 recall) are not ablated this way — their weight does not
// decide whether they act — nor are the temporal badges.
func Ablations(p profiles.Profile) ([]Ablation, error) {
	var fused []fingerprint.SlotID
	share := 0.0
	for _, s := range p.Weights.Active() {
		if s.Fused() {
			fused = append(fused, s)
			share += p.Weights.Get(s)
		}
	}
	if len(fused) < 2 {
		return nil, fmt.Errorf("profile %s weighs %d fused slot(s): nothing to ablate", p.Name, len(fused))
	}
	var out []Ablation
	for _, drop := range fused {
		q := p.Clone()
		q.Name = fmt.Sprintf("%s-no-%s", p.Name, strings.ToLower(drop.String()))
		rest := share - p.Weights.Get(drop)
		for _, s := range fused {
			if s == drop {
				q.Weights.Set(s, 0)
			} else {
				q.Weights.Set(s, p.Weights.Get(s)/rest*share)
			}
		}
		if err := q.Validate(); err != nil {
			return nil, fmt.Errorf("ablate %s from %s: %w", drop, p.Name, err)
		}
		out = append(out, Ablation{Slot: drop, Profile: q})
	}
	return out, nil
}
