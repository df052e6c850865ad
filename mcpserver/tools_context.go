package mcpserver

import (
	"context"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/pipeline"
)

// Context packing defaults and bounds.
const (
	defaultBudget     = 2000
	defaultCandidates = 30
)

type contextIn struct {
	Query      string `json:"query" jsonschema:"the task or question the context is for, in the user's words"`
	Budget     int    `json:"budget,omitempty" jsonschema:"the most tokens the packed context may take, 64 to 32000; default 2000"`
	Profile    string `json:"profile,omitempty" jsonschema:"weight profile of the search that ranks the memories; default semantic_search"`
	Candidates int    `json:"candidates,omitempty" jsonschema:"how many search results to pack from, best first, 1 to 100; default 30"`
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
	res, err := s.store.Search(ctx, engine.SearchRequest{Query: in.Query, Profile: p, Mode: pipeline.ModeMultiSpace, TopK: n})
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
	packed, err := contextpack.Pack(echoQuery(in.Query), cands, counter, contextpack.Options{Budget: budget})
	if err != nil {
		return nil, badArg("budget", "give a larger budget", "%v", err)
	}
	out := ContextOutput{Packed: packed, Markdown: packed.Markdown()}
	if len(cands) == 0 {
		out.Notes = append(out.Notes, "no memory matched the query above the slots' low thresholds: nothing to pack")
	}
	return out, nil
}
