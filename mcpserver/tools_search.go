package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// search runs req and shapes its result; notes go first in the output.
func (s *Server) search(ctx context.Context, req engine.SearchRequest, notes ...string) (SearchOutput, error) {
	res, err := s.store.Search(ctx, req)
	if err != nil {
		return SearchOutput{}, searchError(err)
	}
	out := toOutput(res, req)
	out.Notes = append(notes, out.Notes...)
	return out, nil
}

func searchError(err error) error {
	switch {
	case errors.Is(err, engine.ErrSlotUnavailable):
		return fmt.Errorf("%w: list_embedder_indexes shows which slots have a model; pick a ready slot or install the model with `cgraph models pull ID`", err)
	}
	return err
}

// request is what every search tool's request shares: the query, top_k
// (default 10) and the filter, scoped to the server's project.
func (s *Server) request(query string, k int, f *filterArg) (engine.SearchRequest, error) {
	if err := requireQuery(query); err != nil {
		return engine.SearchRequest{}, err
	}
	k, err := topK(k)
	if err != nil {
		return engine.SearchRequest{}, err
	}
	filter, err := s.toFilter(f)
	if err != nil {
		return engine.SearchRequest{}, err
	}
	return engine.SearchRequest{Query: query, TopK: k, Filter: filter}, nil
}

// profileSearch is a profile-driven search in multi_space mode (every
// weighted space searched over the whole store, fused by WRRF).
func (s *Server) profileSearch(ctx context.Context, req engine.SearchRequest, profile string, dir engine.Direction, notes ...string) (SearchOutput, error) {
	p, err := engine.BuiltinProfile(profile)
	if err != nil {
		return SearchOutput{}, err // built-in names only: a bug if it fails
	}
	req.Profile, req.Mode, req.Direction = p, engine.ModeMultiSpace, dir
	return s.search(ctx, req, notes...)
}

// slotSearch is a single-embedder search (embedder_first).
func (s *Server) slotSearch(ctx context.Context, req engine.SearchRequest, slot engine.SlotID, dir engine.Direction, notes ...string) (SearchOutput, error) {
	req.Mode, req.Embedder, req.Direction = engine.ModeEmbedderFirst, slot, dir
	return s.search(ctx, req, notes...)
}

type queryIn struct {
	Query   string     `json:"query" jsonschema:"what to look for, in natural language or code"`
	TopK    int        `json:"top_k,omitempty" jsonschema:"how many results, 1 to 100; default 10"`
	Filter  *filterArg `json:"filter,omitempty"`
	Explain bool       `json:"explain,omitempty" jsonschema:"also return each space's rank, score and contribution per result"`
}

// ---- embedder tools

type searchByEmbedderIn struct {
	Query     string     `json:"query" jsonschema:"what to look for"`
	Embedder  string     `json:"embedder" jsonschema:"the one slot to search: E1 semantic, E5 causal, E6 keywords (BM25), E7 code, E8 graph, E9 typo-robust, E10 intent, E11 entities, E13 SPLADE (or their names); E2-E4 and E12 cannot lead a search"`
	TopK      int        `json:"top_k,omitempty" jsonschema:"how many results, 1 to 100; default 10"`
	Direction string     `json:"direction,omitempty" jsonschema:"for E5/E8: causes (the query describes an effect), effects (it describes a cause); default both"`
	Filter    *filterArg `json:"filter,omitempty"`
	Explain   bool       `json:"explain,omitempty" jsonschema:"also return each space's rank, score and contribution per result"`
}

func searchByEmbedder(ctx context.Context, s *Server, in searchByEmbedderIn) (any, error) {
	slot, err := leadingSlot("embedder", in.Embedder)
	if err != nil {
		return nil, err
	}
	dir, err := parseDirection(in.Direction)
	if err != nil {
		return nil, err
	}
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.slotSearch(ctx, req, slot, dir)
}

type noArgs struct{}

// SlotIndex is one slot of list_embedder_indexes.
type SlotIndex struct {
	Slot           string  `json:"slot"`
	Name           string  `json:"name"`
	Role           string  `json:"role"`
	Category       string  `json:"category"`
	TopicWeight    float64 `json:"topic_weight"`
	Status         string  `json:"status"` // present (ready), fallback, unavailable
	Reason         string  `json:"reason,omitempty"`
	Representation string  `json:"representation,omitempty"`
	Dims           int     `json:"dims,omitempty"`
	Index          string  `json:"index"`
	Docs           int     `json:"docs"`
	RAMBytes       int64   `json:"ram_bytes"`
	Producer       string  `json:"producer,omitempty"`
	StoredProducer string  `json:"stored_producer,omitempty"`
	CanLeadSearch  bool    `json:"can_lead_search"`
}

