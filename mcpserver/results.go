package mcpserver

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// snippetRunes bounds the snippets in results.
const snippetRunes = 240

// Hit is one search result as the tools return it.
type Hit struct {
	Rank  int       `json:"rank"`
	ID    record.ID `json:"id"`
	Score float64   `json:"score"`
	// Why says in words why it matched: the query's words the memory holds
	// and the one or two spaces that carried it ("words: rocksdb, column;
	// spaces: meaning, keywords").
	Why string `json:"why,omitempty"`
	// Relevance is the calibrated probability that the memory is what the
	// query asks for (0–1; strong ≥ 0.5, weak ≥ the floor), and Level its
	// word; absent when the store has no E1 model to judge by.
	Relevance float64 `json:"relevance,omitempty"`
	Level     string  `json:"level,omitempty"`
	// Snippet is the start of the content, cut at a sentence or line end
	// (or a word) and ending in " …" when cut: get_memory or memory://ID
	// reads it whole.
	Snippet   string      `json:"snippet"`
	Type      record.Type `json:"type"`
	Tags      []string    `json:"tags,omitempty"`
	Session   string      `json:"session,omitempty"`
	Sequence  uint64      `json:"sequence,omitempty"`
	CreatedAt time.Time   `json:"created_at"`
	// Project is omitted for the default project, Meta when empty.
	Project string            `json:"project,omitempty"`
	Meta    map[string]string `json:"meta,omitempty"`
	// SupersededBy lists the newer memories that supersede this one (only
	// found with filter.superseded include or only).
	SupersededBy []record.ID `json:"superseded_by,omitempty"`
	// ContradictedBy names the newer memories that contradict this one,
	// an open pair nobody resolved (get_memory both; link the right one
	// as superseding the other).
	ContradictedBy []record.ID `json:"contradicted_by,omitempty"`
	// Slots explains the score: each slot's rank, raw score, WRRF
	// contribution and threshold level.
	Slots  engine.SlotScores `json:"slots,omitempty"`
	Boosts []engine.Boost    `json:"boosts,omitempty"`
	Badges []string          `json:"badges,omitempty"`
}

// SearchOutput is the result of every search tool.
type SearchOutput struct {
	// Query echoes the query, cut to maxQueryEcho bytes (at a UTF-8
	// boundary) with its full length noted: an agent that pasted a file as
	// its query does not get it back in every answer.
	Query string `json:"query"`
	// Corrections are the query words replaced by words of the store's
	// vocabulary before the search.
	Corrections []engine.Correction `json:"corrections,omitempty"`
	Profile     string              `json:"profile,omitempty"`
	Mode        string              `json:"mode"`
	Embedder    string              `json:"embedder,omitempty"`
	Direction   string              `json:"direction,omitempty"`
	Results     []Hit               `json:"results"`
	// Expanded are the memories linked to the results by the relation
	// types of expand (search_graph), each once, with the result it was
	// reached from.
	Expanded []Expansion `json:"expanded,omitempty"`
	// Spaces says what happened in each slot searched: ok, empty,
	// unavailable (no model: fallback applied), skipped or failed.
	Spaces []engine.SpaceReport `json:"spaces,omitempty"`
	Notes  []string             `json:"notes,omitempty"`
	TookMS float64              `json:"took_ms"`
}

func toHit(rank int, h engine.Hit, m record.Memory) Hit {
	return Hit{Rank: rank, ID: m.ID, Score: h.Score, Snippet: snippet(m.Content, snippetRunes), Type: m.Type,
		Tags: m.Tags, Session: m.Session, Sequence: m.Sequence, CreatedAt: m.CreatedAt.UTC(),
		Project: m.Project, Meta: m.Meta, SupersededBy: m.SupersededBy, ContradictedBy: m.ContradictedBy,
		Slots: h.Slots, Boosts: h.Boosts, Badges: h.Badges}
}

// Brief is a memory in a few fields: what expansions and get_related
// return for each memory they reach.
type Brief struct {
	ID           record.ID         `json:"id"`
	Snippet      string            `json:"snippet"`
	Type         record.Type       `json:"type"`
	Tags         []string          `json:"tags,omitempty"`
	CreatedAt    time.Time         `json:"created_at"`
	Project      string            `json:"project,omitempty"`
	Meta         map[string]string `json:"meta,omitempty"`
	SupersededBy []record.ID       `json:"superseded_by,omitempty"`
}

func toBrief(m record.Memory) Brief {
	return Brief{ID: m.ID, Snippet: snippet(m.Content, snippetRunes), Type: m.Type, Tags: m.Tags, CreatedAt: m.CreatedAt.UTC(),
		Project: m.Project, Meta: m.Meta, SupersededBy: m.SupersededBy}
}

// Expansion is a memory a search added because a result links to it.
type Expansion struct {
	Memory Brief `json:"memory"`
	// Relation is the link's type; Direction is "out" when it runs from
	// the result to this memory (the result causes it), "in" when it runs
	// from this memory to the result (it fixes the result).
	Relation  string  `json:"relation"`
	Direction string  `json:"direction"`
	Weight    float64 `json:"weight"`
	// From is the result the link was followed from.
	From record.ID `json:"from"`
}

