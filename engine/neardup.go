package engine

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cgraph/cgraph/contradict"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// NearDuplicate are the thresholds at which a new memory counts as a
// near-duplicate of a stored one: every space must reach its own. One high
// cosine alone never decides (two memories about the same file can differ
// in what matters); the keyword and entity overlaps confirm it.
type NearDuplicate struct {
	// E1 is the least dense cosine of a candidate; candidates are the
	// NearCandidates best E1 matches in the new memory's project. A
	// negative E1 turns the check off.
	E1 float64
	// E6 is the least Jaccard overlap of the two memories' keyword terms.
	E6 float64
	// E11 is the least Jaccard overlap of their entity names; two memories
	// that name no entity agree.
	E11 float64
}

// DefaultNearDuplicate holds the thresholds Options.NearDuplicate's zero
// value means. Measured on six hand-made pairs with e5-small-v2 (a small
// sample: the thresholds are conservative on purpose): three rewordings of
// one note scored E1 0.939–0.968 with E6 overlap 0.43–0.69; three distinct
// notes of the same shape ("Error: authentication failed for user …")
// scored E1 0.874–0.938 — as high as a rewording — with E6 0.05–0.22 and
// no shared entity. E1 alone cannot tell them apart; E6 and E11 can.
var DefaultNearDuplicate = NearDuplicate{E1: 0.92, E6: 0.4, E11: 0.5}

// decide sets sim.Near and sim.Decision from its evidence: the one
// near-duplicate rule of the store (writes, maintain --near, context
// packing): every space agreeing.
func (th NearDuplicate) decide(sim *record.Similar) {
	switch {
	case sim.E1 < th.E1:
		sim.Decision = fmt.Sprintf("not a near-duplicate: E1 %.3f is below %.2f", sim.E1, th.E1)
	case sim.E6 < th.E6:
		sim.Decision = fmt.Sprintf("not a near-duplicate: E1 %.3f agrees but the keyword overlap E6 %.2f is below %.2f", sim.E1, sim.E6, th.E6)
	case sim.E11 < th.E11:
		sim.Decision = fmt.Sprintf("not a near-duplicate: E1 %.3f and E6 %.2f agree but the entity overlap E11 %.2f is below %.2f", sim.E1, sim.E6, sim.E11, th.E11)
	default:
		sim.Near = true
		sim.Decision = fmt.Sprintf("near-duplicate: E1 %.3f ≥ %.2f, E6 %.2f ≥ %.2f, E11 %.2f ≥ %.2f", sim.E1, th.E1, sim.E6, th.E6, sim.E11, th.E11)
	}
}

// evidence is the near-duplicate evidence between two fingerprints: the
// E1 cosine and the E6 and E11 overlaps (two memories naming no entity
// agree); ok is false when either has no E1 vector.
func evidence(a, b *fingerprint.Fingerprint) (sim record.Similar, ok bool) {
	va, vb := denseOf(a.Get(fingerprint.E1).Value), denseOf(b.Get(fingerprint.E1).Value)
	if len(va) == 0 || len(va) != len(vb) {
		return sim, false
	}
	var dot, na, nb float64
	for i := range va {
		dot += float64(va[i]) * float64(vb[i])
		na += float64(va[i]) * float64(va[i])
		nb += float64(vb[i]) * float64(vb[i])
	}
	if na == 0 || nb == 0 {
		return sim, false
	}
	sim.E1 = dot / math.Sqrt(na*nb)
	sim.E6 = fingerprint.SortedJaccard(termSet(a), termSet(b))
	sim.E11 = 1
	if na, nb := nameSet(a), nameSet(b); len(na)+len(nb) > 0 {
		sim.E11 = fingerprint.SortedJaccard(na, nb)
	}
	return sim, true
}

// NearDuplicateOf says, for each memory of ids in order, which earlier one
// it nearly repeats by the store's one near-duplicate rule (the rule writes
// report with: E1, E6 and E11 all agreeing, Options.NearDuplicate): of[i]
// is that earlier index, or -1. ok is false when the store cannot judge
// (no E1 values: no model), and the caller then uses its own fallback.
// Context packing calls it on its candidates. Cost: one read of the
// fingerprints and O(n²) comparisons of n ids.
func (s *Engine) NearDuplicateOf(ctx context.Context, ids []record.ID) (of []int, ok bool, err error) {
	of = make([]int, len(ids))
	for i := range of {
		of[i] = -1
	}
	if s.nearDup.E1 < 0 || len(ids) < 2 {
		return of, s.nearDup.E1 >= 0, nil
	}
	_, fps, err := s.readComparable(ctx, ids)
	if err != nil {
		return nil, false, fmt.Errorf("near-duplicates: %w", err)
	}
	judged := false
	for i := range ids {
		if fps[i] == nil {
			continue
		}
		for j := range i {
			if fps[j] == nil || of[j] >= 0 {
				continue
			}
			sim, ok := evidence(fps[j], fps[i])
			if !ok {
				continue
			}
			judged = true
			if s.nearDup.decide(&sim); sim.Near {
				of[i] = j
				break
			}
		}
	}
	return of, judged, nil
}

// NearCandidates is how many E1 neighbours a new memory is compared with.
const NearCandidates = 5

