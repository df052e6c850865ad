package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/record"
)

// BriefRequest asks for what an agent should know when a session starts in
// a project, packed into a token budget.
type BriefRequest struct {
	// Project is the project briefed ("" is the default project).
	Project string
	// Budget is the most tokens the Markdown may take (MinBudget to
	// MaxBudget; 0 means DefaultBriefBudget).
	Budget int
	// Tokens counts tokens; nil counts approximately.
	Tokens TokenCounter
	// Scan bounds how many of the project's newest memories are looked at
	// (0 means DefaultBriefScan).
	Scan int
}

// Briefing defaults.
const (
	DefaultBriefBudget = 1500
	DefaultBriefScan   = 2000
)

// briefOrder is what a briefing packs first: the conventions and
// preferences that hold in every session, then the decisions, then errors
// (with the fixes linked to them), then facts; newest first in each.
var briefOrder = []record.Type{record.TypePreference, record.TypeDecision, record.TypeError, record.TypeFact, record.TypePattern}

// BriefStore is what Brief needs of a store; *engine.Engine is one.
type BriefStore interface {
	List(ctx context.Context, o record.ListOptions) ([]record.Memory, error)
}

// Brief packs a project's standing knowledge — preferences, decisions,
// errors and facts, newest first within each (superseded ones left out
// where the listing marks them) —
// into the budget, as Markdown for the start of an agent's session. It
// needs no query and no model: it reads records only. Cost: one list of at
// most Scan memories.
func Brief(ctx context.Context, s BriefStore, r BriefRequest) (ContextAnswer, error) {
	if r.Budget == 0 {
		r.Budget = DefaultBriefBudget
	}
	if r.Budget < MinBudget || r.Budget > MaxBudget {
		return ContextAnswer{}, &record.ValidationError{Field: "budget", Problem: fmt.Sprintf("%d is out of range", r.Budget),
			Fix: fmt.Sprintf("give a number of tokens from %d to %d", MinBudget, MaxBudget)}
	}
	if err := record.CheckProject(r.Project); err != nil {
		return ContextAnswer{}, err
	}
	if r.Scan <= 0 {
		r.Scan = DefaultBriefScan
	}
	byType := map[record.Type][]record.Memory{}
	seen := 0
	var after record.ID
	for seen < r.Scan {
		page, err := s.List(ctx, record.ListOptions{Limit: min(500, r.Scan-seen), After: after})
		if err != nil {
			return ContextAnswer{}, fmt.Errorf("brief: %w", err)
		}
		for _, m := range page {
			if m.Project == r.Project && len(m.SupersededBy) == 0 && slices.Contains(briefOrder, m.Type) {
				byType[m.Type] = append(byType[m.Type], m)
			}
		}
		seen += len(page)
		if len(page) == 0 || len(page) < 500 {
			break
		}
		after = page[len(page)-1].ID
	}
	var cands []contextpack.Candidate
	for _, t := range briefOrder {
		for _, m := range byType[t] {
			cands = append(cands, contextpack.Candidate{ID: m.ID.String(), Type: string(m.Type), CreatedAt: m.CreatedAt, Content: m.Content})
		}
	}
	counter := r.Tokens
	if counter == nil {
		counter = contextpack.Approx{}
	}
	title := "the project"
	if r.Project != "" {
		title = "project " + r.Project
	}
	packed, err := contextpack.Pack(title+": conventions, decisions, errors and facts", cands, counter, contextpack.Options{Budget: r.Budget})
	if err != nil {
		return ContextAnswer{}, &record.ValidationError{Field: "budget", Problem: err.Error(), Fix: "give a larger budget"}
	}
	out := ContextAnswer{Packed: packed, Markdown: packed.Markdown()}
	if len(cands) == 0 {
		out.Notes = append(out.Notes, "the project holds no preference, decision, error or fact yet")
	}
	return out, nil
}
