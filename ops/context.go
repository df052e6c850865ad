package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// Context packing defaults and bounds.
const (
	DefaultBudget     = 2000
	MinBudget         = 64
	MaxBudget         = 32000
	DefaultCandidates = 30
	MaxCandidates     = 100
	// maxLinksPerItem bounds the related memories read per packed memory.
	maxLinksPerItem = 20
	// MaxQueryEcho bounds the query an answer repeats (EchoQuery).
	MaxQueryEcho = 256
)

// TokenCounter counts the tokens of a text for a budget; Approx counts
// approximately (about four bytes a token) when no tokenizer is installed.
type TokenCounter = contextpack.Counter

// Approx is the approximate TokenCounter.
type Approx = contextpack.Approx

// ContextRequest asks for the memories that matter for a task, packed into
// a token budget.
type ContextRequest struct {
	// Query is the task or question, in the user's words. Required.
	Query string
	// Budget is the most tokens the packed Markdown may take, MinBudget to
	// MaxBudget; 0 means DefaultBudget.
	Budget int
	// Profile is the name of the weight profile of the search that ranks
	// the memories; "" means the engine's default.
	Profile string
	// Candidates is how many search results to pack from, best first, 1 to
	// MaxCandidates; 0 means DefaultCandidates.
	Candidates int
	// MinRelevance is the relevance a memory must reach to be packed
	// (engine.SearchRequest.MinRelevance): 0 means engine.RelevanceFloor,
	// a negative value packs whatever the search ranks. Memories attached
	// for their relation to a packed one are not searched, so not floored.
	MinRelevance float64
	// Filter scopes the search (and the related memories attached).
	Filter record.Filter
	// Expand are the relation types followed to attach memories related to
	// the packed ones when room is left; none means every type.
	Expand []record.RelationType
	// Tokens counts tokens; nil counts approximately (and the answer says
	// so).
	Tokens TokenCounter
	// Index counts each packed item's entry in the citation index
	// (ContextAnswer.Compact) against the budget, so that the compact answer
	// — Markdown and index — stays within it. The faces that answer with
	// Compact set it.
	Index bool
}

// ContextAnswer is the packing (items with citation handles, what was
// dropped and why, the token count and the tokenizer that counted) and the
// Markdown to paste into a prompt.
type ContextAnswer struct {
	contextpack.Packed
	Markdown string   `json:"markdown"`
	Notes    []string `json:"notes,omitempty"`
}

// Cite is one entry of a packed context's citation index: the handle the
// Markdown cites ("[1]") and the memory behind it.
type Cite struct {
	Cite string `json:"cite"`
	ID   string `json:"id"`
	Type string `json:"type"`
	Date string `json:"date"` // created, YYYY-MM-DD
}

func citeOf(it contextpack.Item) Cite {
	return Cite{Cite: it.Cite, ID: it.ID, Type: it.Type, Date: it.CreatedAt.UTC().Format("2006-01-02")}
}

// Left is what a packing left out: how many candidates, and why in words.
type Left struct {
	Count  int    `json:"count"`
	Reason string `json:"reason,omitempty"` // e.g. "9 over budget, 1 near-duplicate of a packed memory"
}

// CompactContext is the answer an agent gets (MCP get_context, HTTP
// /v1/context, cgraph context --json): the Markdown, a citation index, the
// tokens both take (at most Budget when the request set Index), and what
// was left out as a count and a reason — no per-candidate list. Beyond the
// Markdown and the index its envelope is fixed: the field names, three
// numbers, the counter's name, the reason and at most two notes.
type CompactContext struct {
	Markdown string   `json:"markdown"`
	Cites    []Cite   `json:"cites"`
	Budget   int      `json:"budget"`
	Tokens   int      `json:"tokens"`
	Counter  string   `json:"counter"`
	Left     Left     `json:"left_out"`
	Notes    []string `json:"notes,omitempty"`
}