// indexesOut is list_embedder_indexes' result.
type indexesOut struct {
	Store    string      `json:"store"` // the store's directory
	ReadOnly bool        `json:"read_only"`
	Slots    []SlotIndex `json:"slots"`
}

func listEmbedderIndexes(_ context.Context, s *Server, _ noArgs) (any, error) {
	out := indexesOut{Store: s.store.Dir(), ReadOnly: s.store.ReadOnly(), Slots: []SlotIndex{}}
	for _, si := range s.store.Slots() {
		info := si.Slot.Info()
		x := SlotIndex{Slot: si.Slot.String(), Name: info.Name, Role: info.Role, Category: info.Category.String(),
			TopicWeight: info.Category.TopicWeight(), Status: si.Status.State.String(), Reason: si.Status.Reason,
			Representation: si.Status.Representation, Dims: si.Status.Dims, Index: si.Index, Docs: si.Docs, RAMBytes: si.RAMBytes,
			CanLeadSearch: si.Slot.CanLead()}
		if si.Status.Producer != (engine.Producer{}) {
			x.Producer = si.Status.Producer.String()
		}
		if si.Stored != (engine.Producer{}) {
			x.StoredProducer = si.Stored.String()
		}
		out.Slots = append(out.Slots, x)
	}
	return out, nil
}

type compareIn struct {
	Query     string     `json:"query" jsonschema:"the query every slot ranks"`
	Embedders []string   `json:"embedders,omitempty" jsonschema:"slots to compare (e.g. [\"E1\", \"E6\", \"E7\"]); default every slot that can lead a search and has a model"`
	TopK      int        `json:"top_k,omitempty" jsonschema:"list length per slot, 1 to 100; default 10"`
	Filter    *filterArg `json:"filter,omitempty"`
}

// SlotRanking is one slot's view of the query.
type SlotRanking struct {
	Slot    string  `json:"slot"`
	Status  string  `json:"status"` // ok, empty, unavailable, failed
	Note    string  `json:"note,omitempty"`
	Results []Hit   `json:"results"`
	Overlap float64 `json:"mean_overlap"` // mean Jaccard of its top-k with the other slots' top-k
}

// Disagreement is a memory one slot ranks highly that others miss.
type Disagreement struct {
	ID       record.ID      `json:"id"`
	Snippet  string         `json:"snippet"`
	RankedBy map[string]int `json:"ranked_by"` // slot → rank (1-based) among slots that list it
	MissedBy []string       `json:"missed_by"`
}

type compareOut struct {
	Query         string                        `json:"query"`
	Slots         []SlotRanking                 `json:"slots"`
	Overlap       map[string]map[string]float64 `json:"overlap"`       // Jaccard of top-k sets per slot pair
	Consensus     []Disagreement                `json:"consensus"`     // listed by every compared slot that returned results
	Disagreements []Disagreement                `json:"disagreements"` // top-3 in one slot, absent from at least one other
}

func compareEmbedderViews(ctx context.Context, s *Server, in compareIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	var slots []engine.SlotID
	for _, e := range in.Embedders {
		slot, err := leadingSlot("embedders", e)
		if err != nil {
			return nil, err
		}
		slots = append(slots, slot)
	}
	cmp, err := ops.CompareViews(ctx, s.store, ops.CompareViewsRequest{Search: req, Slots: slots})
	if err != nil {
		return nil, argOf(err)
	}
	return compareOutOf(in.Query, cmp), nil
}

