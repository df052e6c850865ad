package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/cgraph/cgraph/record"
)

// DecayHalfLife is the half-life of a memory that was never read again:
// its effective importance halves every 30 days since it was last touched.
const DecayHalfLife = 30 * 24 * time.Hour

// Decay is a memory's effective importance at a time: its importance,
// halved for every half-life since it was last touched (created, updated
// by cgraph update, or read), the half-life growing with how often it was read (×(1 +
// log2(1 + reads))), so a memory an agent keeps using fades slowly. It is
// shown (a badge, an explain line, cgraph maintain), never applied as a
// hidden multiplier: no built-in profile ranks by it.
type Decay struct {
	Importance float64       `json:"importance"`
	Effective  float64       `json:"effective"`
	Idle       time.Duration `json:"-"`
	IdleDays   float64       `json:"idle_days"`
	HalfLife   float64       `json:"half_life_days"`
}

// DecayOf computes m's Decay at now.
func DecayOf(m record.Memory, now time.Time) Decay {
	last := m.CreatedAt
	touched := []time.Time{m.AccessedAt}
	if m.Revision > 1 { // a first revision's updated_at is when it was stored (an import's is today)
		touched = append(touched, m.UpdatedAt)
	}
	for _, t := range touched {
		if t.After(last) {
			last = t
		}
	}
	idle := max(now.Sub(last), 0)
	half := time.Duration(float64(DecayHalfLife) * (1 + math.Log2(1+float64(m.AccessCount))))
	eff := m.Importance * math.Exp2(-float64(idle)/float64(half))
	return Decay{Importance: m.Importance, Effective: eff, Idle: idle, IdleDays: idle.Hours() / 24, HalfLife: half.Hours() / 24}
}

// Badge is the decay in a few words for a result line, or "" when the
// memory has lost less than a tenth of its importance.
func (d Decay) Badge() string {
	if d.Effective >= 0.9*d.Importance {
		return ""
	}
	return fmt.Sprintf("faded %.2f→%.2f (%.0f d idle)", d.Importance, d.Effective, d.IdleDays)
}

// MaintainOptions say what Maintain looks for and whether it acts.
type MaintainOptions struct {
	// PruneBelow lists memories whose effective importance is below it
	// (0: none). Superseded memories are listed whatever their decay.
	PruneBelow float64
	// Apply deletes what is listed for pruning and consolidates
	// duplicates; without it Maintain only reports.
	Apply bool
	// Now is the time decay is computed at (zero: now).
	Now time.Time
	// Near also looks for near-duplicates (every space agreeing, as on
	// write) and proposes that the newer of each pair supersedes the older.
	// It needs the embedders' indexes (an engine opened with Embedders).
	Near bool
	// Consolidate folds each cluster of near-duplicates (connected
	// components of the pairs Near finds, within one project) into its
	// newest memory instead of proposing supersede links: one consolidate
	// action per older member (applyAction). It implies Near. Actions
	// naming "consolidate" sets it; empty Actions do not (it is opt-in).
	Consolidate bool
	// Types are the memory types that may be pruned. Empty means every
	// type but the protected ones (ProtectedTypes: decisions and
	// preferences), which are proposed only when named here.
	Types []record.Type
	// Actions are the kinds of action Apply may carry out (prune,
	// merge_duplicate, supersede; empty: all); the others are listed,
	// held, with the reason.
	Actions []string
	// MaxActions bounds the actions one Apply carries out (0: no bound);
	// those over it are listed, held.
	MaxActions int
	// By names what applies the actions in the audit log ("schedule",
	// "maintain"; empty: "maintain").
	By string
	// Pause, when set, is called after each page of memories read and
	// each action applied: a scheduled run passes one that yields to
	// searches. It is called outside any batch and lock.
	Pause func()
}

// ProtectedTypes are never pruned unless MaintainOptions.Types names them:
// a decision or a preference stays true however rarely it is read.
var ProtectedTypes = []record.Type{record.TypeDecision, record.TypePreference}

// prunable reports whether Maintain may propose pruning a memory of type t.
func (o MaintainOptions) prunable(t record.Type) bool {
	if len(o.Types) > 0 {
		return slices.Contains(o.Types, t)
	}
	return !slices.Contains(ProtectedTypes, t)
}

