package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// UpdateResult is what Update did.
type UpdateResult struct {
	Memory record.Memory
	// Changed is false when the change left the memory as it was: nothing
	// was written and the revision did not move.
	Changed bool
	// Reembedded is true when the content changed, so the fingerprint was
	// computed again (every slot); otherwise only the record was written.
	Reembedded bool
}

// Update applies c to the memory with id in one batch: the record is
// written as the next revision and the one it replaces is kept (History).
// A content change re-computes the fingerprint, before the write lock like
// Add, and replaces every slot's stored values and postings; a change of
// type, tags, importance, project or metadata writes the record alone. The
// changed memory must pass the rules of a new one. A change that changes
// nothing writes nothing.
func (s *Engine) Update(ctx context.Context, id record.ID, c record.Change) (UpdateResult, error) {
	if s.ro {
		return UpdateResult{}, s.refuseReadOnly("change it")
	}
	if c.Empty() {
		return UpdateResult{}, &record.ValidationError{Field: "change", Problem: "names nothing to change",
			Fix: "give new content, a type, tags to add or remove, an importance, a project or metadata"}
	}
	c, fp, err := s.prepareUpdate(ctx, id, c)
	if err != nil {
		return UpdateResult{}, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.updateLocked(ctx, id, c, fp)
}

// prepareUpdate redacts c, checks that the memory it makes of the stored
// one passes the rules of a new one and, when c changes the content,
// fingerprints the new content (every slot). fp is nil when the content
// stays. It runs before the write lock: the models are the slow part.
func (s *Engine) prepareUpdate(ctx context.Context, id record.ID, c record.Change) (record.Change, *fingerprint.Fingerprint, error) {
	cur, err := s.peek(ctx, id)
	if err != nil {
		return c, nil, err
	}
	c = s.redactChange(c)
	next := c.Apply(cur)
	if err := next.AsNew().Validate(s.maxBytes); err != nil {
		return c, nil, err
	}
	if next.Content == cur.Content {
		return c, nil, nil
	}
	if err := s.needEmbedders("update a memory's content"); err != nil {
		return c, nil, err
	}
	if err := s.writable(); err != nil {
		return c, nil, err
	}
	in := []embedders.Input{{Text: next.Content, Created: next.CreatedAt, Session: next.Session, Seq: next.Sequence}}
	fps := []fingerprint.Fingerprint{{}}
	if err := s.reg.EmbedSlots(ctx, in, fingerprint.Slots(), fps); err != nil {
		return c, nil, fmt.Errorf("fingerprint the new content of %s: %w", id, err)
	}
	return c, &fps[0], nil
}

// updateLocked applies c to the memory as stored now (a concurrent update
// may have landed since prepareUpdate) and commits the next revision, with
// fp replacing the fingerprint when the content changed, then updates the
// in-memory indexes.
// REQUIRES: s.writeMu held.
func (s *Engine) updateLocked(ctx context.Context, id record.ID, c record.Change, fp *fingerprint.Fingerprint) (UpdateResult, error) {
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return UpdateResult{}, err
	}
	defer b.Abort()
	stored, err := b.Memory(id)
	if err != nil {
		return UpdateResult{}, err
	}
	next := c.Apply(stored) // what is stored now: a concurrent update may have landed
	if sameRecord(stored, next) {
		s.markRelations(ctx, &stored)
		return UpdateResult{Memory: stored}, nil
	}
	content := next.Content != stored.Content
	if content && fp == nil {
		return UpdateResult{}, fmt.Errorf("memory %s changed while updating it: try again", id)
	}
	if content {
		if err := s.replaceFingerprint(b, stored, fp); err != nil {
			return UpdateResult{}, err
		}
	}
	m, _, err := b.Replace(next)
	if err != nil {
		return UpdateResult{}, err
	}
	if err := b.Commit(); err != nil {
		return UpdateResult{}, fmt.Errorf("update memory %s: %w", id, err)
	}
	if content {
		s.tokens.remove(m.DocNum)
		if err := s.ix.apply(m, fp, nil); err != nil {
			return UpdateResult{}, fmt.Errorf("memory %s was updated but not indexed (reopen the store to rebuild its indexes): %w", id, err)
		}
	} else if s.ix != nil { // nil when opened for records only
		s.ix.setMeta(m)
	}
	s.markRelations(ctx, &m)
	return UpdateResult{Memory: m, Changed: true, Reembedded: content}, nil
}