// compareOutOf is the tool's form of a view comparison: each slot's list
// as search hits, each agreement with its memory's snippet.
func compareOutOf(query string, cmp ops.ViewComparison) compareOut {
	out := compareOut{Query: query, Overlap: cmp.Overlap}
	snippets := map[record.ID]string{}
	for _, v := range cmp.Slots {
		r := SlotRanking{Slot: v.Slot.String(), Status: v.Status, Results: []Hit{}, Overlap: v.Overlap}
		if v.Err != nil {
			r.Note = searchError(v.Err).Error()
		} else {
			r.Results = toOutput(v.Result, v.Request).Results
		}
		for _, h := range r.Results {
			snippets[h.ID] = h.Snippet
		}
		out.Slots = append(out.Slots, r)
	}
	agreed := func(as []ops.ViewAgreement) []Disagreement {
		ds := make([]Disagreement, 0, len(as))
		for _, a := range as {
			ds = append(ds, Disagreement{ID: a.ID, Snippet: snippets[a.ID], RankedBy: a.RankedBy, MissedBy: a.MissedBy})
		}
		return ds
	}
	out.Consensus, out.Disagreements = agreed(cmp.Consensus), agreed(cmp.Disagreements)
	return out
}

// ---- domain tools

type searchGraphIn struct {
	Query     string             `json:"query" jsonschema:"what to look for"`
	Profile   string             `json:"profile,omitempty" jsonschema:"weight profile: auto (default), semantic_search, causal_reasoning, code_search, fact_checking, intent_search, intent_enhanced, graph_reasoning, temporal_navigation, sequence_navigation, conversation_history, category_weighted, typo_tolerant, pipeline_stage1_recall, pipeline_stage2_scoring, pipeline_full, balanced"`
	Weights   map[string]float64 `json:"weights,omitempty" jsonschema:"per-slot weight overrides, e.g. {\"E5\": 0.6}; the other weighted slots are re-normalised so the sum stays 1"`
	Mode      string             `json:"mode,omitempty" jsonschema:"multi_space (default: every weighted slot searched over the whole store, fused by weighted RRF), pipeline (five stages from a keyword/SPLADE recall set), e1_only"`
	TopK      int                `json:"top_k,omitempty" jsonschema:"how many results, 1 to 100; default 10"`
	Direction string             `json:"direction,omitempty" jsonschema:"for E5/E8: causes (the query describes an effect), effects (it describes a cause); default both"`
	Filter    *filterArg         `json:"filter,omitempty"`
	Expand    []string           `json:"expand,omitempty" jsonschema:"also return, in expanded, the memories linked to the results by these relation types (one link away), e.g. [\"fixes\", \"causes\"] to bring each error's fix and cause along"`
	Explain   bool               `json:"explain,omitempty" jsonschema:"also return each space's rank, score and contribution per result"`
}

func searchGraph(ctx context.Context, s *Server, in searchGraphIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	if req.Expand, err = relationTypes("expand", in.Expand); err != nil {
		return nil, err
	}
	p, err := resolveProfile(in.Profile, in.Weights)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(strings.TrimSpace(in.Mode), engine.ModeEmbedderFirst.String()) {
		return nil, badArg("mode", "use search_by_embedder to search one slot", "embedder_first is not a fusion mode")
	}
	if err := (engine.SearchArgs{Mode: in.Mode, Direction: in.Direction, Names: searchArgNames}).ParseShape(&req); err != nil {
		return nil, argOf(err)
	}
	req.Profile = p
	return s.search(ctx, req)
}

type searchMemoryIn struct {
	Query   string     `json:"query" jsonschema:"what to look for, in natural language or code"`
	Profile string     `json:"profile,omitempty"`
	TopK    int        `json:"top_k,omitempty" jsonschema:"how many results, 1 to 100; default 10"`
	Filter  *filterArg `json:"filter,omitempty"`
	Expand  []string   `json:"expand,omitempty" jsonschema:"also return, in expanded, the memories linked to the results by these relation types, e.g. [\"fixes\", \"causes\"]"`
	Explain bool       `json:"explain,omitempty" jsonschema:"also return each space's rank, score and contribution per result"`
}

// searchMemory is the main search: search_graph's fusion in multi_space
// mode with the profile an agent chooses (agentProfiles).
func searchMemory(ctx context.Context, s *Server, in searchMemoryIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	if req.Expand, err = relationTypes("expand", in.Expand); err != nil {
		return nil, err
	}
	if in.Profile == "recent" {
		if req.Profile, err = timeProfile("recent", engine.E2); err != nil {
			return nil, err
		}
	} else if req.Profile, err = resolveProfile(builtinOf(in.Profile), nil); err != nil {
		return nil, err
	}
	req.Mode = engine.ModeMultiSpace
	// The agent's main search answers "nothing relevant" rather than the
	// least bad memories (the calibrated floor; a store without an E1
	// model has no relevance, and then nothing is dropped).
	req.MinRelevance = engine.RelevanceFloor
	return s.search(ctx, req)
}

