package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// The search output kit: the --json shape of a search and its human form
// (ranked results, per-slot explain table, spaces and stage trace), shared by
// every command that prints search results.

// searchJSON is search's --json output: pipeline.Result with each hit's
// memory resolved, plus the request's settings and the timings.
type searchJSON struct {
	Query       string                 `json:"query"`
	Corrections []engine.Correction    `json:"corrections"` // words replaced before the search
	Corrected   string                 `json:"corrected"`   // the query as searched
	Profile     string                 `json:"profile"`
	Mode        pipeline.Mode          `json:"mode"`
	Direction   string                 `json:"direction"`
	TopK        int                    `json:"top_k"`
	Weights     profiles.Weights       `json:"weights"`   // after the overrides
	Overrides   []string               `json:"overrides"` // --weight values as given
	Results     []searchHitJSON        `json:"results"`
	Spaces      []pipeline.SpaceReport `json:"spaces"`
	Trace       []pipeline.StageTrace  `json:"trace"`
	// Expanded are the memories --expand linked to the results.
	Expanded []expandedJSON `json:"expanded,omitempty"`
	// Filtered is how many memories the filter let the search see (-1:
	// every memory).
	Filtered int     `json:"filtered"`
	EncodeMS float64 `json:"encode_ms"`
	TotalMS  float64 `json:"total_ms"`
}

// searchHitJSON is one result: the memory's id and content, the pipeline's
// explanation (slots, boosts, badges) and the memory's metadata.
type searchHitJSON struct {
	ID      record.ID           `json:"id"`
	Doc     record.DocNum       `json:"doc"`
	Score   float64             `json:"score"`
	Content string              `json:"content"`
	Slots   pipeline.SlotScores `json:"slots"`
	Boosts  []pipeline.Boost    `json:"boosts"`
	Badges  []string            `json:"badges"`
	Memory  hitMemoryJSON       `json:"memory"`
}

// hitMemoryJSON is the metadata of a result's memory (content and id are
// beside it).
type hitMemoryJSON struct {
	Type         record.Type `json:"type"`
	Tags         []string    `json:"tags"`
	Source       string      `json:"source"`
	Session      string      `json:"session"`
	Sequence     uint64      `json:"sequence"`
	CreatedAt    time.Time   `json:"created_at"`
	Importance   float64     `json:"importance"`
	Project      string      `json:"project"`
	SupersededBy []record.ID `json:"superseded_by,omitempty"`
}

// expandedJSON is one memory --expand added: the relation and the result
// it came from.
type expandedJSON struct {
	ID       record.ID           `json:"id"`
	Content  string              `json:"content"`
	Relation record.RelationType `json:"relation"`
	From     record.ID           `json:"from"` // the result it is related to
	Memory   hitMemoryJSON       `json:"memory"`
}

func toHitMemory(m record.Memory) hitMemoryJSON {
	j := hitMemoryJSON{Type: m.Type, Tags: m.Tags, Source: m.Source, Session: m.Session,
		Sequence: m.Sequence, CreatedAt: m.CreatedAt.UTC(), Importance: m.Importance, Project: m.Project, SupersededBy: m.SupersededBy}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	return j
}