// replaceFingerprint puts fp in b as stored's fingerprint, in place of the
// stored one: every slot's values and postings move from the old values to
// the new, and the memory has no slot pending any more.
func (s *Engine) replaceFingerprint(b *cellar.Batch, stored record.Memory, fp *fingerprint.Fingerprint) error {
	id := stored.ID
	old, found, err := b.Get(cellar.FamFingerprints, id[:])
	if err != nil {
		return err
	}
	var oldFP *fingerprint.Fingerprint
	if found {
		if oldFP, err = fingerprint.Decode(old); err != nil {
			return fmt.Errorf("fingerprints/%s: %w", id, err)
		}
	}
	if err := s.ix.check(fp); err != nil {
		return err
	}
	enc, err := encodeStored(fp)
	if err != nil {
		return fmt.Errorf("encode fingerprint: %w", err)
	}
	b.Put(cellar.FamFingerprints, id[:], enc)
	for _, slot := range fingerprint.Slots() {
		var was fingerprint.Value
		if oldFP != nil {
			was = oldFP.Get(slot).Value
		}
		if err := writeSlot(b, stored.DocNum, slot, was, fp.Get(slot).Value); err != nil {
			return fmt.Errorf("memory %s %s: %w", id, slot, err)
		}
	}
	b.Del(cellar.FamPending, docKey(stored.DocNum)) // every slot is computed now
	return nil
}

// sameRecord reports whether an update left the caller-given fields as
// they were.
func sameRecord(a, b record.Memory) bool {
	return reflect.DeepEqual(a.AsNew(), b.AsNew())
}

// History returns the earlier revisions of a memory, oldest first; the
// current one is Get's. A memory never updated has none.
func (s *Engine) History(ctx context.Context, id record.ID) ([]record.Memory, error) {
	if _, err := s.peek(ctx, id); err != nil {
		return nil, err
	}
	return s.cellar.History(ctx, id)
}

// markRelations fills m.SupersededBy and m.ContradictedBy from the
// in-memory relation marks, or from the relations family on a store
// opened for records only.
func (s *Engine) markRelations(ctx context.Context, m *record.Memory) {
	if s.ix == nil {
		rels, err := s.cellar.Relations(ctx, m.ID)
		if err != nil {
			return // the record reads; its badges are a courtesy
		}
		for _, r := range rels {
			switch {
			case r.To != m.ID:
			case r.Type == record.RelSupersedes:
				m.SupersededBy = append(m.SupersededBy, r.From)
			case r.Type == record.RelContradicts:
				m.ContradictedBy = append(m.ContradictedBy, r.From)
			}
		}
	} else {
		s.ix.mu.RLock()
		m.SupersededBy = s.ix.attrs.superseded.of(m.DocNum)
		m.ContradictedBy = s.ix.attrs.contradicted.of(m.DocNum)
		s.ix.mu.RUnlock()
	}
	// A contradicting memory that was itself superseded since no longer
	// stands against this one: the pair is resolved.
	m.ContradictedBy = slices.DeleteFunc(m.ContradictedBy, func(by record.ID) bool {
		sup, err := s.isSuperseded(ctx, by)
		return err == nil && sup
	})
	if len(m.ContradictedBy) == 0 {
		m.ContradictedBy = nil
	}
}

