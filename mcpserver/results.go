package mcpserver

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/topics/topicstore"
)

// snippetRunes bounds the snippets in results.
const snippetRunes = 240

// Hit is one search result as the tools return it.
type Hit struct {
	Rank      int         `json:"rank"`
	ID        record.ID   `json:"id"`
	Score     float64     `json:"score"`
	Snippet   string      `json:"snippet"`
	Type      record.Type `json:"type"`
	Tags      []string    `json:"tags,omitempty"`
	Session   string      `json:"session,omitempty"`
	Sequence  uint64      `json:"sequence,omitempty"`
	CreatedAt time.Time   `json:"created_at"`
	// Slots explains the score: each slot's rank, raw score, WRRF
	// contribution and threshold level.
	Slots  pipeline.SlotScores `json:"slots,omitempty"`
	Boosts []pipeline.Boost    `json:"boosts,omitempty"`
	Badges []string            `json:"badges,omitempty"`
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
	// Spaces says what happened in each slot searched: ok, empty,
	// unavailable (no model: fallback applied), skipped or failed.
	Spaces []pipeline.SpaceReport `json:"spaces,omitempty"`
	Notes  []string               `json:"notes,omitempty"`
	TookMS float64                `json:"took_ms"`
}

func toHit(rank int, h pipeline.ResultHit, m record.Memory) Hit {
	return Hit{Rank: rank, ID: m.ID, Score: h.Score, Snippet: topicstore.Snippet(m.Content, snippetRunes), Type: m.Type,
		Tags: m.Tags, Session: m.Session, Sequence: m.Sequence, CreatedAt: m.CreatedAt.UTC(),
		Slots: h.Slots, Boosts: h.Boosts, Badges: h.Badges}
}

func toOutput(res engine.SearchResult, req engine.SearchRequest) SearchOutput {
	out := SearchOutput{Query: echoQuery(res.Query), Corrections: res.Corrections, Profile: res.Profile, Mode: req.Mode.String(), Results: []Hit{}, Spaces: res.Spaces,
		TookMS: float64(res.Total.Microseconds()) / 1000}
	if req.Mode == pipeline.ModeEmbedderFirst {
		out.Embedder = req.Embedder.String()
		out.Profile = ""
	}
	if req.Direction != pipeline.DirectionAny {
		out.Direction = req.Direction.String()
	}
	for i, h := range res.Hits {
		out.Results = append(out.Results, toHit(i+1, h, res.Memories[i]))
	}
	for _, sp := range res.Spaces {
		// A weighted slot without a model, or any failure, is worth a note;
		// an unweighted badge slot (E4 without a session) is only in spaces.
		if (sp.Status == pipeline.StatusUnavailable && sp.Weight > 0) || sp.Status == pipeline.StatusFailed {
			note := sp.Name + " " + sp.Status
			if sp.Note != "" {
				note += ": " + sp.Note
			}
			out.Notes = append(out.Notes, note)
		}
	}
	if len(out.Results) == 0 {
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

// SlotEntry is one slot of a stored fingerprint.
type SlotEntry struct {
	Slot     string `json:"slot"`
	Status   string `json:"status"`
	Kind     string `json:"kind,omitempty"`
	Dims     int    `json:"dims,omitempty"`
	NNZ      int    `json:"nnz,omitempty"`
	Note     string `json:"note,omitempty"`
	Producer string `json:"producer,omitempty"`
}

func fingerprintEntries(fp *fingerprint.Fingerprint) []SlotEntry {
	var out []SlotEntry
	for _, s := range fingerprint.Slots() {
		e := fp.Get(s)
		se := SlotEntry{Slot: s.String(), Status: e.Status.String(), Note: e.Note}
		if e.Producer != (fingerprint.Producer{}) {
			se.Producer = e.Producer.String()
		}
		out = append(out, se)
	}
	for _, sum := range fp.Summary() {
		se := &out[sum.Slot.Index()]
		se.Kind, se.Dims, se.NNZ = sum.Kind.String(), sum.Dims, sum.NNZ
	}
	return out
}

// MemoryOutput is a stored memory.
type MemoryOutput struct {
	ID          record.ID     `json:"id"`
	DocNum      record.DocNum `json:"doc_num"`
	Content     string        `json:"content"`
	Type        record.Type   `json:"type"`
	Tags        []string      `json:"tags"`
	Source      string        `json:"source,omitempty"`
	Session     string        `json:"session,omitempty"`
	Sequence    uint64        `json:"sequence,omitempty"`
	CreatedAt   time.Time     `json:"created_at"`
	UpdatedAt   time.Time     `json:"updated_at"`
	AccessCount uint64        `json:"access_count"`
	Importance  float64       `json:"importance"`
	Fingerprint []SlotEntry   `json:"fingerprint,omitempty"`
}

func toMemoryOutput(m record.Memory) MemoryOutput {
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	return MemoryOutput{ID: m.ID, DocNum: m.DocNum, Content: m.Content, Type: m.Type, Tags: tags, Source: m.Source,
		Session: m.Session, Sequence: m.Sequence, CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
		AccessCount: m.AccessCount, Importance: m.Importance}
}

// maxQueryEcho is how much of the query a search answer echoes.
const maxQueryEcho = 256

func echoQuery(q string) string {
	if len(q) <= maxQueryEcho {
		return q
	}
	cut := maxQueryEcho
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", q[:cut], len(q))
}
