package pipeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// pipeline runs S1–S4; validate runs S5.
func (r *run) pipeline() ([]*cand, error) {
	rs, err := r.recall()
	if err != nil {
		return nil, err
	}
	if rs.cands.IsEmpty() {
		for _, st := range []Stage{StageFilter, StageFusion, StageRerank} {
			r.trace(st, time.Now(), 0, "no candidates: no recall source returned any (see spaces)")
		}
		return nil, nil
	}
	filtered, err := r.filter(rs)
	if err != nil {
		return nil, err
	}
	top, err := r.fusion(rs, filtered)
	if err != nil {
		return nil, err
	}
	// S4 rerank with E12 MaxSim as one more WRRF list over the fused top.
	start := time.Now()
	top, note, err := r.rerank(top)
	if err != nil {
		return nil, err
	}
	r.trace(StageRerank, start, len(top), note)
	return top, nil
}

// recallSet is what S1 found: the candidates, those a source ranks in its
// top FusionK (protected from the S2 filter), and the first source that
// returned hits — its order backs S2, its ranks show in the explanation.
type recallSet struct {
	cands, protected *roaring.Bitmap
	slot             fingerprint.SlotID
	order            []Hit
	rank             map[record.DocNum]SlotScore
}

// recall is S1: the union of sparse recall (E13 where it has a model, and
// E6), dense recall (E1 ANN) and the profile's extra recall slots, all
// searched in parallel. Each source's top FusionK is protected from the S2
// filter, so S3 sees every document some recall source ranks high.
func (r *run) recall() (recallSet, error) {
	start := time.Now()
	jobs := []job{
		{probe: recallProbe, k: r.req.RecallK, weight: r.weight(fingerprint.E13)},
		{probe: recallFallback, k: r.req.RecallK, weight: r.weight(fingerprint.E6)},
		{probe: denseRecallProbe, k: r.req.DenseRecallK, weight: r.weight(fingerprint.E1)},
	}
	for _, s := range r.req.Profile.ExtraRecall {
		jobs = append(jobs, job{probe: Probe{Slot: s}, k: r.req.FusionK, weight: r.weight(s)})
	}
	outs, err := r.searchAll(StageRecall, jobs)
	if err != nil {
		return recallSet{}, err
	}
	rs := recallSet{cands: roaring.New(), protected: roaring.New(), rank: make(map[record.DocNum]SlotScore)}
	var notes []string
	for i, o := range outs {
		s := jobs[i].probe.Slot
		notes = append(notes, fmt.Sprintf("%s k=%d %d (%s)", jobs[i].probe, jobs[i].k, len(o.hits), o.status))
		if len(o.hits) == 0 {
			continue
		}
		if rs.slot == 0 {
			rs.slot, rs.order = s, o.hits
			for rank, h := range o.hits {
				rs.rank[h.Doc] = SlotScore{Rank: rank, Score: h.Score}
			}
		}
		for rank, h := range o.hits {
			rs.cands.Add(uint32(h.Doc))
			if rank < r.req.FusionK {
				rs.protected.Add(uint32(h.Doc))
			}
		}
	}
	r.trace(StageRecall, start, int(rs.cands.GetCardinality()), "union of "+strings.Join(notes, ", "))
	return rs, nil
}

// filter is S2: E1 Matryoshka-128 over the recall set (or, without it,
// the first FilterK of the recall order), plus the protected candidates.
func (r *run) filter(rs recallSet) (*roaring.Bitmap, error) {
	start := time.Now()
	outs, err := r.searchAll(StageFilter, []job{{probe: filterProbe, k: r.req.FilterK, within: rs.cands, weight: r.weight(fingerprint.E1)}})
	if err != nil {
		return nil, err
	}
	filtered := roaring.New()
	var note string
	if outs[0].status != StatusOK {
		for i, h := range rs.order {
			if i >= r.req.FilterK {
				break
			}
			filtered.Add(uint32(h.Doc))
		}
		note = fmt.Sprintf("E1-M128 %s: kept the first %d of %s's recall order", outs[0].status, r.req.FilterK, rs.slot)
	} else {
		for _, h := range outs[0].hits {
			filtered.Add(uint32(h.Doc))
		}
		note = fmt.Sprintf("E1-M128 top %d", r.req.FilterK)
	}
	before := filtered.GetCardinality()
	filtered.Or(rs.protected)
	note += fmt.Sprintf("; %d more kept past the filter as a recall source's top %d", filtered.GetCardinality()-before, r.req.FusionK)
	r.trace(StageFilter, start, int(filtered.GetCardinality()), note)
	return filtered, nil
}

