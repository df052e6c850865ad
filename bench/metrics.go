package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Metric definitions. They follow BEIR's evaluation (beir/retrieval/evaluation.py),
// which calls pytrec_eval (trec_eval) with "ndcg_cut.k", "map_cut.k", "recall.k",
// "P.k" and computes MRR@k itself:
//
//   - ndcg@k: DCG = Σ_{i=1..k} rel_i / log2(i+1), with the judged grade as the
//     gain (trec_eval's linear gain, not 2^rel−1); the ideal DCG sorts all of the
//     query's judged grades in descending order and cuts at k. Negative grades
//     count as 0.
//   - mrr@k: 1/rank of the first relevant (rel > 0) document within the top k, 0
//     if none; mrr without a cutoff looks at the whole ranking (recip_rank).
//   - recall@k: |relevant ∩ top k| / |relevant|.
//   - p@k: |relevant ∩ top k| / k (trec_eval P_k: a short ranking is not
//     forgiven).
//   - map@k: trec_eval's map_cut at k: Σ over relevant documents at rank i ≤ k
//     of precision@i, divided by the number of relevant documents (all of them,
//     not min(k, R)). "map" alone is map@100 (MAPCutoff), as BEIR reports it.
//
// "Relevant" includes judged documents absent from the corpus: they count in
// the denominators and can never be retrieved, as in pytrec_eval.
//
// Differences from pytrec_eval, on purpose: the ranking is taken in the order
// the retriever returned it (trec_eval re-sorts by score and breaks ties by
// document id descending), and a document id repeated in a ranking keeps its
// rank position but earns nothing the second time, so duplicates can never
// raise a score. Consequently MRR ≤ 1 and Recall ≤ 1 hold by construction.
// TestMetricsMatchPytrecEval pins every kind against pytrec_eval 0.5.11 on 40
// random queries (testdata/trec).

// MAPCutoff is the depth at which "map" is cut (trec_eval map_cut.100).
const MAPCutoff = 100

// Metrics maps a metric name ("ndcg@10") to its value, for one query or as a
// mean over a run. A run's per-query Metrics all hold the same names.
type Metrics map[string]float64

// MetricNames lists the default metrics, in report order.
var MetricNames = []string{"ndcg@10", "mrr@10", "recall@10", "recall@100", "map"}

// Get returns the metric with the given name; ok is false when m lacks it.
func (m Metrics) Get(name string) (v float64, ok bool) {
	v, ok = m[name]
	return v, ok
}

// metricKind is what a Metric measures; its cutoff is separate.
type metricKind int

const (
	kindNDCG metricKind = iota + 1
	kindMRR
	kindRecall
	kindPrecision
	kindMAP
)

// metricKinds maps the accepted spellings to kinds; the first spelling of a
// kind is its canonical name.
var metricKinds = []struct {
	names []string
	kind  metricKind
	cut   bool // a cutoff is required
}{
	{[]string{"ndcg", "ndcg_cut"}, kindNDCG, true},
	{[]string{"mrr", "recip_rank"}, kindMRR, false},
	{[]string{"recall"}, kindRecall, true},
	{[]string{"p", "precision", "prec"}, kindPrecision, true},
	{[]string{"map", "map_cut"}, kindMAP, false},
}

// MetricForms is the list of accepted metric forms, for help and errors.
const MetricForms = "ndcg@k, mrr@k, mrr, recall@k, p@k, map@k, map (= map@100)"

// Metric is a parsed metric name: a kind and a cutoff. Name is canonical
// ("precision@5" parses to "p@5"); it is the key in Metrics and in reports.
type Metric struct {
	Name string
	kind metricKind
	K    int // cutoff; 0 = the whole ranking (mrr only)
}