// findSimilar returns the stored memories of project whose E1 vector is
// within the threshold of fp's, with each space's evidence, and, when
// content (the new memory's text) is given, the candidates it contradicts
// or updates (contradict.Judge over the same evidence, from the lower E1
// floor contradict.DefaultRules.MinE1: a contradiction is rarely as close
// as a rewording).
// REQUIRES: s.writeMu held (the indexes then hold every committed memory).
func (s *Engine) findSimilar(ctx context.Context, project string, fp *fingerprint.Fingerprint, content string) ([]record.Similar, []record.Contradiction, error) {
	cands, err := s.nearSearch(ctx, project, fp, content, 0)
	if err != nil {
		return nil, nil, err
	}
	similar, conflicts := emitNear(cands)
	return similar, conflicts, nil
}

// nearCandidate is one E1 neighbour of a new memory with what the
// near-duplicate rule and the judge made of it.
type nearCandidate struct {
	doc      record.DocNum
	cos      float64
	similar  *record.Similar       // nil: below the near-duplicate E1 threshold (a contradiction candidate only)
	conflict *record.Contradiction // nil: none judged
}

// nearSearch returns fp's E1 neighbours in project from doc number from on
// (at most NearCandidates, each at or above the lower of the two E1
// floors), best first, each judged (judgeNear). Under s.writeMu the
// indexes hold every committed memory; without it (presearch) they may
// also hold memories whose write has not committed yet (judgeNear drops
// them) and lack ones being indexed, which presearch accounts for.
func (s *Engine) nearSearch(ctx context.Context, project string, fp *fingerprint.Fingerprint, content string, from record.DocNum) ([]nearCandidate, error) {
	th := s.nearDup
	v := denseOf(fp.Get(fingerprint.E1).Value)
	if th.E1 < 0 || len(v) == 0 || s.ix == nil {
		return nil, nil
	}
	floor := th.E1
	if content != "" {
		floor = min(floor, conflictRules.MinE1())
	}
	s.ix.mu.RLock()
	within := s.ix.attrs.byProject[project]
	if within != nil && from > 0 { // the docs from on: a few hundred, not the project's copy
		since := roaring.New()
		since.AddRange(uint64(from), uint64(max(from, s.ix.next)))
		within = roaring.And(within, since)
	}
	d := s.ix.dense[spaceKey{slot: fingerprint.E1}]
	s.ix.mu.RUnlock()
	if within == nil || within.IsEmpty() || d == nil {
		return nil, nil
	}
	hits, err := d.Search(v, NearCandidates, within)
	if err != nil {
		return nil, fmt.Errorf("look for near-duplicates: %w", err)
	}
	var docs []record.DocNum
	var cos []float64
	for _, h := range hits {
		if float64(h.Score) >= floor {
			docs = append(docs, h.Doc)
			cos = append(cos, float64(h.Score))
		}
	}
	return s.judgeNear(ctx, fp, content, docs, cos)
}

// judgeNear reads the candidates docs (E1 cosines cos) and makes their
// evidence, the near-duplicate decision of those at the threshold and,
// when content is given, the judge's verdict; a candidate no longer stored
// is dropped.
func (s *Engine) judgeNear(ctx context.Context, fp *fingerprint.Fingerprint, content string, docs []record.DocNum, cos []float64) ([]nearCandidate, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	th := s.nearDup
	ms, found, err := s.cellar.PeekDocs(ctx, docs)
	if err != nil {
		return nil, fmt.Errorf("look for near-duplicates: %w", err)
	}
	var ids []record.ID
	var keep []int
	for i := range ms {
		if found[i] {
			ids, keep = append(ids, ms[i].ID), append(keep, i)
		}
	}
	all := make([]bool, len(ids))
	for i := range all {
		all[i] = true
	}
	fps, err := s.storedFingerprints(ctx, ids, all, fingerprint.E6, fingerprint.E11) // their evidence: the E1 cosine is the hit's
	if err != nil {
		return nil, fmt.Errorf("look for near-duplicates: %w", err)
	}
	terms := termSet(fp)
	names := nameSet(fp)
	newText := contradict.NewText(content) // judged against every candidate: its marker and tokens once
	var out []nearCandidate
	for j, i := range keep {
		if fps[j] == nil {
			continue
		}
		c := nearCandidate{doc: docs[i], cos: cos[i]}
		sim := record.Similar{ID: ids[j], E1: cos[i], E6: fingerprint.SortedJaccard(terms, termSet(fps[j])), E11: 1}
		other := nameSet(fps[j])
		if len(names)+len(other) > 0 {
			sim.E11 = fingerprint.SortedJaccard(names, other)
		}
		if content != "" {
			id, content := ids[j], ms[i].Content
			if conflict, ok := judgeConflict(func() contradict.Words { return s.judged.words(id, content) }, newText, sim); ok {
				c.conflict = &conflict
			}
		}
		if sim.E1 >= th.E1 {
			th.decide(&sim)
			c.similar = &sim
		}
		out = append(out, c)
	}
	return out, nil
}

// emitNear returns the similar memories and contradictions of cands, in
// their order.
func emitNear(cands []nearCandidate) ([]record.Similar, []record.Contradiction) {
	var out []record.Similar
	var conflicts []record.Contradiction
	for _, c := range cands {
		if c.conflict != nil {
			conflicts = append(conflicts, *c.conflict)
		}
		if c.similar != nil {
			out = append(out, *c.similar)
		}
	}
	return out, conflicts
}

func termSet(fp *fingerprint.Fingerprint) []string {
	tf, _ := fp.Get(fingerprint.E6).Value.(fingerprint.TermFreqs)
	return sortedSet(tf.Terms)
}

func nameSet(fp *fingerprint.Fingerprint) []string {
	switch e := fp.Get(fingerprint.E11).Value.(type) {
	case fingerprint.Entities:
		return sortedSet(e.Names)
	case *fingerprint.Entities:
		return sortedSet(e.Names)
	}
	return nil
}

func sortedSet(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
