package bench

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Note is one thing a retriever says about a run: what happened, worded the
// same way in every run it happens in (so notes can be merged across runs),
// how many times, and one example (which may quote a query).
type Note struct {
	Text    string `json:"note"`
	Count   int    `json:"count"`
	Example string `json:"example,omitempty"`
}

// UnmarshalJSON reads a note, or a version 1 report's note string.
func (n *Note) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*n = Note{Text: s}
		return nil
	}
	type plain Note
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("a note must be a string or {note, count, example}: %w", err)
	}
	*n = Note(p)
	return nil
}

// NoteRow is one row of the merged notes table: a note, the runs it
// happened in, and how often.
type NoteRow struct {
	Text     string
	Runs     []string // in report order
	Total    int      // over all runs
	Min, Max int      // per run
	Example  string   // the first run's
}

// MergedNotes merges the notes of all runs by text: one row per distinct
// note, most widespread first (then by text).
func (r *Report) MergedNotes() []NoteRow {
	byText := map[string]*NoteRow{}
	var rows []*NoteRow
	for _, run := range r.Runs {
		for _, n := range run.Notes {
			row := byText[n.Text]
			if row == nil {
				row = &NoteRow{Text: n.Text, Min: n.Count, Max: n.Count, Example: n.Example}
				byText[n.Text] = row
				rows = append(rows, row)
			}
			row.Runs = append(row.Runs, run.Name)
			row.Total += n.Count
			row.Min, row.Max = min(row.Min, n.Count), max(row.Max, n.Count)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if len(rows[i].Runs) != len(rows[j].Runs) {
			return len(rows[i].Runs) > len(rows[j].Runs)
		}
		return rows[i].Text < rows[j].Text
	})
	out := make([]NoteRow, len(rows))
	for i, row := range rows {
		out[i] = *row
	}
	return out
}

// maxListedRuns bounds the run names a notes row lists.
const maxListedRuns = 6

// describeRuns says which of the report's runs a note row covers: "all 40",
// "all but a, b", or the names.
func (r *Report) describeRuns(runs []string) string {
	n := len(r.Runs)
	if len(runs) == n {
		return fmt.Sprintf("all %d", n)
	}
	in := map[string]bool{}
	for _, name := range runs {
		in[name] = true
	}
	if len(runs) > n/2 && n-len(runs) <= maxListedRuns {
		var out []string
		for _, run := range r.Runs {
			if !in[run.Name] {
				out = append(out, run.Name)
			}
		}
		return fmt.Sprintf("%d: all but %s", len(runs), strings.Join(out, ", "))
	}
	if len(runs) <= maxListedRuns {
		return strings.Join(runs, ", ")
	}
	return fmt.Sprintf("%d: %s, … (%d more)", len(runs), strings.Join(runs[:maxListedRuns], ", "), len(runs)-maxListedRuns)
}

// writeNotes writes the merged notes table.
func (r *Report) writeNotes(p func(string, ...any)) {
	rows := r.MergedNotes()
	if len(rows) == 0 {
		return
	}
	p("\n## Notes from the retriever\n\nWhat degraded runs (a slot unavailable, a fallback, a space that returned nothing), merged across runs: how many times it happened per run and in all, and one example.\n\n")
	p("| note | runs | per run | total | example |\n|---|---|---|---|---|\n")
	for _, row := range rows {
		per := fmt.Sprint(row.Min)
		if row.Max != row.Min {
			per = fmt.Sprintf("%d–%d", row.Min, row.Max)
		}
		p("| %s | %s | %s | %d | %s |\n", mdEscape(oneLine(row.Text)), mdEscape(r.describeRuns(row.Runs)), per, row.Total, mdEscape(oneLine(row.Example)))
	}
}
