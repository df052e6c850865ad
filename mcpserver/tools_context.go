package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/record"
)

// Context packing defaults and bounds.
const (
	defaultBudget     = 2000
	defaultCandidates = 30
)

type contextIn struct {
	Query      string     `json:"query" jsonschema:"the task or question the context is for, in the user's words"`
	Budget     int        `json:"budget,omitempty" jsonschema:"the most tokens the packed context may take, 64 to 32000; default 2000"`
	Profile    string     `json:"profile,omitempty" jsonschema:"weight profile of the search that ranks the memories; default semantic_search"`
	Candidates int        `json:"candidates,omitempty" jsonschema:"how many search results to pack from, best first, 1 to 100; default 30"`
	Filter     *filterArg `json:"filter,omitempty"`
	Expand     []string   `json:"expand,omitempty" jsonschema:"the relation types followed to attach memories related to the packed ones when room is left (e.g. [\"fixes\", \"causes\"]); default every type"`
}

// ContextOutput is get_context's answer: the packing (items with citation
// handles, what was dropped and why, the token count and the tokenizer that
// counted) and the Markdown to paste into a prompt.
type ContextOutput struct {
	contextpack.Packed
	Markdown string   `json:"markdown"`
	Notes    []string `json:"notes,omitempty"`
}

func getContext(ctx context.Context, s *Server, in contextIn) (any, error) {
	if err := requireQuery(in.Query); err != nil {
		return nil, err
	}
	budget, n := in.Budget, in.Candidates
	if budget == 0 {
		budget = defaultBudget
	}
	if n == 0 {
		n = defaultCandidates
	}
	if budget < 64 || budget > 32000 {
		return nil, badArg("budget", "give a number of tokens from 64 to 32000, or leave it out for 2000", "%d is out of range", budget)
	}
	if _, err := topK(n); err != nil {
		return nil, badArg("candidates", "give a number from 1 to 100, or leave it out for 30", "%d is out of range", n)
	}
	p, err := resolveProfile(in.Profile, nil)
	if err != nil {
		return nil, err
	}
	f, err := s.toFilter(in.Filter)
	if err != nil {
		return nil, err
	}
	types, err := relationTypes("expand", in.Expand)
	if err != nil {
		return nil, err
	}
	res, err := s.store.Search(ctx, engine.SearchRequest{Query: in.Query, Profile: p, Mode: pipeline.ModeMultiSpace, TopK: n, Filter: f})
	if err != nil {
		return nil, searchError(err)
	}
	cands := make([]contextpack.Candidate, len(res.Hits))
	for i, h := range res.Hits {
		m := res.Memories[i]
		cands[i] = contextpack.Candidate{ID: m.ID.String(), Type: string(m.Type), CreatedAt: m.CreatedAt, Score: h.Score, Content: m.Content}
	}
	counter := s.opts.Tokens
	if counter == nil {
		counter = contextpack.Approx{}
	}
	related := func(id string) ([]contextpack.Link, error) { return s.contextLinks(ctx, id, types, f) }
	packed, err := contextpack.Pack(echoQuery(in.Query), cands, counter, contextpack.Options{Budget: budget, Related: related})
	var bad *contextpack.BudgetError
	switch {
	case errors.As(err, &bad):
		return nil, badArg("budget", "give a larger budget", "%v", err)
	case err != nil:
		return nil, err
	}
	out := ContextOutput{Packed: packed, Markdown: packed.Markdown()}
	if len(cands) == 0 {
		out.Notes = append(out.Notes, "no memory matched the query above the slots' low thresholds: nothing to pack")
	}
	if packed.RelatedLeftOut > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d memories related to the packed ones did not fit: get_related lists them, or give a larger budget", packed.RelatedLeftOut))
	}
	return out, nil
}

// contextLinks are the memories one relation (of types, or any) away from
// a packed memory inside f's scope (record.Filter.Scope), for contextpack
// to attach.
func (s *Server) contextLinks(ctx context.Context, id string, types []record.RelationType, f record.Filter) ([]contextpack.Link, error) {
	from, err := record.ParseID(id)
	if err != nil {
		return nil, err
	}
	rel, err := s.store.Related(ctx, from, engine.RelatedOptions{Types: types, Depth: 1, Limit: maxLinksPerItem})
	if err != nil {
		return nil, err
	}
	var out []contextpack.Link
	for _, r := range rel {
		m := r.Memory
		if !f.Scope().Match(m, len(m.SupersededBy) > 0) { // attached for their relation, not for the filter's types or tags
			continue
		}
		out = append(out, contextpack.Link{Relation: r.Relation.Type.String(), Direction: direction(r.Relation, from),
			Memory: contextpack.Candidate{ID: m.ID.String(), Type: string(m.Type), CreatedAt: m.CreatedAt, Content: m.Content}})
	}
	return out, nil
}

// maxLinksPerItem bounds the related memories read per packed memory.
const maxLinksPerItem = 20