// setMark records (on) or removes the relation "from t to" in the
// in-memory marks (attrs.mark); a target no longer stored is skipped.
func (s *Engine) setMark(ctx context.Context, t record.RelationType, from, to record.ID, on bool) {
	if s.ix == nil || (t != record.RelSupersedes && t != record.RelContradicts) {
		return
	}
	m, err := s.peek(ctx, to)
	if err != nil {
		return
	}
	s.ix.mu.Lock()
	s.ix.attrs.mark(t, m.DocNum, from, on)
	if t == record.RelSupersedes { // the link's batch moved its end of validity
		s.ix.attrs.setValidUntil(m.DocNum, m.ValidUntil)
	}
	s.ix.mu.Unlock()
}

// RevisionsAt replaces each memory of ms that was updated after t with
// the revision it had at t: the newest earlier revision (Engine.History)
// written at or before t, or the oldest one kept when none was (a memory
// imported with an older creation time). Its id, doc number, end of
// validity and relation marks stay the current ones. Search applies it to
// its hits under record.Filter.AsOf; a face that lists memories itself
// (MCP search_recent without a query) calls it. Cost: one history scan
// per memory updated after t.
func (s *Engine) RevisionsAt(ctx context.Context, ms []record.Memory, t time.Time) error {
	for i := range ms {
		if !ms[i].UpdatedAt.After(t) {
			continue
		}
		hist, err := s.cellar.History(ctx, ms[i].ID)
		if err != nil {
			return fmt.Errorf("revision of memory %s as of %s: %w", ms[i].ID, t.Format(time.RFC3339), err)
		}
		if len(hist) == 0 {
			continue
		}
		rev := hist[0]
		for _, h := range hist {
			if !h.UpdatedAt.After(t) {
				rev = h
			}
		}
		cur := ms[i]
		rev.DocNum, rev.ValidUntil, rev.SupersededBy, rev.ContradictedBy = cur.DocNum, cur.ValidUntil, cur.SupersededBy, cur.ContradictedBy
		ms[i] = rev
	}
	return nil
}

// Link stores the relation r (both directions, one batch). Linking a pair
// again with the same type replaces its weight. A "supersedes" link hides
// its target from default searches (record.Filter.Superseded).
func (s *Engine) Link(ctx context.Context, r record.Relation) (record.Relation, error) {
	if s.ro {
		return r, s.refuseReadOnly("change it")
	}
	if r.Weight == 0 {
		r.Weight = record.DefaultRelationWeight
	}
	if err := record.CheckWeight(r.Weight); err != nil {
		return r, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return r, err
	}
	defer b.Abort()
	if err := b.Link(r); err != nil {
		return r, err
	}
	if err := b.Commit(); err != nil {
		return r, fmt.Errorf("link %s %s %s: %w", r.From, r.Type, r.To, err)
	}
	s.setMark(ctx, r.Type, r.From, r.To, true)
	rels, err := s.cellar.Relations(ctx, r.From)
	if err != nil {
		return r, err
	}
	for _, got := range rels {
		if got.From == r.From && got.To == r.To && got.Type == r.Type {
			return got, nil
		}
	}
	return r, errors.New("the link was committed but does not read back (broken invariant)")
}