// MaintainAction is one thing Maintain found (and did, with Apply).
type MaintainAction struct {
	// Action is "prune" (delete a faded or superseded memory),
	// "merge_duplicate" (delete a copy of an older memory with the same
	// content in the same project, stored with AllowDuplicate) or
	// "supersede" (with Near: Keep, the newer near-duplicate, supersedes
	// ID; nothing is deleted) or "consolidate" (with Consolidate: ID, an
	// older member of a near-duplicate cluster, is folded into Keep, the
	// cluster's newest: its content becomes an earlier revision of Keep,
	// its relations move to Keep, and it is deleted, kept for Undo).
	Action string    `json:"action"`
	ID     record.ID `json:"id"`
	// Keep is, for merge_duplicate, the older memory that stays; for
	// supersede, the newer memory that supersedes ID; for consolidate,
	// the survivor ID is folded into.
	Keep    record.ID `json:"keep,omitzero"`
	Reason  string    `json:"reason"`
	Applied bool      `json:"applied"`
	// ActionID names the applied action in the audit log (cgraph log,
	// cgraph undo).
	ActionID ActionID `json:"action_id,omitzero"`
	// Held says why an Apply did not carry the action out (the policy,
	// or the memory changed since it was listed).
	Held string `json:"held,omitempty"`
	// faded marks a prune for fading: applyAction checks it is still idle.
	faded bool
}

// Maintain walks every memory and lists those to prune (effective
// importance below PruneBelow, or superseded by a newer memory) and the
// exact duplicates to merge into their oldest copy. It never proposes to
// prune a memory touched (read, returned by a search, updated) within its
// half-life, nor one of a protected type (ProtectedTypes) unless o.Types
// names it. With Apply it carries each action out in its own batch with
// its audit entry (applyAction): a deleted memory is kept, with its
// history and relations, for Undo, and a merged copy's relations move to
// the memory kept; without Apply nothing is written. An action undone
// (Undo) is not proposed again for the same memory. Every action is
// reported.
func (s *Engine) Maintain(ctx context.Context, o MaintainOptions) ([]MaintainAction, error) {
	o, err := s.maintainOptions(o)
	if err != nil {
		return nil, err
	}
	if err := s.FlushUses(ctx); err != nil { // decay must see the uses counted in RAM
		return nil, fmt.Errorf("maintain: %w", err)
	}
	acts, err := s.findMaintenance(ctx, o)
	if err != nil {
		return nil, err
	}
	// An undo is a decision: what was undone is not proposed again.
	undone, err := s.undoneActions(ctx)
	if err != nil {
		return nil, fmt.Errorf("maintain: %w", err)
	}
	acts = slices.DeleteFunc(acts, func(a MaintainAction) bool { return undone[a.Action+"\x00"+a.ID.String()] })
	if !o.Apply {
		return acts, nil
	}
	return s.applyMaintenance(ctx, acts, o)
}

