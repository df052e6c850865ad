// Package captureeval scores extraction against a labelled fixture: gold
// files that say, per transcript, which memories a careful engineer would
// keep (kind and a key phrase, and for a fix the error it fixes) and which
// strings no memory may hold (secrets). It owns the gold format and the
// matching rule; it must not know how memories are extracted or stored.
//
// Matching: a predicted memory matches a gold one when the kinds agree and
// the gold key phrase appears in the prediction's content (case and runs of
// white space ignored). Matching is one-to-one, a maximum bipartite
// matching per kind, so two predictions cannot both claim one gold memory
// and one prediction cannot satisfy two. A predicted fixes link is correct
// when its fix matched a gold fix whose "fixes" names the gold error its
// error matched.
package captureeval

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/record"
)

// Gold is one transcript's labels.
type Gold struct {
	Transcript string       `json:"transcript"`
	Memories   []GoldMemory `json:"memories"`
	// Absent are strings no extracted memory may contain.
	Absent []string `json:"absent"`
}

// GoldMemory is one memory a careful engineer would keep.
type GoldMemory struct {
	ID    string       `json:"id,omitempty"`
	Kind  capture.Kind `json:"type"`
	Key   string       `json:"key"`
	Fixes string       `json:"fixes,omitempty"`
}

// LoadGold reads a gold file and checks it: known kinds, non-empty keys,
// fixes that name an error of the same file.
func LoadGold(path string) (Gold, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Gold{}, fmt.Errorf("read gold: %w", err)
	}
	return ParseGold(b, path)
}

// ParseGold decodes and checks a gold file's bytes; name is for messages.
func ParseGold(b []byte, path string) (Gold, error) {
	var g Gold
	if err := json.Unmarshal(b, &g); err != nil {
		return Gold{}, fmt.Errorf("gold %s: %w", path, err)
	}
	ids := map[string]capture.Kind{}
	for _, m := range g.Memories {
		if m.ID != "" {
			ids[m.ID] = m.Kind
		}
	}
	for i, m := range g.Memories {
		known := false
		for _, k := range capture.Kinds() {
			known = known || k == m.Kind
		}
		switch {
		case !known:
			return g, fmt.Errorf("gold %s memory %d: unknown type %q", path, i, m.Kind)
		case strings.TrimSpace(m.Key) == "":
			return g, fmt.Errorf("gold %s memory %d: empty key", path, i)
		case m.Kind == capture.KindFix && ids[m.Fixes] != capture.KindError:
			return g, fmt.Errorf("gold %s memory %d: fix names %q, not an error of this file", path, i, m.Fixes)
		}
	}
	return g, nil
}

// Counts are one kind's (or the links') tallies.
type Counts struct {
	Predicted, Gold, Matched int
}

// Add sums counts.
func (c *Counts) Add(o Counts) {
	c.Predicted += o.Predicted
	c.Gold += o.Gold
	c.Matched += o.Matched
}

// Precision is matched / predicted (1 when nothing was predicted).
func (c Counts) Precision() float64 {
	if c.Predicted == 0 {
		return 1
	}
	return float64(c.Matched) / float64(c.Predicted)
}

// Recall is matched / gold (1 when there is no gold).
func (c Counts) Recall() float64 {
	if c.Gold == 0 {
		return 1
	}
	return float64(c.Matched) / float64(c.Gold)
}

// Score is one transcript's (or a fixture's) result.
type Score struct {
	Kinds map[capture.Kind]*Counts
	// Links counts fixes links: Predicted links, Gold fixes, Matched
	// correct links.
	Links Counts
	// Leaks are absent strings found in a prediction.
	Leaks []string
	// Missed and Spurious describe the errors, for tuning.
	Missed, Spurious []string
}

// NewScore is an empty score.
func NewScore() Score {
	s := Score{Kinds: map[capture.Kind]*Counts{}}
	for _, k := range capture.Kinds() {
		s.Kinds[k] = &Counts{}
	}
	return s
}

// Add sums scores.
func (s *Score) Add(o Score) {
	for k, c := range o.Kinds {
		s.Kinds[k].Add(*c)
	}
	s.Links.Add(o.Links)
	s.Leaks = append(s.Leaks, o.Leaks...)
	s.Missed = append(s.Missed, o.Missed...)
	s.Spurious = append(s.Spurious, o.Spurious...)
}