// Compact is a's compact form (CompactContext).
func (a ContextAnswer) Compact() CompactContext {
	out := CompactContext{Markdown: a.Markdown, Cites: make([]Cite, len(a.Items)), Budget: a.Budget, Tokens: a.Tokens,
		Counter: a.Counter, Left: Left{Count: len(a.Dropped)}, Notes: a.Notes}
	for i, it := range a.Items {
		out.Cites[i] = citeOf(it)
	}
	over, dup := 0, 0
	for _, d := range a.Dropped {
		if strings.HasPrefix(d.Reason, "near-duplicate") {
			dup++
		} else {
			over++
		}
	}
	var why []string
	if over > 0 {
		why = append(why, fmt.Sprintf("%d over budget", over))
	}
	if dup > 0 {
		why = append(why, fmt.Sprintf("%d near-duplicate of a packed memory", dup))
	}
	out.Left.Reason = strings.Join(why, ", ")
	return out
}

// citeTokens is what an item's entry in the citation index costs: its JSON
// and a separator.
func citeTokens(c TokenCounter) func(contextpack.Item) int {
	return func(it contextpack.Item) int {
		b, err := json.Marshal(citeOf(it))
		if err != nil {
			return 0 // strings only: cannot fail
		}
		return c.Count(string(b) + ",")
	}
}

// nearDuplicates is the store's near-duplicate rule, when it has one;
// *engine.Engine does.
type nearDuplicates interface {
	NearDuplicateOf(ctx context.Context, ids []record.ID) (of []int, judged bool, err error)
}

// ContextStore is what Context needs of a store; *engine.Engine is one.
type ContextStore interface {
	Search(ctx context.Context, req engine.SearchRequest) (engine.SearchResult, error)
	Related(ctx context.Context, id record.ID, o engine.RelatedOptions) ([]engine.RelatedMemory, error)
}

// check validates r and fills its defaults.
func (r *ContextRequest) check() error {
	if strings.TrimSpace(r.Query) == "" {
		return &record.ValidationError{Field: "query", Problem: "is empty", Fix: `give the task or question the context is for, e.g. "fix the flaky store tests"`}
	}
	if r.Budget == 0 {
		r.Budget = DefaultBudget
	}
	if r.Candidates == 0 {
		r.Candidates = DefaultCandidates
	}
	if r.Budget < MinBudget || r.Budget > MaxBudget {
		return &record.ValidationError{Field: "budget", Problem: fmt.Sprintf("%d is out of range", r.Budget),
			Fix: fmt.Sprintf("give a number of tokens from %d to %d, or leave it out for %d", MinBudget, MaxBudget, DefaultBudget)}
	}
	if r.MinRelevance == 0 {
		r.MinRelevance = engine.RelevanceFloor
	}
	if r.MinRelevance > 1 {
		return &record.ValidationError{Field: "min_relevance", Problem: fmt.Sprintf("%g is over 1", r.MinRelevance),
			Fix: fmt.Sprintf("give a probability, e.g. %g (the calibrated floor), or leave it out", engine.RelevanceFloor)}
	}
	if r.Candidates < 1 || r.Candidates > MaxCandidates {
		return &record.ValidationError{Field: "candidates", Problem: fmt.Sprintf("%d is out of range", r.Candidates),
			Fix: fmt.Sprintf("give a number from 1 to %d, or leave it out for %d", MaxCandidates, DefaultCandidates)}
	}
	return nil
}

