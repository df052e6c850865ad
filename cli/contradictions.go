package cli

import (
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
)

// contradictionJSON is one open pair in maintain --contradictions --json.
type contradictionJSON struct {
	Newer  ops.Memory `json:"newer"`
	Older  ops.Memory `json:"older"`
	Since  time.Time  `json:"since"`
	Kind   string     `json:"kind"`
	E1     float64    `json:"e1"`
	E6     float64    `json:"e6"`
	E11    float64    `json:"e11"`
	Reason string     `json:"reason"`
}

// listContradictions prints the open contradiction pairs of the project
// (engine.Contradictions): text, or --json as a list of contradictionJSON.
func (a *App) listContradictions() (err error) {
	e, err := a.OpenRecords(false)
	if err != nil {
		return err
	}
	defer closeEngine(e, &err)
	pairs, err := e.Contradictions(a.Context(), engine.ContradictionsOptions{Project: a.Project})
	if err != nil {
		return err
	}
	if a.JSON {
		out := make([]contradictionJSON, len(pairs))
		for i, p := range pairs {
			out[i] = contradictionJSON{Newer: ops.MemoryOf(p.Newer), Older: ops.MemoryOf(p.Older), Since: p.Since.UTC(), Kind: p.Kind,
				E1: p.E1, E6: p.E6, E11: p.E11, Reason: p.Reason}
		}
		return a.PrintJSON(out)
	}
	for _, p := range pairs {
		a.Printf("%s  %s\n", p.Kind, p.Since.UTC().Format(humanTime))
		a.Printf("  older  %s\n", summaryLine(p.Older, snippetWidth))
		a.Printf("  newer  %s\n", summaryLine(p.Newer, snippetWidth))
		a.Printf("  why    %s (E1 %.2f, E6 %.2f, E11 %.2f)\n", p.Reason, p.E1, p.E6, p.E11)
		a.Printf("  fix    cgraph link %s %s --type supersedes  (or the other way round)\n\n", p.Newer.ID, p.Older.ID)
	}
	if len(pairs) == 0 {
		a.Warnf("no open contradictions")
	} else {
		a.Warnf("%d open contradictions", len(pairs))
	}
	return nil
}
