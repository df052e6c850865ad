package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

type contextIn struct {
	Query      string     `json:"query" jsonschema:"the task or question, in the user's words"`
	Budget     int        `json:"budget,omitempty" jsonschema:"the most tokens the answer's Markdown and citation index take, 64 to 32000; default 2000"`
	Profile    string     `json:"profile,omitempty"`
	Candidates int        `json:"candidates,omitempty" jsonschema:"search results to pack from, 1 to 100; default 30"`
	Filter     *filterArg `json:"filter,omitempty"`
	Expand     []string   `json:"expand,omitempty" jsonschema:"link types followed to attach related memories; default all"`
}

// ContextOutput is get_context's answer: ops.Context's compact form — the
// Markdown, its citation index, and what was left out as a count and a
// reason. Its tokens (Markdown and index, counted by the server's counter)
// stay within the budget; the rest of the answer is a fixed envelope
// (TestAnswerSizes measures it).
type ContextOutput struct {
	ops.CompactContext
}

// summary is the answer's text content: the structured content carries the
// Markdown (hosts such as Claude Code give the model only that), so the
// text does not repeat it.
func (o ContextOutput) summary() string {
	s := fmt.Sprintf("get_context: %d memories packed, %d of %d tokens", len(o.Cites), o.Tokens, o.Budget)
	if o.Left.Count > 0 {
		s += fmt.Sprintf("; %d left out (%s)", o.Left.Count, o.Left.Reason)
	}
	return s + ". The Markdown is in structuredContent.markdown."
}

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
	profile := builtinOf(in.Profile)
	if profile == "" {
		profile = AgentDefaultProfile
	}
	out, err := ops.Context(ctx, s.store, ops.ContextRequest{Query: in.Query, Budget: in.Budget, Profile: profile,
		Candidates: in.Candidates, Filter: f, Expand: types, Tokens: s.opts.Tokens, Index: true})
	if err != nil {
		return nil, argOf(searchError(err))
	}
	return ContextOutput{out.Compact()}, nil
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