// maintainOptions checks o and fills its defaults: now for a zero Now,
// Consolidate when Actions name it, Near when Consolidate is set.
func (s *Engine) maintainOptions(o MaintainOptions) (MaintainOptions, error) {
	if o.Apply && s.ro {
		return o, s.refuseReadOnly("change it")
	}
	if math.IsNaN(o.PruneBelow) || o.PruneBelow < 0 || o.PruneBelow > 1 {
		return o, &record.ValidationError{Field: "prune_below", Problem: fmt.Sprintf("%v is outside [0, 1]", o.PruneBelow), Fix: "give an effective importance from 0 to 1, such as 0.05"}
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if slices.Contains(o.Actions, "consolidate") {
		o.Consolidate = true
	}
	if o.Consolidate {
		o.Near = true
	}
	if o.Near && s.ix == nil {
		return o, fmt.Errorf("maintain: looking for near-duplicates needs the store opened with its models")
	}
	return o, nil
}

// maintainScan is the state of one Maintain walk over the memories, oldest
// first: what the relations and copies say up front, and what the walk has
// listed so far.
type maintainScan struct {
	o          MaintainOptions
	superseded map[record.ID]record.ID // superseded memory → a memory superseding it
	copyOf     map[record.ID]record.ID // exact copy → the oldest memory it copies
	mayPrune   bool                    // o.Actions allow prune

	acts     []MaintainAction
	nearActs []MaintainAction // with Near, listed after acts
	pairs    []nearPair       // with Consolidate
	members  map[record.ID]record.Memory
	acted    map[record.ID]bool // listed for prune or merge by this run
	pruned   map[record.ID]bool // listed for pruning by this run, when the run may prune
}

// findMaintenance walks every memory a page at a time (calling o.Pause
// between pages) and returns the actions Maintain proposes, in order:
// merges and prunes as the walk meets them, then supersede proposals, then
// consolidations.
func (s *Engine) findMaintenance(ctx context.Context, o MaintainOptions) ([]MaintainAction, error) {
	superseded, err := s.supersededIDs(ctx)
	if err != nil {
		return nil, err
	}
	copyOf, err := s.exactCopies(ctx)
	if err != nil {
		return nil, err
	}
	w := &maintainScan{o: o, superseded: superseded, copyOf: copyOf,
		mayPrune: len(o.Actions) == 0 || slices.Contains(o.Actions, "prune"),
		members:  map[record.ID]record.Memory{}, acted: map[record.ID]bool{}, pruned: map[record.ID]bool{}}
	var after record.ID
	for {
		page, err := s.cellar.List(ctx, record.ListOptions{Limit: 1000, After: after, Oldest: true})
		if err != nil {
			return nil, fmt.Errorf("maintain: %w", err)
		}
		for _, m := range page {
			if err := s.visitForMaintenance(ctx, w, m); err != nil {
				return nil, err
			}
		}
		if len(page) < 1000 {
			break
		}
		if o.Pause != nil {
			o.Pause()
		}
		after = page[len(page)-1].ID
	}
	acts := append(w.acts, w.nearActs...)
	return append(acts, consolidations(w.pairs, w.members, w.acted, o)...), nil
}

// visitForMaintenance lists what m calls for: a merge into the older copy
// it duplicates, or a prune because it is superseded; otherwise its
// near-duplicates (with Near) and a prune if it has faded.
func (s *Engine) visitForMaintenance(ctx context.Context, w *maintainScan, m record.Memory) error {
	o := w.o
	if keep, ok := w.copyOf[m.ID]; ok && !w.pruned[keep] { // never merge into a memory this run prunes
		w.acts = append(w.acts, MaintainAction{Action: "merge_duplicate", ID: m.ID, Keep: keep, Reason: "the same content as the older memory, in the same project"})
		w.acted[m.ID] = true
		return nil
	}
	if by, ok := w.superseded[m.ID]; ok && o.prunable(m.Type) {
		w.acts = append(w.acts, MaintainAction{Action: "prune", ID: m.ID, Reason: fmt.Sprintf("superseded by %s", by)})
		w.pruned[m.ID] = w.mayPrune
		w.acted[m.ID] = true
		return nil
	}
	if o.Consolidate {
		ps, err := s.nearPairs(ctx, m, w.acted, w.members)
		if err != nil {
			return err
		}
		w.pairs = append(w.pairs, ps...)
	} else if o.Near {
		acts, err := s.nearOlder(ctx, m, w.superseded)
		if err != nil {
			return err
		}
		w.nearActs = append(w.nearActs, acts...)
	}
	// A memory touched within its half-life is in use, whatever
	// its importance: only the idle fade away.
	if d := DecayOf(m, o.Now); d.Effective < o.PruneBelow && d.IdleDays >= d.HalfLife && o.prunable(m.Type) {
		w.acts = append(w.acts, MaintainAction{Action: "prune", ID: m.ID,
			Reason: fmt.Sprintf("effective importance %.3f < %.3f (importance %.2f, %.0f days idle, half-life %.0f days)", d.Effective, o.PruneBelow, d.Importance, d.IdleDays, d.HalfLife), faded: true})
		w.pruned[m.ID] = w.mayPrune
		w.acted[m.ID] = true
	}
	return nil
}

// applyMaintenance carries out the actions o's policy allows, up to
// o.MaxActions, each in its own batch (applyAction), calling o.Pause after
// each; the others are returned held, with the reason. An action whose
// memory changed or went since it was listed is held, not an error.
func (s *Engine) applyMaintenance(ctx context.Context, acts []MaintainAction, o MaintainOptions) ([]MaintainAction, error) {
	by := o.By
	if by == "" {
		by = "maintain"
	}
	done := 0
	for i := range acts {
		if len(o.Actions) > 0 && !slices.Contains(o.Actions, acts[i].Action) {
			acts[i].Held = "the policy does not allow " + acts[i].Action
			continue
		}
		if o.MaxActions > 0 && done >= o.MaxActions {
			acts[i].Held = fmt.Sprintf("over the policy's max_actions %d for one run", o.MaxActions)
			continue
		}
		if err := ctx.Err(); err != nil {
			return acts, fmt.Errorf("maintain: stopped after %d of %d actions: %w", i, len(acts), err)
		}
		e, err := s.applyAction(ctx, acts[i], by, o.Now)
		var changed *changedError
		if errors.As(err, &changed) || errors.Is(err, record.ErrNotFound) {
			acts[i].Held = "not applied: " + err.Error()
			continue
		}
		if err != nil {
			return acts, fmt.Errorf("maintain: %s %s (%d of %d actions applied): %w", acts[i].Action, acts[i].ID, i, len(acts), err)
		}
		acts[i].Applied, acts[i].ActionID = true, e.ID
		done++
		if o.Pause != nil {
			o.Pause()
		}
	}
	return acts, nil
}

// exactCopies maps every exact copy (the same project and content once
// white space is collapsed) to the oldest memory it copies — oldest in
// List's order, creation time then id. The content_hash family names the
// candidates; their records are compared, so a hash collision is no copy.
// Cost: one scan of content_hash's keys and a record read per candidate.
func (s *Engine) exactCopies(ctx context.Context) (map[record.ID]record.ID, error) {
	out := map[record.ID]record.ID{}
	err := s.cellar.EachCopyGroup(ctx, func(ids []record.ID) error {
		ms, found, err := s.cellar.Peek(ctx, ids)
		if err != nil {
			return err
		}
		var group []record.Memory
		for i := range ms {
			if found[i] {
				group = append(group, ms[i])
			}
		}
		slices.SortFunc(group, func(a, b record.Memory) int {
			if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
				return c
			}
			return bytes.Compare(a.ID[:], b.ID[:])
		})
		for i, m := range group {
			for _, k := range group[:i] {
				if _, isCopy := out[k.ID]; !isCopy && k.Project == m.Project && record.NormalizeContent(k.Content) == record.NormalizeContent(m.Content) {
					out[m.ID] = k.ID
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("maintain: find exact copies: %w", err)
	}
	return out, nil
}

// supersededIDs maps every superseded memory to a memory that supersedes
// it, from the relations family (it works without indexes).
func (s *Engine) supersededIDs(ctx context.Context) (map[record.ID]record.ID, error) {
	out := map[record.ID]record.ID{}
	err := s.cellar.EachRelation(ctx, func(r record.Relation) error {
		if r.Type == record.RelSupersedes {
			out[r.To] = r.From
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("maintain: read relations: %w", err)
	}
	return out, nil
}

// nearOlder returns a supersede action for each stored memory created
// before m that is a near-duplicate of it and not superseded yet.
func (s *Engine) nearOlder(ctx context.Context, m record.Memory, superseded map[record.ID]record.ID) ([]MaintainAction, error) {
	older, err := s.olderNear(ctx, m)
	if err != nil {
		return nil, err
	}
	var out []MaintainAction
	for _, o := range older {
		if _, done := superseded[o.ID]; done {
			continue
		}
		superseded[o.ID] = m.ID
		out = append(out, MaintainAction{Action: "supersede", ID: o.ID, Keep: m.ID, Reason: o.why})
	}
	return out, nil
}

// olderMemory is a stored memory olderNear found, with the evidence.
type olderMemory struct {
	record.Memory
	why string
}

// olderNear returns the stored memories of m's project created before m
// that are near-duplicates of it (every space agreeing, as on write), each
// with its evidence. It changes nothing.
func (s *Engine) olderNear(ctx context.Context, m record.Memory) ([]olderMemory, error) {
	_, fps, err := s.readComparable(ctx, []record.ID{m.ID})
	if err != nil || fps[0] == nil {
		return nil, err
	}
	sims, _, err := s.findSimilar(ctx, m.Project, fps[0], "")
	if err != nil {
		return nil, err
	}
	var out []olderMemory
	for _, sim := range sims {
		if sim.ID == m.ID || !sim.Near {
			continue
		}
		older, err := s.peek(ctx, sim.ID)
		if err != nil || !older.CreatedAt.Before(m.CreatedAt) || older.Project != m.Project {
			continue // never across projects, whatever the index says
		}
		out = append(out, olderMemory{older, sim.Decision})
	}
	return out, nil
}

// MaintainActionKinds are the kinds of MaintainAction, in the order a
// policy file names them.
var MaintainActionKinds = []string{"merge_duplicate", "supersede", "prune", "consolidate"}
