package engine

import (
	"context"
	"fmt"
	"maps"
	"math"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/record"
)

var _ pipeline.Expander = (*spaces)(nil)

// Expand is pseudo-relevance feedback's view of the store (pipeline.Expander):
// a copy of sp whose E1 and E5 query vectors are moved towards the stored
// vectors of docs (pipeline.Rocchio, per view against the side it is compared
// with) and whose E6 query gains the docs' best terms (pipeline.RM3 over
// their stored term frequencies). sp itself is not changed. A slot with no
// query view or no stored representation of any doc is left out of the
// Expansion. REQUIRES: the store's mu held shared, as for Search.
func (sp *spaces) Expand(ctx context.Context, docs []pipeline.Hit) (pipeline.Spaces, pipeline.Expansion, error) {
	q := &queryViews{views: maps.Clone(sp.q.views), missing: sp.q.missing, session: sp.q.session}
	out := *sp
	out.q = q
	var exp pipeline.Expansion
	nums := make([]record.DocNum, len(docs))
	for i, h := range docs {
		nums[i] = h.Doc
	}
	for _, key := range []viewKey{{slot: fingerprint.E1}, {slot: fingerprint.E5, against: fingerprint.SideA}, {slot: fingerprint.E5, against: fingerprint.SideB}} {
		v, ok := q.views[key]
		if !ok {
			continue
		}
		qv := denseOf(v)
		if pr, isPair := v.(fingerprint.Pair); isPair {
			qv = pr.Get(key.against.Opposite())
		}
		sp.ix.mu.RLock()
		d := sp.ix.dense[spaceKey{key.slot, key.against}]
		sp.ix.mu.RUnlock()
		if len(qv) == 0 || d == nil {
			continue
		}
		vecs := make([][]float32, len(nums))
		found := false
		for i, n := range nums {
			if vecs[i] = d.Vector(n); vecs[i] != nil {
				if len(vecs[i]) != len(qv) {
					return nil, exp, fmt.Errorf("feedback: %s: doc %d has %d dims, the query %d", key.slot, n, len(vecs[i]), len(qv))
				}
				found = true
			}
		}
		if !found {
			continue
		}
		q.views[key] = fingerprint.Dense(pipeline.Rocchio(qv, vecs, pipeline.FeedbackAlpha, pipeline.FeedbackBeta))
		if len(exp.Slots) == 0 || exp.Slots[len(exp.Slots)-1] != key.slot {
			exp.Slots = append(exp.Slots, key.slot)
		}
	}
	if v, ok := q.views[viewKey{slot: fingerprint.E6}]; ok {
		tf, isTF := v.(fingerprint.TermFreqs)
		if isTF && len(tf.Terms) > 0 {
			fds, err := sp.feedbackTerms(ctx, nums, docs)
			if err != nil {
				return nil, exp, err
			}
			n := float64(sp.ix.bm25.Stats().Docs)
			idf := func(t string) float64 {
				df := float64(sp.ix.bm25.DocFreq(t))
				return math.Log(1 + (n-df+0.5)/(df+0.5))
			}
			if terms := pipeline.RM3(tf.Terms, fds, idf, pipeline.FeedbackTerms, pipeline.FeedbackTermWeight); len(terms) > 0 {
				q.e6Extra = terms
				exp.Terms = terms
				exp.Slots = append(exp.Slots, fingerprint.E6)
			}
		}
	}
	return &out, exp, nil
}

// feedbackTerms reads the stored E6 term frequencies of docs (nums are
// their doc numbers) from their fingerprints; a deleted doc or one without
// E6 terms is skipped.
func (sp *spaces) feedbackTerms(ctx context.Context, nums []record.DocNum, docs []pipeline.Hit) ([]pipeline.FeedbackDoc, error) {
	ms, found, err := sp.s.cellar.PeekDocs(ctx, nums)
	if err != nil {
		return nil, fmt.Errorf("feedback: read documents: %w", err)
	}
	var keys [][]byte
	var scores []float64
	for i := range ms {
		if found[i] {
			keys = append(keys, ms[i].ID[:])
			scores = append(scores, docs[i].Score)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	vals, err := sp.s.cellar.Values(ctx, cellar.FamFingerprints, keys)
	if err != nil {
		return nil, fmt.Errorf("feedback: read fingerprints: %w", err)
	}
	var out []pipeline.FeedbackDoc
	for i, b := range vals {
		if b == nil {
			continue
		}
		fp, err := fingerprint.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("feedback: fingerprints/%x: %w", keys[i], err)
		}
		if tf, ok := fp.Get(fingerprint.E6).Value.(fingerprint.TermFreqs); ok && len(tf.Terms) > 0 {
			out = append(out, pipeline.FeedbackDoc{Terms: tf, Score: scores[i]})
		}
	}
	return out, nil
}
