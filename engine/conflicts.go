package engine

import (
	"fmt"

	"github.com/cgraph/cgraph/contradict"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/record"
)

// conflictRules are the contradiction rules Add applies on write
// (contradict.DefaultRules: precision ≥ 0.9 on the labelled pairs of
// contradict/testdata).
var conflictRules = contradict.DefaultRules

// judgeConflict judges whether newText contradicts or updates the stored
// oldText, with the near-duplicate evidence sim of the pair.
func judgeConflict(oldText, newText string, sim record.Similar) (record.Contradiction, bool) {
	j := contradict.Judge(oldText, newText, contradict.Evidence{E1: sim.E1, E6: sim.E6, E11: sim.E11}, conflictRules)
	if !j.Kind.Conflict() {
		return record.Contradiction{}, false
	}
	return record.Contradiction{ID: sim.ID, Kind: j.Kind.String(), E1: sim.E1, E6: sim.E6, E11: sim.E11, Reason: j.Reason}, true
}

// applyConflicts links the new memory id as superseding each memory it
// contradicts or updates when the policy says so, in batch b, and marks
// them Superseded.
// REQUIRES: s.writeMu held.
func (s *Engine) applyConflicts(b *cellar.Batch, id record.ID, p record.ConflictPolicy, cs []record.Contradiction) error {
	if p != record.ConflictSupersedeNewer {
		return nil
	}
	for j := range cs {
		if err := b.Link(record.Relation{From: id, To: cs[j].ID, Type: record.RelSupersedes, Weight: cs[j].E1}); err != nil {
			return fmt.Errorf("link %s as superseding %s: %w", id, cs[j].ID, err)
		}
		cs[j].Superseded = true
		cs[j].Reason += "; marked superseded by this memory (supersede-newer)"
	}
	return nil
}