func toOutput(res engine.SearchResult, req engine.SearchRequest) SearchOutput {
	out := SearchOutput{Query: ops.EchoQuery(res.Query), Corrections: res.Corrections, Profile: res.Profile, Mode: req.Mode.String(), Results: []Hit{}, Spaces: res.Spaces,
		TookMS: float64(res.Total.Microseconds()) / 1000}
	if req.Mode == engine.ModeEmbedderFirst {
		out.Embedder = req.Embedder.String()
		out.Profile = ""
	}
	if req.Direction != engine.DirectionAny {
		out.Direction = req.Direction.String()
	}
	words := queryWords(res.Query)
	cut := false
	for i, h := range res.Hits {
		hit := toHit(i+1, h, res.Memories[i])
		hit.Why = why(words, h.Slots, res.Memories[i].Content)
		if i < len(res.Relevance) {
			hit.Relevance, hit.Level = res.Relevance[i].P, res.Relevance[i].Level
		}
		cut = cut || strings.HasSuffix(hit.Snippet, ellipsis)
		out.Results = append(out.Results, hit)
	}
	dropCommonBadges(out.Results)
	if res.NothingRelevant {
		out.Notes = append(out.Notes, ops.NothingRelevantNote(req.MinRelevance, res.Best))
	}
	if cut {
		out.Notes = append(out.Notes, moreNote)
	}
	for _, x := range res.Expanded {
		out.Expanded = append(out.Expanded, Expansion{Memory: toBrief(x.Memory), Relation: x.Relation.Type.String(),
			Direction: ops.Direction(x.Relation, x.From), Weight: x.Relation.Weight, From: x.From})
	}
	// A weighted slot without a model is worth one note naming them all; a
	// failure one note each; an unweighted badge slot (E4 without a session)
	// is only in spaces.
	var missing []string
	for _, sp := range res.Spaces {
		switch {
		case sp.Status == engine.SpaceUnavailable && sp.Weight > 0:
			if !slices.Contains(missing, sp.Name) {
				missing = append(missing, sp.Name)
			}
		case sp.Status == engine.SpaceFailed:
			out.Notes = append(out.Notes, sp.Name+" failed: "+sp.Note)
		}
	}
	if len(missing) > 0 {
		out.Notes = append(out.Notes, "no model for "+strings.Join(missing, ", ")+": searched without them (list_embedder_indexes says why)")
	}
	switch {
	case len(out.Results) > 0:
	case res.Filtered == 0:
		out.Notes = append(out.Notes, "the filter (or the project searched) matches no memory: widen it — another project, fewer types or tags, a wider time range, superseded include")
	default:
		out.Notes = append(out.Notes, "no memory matched above the slots' low thresholds; try other words, search_by_keywords for exact terms, or search_robust for misspellings")
	}
	return out
}

// compact drops the explanation from a search answer: per-result slot
// scores and boosts and the per-space report (the notes keep what degraded).
// The search tools return it unless asked to explain.
func (o *SearchOutput) compact() {
	for i := range o.Results {
		o.Results[i].Slots, o.Results[i].Boosts = nil, nil
	}
	o.Spaces = nil
}

// SlotEntry is one slot of a stored fingerprint in its compact view
// (ops.CompactSlot of the wire form ops.FingerprintSlot).
type SlotEntry = ops.CompactSlot

// fingerprintEntries lists every slot of fp, E1 … E13, compact.
func fingerprintEntries(fp *engine.Fingerprint) []SlotEntry { return ops.CompactFingerprint(fp) }

// MemoryOutput is a stored memory: its one wire form (ops.Memory) with, when
// asked, its fingerprint and earlier revisions.
type MemoryOutput struct {
	ops.Memory
	Fingerprint []SlotEntry  `json:"fingerprint,omitempty"`
	History     []RevisionOf `json:"history,omitzero"`
}

// RevisionOf is an earlier revision of a memory, as it was before a
// change replaced it.
type RevisionOf struct {
	Revision   uint32            `json:"revision"`
	Content    string            `json:"content"`
	Type       record.Type       `json:"type"`
	Tags       []string          `json:"tags,omitempty"`
	Importance float64           `json:"importance"`
	Project    string            `json:"project,omitempty"`
	Meta       map[string]string `json:"meta,omitempty"`
	UpdatedAt  time.Time         `json:"updated_at"` // when this revision was written
}

func toMemoryOutput(m record.Memory) MemoryOutput { return MemoryOutput{Memory: ops.MemoryOf(m)} }

// summary is a search answer's text content: how many results and the
// first one's id and why; the results are the structured content.
func (o SearchOutput) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d results", len(o.Results))
	if o.Profile != "" {
		fmt.Fprintf(&b, " (%s)", o.Profile)
	}
	if len(o.Results) > 0 {
		h := o.Results[0]
		fmt.Fprintf(&b, "; top %s %s", h.ID, h.Type)
		if h.Why != "" {
			fmt.Fprintf(&b, " (%s)", h.Why)
		}
	}
	if len(o.Expanded) > 0 {
		fmt.Fprintf(&b, "; %d linked memories in expanded", len(o.Expanded))
	}
	for _, h := range o.Results {
		if len(h.ContradictedBy) > 0 {
			fmt.Fprintf(&b, "; %s is contradicted by the newer %s (contradicted_by)", h.ID, h.ContradictedBy[len(h.ContradictedBy)-1])
		}
	}
	b.WriteString(". The results are in structuredContent.")
	return b.String()
}
