package ops

import (
	"fmt"
	"strings"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// SearchAnswer is a search's whole answer in its wire form: every result
// with its memory and per-space explanation, the spaces the profile
// weighed, the stage trace and the timings. It is what `cgraph search
// --json` prints and what cgraph serve's POST /v1/search/explain answers,
// so a CLI beside a server prints the same bytes as one that searched
// itself; it decodes from JSON as it encodes.
type SearchAnswer struct {
	Query       string              `json:"query"`
	Corrections []engine.Correction `json:"corrections"` // words replaced before the search
	Corrected   string              `json:"corrected"`   // the query as searched
	Profile     string              `json:"profile"`
	Mode        engine.Mode         `json:"mode"`
	Direction   string              `json:"direction"`
	TopK        int                 `json:"top_k"`
	Weights     engine.Weights      `json:"weights"`   // after the overrides
	Overrides   []string            `json:"overrides"` // per-query weights as given (--weight)
	Results     []SearchHit         `json:"results"`
	// MinRelevance is the floor the request asked for (0: none);
	// NothingRelevant says that hits were found but none reached it, and
	// Note says so in words with the best relevance seen.
	MinRelevance    float64              `json:"min_relevance,omitempty"`
	NothingRelevant bool                 `json:"nothing_relevant,omitempty"`
	Note            string               `json:"note,omitempty"`
	Spaces          []engine.SpaceReport `json:"spaces"`
	Trace           []engine.StageTrace  `json:"trace"`
	// Auto is what the auto profile chose for this query: the per-query
	// weights and why (absent for static profiles).
	Auto *engine.AutoDecision `json:"auto,omitempty"`
	// Fusion is how the fusion modes combined the spaces (rrf or minmax;
	// absent in single-slot modes): what the scores are.
	Fusion engine.Fusion `json:"fusion,omitempty"`
	// Expanded are the memories the request's Expand linked to the
	// results.
	Expanded []ExpandedHit `json:"expanded,omitempty"`
	// Filtered is how many memories the filter let the search see (-1:
	// every memory).
	Filtered int     `json:"filtered"`
	EncodeMS float64 `json:"encode_ms"`
	TotalMS  float64 `json:"total_ms"`
	// Models names each model that served the search, its slots and the
	// device it ran on (ModelDevices), so that a figure is never read as
	// another device's; empty when no model served.
	Models string `json:"models,omitempty"`
}

// SearchHit is one result: the memory's id and content, the pipeline's
// explanation (slots, boosts, badges) and the memory's metadata.
type SearchHit struct {
	ID    record.ID     `json:"id"`
	Doc   record.DocNum `json:"doc"`
	Score float64       `json:"score"`
	// Relevance is the calibrated probability that the hit is relevant
	// (engine.RelevanceFloor and up counts) and Level its name: strong,
	// weak or none.
	Relevance float64           `json:"relevance"`
	Level     string            `json:"level"`
	Content   string            `json:"content"`
	Slots     engine.SlotScores `json:"slots"`
	Boosts    []engine.Boost    `json:"boosts"`
	Badges    []string          `json:"badges"`
	Memory    HitMemory         `json:"memory"`
}

// HitMemory is the metadata of a result's memory (content and id are
// beside it).
type HitMemory struct {
	Type         record.Type `json:"type"`
	Tags         []string    `json:"tags"`
	Source       string      `json:"source"`
	Session      string      `json:"session"`
	Sequence     uint64      `json:"sequence"`
	CreatedAt    time.Time   `json:"created_at"`
	Importance   float64     `json:"importance"`
	Project      string      `json:"project"`
	SupersededBy []record.ID `json:"superseded_by,omitempty"`
	// ContradictedBy names the newer memories that contradict this one
	// (record.Memory.ContradictedBy): an open question, the search badge.
	ContradictedBy []record.ID `json:"contradicted_by,omitempty"`
}

// ExpandedHit is one memory an expansion added: the relation and the
// result it came from.
type ExpandedHit struct {
	ID       record.ID           `json:"id"`
	Content  string              `json:"content"`
	Relation record.RelationType `json:"relation"`
	From     record.ID           `json:"from"` // the result it is related to
	Memory   HitMemory           `json:"memory"`
}

// HitMemoryOf is m's metadata in a result.
func HitMemoryOf(m record.Memory) HitMemory {
	j := HitMemory{Type: m.Type, Tags: m.Tags, Source: m.Source, Session: m.Session,
		Sequence: m.Sequence, CreatedAt: m.CreatedAt.UTC(), Importance: m.Importance, Project: m.Project, SupersededBy: m.SupersededBy,
		ContradictedBy: m.ContradictedBy}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	return j
}

// SearchAnswerOf is res, the answer to req, in its wire form. Empty lists
// are [] rather than null.
func SearchAnswerOf(res engine.SearchResult, req engine.SearchRequest) SearchAnswer {
	out := SearchAnswer{
		Query: res.Query, Corrections: res.Corrections, Corrected: res.Corrected, Profile: res.Profile, Mode: res.Mode, Direction: req.Direction.String(), TopK: req.TopK,
		Weights: req.Profile.Weights, Overrides: []string{}, Results: make([]SearchHit, 0, len(res.Hits)),
		Spaces: res.Spaces, Trace: res.Trace, EncodeMS: ms(res.Encode), TotalMS: ms(res.Total), Filtered: res.Filtered,
		MinRelevance: req.MinRelevance, NothingRelevant: res.NothingRelevant, Auto: res.Auto, Fusion: res.Fusion,
	}
	if res.NothingRelevant {
		out.Note = NothingRelevantNote(req.MinRelevance, res.Best)
	}
	for _, x := range res.Expanded {
		out.Expanded = append(out.Expanded, ExpandedHit{ID: x.Memory.ID, Content: x.Memory.Content, Relation: x.Relation.Type, From: x.From, Memory: HitMemoryOf(x.Memory)})
	}
	if out.Spaces == nil {
		out.Spaces = []engine.SpaceReport{}
	}
	if out.Corrections == nil {
		out.Corrections = []engine.Correction{}
	}
	if out.Trace == nil {
		out.Trace = []engine.StageTrace{}
	}
	for i, h := range res.Hits {
		j := SearchHit{Doc: h.Doc, Score: h.Score, Slots: h.Slots, Boosts: h.Boosts, Badges: h.Badges}
		if j.Slots == nil {
			j.Slots = engine.SlotScores{}
		}
		if j.Boosts == nil {
			j.Boosts = []engine.Boost{}
		}
		if j.Badges == nil {
			j.Badges = []string{}
		}
		if i < len(res.Relevance) {
			j.Relevance, j.Level = res.Relevance[i].P, res.Relevance[i].Level
		}
		if i < len(res.Memories) {
			m := res.Memories[i]
			j.ID, j.Content = m.ID, m.Content
			j.Memory = HitMemoryOf(m)
		}
		out.Results = append(out.Results, j)
	}
	return out
}

// NothingRelevantNote is what an answer says when no hit reached floor.
func NothingRelevantNote(floor, best float64) string {
	return fmt.Sprintf("nothing relevant: no memory reached the relevance floor %.2f (the best reached %.2f)", floor, best)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ModelDevices names each model of the slots, the slots it serves and the
// execution provider it runs on, e.g. "e5-small-v2-q (E1, E12) on cpu; …",
// so that an explained latency is never read as another device's.
func ModelDevices(infos []engine.SlotInfo) string {
	var order []string
	slots, devs := map[string][]string{}, map[string]string{}
	for _, si := range infos {
		st := si.Status
		if st.Device == "" || st.Producer.Model == "" || st.State == engine.SlotUnavailable {
			continue // model-free or not there
		}
		id := st.Producer.Model
		if _, ok := slots[id]; !ok {
			order = append(order, id)
		}
		slots[id] = append(slots[id], si.Slot.String())
		devs[id] = st.Device
	}
	parts := make([]string, len(order))
	for i, id := range order {
		parts[i] = fmt.Sprintf("%s (%s) on %s", id, strings.Join(slots[id], ", "), devs[id])
	}
	return strings.Join(parts, "; ")
}