// ParseMetric parses "ndcg@10", "recall@100", "map", "mrr@10", "p@5" (also
// "precision@5", and trec_eval's "ndcg_cut_10", "P_5", "recall_100",
// "map_cut_100"). Cutoffs are positive integers.
func ParseMetric(s string) (Metric, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	name, cut, hasCut := strings.Cut(in, "@")
	if !hasCut {
		if i := strings.LastIndexByte(in, '_'); i > 0 {
			if _, err := strconv.Atoi(in[i+1:]); err == nil {
				name, cut, hasCut = in[:i], in[i+1:], true
			}
		}
	}
	for _, mk := range metricKinds {
		if !slices.Contains(mk.names, name) {
			continue
		}
		canon := mk.names[0]
		if !hasCut {
			switch {
			case mk.kind == kindMAP:
				return Metric{Name: "map", kind: kindMAP, K: MAPCutoff}, nil
			case !mk.cut:
				return Metric{Name: canon, kind: mk.kind}, nil
			}
			return Metric{}, fmt.Errorf("metric %q needs a cutoff, e.g. %s@10", s, canon)
		}
		k, err := strconv.Atoi(cut)
		if err != nil || k <= 0 {
			return Metric{}, fmt.Errorf("metric %q: cutoff %q is not a positive integer", s, cut)
		}
		return Metric{Name: canon + "@" + strconv.Itoa(k), kind: mk.kind, K: k}, nil
	}
	return Metric{}, fmt.Errorf("unknown metric %q: use %s", s, MetricForms)
}

// ParseMetrics parses a list of metric names, refusing duplicates (after
// canonicalisation) and an empty list.
func ParseMetrics(names []string) ([]Metric, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("no metric given: use %s", MetricForms)
	}
	out := make([]Metric, 0, len(names))
	seen := map[string]bool{}
	for _, n := range names {
		m, err := ParseMetric(n)
		if err != nil {
			return nil, err
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("metric %s given twice", m.Name)
		}
		seen[m.Name] = true
		out = append(out, m)
	}
	return out, nil
}

// defaultMetrics are MetricNames parsed.
func defaultMetrics() []Metric {
	ms, err := ParseMetrics(MetricNames)
	if err != nil {
		panic(fmt.Sprintf("bench: default metrics do not parse: %v", err)) // a broken invariant
	}
	return ms
}

// MaxCutoff returns the deepest cutoff among ms: a ranking shorter than it
// cannot score those metrics fully. Metrics without cutoff count as 0.
func MaxCutoff(ms []Metric) int {
	k := 0
	for _, m := range ms {
		k = max(k, m.K)
	}
	return k
}

// Value computes the metric of one ranking against one query's judgements.
func (m Metric) Value(ranking []DocID, judged map[DocID]int) float64 {
	k := m.K
	if k == 0 {
		k = len(ranking)
	}
	switch m.kind {
	case kindNDCG:
		return NDCG(ranking, judged, k)
	case kindMRR:
		return MRR(ranking, judged, k)
	case kindRecall:
		return Recall(ranking, judged, k)
	case kindPrecision:
		return Precision(ranking, judged, k)
	case kindMAP:
		return AveragePrecision(ranking, judged, k)
	}
	panic(fmt.Sprintf("bench: metric %q has no kind: build it with ParseMetric", m.Name))
}

// Evaluate computes the default metrics (MetricNames) of one ranking.
func Evaluate(ranking []DocID, judged map[DocID]int) Metrics {
	return EvaluateMetrics(ranking, judged, defaultMetrics())
}

// EvaluateMetrics computes ms for one ranking against one query's judgements.
func EvaluateMetrics(ranking []DocID, judged map[DocID]int, ms []Metric) Metrics {
	out := make(Metrics, len(ms))
	for _, m := range ms {
		out[m.Name] = m.Value(ranking, judged)
	}
	return out
}

// Mean averages per-query metrics name by name over all of ms (a name missing
// from one query counts as 0 there); it returns an empty Metrics for none.
func Mean(ms []Metrics) Metrics {
	s := Metrics{}
	for _, m := range ms {
		for k, v := range m {
			s[k] += v
		}
	}
	for k := range s {
		s[k] /= float64(len(ms))
	}
	return s
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
	slices.Sort(grades)
	slices.Reverse(grades)
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

// hits counts the distinct relevant documents within the top k.
func hits(ranking []DocID, judged map[DocID]int, k int) int {
	n := 0
	firstSeen(ranking, judged, k, func(_, rel int) {
		if rel > 0 {
			n++
		}
	})
	return n
}

// Recall returns |relevant ∩ top k| / |relevant|, 0 when nothing is relevant.
func Recall(ranking []DocID, judged map[DocID]int, k int) float64 {
	r := numRelevant(judged)
	if r == 0 {
		return 0
	}
	return float64(hits(ranking, judged, k)) / float64(r)
}

// Precision returns |relevant ∩ top k| / k (trec_eval P_k), 0 for k ≤ 0.
func Precision(ranking []DocID, judged map[DocID]int, k int) float64 {
	if k <= 0 {
		return 0
	}
	return float64(hits(ranking, judged, k)) / float64(k)
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
