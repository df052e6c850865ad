package cli

import (
	"fmt"
	"strings"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
)

// contradictionJSON is one open pair in maintain --contradictions --json:
// the engine's pair with both memories in their wire form.
type contradictionJSON struct {
	engine.OpenContradiction
	Newer ops.Memory `json:"newer"`
	Older ops.Memory `json:"older"`
}

// listContradictions prints the open contradiction pairs of the project
// (engine.Contradictions): text, or --json as a list of contradictionJSON.
func listContradictions(a *app.App) (err error) {
	e, err := a.OpenRecords(false)
	if err != nil {
		return err
	}
	defer app.CloseEngine(e, &err)
	pairs, err := e.Contradictions(a.Context(), engine.ContradictionsOptions{Project: a.Project})
	if err != nil {
		return err
	}
	if a.JSON {
		out := make([]contradictionJSON, len(pairs))
		for i, p := range pairs {
			p.Since = p.Since.UTC()
			out[i] = contradictionJSON{OpenContradiction: p, Newer: ops.MemoryOf(p.Newer), Older: ops.MemoryOf(p.Older)}
		}
		return a.PrintJSON(out)
	}
	for _, p := range pairs {
		a.Printf("%s  %s\n", p.Kind, p.Since.UTC().Format(humanTime))
		a.Printf("  older  %s\n", summaryLine(p.Older, snippetWidth))
		a.Printf("  newer  %s\n", summaryLine(p.Newer, snippetWidth))
		why := p.Reason
		if !strings.Contains(why, "E1 ") { // the judge's reason names the evidence already
			why += fmt.Sprintf(" (E1 %.2f, E6 %.2f, E11 %.2f)", p.E1, p.E6, p.E11)
		}
		a.Printf("  why    %s\n", why)
		a.Printf("  fix    cgraph link %s %s --type supersedes  (or the other way round)\n\n", p.Newer.ID, p.Older.ID)
	}
	if len(pairs) == 0 {
		a.Warnf("no open contradictions")
	} else {
		a.Warnf("%d open contradictions", len(pairs))
	}
	return nil
}
