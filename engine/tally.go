package engine

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// Tally is the store counted by what it holds: memories per type and per
// project, how many are superseded, the uses recorded, and the audit log.
type Tally struct {
	Memories   uint64                 `json:"memories"`
	ByType     map[record.Type]uint64 `json:"by_type"`
	ByProject  map[string]uint64      `json:"by_project"`
	Superseded uint64                 `json:"superseded"`
	// Uses is the sum of the access counts (reads by id and answers that
	// returned a memory); Unused counts memories never used.
	Uses   uint64 `json:"uses"`
	Unused uint64 `json:"unused"`
	// Actions is the audit log's length; Undone how many were undone.
	Actions int `json:"actions"`
	Undone  int `json:"undone"`
}

// Tally counts the store (the uses still in RAM flushed first on a
// writer). Cost: one pass over the records, the relations and the audit
// log; no fingerprint is read.
func (s *Engine) Tally(ctx context.Context) (Tally, error) {
	if !s.ro {
		if err := s.FlushUses(ctx); err != nil {
			return Tally{}, fmt.Errorf("tally: %w", err)
		}
	}
	t := Tally{ByType: map[record.Type]uint64{}, ByProject: map[string]uint64{}}
	superseded, err := s.supersededIDs(ctx)
	if err != nil {
		return Tally{}, err
	}
	var after record.ID
	for {
		page, err := s.cellar.List(ctx, record.ListOptions{Limit: 1000, After: after, Oldest: true})
		if err != nil {
			return Tally{}, fmt.Errorf("tally: %w", err)
		}
		for _, m := range page {
			t.Memories++
			t.ByType[m.Type]++
			t.ByProject[m.Project]++
			t.Uses += m.AccessCount
			if m.AccessCount == 0 {
				t.Unused++
			}
			if _, ok := superseded[m.ID]; ok {
				t.Superseded++
			}
		}
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1].ID
	}
	log, err := s.AuditLog(ctx, 0)
	if err != nil {
		return Tally{}, err
	}
	t.Actions = len(log)
	for _, e := range log {
		if !e.UndoneAt.IsZero() {
			t.Undone++
		}
	}
	return t, nil
}
