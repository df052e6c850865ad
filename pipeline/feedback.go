package pipeline

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// Pseudo-relevance feedback constants (Request.Feedback). The top N fused
// documents are taken as relevant; the dense slots move their query towards
// them (Rocchio) and E6 adds their best terms (RM3), then S3 fuses again.
const (
	// MaxFeedback bounds Request.Feedback: more documents than this are no
	// longer "the few best" and dilute the query.
	MaxFeedback = 20
	// FeedbackAlpha and FeedbackBeta are Rocchio's weights:
	// q' = normalize(α·q + β·mean(doc vectors)).
	FeedbackAlpha = 1.0
	FeedbackBeta  = 0.5
	// FeedbackTerms is how many expansion terms RM3 adds to the E6 query.
	FeedbackTerms = 10
	// FeedbackTermWeight is the query weight of the best expansion term (one
	// occurrence of a typed term weighs 1); the others scale by their
	// relevance-model weight.
	FeedbackTermWeight = 0.3
)

// feedbackSlots are the slots feedback re-searches: the dense E1 and E5
// (Rocchio) and the keyword E6 (RM3).
var feedbackSlots = []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E6}

// Expander is the optional side of Spaces that pseudo-relevance feedback
// needs. Expand returns Spaces for the same store and query with the E1 and
// E5 query vectors moved towards docs (Rocchio) and the E6 query expanded by
// their terms (RM3), and what it changed. It must not modify the receiver:
// the other stages keep searching with the typed query.
type Expander interface {
	Expand(ctx context.Context, docs []Hit) (Spaces, Expansion, error)
}

// WeightedTerm is one E6 query term and its query weight.
type WeightedTerm struct {
	Term   string
	Weight float64
}

// Expansion is what feedback changed, for --explain.
type Expansion struct {
	// Slots are the slots whose query moved (those with a query view and
	// stored vectors or terms of the feedback documents).
	Slots []fingerprint.SlotID
	// Terms are the E6 expansion terms, best first.
	Terms []WeightedTerm
}

// Rocchio returns normalize(alpha·q + beta·mean(docs)); nil vectors in docs
// (documents with none in this space) are skipped. With no document vector it
// returns a copy of q. It panics if a vector's length differs from q's.
func Rocchio(q []float32, docs [][]float32, alpha, beta float64) []float32 {
	sum := make([]float64, len(q))
	n := 0
	for _, d := range docs {
		if d == nil {
			continue
		}
		if len(d) != len(q) {
			panic(fmt.Sprintf("pipeline: Rocchio: document vector has %d dims, query %d", len(d), len(q)))
		}
		for i, x := range d {
			sum[i] += float64(x)
		}
		n++
	}
	out := make([]float32, len(q))
	if n == 0 {
		copy(out, q)
		return out
	}
	var norm float64
	v := make([]float64, len(q))
	for i := range q {
		v[i] = alpha*float64(q[i]) + beta*sum[i]/float64(n)
		norm += v[i] * v[i]
	}
	if norm == 0 {
		copy(out, q)
		return out
	}
	norm = math.Sqrt(norm)
	for i := range v {
		out[i] = float32(v[i] / norm)
	}
	return out
}

// FeedbackDoc is one feedback document's E6 terms and its fused score.
type FeedbackDoc struct {
	Terms fingerprint.TermFreqs
	Score float64
}

// RM3 returns up to n expansion terms for the query terms: each term t of the
// documents weighs Σ_d P(t|d)·P(d) · idf(t), with P(t|d) = tf/|d| and P(d)
// the documents' scores normalised to sum 1 (equal when they do not sum to a
// positive number), idf the corpus weight that keeps words every document
// has from leading. Terms already in the query are left out. The best term
// gets weight top, the others top·w/w_best. Ties go to the smaller term.
func RM3(query []string, docs []FeedbackDoc, idf func(string) float64, n int, top float64) []WeightedTerm {
	if n <= 0 || len(docs) == 0 {
		return nil
	}
	var total float64
	for _, d := range docs {
		if d.Score > 0 {
			total += d.Score
		}
	}
	inQuery := make(map[string]bool, len(query))
	for _, t := range query {
		inQuery[t] = true
	}
	w := map[string]float64{}
	for _, d := range docs {
		pd := 1 / float64(len(docs))
		if total > 0 {
			pd = max(d.Score, 0) / total
		}
		dl := float64(d.Terms.DocLen())
		if dl == 0 || pd == 0 {
			continue
		}
		for i, t := range d.Terms.Terms {
			if inQuery[t] {
				continue
			}
			w[t] += float64(d.Terms.Counts[i]) / dl * pd
		}
	}
	out := make([]WeightedTerm, 0, len(w))
	for t, p := range w {
		if s := p * idf(t); s > 0 {
			out = append(out, WeightedTerm{Term: t, Weight: s})
		}
	}
	slices.SortFunc(out, func(a, b WeightedTerm) int {
		switch {
		case a.Weight > b.Weight:
			return -1
		case a.Weight < b.Weight:
			return 1
		}
		return strings.Compare(a.Term, b.Term)
	})
	if len(out) > n {
		out = out[:n]
	}
	if len(out) > 0 {
		best := out[0].Weight
		for i := range out {
			out[i].Weight = top * out[i].Weight / best
		}
	}
	return out
}

