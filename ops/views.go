package ops

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// ViewSearcher is what CompareViews needs of a store; *engine.Engine
// satisfies it.
type ViewSearcher interface {
	Slots() []engine.SlotInfo
	Search(ctx context.Context, req engine.SearchRequest) (engine.SearchResult, error)
}

// CompareViewsRequest asks how the slots that can lead a search each rank
// one query. Search holds the query, TopK and Filter (validated by the
// face); its mode, embedder and direction are set per slot.
type CompareViewsRequest struct {
	Search engine.SearchRequest
	// Slots are the slots to compare, at least two that can lead a
	// search; empty: every such slot that has a model.
	Slots []engine.SlotID
}

// SlotView is one slot's ranking of the query: its embedder_first search
// and how much its top k shares with the other slots'.
type SlotView struct {
	Slot engine.SlotID
	// Request is the search the slot ran; Result its answer (zero when Err
	// is set).
	Request engine.SearchRequest
	Result  engine.SearchResult
	// Status is engine.SpaceOK, SpaceEmpty, SpaceUnavailable (no model:
	// Err wraps engine.ErrSlotUnavailable) or SpaceFailed.
	Status string
	Err    error
	// Overlap is the mean Jaccard of its top k with the top k of the other
	// slots that returned a list.
	Overlap float64
}

// ViewAgreement is one memory in the compared lists: the rank (1-based)
// each slot that lists it gives it, and the slots with a list that miss it.
type ViewAgreement struct {
	ID       record.ID
	RankedBy map[string]int
	MissedBy []string
}

// ViewComparison is CompareViews' answer.
type ViewComparison struct {
	Slots []SlotView
	// Overlap is the Jaccard of the top-k sets of each slot pair, by slot
	// name.
	Overlap map[string]map[string]float64
	// Consensus are the memories every slot with a list ranks; Disagreements
	// those one slot ranks in its top 3 and another misses. Both are sorted
	// by id and never nil.
	Consensus     []ViewAgreement
	Disagreements []ViewAgreement
}

// CompareViews searches the query with each slot alone (embedder_first, no
// direction) and compares the lists: overlap per pair, what all agree on,
// what one sees and another misses. A slot that fails or has no model is
// reported in its SlotView, not as an error; fewer than two slots is a
// *record.ValidationError (Field "embedders"). It only reads the store.
func CompareViews(ctx context.Context, s ViewSearcher, r CompareViewsRequest) (ViewComparison, error) {
	slots, err := viewSlots(s, r.Slots)
	if err != nil {
		return ViewComparison{}, err
	}
	out := ViewComparison{Overlap: map[string]map[string]float64{}}
	ranks := make([]map[record.ID]int, len(slots))
	for i, slot := range slots {
		var v SlotView
		v, ranks[i] = searchView(ctx, s, r.Search, slot)
		out.Slots = append(out.Slots, v)
	}
	out.overlaps(ranks)
	out.agreements(ranks, r.Search.TopK)
	return out, nil
}

// viewSlots checks the requested slots, or picks every slot that can lead
// a search and has a model.
func viewSlots(s ViewSearcher, asked []engine.SlotID) ([]engine.SlotID, error) {
	slots := asked
	if len(asked) == 0 {
		for _, si := range s.Slots() {
			if si.Status.State != engine.SlotUnavailable && si.Slot.CanLead() {
				slots = append(slots, si.Slot)
			}
		}
	}
	for _, slot := range slots {
		if !slot.CanLead() {
			return nil, &record.ValidationError{Field: "embedders", Problem: fmt.Sprintf("%s cannot lead a search", slot),
				Fix: "name slots that can lead a search (E1, E5–E11, E13)"}
		}
	}
	if len(slots) < 2 {
		return nil, &record.ValidationError{Field: "embedders", Problem: fmt.Sprintf("%d slot(s) to compare", len(slots)),
			Fix: "name at least two slots that can lead a search, or install models (list_embedder_indexes)"}
	}
	return slots, nil
}

// searchView runs one slot's search; ranks maps each listed memory to its
// 1-based rank.
func searchView(ctx context.Context, s ViewSearcher, req engine.SearchRequest, slot engine.SlotID) (v SlotView, ranks map[record.ID]int) {
	req.Mode, req.Embedder, req.Direction = engine.ModeEmbedderFirst, slot, engine.DirectionAny
	v = SlotView{Slot: slot, Request: req, Status: engine.SpaceOK}
	res, err := s.Search(ctx, req)
	ranks = map[record.ID]int{}
	switch {
	case errors.Is(err, engine.ErrSlotUnavailable):
		v.Status, v.Err = engine.SpaceUnavailable, err
	case err != nil:
		v.Status, v.Err = engine.SpaceFailed, err
	default:
		v.Result = res
		if len(res.Hits) == 0 {
			v.Status = engine.SpaceEmpty
		}
		for i, m := range res.Memories {
			ranks[m.ID] = i + 1
		}
	}
	return v, ranks
}

// overlaps fills the pairwise Jaccard table and each slot's mean over the
// other slots that returned a list.
func (c *ViewComparison) overlaps(ranks []map[record.ID]int) {
	for i := range c.Slots {
		row := map[string]float64{}
		var sum float64
		n := 0
		for j := range c.Slots {
			if i == j {
				continue
			}
			jac := setJaccard(ranks[i], ranks[j])
			row[c.Slots[j].Slot.String()] = jac
			if c.Slots[i].Status == engine.SpaceOK && c.Slots[j].Status == engine.SpaceOK {
				sum += jac
				n++
			}
		}
		c.Overlap[c.Slots[i].Slot.String()] = row
		if n > 0 {
			c.Slots[i].Overlap = sum / float64(n)
		}
	}
}

// agreements sorts every listed memory into consensus (no slot with a
// list misses it) or disagreement (top 3 somewhere, missed elsewhere).
func (c *ViewComparison) agreements(ranks []map[record.ID]int, k int) {
	c.Consensus, c.Disagreements = []ViewAgreement{}, []ViewAgreement{}
	for _, id := range listedIDs(ranks) {
		a := ViewAgreement{ID: id, RankedBy: map[string]int{}, MissedBy: []string{}}
		best := k + 1
		for i, set := range ranks {
			if c.Slots[i].Status != engine.SpaceOK {
				continue // a slot with no list (empty, unavailable) neither agrees nor misses
			}
			name := c.Slots[i].Slot.String()
			if r, ok := set[id]; ok {
				a.RankedBy[name] = r
				best = min(best, r)
			} else {
				a.MissedBy = append(a.MissedBy, name)
			}
		}
		switch {
		case len(a.MissedBy) == 0:
			c.Consensus = append(c.Consensus, a)
		case best <= 3:
			c.Disagreements = append(c.Disagreements, a)
		}
	}
}

// listedIDs is every memory any slot lists, sorted by id.
func listedIDs(ranks []map[record.ID]int) []record.ID {
	all := map[record.ID]bool{}
	for _, set := range ranks {
		for id := range set {
			all[id] = true
		}
	}
	ids := make([]record.ID, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a].String() < ids[b].String() })
	return ids
}

func setJaccard(a, b map[record.ID]int) float64 {
	inter := 0
	for id := range a {
		if _, ok := b[id]; ok {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
