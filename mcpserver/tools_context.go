package mcpserver

import (
	"context"
	"errors"

	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

type contextIn struct {
	Query      string     `json:"query" jsonschema:"the task or question the context is for, in the user's words"`
	Budget     int        `json:"budget,omitempty" jsonschema:"the most tokens the packed context may take, 64 to 32000; default 2000"`
	Profile    string     `json:"profile,omitempty" jsonschema:"weight profile of the search that ranks the memories; default semantic_search"`
	Candidates int        `json:"candidates,omitempty" jsonschema:"how many search results to pack from, best first, 1 to 100; default 30"`
	Filter     *filterArg `json:"filter,omitempty"`
	Expand     []string   `json:"expand,omitempty" jsonschema:"the relation types followed to attach memories related to the packed ones when room is left (e.g. [\"fixes\", \"causes\"]); default every type"`
}

// ContextOutput is get_context's answer: ops.Context's.
type ContextOutput = ops.ContextAnswer

// getContext adapts ops.Context: the server's project scopes the filter,
// and a bad argument is answered as one.
func getContext(ctx context.Context, s *Server, in contextIn) (any, error) {
	f, err := s.toFilter(in.Filter)
	if err != nil {
		return nil, err
	}
	types, err := relationTypes("expand", in.Expand)
	if err != nil {
		return nil, err
	}
	out, err := ops.Context(ctx, s.store, ops.ContextRequest{Query: in.Query, Budget: in.Budget, Profile: in.Profile,
		Candidates: in.Candidates, Filter: f, Expand: types, Tokens: s.opts.Tokens})
	if err != nil {
		return nil, argOf(searchError(err))
	}
	return out, nil
}

// argOf answers an operation's *record.ValidationError as the tools answer
// a bad argument (argument "NAME": problem: fix); other errors pass.
func argOf(err error) error {
	var ve *record.ValidationError
	if errors.As(err, &ve) {
		return badArg(ve.Field, ve.Fix, "%s", ve.Problem)
	}
	return err
}