func toSearchJSON(res engine.SearchResult, req engine.SearchRequest) searchJSON {
	out := searchJSON{
		Query: res.Query, Corrections: res.Corrections, Corrected: res.Corrected, Profile: res.Profile, Mode: res.Mode, Direction: req.Direction.String(), TopK: req.TopK,
		Weights: req.Profile.Weights, Overrides: []string{}, Results: make([]searchHitJSON, 0, len(res.Hits)),
		Spaces: res.Spaces, Trace: res.Trace, EncodeMS: ms(res.Encode), TotalMS: ms(res.Total), Filtered: res.Filtered,
	}
	for _, x := range res.Expanded {
		out.Expanded = append(out.Expanded, expandedJSON{ID: x.Memory.ID, Content: x.Memory.Content, Relation: x.Relation.Type, From: x.From, Memory: toHitMemory(x.Memory)})
	}
	if out.Spaces == nil {
		out.Spaces = []pipeline.SpaceReport{}
	}
	if out.Corrections == nil {
		out.Corrections = []engine.Correction{}
	}
	if out.Trace == nil {
		out.Trace = []pipeline.StageTrace{}
	}
	for i, h := range res.Hits {
		j := searchHitJSON{Doc: h.Doc, Score: h.Score, Slots: h.Slots, Boosts: h.Boosts, Badges: h.Badges}
		if j.Slots == nil {
			j.Slots = pipeline.SlotScores{}
		}
		if j.Boosts == nil {
			j.Boosts = []pipeline.Boost{}
		}
		if j.Badges == nil {
			j.Badges = []string{}
		}
		if i < len(res.Memories) {
			m := res.Memories[i]
			j.ID, j.Content = m.ID, m.Content
			j.Memory = toHitMemory(m)
		}
		out.Results = append(out.Results, j)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// searchView says how printSearch shows a result.
type searchView struct {
	explain   bool     // slot tables, spaces and trace
	overrides []string // --weight values, shown beside the profile
}

// printSearch writes the human form of a search: a header, one line per
// result (rank, score, id, type, snippet, badges) and with explain each
// result's slot table, then the spaces and the stage trace. Without explain
// it still names the weighted spaces that could not be searched.
func printSearch(w io.Writer, res engine.SearchResult, req engine.SearchRequest, v searchView) error {
	ew := &errWriter{w: w}
	header := fmt.Sprintf("%q  profile %s", res.Query, res.Profile)
	if len(v.overrides) > 0 {
		header += " (" + strings.Join(v.overrides, ", ") + ")"
	}
	header += "  mode " + res.Mode.String()
	if req.Mode == pipeline.ModeEmbedderFirst {
		header += " (" + req.Embedder.String() + ")"
	}
	if req.Direction != pipeline.DirectionAny {
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
	if len(res.Hits) == 0 {
		ew.printf("no results")
		if !req.NoThresholds {
			ew.printf(" above the slots' low thresholds (--no-thresholds keeps weaker matches)")
		}
		ew.printf("\n")
	}
	scoreLabel := "WRRF"
	if req.Mode == pipeline.ModeE1Only || req.Mode == pipeline.ModeEmbedderFirst {
		scoreLabel = "raw"
	}
	for i, h := range res.Hits {
		var m record.Memory
		if i < len(res.Memories) {
			m = res.Memories[i]
		}
		line := fmt.Sprintf("%3d. %s %s  %s  %-12s %s", i+1, scoreLabel, formatScore(h.Score), m.ID, m.Type, snippet(m.Content, snippetWidth))
		if len(h.Badges) > 0 {
			line += "  [" + strings.Join(h.Badges, "] [") + "]"
		}
		if len(m.SupersededBy) > 0 {
			line += fmt.Sprintf("  [superseded by %s]", m.SupersededBy[len(m.SupersededBy)-1])
		}
		ew.printf("%s\n", line)
		if v.explain {
			ew.slotTable(h)
		}
	}
	for _, x := range res.Expanded {
		ew.printf("   + %-16s of %s: %s  %-12s %s\n", x.Relation.Type, x.From, x.Memory.ID, x.Memory.Type, snippet(x.Memory.Content, snippetWidth))
	}
	if v.explain {
		if res.Filtered >= 0 {
			ew.printf("\nfilter: %d memories searched\n", res.Filtered)
		}
		ew.printf("\nspaces (every slot the profile weighs):\n")
		ew.spaceTable(res.Spaces)
		ew.printf("\ntrace:\n")
		ew.traceTable(res.Trace)
		ew.printf("\nquery encoding %.1f ms, total %.1f ms\n", ms(res.Encode), ms(res.Total))
	} else if missing := unsearched(res.Spaces); missing != "" {
		ew.printf("not searched: %s (--explain says why)\n", missing)
	}
	return ew.err
}

// unsearched lists the spaces that were not searched (unavailable, failed,
// skipped), e.g. "E12 skipped, E13 unavailable", leaving out badges the
// profile gives no weight.
func unsearched(sp []pipeline.SpaceReport) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range sp {
		if r.Status == pipeline.StatusOK || r.Status == pipeline.StatusEmpty {
			continue
		}
		if r.Stage == pipeline.StageValidate && r.Weight == 0 {
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
func (ew *errWriter) slotTable(h pipeline.ResultHit) {
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "       \tslot\trank\tscore\tlevel\tcontribution\n")
	for _, s := range fingerprint.Slots() {
		sc, ok := h.Slots[s]
		if !ok {
			continue
		}
		level := sc.Level
		if level == "" {
			level = "-"
		}
		fmt.Fprintf(tw, "       \t%s\t%d\t%s\t%s\t%.5f\n", s, sc.Rank, formatScore(sc.Score), level, sc.Contribution)
	}
	_ = tw.Flush() // errWriter keeps the first write error
	for _, b := range h.Boosts {
		ew.printf("        boost %s ×%.3f (signal %s)\n", b.Name, b.Factor, formatScore(b.Signal))
	}
}

// spaceTable writes every probe the search made or skipped.
func (ew *errWriter) spaceTable(sp []pipeline.SpaceReport) {
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
func (ew *errWriter) traceTable(tr []pipeline.StageTrace) {
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  stage\tcandidates\tms\tnote\n")
	for _, t := range tr {
		fmt.Fprintf(tw, "  %s\t%d\t%.2f\t%s\n", t.Stage, t.Candidates, ms(t.Duration), t.Note)
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

// snippet is the start of content's first non-blank line, with runs of
// white space as one space, cut to width characters with "…" when more
// follows.
func snippet(content string, width int) string {
	first, _, more := strings.Cut(strings.TrimSpace(content), "\n")
	first = strings.Join(strings.Fields(first), " ")
	if r := []rune(first); len(r) > width {
		first, more = string(r[:width-1]), true
	}
	if more {
		first += "…"
	}
	return first
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