// Unlink removes the relation from → to of type t; it reports whether one
// existed (removing nothing is not an error).
func (s *Engine) Unlink(ctx context.Context, from, to record.ID, t record.RelationType) (bool, error) {
	if s.ro {
		return false, s.refuseReadOnly("change it")
	}
	if err := record.CheckRelationType("type", t); err != nil {
		return false, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	b, err := s.cellar.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer b.Abort()
	ok, err := b.Unlink(from, to, t)
	if err != nil || !ok {
		return false, err
	}
	if err := b.Commit(); err != nil {
		return false, fmt.Errorf("unlink %s %s %s: %w", from, t, to, err)
	}
	s.setMark(ctx, t, from, to, false)
	return true, nil
}

// RelatedOptions select what Related follows.
type RelatedOptions struct {
	// Types keeps relations of these types (none: every type).
	Types []record.RelationType
	// Depth is how many hops to follow, 1 to MaxRelatedDepth (0 means 1).
	Depth int
	// Limit bounds the memories returned (0 means DefaultRelatedLimit).
	Limit int
}

// Related memory limits.
const (
	MaxRelatedDepth     = 3
	DefaultRelatedLimit = 50
)

// RelatedMemory is one memory reached from the start by relations.
type RelatedMemory struct {
	Memory record.Memory
	// Relation is the edge that reached it, as stored (From → To); the
	// memory is whichever end is not Via.
	Relation record.Relation
	// Via is the memory the edge was followed from (the start at depth 1).
	Via   record.ID
	Depth int
}

// Related walks the relations of id breadth first, both directions, up to
// o.Depth hops, and returns each memory reached once (at its smallest
// depth), nearest first, in the order relations are stored within a
// depth. Reading does not record accesses.
func (s *Engine) Related(ctx context.Context, id record.ID, o RelatedOptions) ([]RelatedMemory, error) {
	if o.Depth == 0 {
		o.Depth = 1
	}
	if o.Depth < 1 || o.Depth > MaxRelatedDepth {
		return nil, &record.ValidationError{Field: "depth", Problem: fmt.Sprintf("%d is outside 1..%d", o.Depth, MaxRelatedDepth), Fix: fmt.Sprintf("give a depth from 1 to %d", MaxRelatedDepth)}
	}
	if o.Limit == 0 {
		o.Limit = DefaultRelatedLimit
	}
	if o.Limit < 0 {
		return nil, &record.ValidationError{Field: "limit", Problem: fmt.Sprintf("%d is negative", o.Limit), Fix: "give a positive limit, or 0 for the default"}
	}
	for _, t := range o.Types {
		if err := record.CheckRelationType("type", t); err != nil {
			return nil, err
		}
	}
	if s.ro && s.ix != nil {
		if err := s.catchUp(ctx); err != nil {
			return nil, fmt.Errorf("related: catch up with the writer: %w", err)
		}
	}
	if _, err := s.peek(ctx, id); err != nil {
		return nil, err
	}
	want := func(t record.RelationType) bool {
		if len(o.Types) == 0 {
			return true
		}
		for _, w := range o.Types {
			if w == t {
				return true
			}
		}
		return false
	}
	seen := map[record.ID]bool{id: true}
	frontier := []record.ID{id}
	var out []RelatedMemory
	for depth := 1; depth <= o.Depth && len(frontier) > 0 && len(out) < o.Limit; depth++ {
		var next []record.ID
		for _, from := range frontier {
			rels, err := s.cellar.Relations(ctx, from)
			if err != nil {
				return nil, err
			}
			for _, r := range rels {
				other := r.To
				if other == from {
					other = r.From
				}
				if !want(r.Type) || seen[other] {
					continue
				}
				seen[other] = true
				m, err := s.peek(ctx, other)
				if err != nil {
					return nil, fmt.Errorf("related memory %s of %s: %w", other, from, err)
				}
				s.markRelations(ctx, &m)
				out = append(out, RelatedMemory{Memory: m, Relation: r, Via: from, Depth: depth})
				next = append(next, other)
				if len(out) == o.Limit {
					return out, nil
				}
			}
		}
		frontier = next
	}
	return out, nil
}

// peek reads one memory without recording an access.
func (s *Engine) peek(ctx context.Context, id record.ID) (record.Memory, error) {
	ms, found, err := s.cellar.Peek(ctx, []record.ID{id})
	if err != nil {
		return record.Memory{}, err
	}
	if !found[0] {
		return record.Memory{}, fmt.Errorf("%w: no memory with id %s in store %s", record.ErrNotFound, id, s.dir)
	}
	return ms[0], nil
}

// Relations returns the relations of id as stored: those it is the source
// of, then those it is the target of.
func (s *Engine) Relations(ctx context.Context, id record.ID) ([]record.Relation, error) {
	return s.cellar.Relations(ctx, id)
}
