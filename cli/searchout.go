package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
)

// The search output kit: the --json shape of a search and its human form
// (ranked results, per-slot explain table, spaces and stage trace), shared by
// every command that prints search results.

// searchView says how printSearch shows a result.
type searchView struct {
	explain   bool     // slot tables, spaces and trace
	overrides []string // --weight values, shown beside the profile
}

// printSearch writes the human form of a search: a header, one line per
// result (rank, score, id, type, snippet, badges) and with explain each
// result's slot table, then the spaces and the stage trace. Without explain
// it still names the weighted spaces that could not be searched.
func printSearch(w io.Writer, res ops.SearchAnswer, req engine.SearchRequest, v searchView) error {
	ew := &errWriter{w: w}
	header := fmt.Sprintf("%q  profile %s", res.Query, res.Profile)
	if len(v.overrides) > 0 {
		header += " (" + strings.Join(v.overrides, ", ") + ")"
	}
	header += "  mode " + res.Mode.String()
	if req.Mode == engine.ModeEmbedderFirst {
		header += " (" + req.Embedder.String() + ")"
	}
	if req.Direction != engine.DirectionAny {
		header += "  direction " + req.Direction.String()
	}
	ew.printf("%s\n", header)
	if len(res.Corrections) > 0 {
		var fixes []string
		for _, c := range res.Corrections {
			fixes = append(fixes, fmt.Sprintf("%q → %q", c.From, c.To))
		}
		ew.printf("corrected %s (--no-correct searches the words as typed)\n", strings.Join(fixes, ", "))
	}
	if res.NothingRelevant {
		ew.printf("%s\n", res.Note)
	} else if len(res.Results) == 0 {
		ew.printf("no results")
		if !req.NoThresholds {
			ew.printf(" above the slots' low thresholds (--no-thresholds keeps weaker matches)")
		}
		ew.printf("\n")
	}
	scoreLabel := "WRRF"
	if res.Fusion == engine.FusionMinMax {
		scoreLabel = "minmax"
	}
	if req.Mode == engine.ModeE1Only || req.Mode == engine.ModeEmbedderFirst {
		scoreLabel = "raw"
	}
	for i, h := range res.Results {
		line := fmt.Sprintf("%3d. %s %s  %s  %-12s %s", i+1, scoreLabel, formatScore(h.Score), h.ID, h.Memory.Type, ops.Snippet(h.Content, snippetWidth))
		if len(h.Badges) > 0 {
			line += "  [" + strings.Join(h.Badges, "] [") + "]"
		}
		if sup := h.Memory.SupersededBy; len(sup) > 0 {
			line += fmt.Sprintf("  [superseded by %s]", sup[len(sup)-1])
		}
		if con := h.Memory.ContradictedBy; len(con) > 0 {
			line += fmt.Sprintf("  [contradicted by %s]", con[len(con)-1])
		}
		ew.printf("%s\n", line)
		if v.explain {
			ew.slotTable(h.Slots, h.Boosts)
		}
	}
	for _, x := range res.Expanded {
		ew.printf("   + %-16s of %s: %s  %-12s %s\n", x.Relation, x.From, x.ID, x.Memory.Type, ops.Snippet(x.Content, snippetWidth))
	}
	if v.explain {
		if res.Filtered >= 0 {
			ew.printf("\nfilter: %d memories searched\n", res.Filtered)
		}
		ew.printf("\nspaces (every slot the profile weighs):\n")
		ew.spaceTable(res.Spaces)
		ew.printf("\ntrace:\n")
		ew.traceTable(res.Trace)
		ew.printf("\nquery encoding %.1f ms, total %.1f ms\n", res.EncodeMS, res.TotalMS)
		if res.Models != "" {
			ew.printf("models: %s\n", res.Models)
		}
	} else if missing := unsearched(res.Spaces); missing != "" {
		ew.printf("not searched: %s (--explain says why)\n", missing)
	}
	return ew.err
}

// unsearched lists the spaces that were not searched (unavailable, failed,
// skipped), e.g. "E12 skipped, E13 unavailable", leaving out badges the
// profile gives no weight.
func unsearched(sp []engine.SpaceReport) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range sp {
		if r.Status == engine.SpaceOK || r.Status == engine.SpaceEmpty {
			continue
		}
		if r.Stage == engine.StageValidate && r.Weight == 0 {
			continue // a badge the profile does not weigh (E4 without a session)
		}
		s := r.Name + " " + r.Status
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// slotTable writes one result's per-slot explanation, indented under it.
func (ew *errWriter) slotTable(slots engine.SlotScores, boosts []engine.Boost) {
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "       \tslot\trank\tscore\tlevel\tcontribution\n")
	for _, s := range engine.Slots() {
		sc, ok := slots[s]
		if !ok {
			continue
		}
		level := sc.Level
		if level == "" {
			level = "-"
		}
		fmt.Fprintf(tw, "       \t%s\t%d\t%s\t%s\t%.5f\n", s, sc.Rank+1, formatScore(sc.Score), level, sc.Contribution) // 1-based, as result ranks
	}
	_ = tw.Flush() // errWriter keeps the first write error
	for _, b := range boosts {
		ew.printf("        boost %s ×%.3f (signal %s)\n", b.Name, b.Factor, formatScore(b.Signal))
	}
}

// spaceTable writes every probe the search made or skipped.
func (ew *errWriter) spaceTable(sp []engine.SpaceReport) {
	if len(sp) == 0 {
		ew.printf("  (none)\n")
		return
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  stage\tslot\tview\tweight\tstatus\thits\tnote\n")
	for _, r := range sp {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Stage, r.Name, r.View, strconv.FormatFloat(r.Weight, 'g', 4, 64), r.Status, r.Hits, r.Note)
	}
	_ = tw.Flush() // errWriter keeps the first write error
}

// traceTable writes the stages with their candidate counts and times.
func (ew *errWriter) traceTable(tr []engine.StageTrace) {
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  stage\tcandidates\tms\tnote\n")
	for _, t := range tr {
		fmt.Fprintf(tw, "  %s\t%d\t%.2f\t%s\n", t.Stage, t.Candidates, float64(t.Duration.Microseconds())/1000, t.Note)
	}
	_ = tw.Flush() // errWriter keeps the first write error
}

// formatScore prints a score with four significant decimals, whatever its
// scale (WRRF scores are around 0.01, cosines around 0.5, BM25 around 5).
func formatScore(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v > -0.1 && v < 0.1:
		return strconv.FormatFloat(v, 'f', 5, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// errWriter writes to w and keeps the first error, so long outputs check
// it once at the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (ew *errWriter) Write(p []byte) (int, error) {
	if ew.err != nil {
		return 0, ew.err
	}
	n, err := ew.w.Write(p)
	if err != nil {
		ew.err = fmt.Errorf("write output: %w", err)
	}
	return n, ew.err
}

func (ew *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(ew, format, args...)
}