func searchRobust(ctx context.Context, s *Server, in queryIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.profileSearch(ctx, req, "typo_tolerant", engine.DirectionAny)
}

type intentIn struct {
	Query    string     `json:"query" jsonschema:"the goal or intent, e.g. \"make startup faster\""`
	TopK     int        `json:"top_k,omitempty" jsonschema:"how many results, 1 to 100; default 10"`
	Enhanced bool       `json:"enhanced,omitempty" jsonschema:"use intent_enhanced (a stronger E10 boost on E1) instead of intent_search"`
	Filter   *filterArg `json:"filter,omitempty"`
	Explain  bool       `json:"explain,omitempty" jsonschema:"also return each space's rank, score and contribution per result"`
}

func searchByIntent(ctx context.Context, s *Server, in intentIn) (any, error) {
	p := "intent_search"
	if in.Enhanced {
		p = "intent_enhanced"
	}
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.profileSearch(ctx, req, p, engine.DirectionAny)
}

func searchByKeywords(ctx context.Context, s *Server, in queryIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.slotSearch(ctx, req, engine.E6, engine.DirectionAny)
}

func searchCode(ctx context.Context, s *Server, in queryIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.profileSearch(ctx, req, "code_search", engine.DirectionAny)
}

func searchCauses(ctx context.Context, s *Server, in queryIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.profileSearch(ctx, req, "causal_reasoning", engine.DirectionCauses,
		"direction causes: the query is read as an effect; E5 compares its effect view with the memories' cause vectors (×0.8, AP-77)")
}

func searchEffects(ctx context.Context, s *Server, in queryIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.profileSearch(ctx, req, "causal_reasoning", engine.DirectionEffects,
		"direction effects: the query is read as a cause; E5 compares its cause view with the memories' effect vectors (×1.2, AP-77)")
}

type connectionsIn struct {
	Query     string     `json:"query" jsonschema:"a module, file, function or path, e.g. \"engine/write.go AddBatch\""`
	TopK      int        `json:"top_k,omitempty" jsonschema:"how many results, 1 to 100; default 10"`
	Direction string     `json:"direction,omitempty" jsonschema:"targets (what the query imports or calls), sources (what imports or calls it); default both"`
	Filter    *filterArg `json:"filter,omitempty"`
	Explain   bool       `json:"explain,omitempty" jsonschema:"also return each space's rank, score and contribution per result"`
}

func searchConnections(ctx context.Context, s *Server, in connectionsIn) (any, error) {
	dir := engine.DirectionAny
	switch in.Direction {
	case "":
	case "targets":
		dir = engine.DirectionEffects
	case "sources":
		dir = engine.DirectionCauses
	default:
		return nil, badArg("direction", `give "targets", "sources" or leave it out`, "%q is not a direction", in.Direction)
	}
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.slotSearch(ctx, req, engine.E8, dir)
}

func searchByEntities(ctx context.Context, s *Server, in queryIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	return s.slotSearch(ctx, req, engine.E11, engine.DirectionAny)
}

// timeProfile is semantic_search with one temporal slot pinned at half the
// weight: the other slots retrieve, the temporal slot re-orders (ARCH-25).
func timeProfile(name string, slot engine.SlotID) (engine.Profile, error) {
	p, err := engine.BuiltinProfile(engine.DefaultProfile)
	if err != nil {
		return p, err
	}
	p.Name, p.Temporal = name, true
	p.Description = fmt.Sprintf("semantic_search with %s at weight 0.5 (MCP %s)", slot, name)
	ov, err := engine.ParseWeightOverride(slot.String() + "=0.5")
	if err != nil {
		return p, err
	}
	return p.WithOverrides(ov)
}

type recentIn struct {
	Query   string     `json:"query,omitempty" jsonschema:"what to look for; leave out to list the newest memories"`
	TopK    int        `json:"top_k,omitempty" jsonschema:"how many results, 1 to 100; default 10"`
	Filter  *filterArg `json:"filter,omitempty"`
	Explain bool       `json:"explain,omitempty" jsonschema:"also return each space's rank, score and contribution per result"`
}

