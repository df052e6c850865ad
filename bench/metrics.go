package bench

import "math"

// Metric definitions. They follow BEIR's evaluation (beir/retrieval/evaluation.py),
// which calls pytrec_eval (trec_eval) with "ndcg_cut.k", "map_cut.k", "recall.k"
// and computes MRR@k itself:
//
//   - nDCG@k: DCG = Σ_{i=1..k} rel_i / log2(i+1), with the judged grade as the
//     gain (trec_eval's linear gain, not 2^rel−1); the ideal DCG sorts all of the
//     query's judged grades in descending order and cuts at k. Negative grades
//     count as 0.
//   - MRR@k: 1/rank of the first relevant (rel > 0) document within the top k, 0 if none.
//   - Recall@k: |relevant ∩ top k| / |relevant|.
//   - MAP: trec_eval's map_cut at k = 100 (BEIR reports MAP@k the same way):
//     Σ over relevant documents at rank i ≤ 100 of precision@i, divided by the
//     number of relevant documents (all of them, not min(k, R)).
//
// Differences from pytrec_eval, on purpose: the ranking is taken in the order
// the retriever returned it (trec_eval re-sorts by score and breaks ties by
// document id descending), and a document id repeated in a ranking keeps its
// rank position but earns nothing the second time, so duplicates can never
// raise a score. Consequently MRR ≤ 1 and Recall ≤ 1 hold by construction.
// TestMetricsMatchPytrecEval pins all five against pytrec_eval 0.5.11 on 40
// random queries (testdata/trec).

// MAPCutoff is the depth at which MAP is cut (trec_eval map_cut.100).
const MAPCutoff = 100

// Metrics holds the five headline figures of a run or of one query.
type Metrics struct {
	NDCG10    float64 `json:"ndcg@10"`
	MRR10     float64 `json:"mrr@10"`
	Recall10  float64 `json:"recall@10"`
	Recall100 float64 `json:"recall@100"`
	MAP       float64 `json:"map"`
}

// MetricNames lists the Metrics fields by their JSON names, in report order.
var MetricNames = []string{"ndcg@10", "mrr@10", "recall@10", "recall@100", "map"}

// Get returns the metric with the given JSON name; ok is false for an unknown name.
func (m Metrics) Get(name string) (v float64, ok bool) {
	switch name {
	case "ndcg@10":
		return m.NDCG10, true
	case "mrr@10":
		return m.MRR10, true
	case "recall@10":
		return m.Recall10, true
	case "recall@100":
		return m.Recall100, true
	case "map":
		return m.MAP, true
	}
	return 0, false
}

// Evaluate computes all headline metrics of one ranking against one query's judgements.
func Evaluate(ranking []DocID, judged map[DocID]int) Metrics {
	return Metrics{
		NDCG10:    NDCG(ranking, judged, 10),
		MRR10:     MRR(ranking, judged, 10),
		Recall10:  Recall(ranking, judged, 10),
		Recall100: Recall(ranking, judged, 100),
		MAP:       AveragePrecision(ranking, judged, MAPCutoff),
	}
}

// Mean averages per-query metrics field by field; it returns zeros for no queries.
func Mean(ms []Metrics) Metrics {
	var s Metrics
	if len(ms) == 0 {
		return s
	}
	for _, m := range ms {
		s.NDCG10 += m.NDCG10
		s.MRR10 += m.MRR10
		s.Recall10 += m.Recall10
		s.Recall100 += m.Recall100
		s.MAP += m.MAP
	}
	n := float64(len(ms))
	return Metrics{s.NDCG10 / n, s.MRR10 / n, s.Recall10 / n, s.Recall100 / n, s.MAP / n}
}

// firstSeen walks the top k of a ranking and calls fn with the 1-based rank
// and grade of each document's first occurrence; repeats are skipped.
func firstSeen(ranking []DocID, judged map[DocID]int, k int, fn func(rank, rel int)) {
	seen := make(map[DocID]bool, min(k, len(ranking)))
	for i, d := range ranking {
		if i >= k {
			break
		}
		if seen[d] {
			continue
		}
		seen[d] = true
		fn(i+1, judged[d])
	}
}

func numRelevant(judged map[DocID]int) int {
	n := 0
	for _, r := range judged {
		if r > 0 {
			n++
		}
	}
	return n
}

// NDCG returns nDCG@k with linear gain (see the package's metric notes).
// It is 0 when the query has no relevant judgement.
func NDCG(ranking []DocID, judged map[DocID]int, k int) float64 {
	var dcg float64
	firstSeen(ranking, judged, k, func(rank, rel int) {
		if rel > 0 {
			dcg += float64(rel) / math.Log2(float64(rank)+1)
		}
	})
	grades := make([]int, 0, len(judged))
	for _, r := range judged {
		if r > 0 {
			grades = append(grades, r)
		}
	}
	sortDesc(grades)
	var idcg float64
	for i, r := range grades {
		if i >= k {
			break
		}
		idcg += float64(r) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func sortDesc(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] > a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// MRR returns the reciprocal rank of the first relevant document within the top k.
func MRR(ranking []DocID, judged map[DocID]int, k int) float64 {
	rr := 0.0
	firstSeen(ranking, judged, k, func(rank, rel int) {
		if rr == 0 && rel > 0 {
			rr = 1 / float64(rank)
		}
	})
	return rr
}

// Recall returns |relevant ∩ top k| / |relevant|, 0 when nothing is relevant.
func Recall(ranking []DocID, judged map[DocID]int, k int) float64 {
	r := numRelevant(judged)
	if r == 0 {
		return 0
	}
	hit := 0
	firstSeen(ranking, judged, k, func(_, rel int) {
		if rel > 0 {
			hit++
		}
	})
	return float64(hit) / float64(r)
}

// AveragePrecision returns AP cut at k (trec_eval map_cut): the sum of
// precision@i over relevant documents at ranks i ≤ k, divided by the number of
// relevant documents.
func AveragePrecision(ranking []DocID, judged map[DocID]int, k int) float64 {
	r := numRelevant(judged)
	if r == 0 {
		return 0
	}
	hit, sum := 0, 0.0
	firstSeen(ranking, judged, k, func(rank, rel int) {
		if rel > 0 {
			hit++
			sum += float64(hit) / float64(rank)
		}
	})
	return sum / float64(r)
}
