package engine

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"time"

	"github.com/cgraph/cgraph/contradict"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/record"
)

// conflictRules are the contradiction rules Add applies on write
// (contradict.DefaultRules: precision ≥ 0.9 on the labelled pairs of
// contradict/testdata).
var conflictRules = contradict.DefaultRules

// judgeConflict judges whether newText contradicts or updates the stored
// memory whose words old gives (called only when the judge needs them),
// with the near-duplicate evidence sim of the pair.
func judgeConflict(old func() contradict.Words, newText *contradict.Text, sim record.Similar) (record.Contradiction, bool) {
	j := newText.JudgeWords(old, contradict.Evidence{E1: sim.E1, E6: sim.E6, E11: sim.E11}, conflictRules)
	if !j.Kind.Conflict() {
		return record.Contradiction{}, false
	}
	return record.Contradiction{ID: sim.ID, Kind: j.Kind.String(), E1: sim.E1, E6: sim.E6, E11: sim.E11, Reason: j.Reason}, true
}

// applyConflicts keeps each contradiction the new memory id found, in
// batch b: under ConflictSupersedeNewer it links id as superseding the old
// memory (which leaves default searches) and marks cs Superseded; under
// ConflictReport ("" takes the store's default, Options.OnConflict) it
// links id as contradicting it, an open pair that search badges and
// Engine.Contradictions lists until someone resolves it.
// REQUIRES: s.writeMu held.
func (s *Engine) applyConflicts(b *cellar.Batch, id record.ID, p record.ConflictPolicy, cs []record.Contradiction) error {
	if p == "" {
		p = s.onConflict
	}
	t := record.RelContradicts
	if p == record.ConflictSupersedeNewer {
		t = record.RelSupersedes
	}
	for j := range cs {
		if err := b.Link(record.Relation{From: id, To: cs[j].ID, Type: t, Weight: relationWeight(cs[j].E1)}); err != nil {
			return fmt.Errorf("link %s as %s %s: %w", id, t, cs[j].ID, err)
		}
		if t == record.RelSupersedes {
			cs[j].Superseded = true
			cs[j].Reason += "; marked superseded by this memory (supersede-newer)"
		}
	}
	return nil
}

// relationWeight turns an evidence score into a relation weight, which
// must lie in (0, 1].
func relationWeight(sim float64) float64 {
	if !(sim > 0) { // NaN too
		return record.DefaultRelationWeight
	}
	return min(sim, 1)
}

// ContradictionsOptions select the open pairs Contradictions lists.
type ContradictionsOptions struct {
	// Project keeps pairs of that project ("" the default project);
	// AllProjects keeps every project's.
	Project     string
	AllProjects bool
}

// OpenContradiction is a kept "contradicts" relation whose two memories
// are both still valid (neither superseded): a question nobody answered
// yet. Kind, Reason and the evidence are judged again with today's rules
// and fingerprints (Kind is "none" when they no longer see a conflict).
type OpenContradiction struct {
	Newer record.Memory `json:"newer"`
	Older record.Memory `json:"older"`
	// Since is when the pair was kept (the relation's creation time).
	Since  time.Time `json:"since"`
	Kind   string    `json:"kind"`
	E1     float64   `json:"e1"`
	E6     float64   `json:"e6"`
	E11    float64   `json:"e11"`
	Reason string    `json:"reason"`
}

// Contradictions lists the open contradiction pairs, newest first. A pair
// closes when either memory is superseded (`cgraph link NEW OLD --type
// supersedes` resolves it for the newer) or deleted, or when the relation
// is removed. Cost: one scan of the relations family, and two record and
// fingerprint reads and one relation scan per contradicts relation.
func (s *Engine) Contradictions(ctx context.Context, o ContradictionsOptions) ([]OpenContradiction, error) {
	if err := record.CheckProject(o.Project); err != nil {
		return nil, err
	}
	if s.ro && s.ix != nil {
		if err := s.catchUp(ctx); err != nil {
			return nil, fmt.Errorf("contradictions: catch up with the writer: %w", err)
		}
	}
	var rels []record.Relation
	if err := s.cellar.EachRelation(ctx, func(r record.Relation) error {
		if r.Type == record.RelContradicts {
			rels = append(rels, r)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("contradictions: %w", err)
	}
	var out []OpenContradiction
	for _, r := range rels {
		ms, fps, err := s.readComparable(ctx, []record.ID{r.From, r.To})
		if err != nil {
			return nil, fmt.Errorf("contradictions: %s contradicts %s: %w", r.From, r.To, err)
		}
		if fps[0] == nil || fps[1] == nil || (!o.AllProjects && ms[1].Project != o.Project) {
			continue
		}
		open := true
		for _, id := range []record.ID{r.From, r.To} {
			sup, err := s.isSuperseded(ctx, id)
			if err != nil {
				return nil, fmt.Errorf("contradictions: %w", err)
			}
			open = open && !sup
		}
		if !open {
			continue
		}
		c := OpenContradiction{Newer: ms[0], Older: ms[1], Since: r.CreatedAt, Kind: "none"}
		if sim, ok := evidence(fps[1], fps[0]); ok {
			c.E1, c.E6, c.E11 = sim.E1, sim.E6, sim.E11
			j := contradict.Judge(ms[1].Content, ms[0].Content, contradict.Evidence{E1: sim.E1, E6: sim.E6, E11: sim.E11}, conflictRules)
			c.Reason = j.Reason
			if j.Kind.Conflict() {
				c.Kind = j.Kind.String()
			}
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b OpenContradiction) int { return b.Since.Compare(a.Since) })
	return out, nil
}

// isSuperseded reports whether id is the target of a supersedes relation.
func (s *Engine) isSuperseded(ctx context.Context, id record.ID) (bool, error) {
	rels, err := s.cellar.Relations(ctx, id)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(rels, func(r record.Relation) bool { return r.Type == record.RelSupersedes && r.To == id }), nil
}

// judgedWordsBytes bounds the judge's words kept for stored memories
// (judgedWords): a memory of ~200 words takes ~15 KB, so ~500 of them.
const judgedWordsBytes = 8 << 20

// judgedWords keeps the contradiction judge's words (contradict.Tokenize)
// of stored memories a write compared new ones with: in a bulk import of
// code each stored function is close to several of the next ones, so a
// write tokenized the same stored text again and again (~half the judge's
// time). Keyed by the memory and its content's hash, so an edited memory
// is never judged by its old words. Safe for concurrent use.
type judgedWords struct {
	c *lru[judgedKey, contradict.Words]
}

type judgedKey struct {
	id      record.ID
	content uint64 // maphash of the content
}

var judgedSeed = maphash.MakeSeed()

func newJudgedWords(maxBytes int) *judgedWords {
	return &judgedWords{newLRU[judgedKey](maxBytes, contradict.Words.Bytes)}
}

// words returns the judge's words of stored memory id with content,
// tokenizing it only when they are not kept (a nil cache keeps nothing).
func (j *judgedWords) words(id record.ID, content string) contradict.Words {
	if j == nil {
		return contradict.Tokenize(content)
	}
	k := judgedKey{id, maphash.String(judgedSeed, content)}
	if w, ok := j.c.get(k); ok {
		return w
	}
	w := contradict.Tokenize(content)
	j.c.put(k, w)
	return w
}