func searchRecent(ctx context.Context, s *Server, in recentIn) (any, error) {
	if in.Query == "" {
		k, err := topK(in.TopK)
		if err != nil {
			return nil, err
		}
		f, err := s.toFilter(in.Filter)
		if err != nil {
			return nil, err
		}
		ms, notes, err := s.newest(ctx, f, k)
		if err != nil {
			return nil, err
		}
		out := SearchOutput{Mode: "newest", Results: []Hit{}, Spaces: []engine.SpaceReport{},
			Notes: append([]string{"no query: the newest memories by creation time (E2 recency order) that pass the filter"}, notes...)}
		for i, m := range ms {
			out.Results = append(out.Results, toHit(i+1, engine.Hit{Slots: engine.SlotScores{}}, m))
		}
		return out, nil
	}
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	if req.Profile, err = timeProfile("recent", engine.E2); err != nil {
		return nil, err
	}
	req.Mode = engine.ModeMultiSpace
	return s.search(ctx, req, "E2 recency at weight 0.5 re-orders the semantic matches (newer first); a 'recent' badge marks a high E2 score")
}

// maxNewestScan bounds how many memories search_recent without a query
// reads, newest first, looking for k that pass the filter.
const maxNewestScan = 20000

// newest returns the k newest memories that pass f, reading the store
// newest first page by page (at most maxNewestScan memories), with their
// supersession read for those that pass the rest of the filter.
func (s *Server) newest(ctx context.Context, f record.Filter, k int) ([]record.Memory, []string, error) {
	var out []record.Memory
	o := record.ListOptions{Limit: 256}
	for scanned := 0; len(out) < k; {
		if scanned >= maxNewestScan {
			return out, []string{fmt.Sprintf("read the newest %d memories only: give a query to search the whole store", maxNewestScan)}, nil
		}
		page, err := s.store.List(ctx, o)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range page {
			// Match with the supersession the filter wants first, so only
			// the memories that pass the rest pay for reading their links.
			if !f.Match(m, f.Superseded == record.OnlySuperseded) {
				continue
			}
			if m.SupersededBy, err = s.supersededBy(ctx, m.ID); err != nil {
				return nil, nil, err
			}
			if !f.Match(m, len(m.SupersededBy) > 0) {
				continue
			}
			if out = append(out, m); len(out) == k {
				break
			}
		}
		scanned += len(page)
		if len(page) < o.Limit {
			break
		}
		o.After = page[len(page)-1].ID
	}
	if !f.AsOf.IsZero() { // each as it read then
		if err := s.store.RevisionsAt(ctx, out, f.AsOf); err != nil {
			return nil, nil, err
		}
	}
	return out, nil, nil
}

// supersededBy lists the memories linked to id by "X supersedes id".
func (s *Server) supersededBy(ctx context.Context, id record.ID) ([]record.ID, error) {
	rel, err := s.store.Related(ctx, id, engine.RelatedOptions{Types: []record.RelationType{record.RelSupersedes}, Limit: engine.DefaultRelatedLimit})
	if err != nil {
		return nil, err
	}
	var out []record.ID
	for _, r := range rel {
		if r.Relation.To == id {
			out = append(out, r.Relation.From)
		}
	}
	return out, nil
}

type periodicIn struct {
	Query   string     `json:"query" jsonschema:"what to look for"`
	At      string     `json:"at,omitempty" jsonschema:"RFC 3339 time whose hour of day and day of week to match, e.g. 2026-03-02T09:00:00Z (a Monday morning); default now"`
	TopK    int        `json:"top_k,omitempty" jsonschema:"how many results, 1 to 100; default 10"`
	Filter  *filterArg `json:"filter,omitempty"`
	Explain bool       `json:"explain,omitempty" jsonschema:"also return each space's rank, score and contribution per result"`
}

func searchPeriodic(ctx context.Context, s *Server, in periodicIn) (any, error) {
	req, err := s.request(in.Query, in.TopK, in.Filter)
	if err != nil {
		return nil, err
	}
	at, err := parseTime("at", in.At)
	if err != nil {
		return nil, err
	}
	p, err := timeProfile("periodic", engine.E3)
	if err != nil {
		return nil, err
	}
	if at.IsZero() {
		at = time.Now()
	}
	req.Profile, req.Mode, req.Now = p, engine.ModeMultiSpace, at
	return s.search(ctx, req,
		"E3 periodicity at weight 0.5 favours memories made at the same hour of day and day of week as "+at.UTC().Format(time.RFC3339))
}