// fusion is S3: every fused slot, each scoring the whole filtered set,
// fused by WRRF; a candidate the recall source ranked but no fused slot
// lists shows that rank with contribution 0.
func (r *run) fusion(rs recallSet, filtered *roaring.Bitmap) ([]*cand, error) {
	start := time.Now()
	n := int(filtered.GetCardinality())
	lists, err := r.slotLists(StageFusion, r.fusionSlots(), n, filtered, r.weight)
	if err != nil {
		return nil, err
	}
	raw := slices.Clone(lists) // fuse re-weighs and boosts lists in place
	top, notes, err := r.fuse(StageFusion, lists, r.req.FusionK)
	if err != nil {
		return nil, err
	}
	notes = append([]string{fmt.Sprintf("%s, kept %d", r.req.Fusion.note(len(lists)), r.req.FusionK)}, notes...)
	r.trace(StageFusion, start, len(top), joinNotes(notes))
	if top, err = r.feedback(raw, n, filtered, top); err != nil {
		return nil, err
	}
	for _, c := range top {
		if s, ok := rs.rank[c.doc]; ok {
			if _, fusedToo := c.slots[rs.slot]; !fusedToo {
				c.slots[rs.slot] = s // recall only: contribution 0
			}
		}
	}
	return top, nil
}

func docsOf(cands []*cand) *roaring.Bitmap {
	b := roaring.New()
	for _, c := range cands {
		b.Add(uint32(c.doc))
	}
	return b
}

// rerank adds E12's WRRF contribution to the fused top and re-sorts. E12
// never brings in new documents.
func (r *run) rerank(top []*cand) ([]*cand, string, error) {
	w, src := r.weight(fingerprint.E12), "profile"
	if w == 0 {
		if r.req.RerankSkip != "" {
			r.skip(StageRerank, fingerprint.E12, r.req.RerankSkip)
			return top, "skipped: " + r.req.RerankSkip, nil
		}
		w, src = r.req.RerankWeight, "rerank weight: the profile gives E12 none"
	}
	if len(top) == 0 {
		return top, "no candidates", nil
	}
	outs, err := r.searchAll(StageRerank, []job{{probe: rerankProbe, k: len(top), within: docsOf(top), weight: w}})
	if err != nil {
		return nil, "", err
	}
	if outs[0].status != StatusOK {
		return top, fmt.Sprintf("E12 %s: rerank skipped, fused order kept", outs[0].status), nil
	}
	byDoc := make(map[record.DocNum]*cand, len(top))
	for _, c := range top {
		byDoc[c.doc] = c
	}
	contrib := Contributions(r.req.Fusion, outs[0].hits, w)
	for rank, h := range outs[0].hits {
		c := byDoc[h.Doc]
		c.score += contrib[rank]
		c.slots[fingerprint.E12] = SlotScore{Rank: rank, Score: h.Score, Contribution: contrib[rank]}
	}
	sortCands(top)
	return top, fmt.Sprintf("E12 MaxSim weight %g (%s)", w, src), nil
}

func sortCands(cs []*cand) {
	slices.SortStableFunc(cs, func(a, b *cand) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.doc, b.doc)
	})
}

// Badge names for the temporal slots, given when the slot's score reaches its
// High threshold.
var badgeNames = map[fingerprint.SlotID]string{
	fingerprint.E2: "recent",
	fingerprint.E3: "periodic",
	fingerprint.E4: "in_sequence",
}