// Union is the counts of several kinds together.
func (s Score) Union(kinds ...capture.Kind) Counts {
	var c Counts
	for _, k := range kinds {
		c.Add(*s.Kinds[k])
	}
	return c
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Match scores a plan against gold labels.
func Match(p capture.Plan, g Gold) Score {
	s := NewScore()
	predOf := map[int]int{} // gold index → prediction index
	goldOf := map[int]int{}
	for _, k := range capture.Kinds() {
		var preds, golds []int
		for i, m := range p.Memories {
			if m.Kind == k {
				preds = append(preds, i)
			}
		}
		for i, m := range g.Memories {
			if m.Kind == k {
				golds = append(golds, i)
			}
		}
		ok := func(gi, pi int) bool {
			return strings.Contains(norm(p.Memories[pi].Content), norm(g.Memories[gi].Key))
		}
		pairs := bipartite(golds, preds, ok)
		for gi, pi := range pairs {
			predOf[gi], goldOf[pi] = pi, gi
		}
		s.Kinds[k] = &Counts{Predicted: len(preds), Gold: len(golds), Matched: len(pairs)}
		for _, gi := range golds {
			if _, ok := pairs[gi]; !ok {
				s.Missed = append(s.Missed, fmt.Sprintf("%s: %s %q", g.Transcript, k, g.Memories[gi].Key))
			}
		}
		for _, pi := range preds {
			if _, ok := goldOf[pi]; !ok {
				s.Spurious = append(s.Spurious, fmt.Sprintf("%s: %s", g.Transcript, clip(p.Memories[pi].Content)))
			}
		}
	}
	goldID := map[string]int{}
	for i, m := range g.Memories {
		if m.ID != "" {
			goldID[m.ID] = i
		}
		if m.Kind == capture.KindFix {
			s.Links.Gold++
		}
	}
	for _, l := range p.Links {
		if l.Type != record.RelFixes {
			continue
		}
		s.Links.Predicted++
		gf, ok1 := goldOf[l.From]
		ge, ok2 := goldOf[l.To]
		if ok1 && ok2 && g.Memories[gf].Kind == capture.KindFix {
			if e, ok := goldID[g.Memories[gf].Fixes]; ok && e == ge {
				s.Links.Matched++
			}
		}
	}
	for _, a := range g.Absent {
		for _, m := range p.Memories {
			if strings.Contains(m.Content, a) {
				s.Leaks = append(s.Leaks, fmt.Sprintf("%s: %q in %q", g.Transcript, a, clip(m.Content)))
			}
		}
	}
	return s
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// bipartite is a maximum matching of golds to preds (Kuhn's augmenting
// paths; sizes here are tens).
func bipartite(golds, preds []int, ok func(g, p int) bool) map[int]int {
	owner := map[int]int{} // pred → gold
	var try func(g int, seen map[int]bool) bool
	try = func(g int, seen map[int]bool) bool {
		for _, p := range preds {
			if seen[p] || !ok(g, p) {
				continue
			}
			seen[p] = true
			if o, taken := owner[p]; !taken || try(o, seen) {
				owner[p] = g
				return true
			}
		}
		return false
	}
	for _, g := range golds {
		try(g, map[int]bool{})
	}
	out := map[int]int{}
	for p, g := range owner {
		out[g] = p
	}
	return out
}

// Table formats a score as a precision/recall table, one row per kind,
// then errors+fixes together, then the fixes links.
func Table(s Score) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %5s %5s %5s %9s %6s\n", "kind", "pred", "gold", "match", "precision", "recall")
	row := func(name string, c Counts) {
		fmt.Fprintf(&b, "%-14s %5d %5d %5d %9.2f %6.2f\n", name, c.Predicted, c.Gold, c.Matched, c.Precision(), c.Recall())
	}
	kinds := capture.Kinds()
	for _, k := range kinds {
		row(string(k), *s.Kinds[k])
	}
	row("errors+fixes", s.Union(capture.KindError, capture.KindFix))
	row("fixes links", s.Links)
	return b.String()
}