// Context searches the store for the request's query and packs the best
// memories into its budget: best first, each whole where it fits,
// near-duplicates of a packed memory dropped, memories related to the
// packed ones attached when room is left. Cost: one search of Candidates
// results, and one relation read per packed memory.
func Context(ctx context.Context, s ContextStore, r ContextRequest) (ContextAnswer, error) {
	if err := r.check(); err != nil {
		return ContextAnswer{}, err
	}
	p, err := engine.LookupProfile(r.Profile)
	if err != nil {
		return ContextAnswer{}, err
	}
	res, err := s.Search(ctx, engine.SearchRequest{Query: r.Query, Profile: p, Mode: engine.ModeMultiSpace, TopK: r.Candidates, Filter: r.Filter,
		MinRelevance: max(r.MinRelevance, 0)})
	if err != nil {
		return ContextAnswer{}, err
	}
	cands := make([]contextpack.Candidate, 0, len(res.Hits))
	var ids []record.ID
	for i, h := range res.Hits {
		if i < len(res.Relevance) && res.Relevance[i].P < r.MinRelevance {
			continue // the engine drops them; a store that did not is not trusted with the budget
		}
		m := res.Memories[i]
		cands = append(cands, contextpack.Candidate{ID: m.ID.String(), Type: string(m.Type), CreatedAt: m.CreatedAt, Score: h.Score, Content: m.Content})
		ids = append(ids, m.ID)
	}
	// One near-duplicate rule: the store's (E1, E6 and E11 agreeing, as on
	// write) drops a candidate that repeats a better one; contextpack's
	// word-trigram overlap stays only for a store that cannot judge (no E1).
	var dups []contextpack.Drop
	dupJaccard := 0.0
	if nd, ok := s.(nearDuplicates); ok && len(ids) > 1 {
		of, judged, err := nd.NearDuplicateOf(ctx, ids)
		if err != nil {
			return ContextAnswer{}, err
		}
		if judged {
			dupJaccard = 2 // off: the store has judged
			kept := cands[:0:0]
			for i, c := range cands {
				if of[i] >= 0 {
					dups = append(dups, contextpack.Drop{ID: c.ID, Reason: "near-duplicate of " + cands[of[i]].ID + " (E1, keywords and entities agree)"})
					continue
				}
				kept = append(kept, c)
			}
			cands = kept
		}
	}
	counter := r.Tokens
	if counter == nil {
		counter = contextpack.Approx{}
	}
	related := func(id string) ([]contextpack.Link, error) { return links(ctx, s, id, r.Expand, r.Filter) }
	o := contextpack.Options{Budget: r.Budget, Related: related, DuplicateJaccard: dupJaccard}
	if r.Index {
		o.Overhead = citeTokens(counter)
	}
	packed, err := contextpack.Pack(EchoQuery(r.Query), cands, counter, o)
	var bad *contextpack.BudgetError
	switch {
	case errors.As(err, &bad):
		return ContextAnswer{}, &record.ValidationError{Field: "budget", Problem: err.Error(), Fix: "give a larger budget"}
	case err != nil:
		return ContextAnswer{}, err
	}
	packed.Dropped = append(packed.Dropped, dups...)
	out := ContextAnswer{Packed: packed, Markdown: packed.Markdown()}
	if res.NothingRelevant {
		out.Notes = append(out.Notes, NothingRelevantNote(r.MinRelevance, res.Best)+": nothing to pack")
	} else if len(cands) == 0 {
		out.Notes = append(out.Notes, "no memory matched the query above the slots' low thresholds: nothing to pack")
	}
	if packed.RelatedLeftOut > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d memories related to the packed ones did not fit: get_related lists them, or give a larger budget", packed.RelatedLeftOut))
	}
	return out, nil
}

// links are the memories one relation (of types, or any) away from a
// packed memory inside f's scope (record.Filter.Scope), for contextpack to
// attach.
func links(ctx context.Context, s ContextStore, id string, types []record.RelationType, f record.Filter) ([]contextpack.Link, error) {
	from, err := record.ParseID(id)
	if err != nil {
		return nil, err
	}
	rel, err := s.Related(ctx, from, engine.RelatedOptions{Types: types, Depth: 1, Limit: maxLinksPerItem})
	if err != nil {
		return nil, err
	}
	var out []contextpack.Link
	for _, r := range rel {
		m := r.Memory
		if !f.Scope().Match(m, len(m.SupersededBy) > 0) { // attached for their relation, not for the filter's types or tags
			continue
		}
		out = append(out, contextpack.Link{Relation: r.Relation.Type.String(), Direction: Direction(r.Relation, from),
			Memory: contextpack.Candidate{ID: m.ID.String(), Type: string(m.Type), CreatedAt: m.CreatedAt, Content: m.Content}})
	}
	return out, nil
}

// Direction is "out" when r runs from via (via causes it), "in" when it
// runs to via (it fixes via).
func Direction(r record.Relation, via record.ID) string {
	if r.From == via {
		return "out"
	}
	return "in"
}

// EchoQuery is the query as an answer repeats it: whole up to MaxQueryEcho
// bytes, else cut at a character boundary with its length.
func EchoQuery(q string) string {
	if len(q) <= MaxQueryEcho {
		return q
	}
	cut := MaxQueryEcho
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", q[:cut], len(q))
}