// thresholded reports whether a slot's scores are similarities that the
// fingerprint thresholds apply to. E6 (BM25) and E13 (SPLADE) scores are
// unbounded; temporal slots badge instead.
func thresholded(s fingerprint.SlotID) bool { return s.Info().Thresholded }

func level(s fingerprint.SlotID, score float64) string {
	in := s.Info()
	switch {
	case score >= in.High:
		return "high"
	case score < in.Low:
		return "low"
	}
	return "mid"
}

// validate is S5: per-slot thresholds, temporal badges (tie-break only, or
// weighted in temporal profiles of fusion modes), top-k. It fills r.res.Hits.
func (r *run) validate(cands []*cand) error {
	start := time.Now()
	kept, note := r.thresholds(cands)
	notes := []string{note}
	if len(kept) > 0 {
		note, err := r.badges(kept)
		if err != nil {
			return err
		}
		notes = append(notes, note)
	}
	// Badges reorder only equal scores (unless weighted above, where they
	// already moved the scores themselves).
	slices.SortStableFunc(kept, func(a, b *cand) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.tie, a.tie); c != 0 {
			return c
		}
		return cmp.Compare(a.doc, b.doc)
	})
	if len(kept) > r.req.TopK {
		kept = kept[:r.req.TopK]
	}
	for _, c := range kept {
		badges := c.badges
		if badges == nil {
			badges = []string{}
		}
		r.res.Hits = append(r.res.Hits, ResultHit{Doc: c.doc, Score: c.score, Slots: c.slots, Boosts: c.boosts, Badges: badges})
	}
	r.trace(StageValidate, start, len(r.res.Hits), joinNotes(notes))
	return nil
}

// thresholds sets each thresholded slot's level and keeps the candidates
// that pass at least one (all of them with NoThresholds).
func (r *run) thresholds(cands []*cand) (kept []*cand, note string) {
	kept = cands[:0:0]
	dropped := 0
	for _, c := range cands {
		has, pass := false, false
		for s, sc := range c.slots {
			if !thresholded(s) {
				continue
			}
			sc.Level = level(s, sc.Score)
			c.slots[s] = sc
			has = true
			pass = pass || sc.Level != "low"
		}
		if has && !pass && !r.req.NoThresholds {
			dropped++
			continue
		}
		kept = append(kept, c)
	}
	if r.req.NoThresholds {
		return kept, "thresholds off"
	}
	return kept, fmt.Sprintf("dropped %d below every slot's Low threshold", dropped)
}

// badges scores the kept candidates in the temporal slots: a score at a
// slot's High threshold earns its badge (a tie-break), and in a temporal
// profile of a fusion mode each slot's rank also adds its WRRF
// contribution.
func (r *run) badges(kept []*cand) (note string, err error) {
	fusion := r.req.Mode == ModePipeline || r.req.Mode == ModeMultiSpace
	weighted := fusion && r.req.Profile.Temporal
	docs := docsOf(kept)
	var jobs []job
	for _, s := range badgeSlots {
		w := 0.0
		if weighted {
			w = r.weight(s)
		}
		jobs = append(jobs, job{probe: Probe{Slot: s}, k: len(kept), within: docs, weight: w})
	}
	outs, err := r.searchAll(StageValidate, jobs)
	if err != nil {
		return "", err
	}
	byDoc := make(map[record.DocNum]*cand, len(kept))
	for _, c := range kept {
		byDoc[c.doc] = c
	}
	reordered := false
	for i, o := range outs {
		s := jobs[i].probe.Slot
		contrib := Contributions(r.req.Fusion, o.hits, jobs[i].weight)
		for rank, h := range o.hits {
			c := byDoc[h.Doc]
			if jobs[i].weight > 0 {
				c.score += contrib[rank]
				reordered = true
			}
			c.slots[s] = SlotScore{Rank: rank, Score: h.Score, Contribution: contrib[rank]}
			if h.Score >= s.Info().High {
				c.badges = append(c.badges, badgeNames[s])
				c.tie++
			}
		}
	}
	if reordered {
		return "temporal profile: E2–E4 weighted after retrieval", nil
	}
	return "temporal badges break ties only", nil
}