// feedback is the second S3 round of Request.Feedback: the top N of top are
// taken as relevant, the feedback slots among lists are searched again with
// the expanded query (k hits each, inside within when non-nil), and the lists
// fused again. lists must be the raw slot lists of the first round (before
// fuse re-weighed or boosted them). With Feedback 0 it returns top unchanged.
func (r *run) feedback(lists []RankedList, k int, within *roaring.Bitmap, top []*cand) ([]*cand, error) {
	n := r.req.Feedback
	if n == 0 {
		return top, nil
	}
	start := time.Now()
	ex, ok := r.sp.(Expander)
	if !ok {
		r.trace(StageFeedback, start, len(top), "feedback skipped: these spaces cannot expand a query")
		return top, nil
	}
	if len(top) == 0 {
		r.trace(StageFeedback, start, 0, "feedback skipped: no fused documents")
		return top, nil
	}
	docs := make([]Hit, 0, n)
	for _, c := range top[:min(n, len(top))] {
		docs = append(docs, Hit{Doc: c.doc, Score: c.score})
	}
	sp, exp, err := ex.Expand(r.ctx, docs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", StageFeedback, err)
	}
	var slots []fingerprint.SlotID
	for _, l := range lists {
		if slices.Contains(exp.Slots, l.Slot) {
			slots = append(slots, l.Slot)
		}
	}
	note := fmt.Sprintf("top %d documents %s", len(docs), docList(docs))
	if len(slots) == 0 {
		r.trace(StageFeedback, start, len(top), note+"; nothing to expand: the profile fuses none of E1, E5, E6 with a query view here")
		return top, nil
	}
	orig := r.sp
	r.sp = sp
	again, err := r.slotLists(StageFeedback, slots, k, within, r.weight)
	r.sp = orig
	if err != nil {
		return nil, err
	}
	lists = slices.Clone(lists)
	for _, l := range again {
		if i := slices.IndexFunc(lists, func(x RankedList) bool { return x.Slot == l.Slot }); i >= 0 {
			lists[i] = l
		}
	}
	out, notes, err := r.fuse(StageFeedback, lists, r.req.FusionK)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(slots))
	for i, s := range slots {
		names[i] = s.String()
	}
	note += fmt.Sprintf("; re-searched %s (Rocchio α=%g β=%g on dense, RM3 on E6)", strings.Join(names, ", "), FeedbackAlpha, FeedbackBeta)
	if len(exp.Terms) > 0 && slices.Contains(slots, fingerprint.E6) {
		ts := make([]string, len(exp.Terms))
		for i, t := range exp.Terms {
			ts[i] = fmt.Sprintf("%s %.2f", t.Term, t.Weight)
		}
		note += "; E6 expansion terms: " + strings.Join(ts, ", ")
	}
	r.trace(StageFeedback, start, len(out), joinNotes(append([]string{note}, notes...)))
	return out, nil
}

func docList(hs []Hit) string {
	ds := make([]string, len(hs))
	for i, h := range hs {
		ds[i] = fmt.Sprint(h.Doc)
	}
	return "[" + strings.Join(ds, " ") + "]"
}

// checkFeedback validates Request.Feedback.
func checkFeedback(n int) error {
	if n < 0 || n > MaxFeedback {
		return &record.ValidationError{Field: "feedback", Problem: fmt.Sprintf("is %d documents", n),
			Fix: fmt.Sprintf("give 0 (off) or 1 to %d; 3 is typical", MaxFeedback)}
	}
	return nil
}
