package topics

import (
	"fmt"
	"slices"
	"sort"

	"github.com/cgraph/cgraph/fingerprint"
)

// Threshold is the weighted agreement at or above which two memories are in
// one topic (ARCH-09).
const Threshold = 2.5

// MaxAgreement is the agreement of two memories that share a cluster in every
// slot: 7 semantic × 1.0 + 2 relational × 0.5 + 1 structural × 0.5.
const MaxAgreement = 8.5

// Config tunes Detect. Zero values take the defaults.
type Config struct {
	// MinClusterSize is HDBSCAN's min_cluster_size in every slot and the
	// smallest topic; default 3.
	MinClusterSize int
	// MinSamples is HDBSCAN's min_samples (scikit-learn's convention);
	// default 2, so that small stores of a few dozen memories still show
	// dense groups.
	MinSamples int
	// Threshold is the agreement a pair needs; default Threshold (2.5).
	Threshold float64
}

func (c Config) withDefaults() Config {
	if c.MinClusterSize == 0 {
		c.MinClusterSize = 3
	}
	if c.MinSamples == 0 {
		c.MinSamples = 2
	}
	if c.Threshold == 0 {
		c.Threshold = Threshold
	}
	return c
}

// SlotLabels is one slot's clustering of the memories: Labels[i] is memory
// i's cluster in that slot's space, or Noise (also when the memory has no
// value in the slot).
type SlotLabels struct {
	Slot   fingerprint.SlotID
	Labels []int
}

// SlotClustering reports what HDBSCAN found in one slot.
type SlotClustering struct {
	SlotLabels
	Weight   float64 // the slot's topic weight
	Items    int     // memories with a value in the slot
	Clusters int
	Noise    int // memories with a value labelled noise
	// Skipped says why the slot was not clustered (temporal, no values,
	// fewer memories than MinClusterSize); empty when it was.
	Skipped string
}

// SlotShare is how far one slot supports a topic: the fraction of member
// pairs that share a cluster in it.
type SlotShare struct {
	Slot  fingerprint.SlotID
	Share float64
}

// Topic is a group of memories that agree across slots.
type Topic struct {
	// Members are indexes into Detect's input, ascending.
	Members []int
	// MeanAgreement and MinAgreement are over all member pairs; MinAgreement
	// may be below the threshold when a member joins through another (see
	// Group).
	MeanAgreement, MinAgreement float64
	// Slots lists the slots that support the topic (share > 0), highest
	// share first.
	Slots []SlotShare
	// Terms are the topic's most distinctive E6 keywords (highest summed
	// TF-IDF over the members), for a readable label; empty without E6.
	Terms []string
}

// Detection is the outcome of Detect.
type Detection struct {
	Slots  []SlotClustering
	Topics []Topic
	// Labels[i] is memory i's topic (index into Topics) or Noise.
	Labels []int
	// Reachable is the largest agreement the clustered slots allow (the sum
	// of their weights); below Threshold no topic can form, which happens
	// when the model-backed slots are unavailable.
	Reachable float64
	Threshold float64
}

// Detect clusters the memories' fingerprints with HDBSCAN in each
// non-temporal slot's space (see space for the view of each kind) and groups
// them into topics with Group. fps[i] is memory i; a nil fingerprint is a
// memory with no values. Cost: O(n²) similarities per slot.
func Detect(fps []*fingerprint.Fingerprint, cfg Config) (Detection, error) {
	cfg = cfg.withDefaults()
	det := Detection{Threshold: cfg.Threshold}
	var labels []SlotLabels
	e6 := false
	for _, s := range fingerprint.Slots() {
		sc, err := clusterSlot(s, fps, cfg)
		if err != nil {
			return Detection{}, err
		}
		if sc.Skipped == "" {
			if s == fingerprint.E6 {
				e6 = true
			}
			det.Reachable += sc.Weight
			labels = append(labels, sc.SlotLabels)
		}
		det.Slots = append(det.Slots, sc)
	}
	det.Topics, det.Labels = Group(len(fps), labels, cfg.Threshold, cfg.MinClusterSize)
	if e6 {
		for t := range det.Topics {
			det.Topics[t].Terms = topTerms(fps, det.Topics[t].Members, 5)
		}
	}
	return det, nil
}

// ClusterSlot runs HDBSCAN over the memories' values in one slot's space
// (the view described in the package doc). A temporal slot, a slot nobody
// holds and a slot held by fewer than MinClusterSize memories are returned
// with Skipped saying so.
func ClusterSlot(s fingerprint.SlotID, fps []*fingerprint.Fingerprint, cfg Config) (SlotClustering, error) {
	if !s.Valid() {
		return SlotClustering{}, fmt.Errorf("invalid slot %d", uint8(s))
	}
	return clusterSlot(s, fps, cfg.withDefaults())
}

func clusterSlot(s fingerprint.SlotID, fps []*fingerprint.Fingerprint, cfg Config) (SlotClustering, error) {
	sc := SlotClustering{SlotLabels: SlotLabels{Slot: s, Labels: noiseLabels(len(fps))}, Weight: s.TopicWeight()}
	sp := newSpace(s, fps)
	switch {
	case sp == nil:
		sc.Skipped = "temporal slot: topic weight 0"
		return sc, nil
	case len(sp.items) == 0:
		sc.Skipped = "no memory holds a value (slot unavailable)"
		return sc, nil
	case len(sp.items) < cfg.MinClusterSize:
		sc.Items = len(sp.items)
		sc.Skipped = fmt.Sprintf("%d memories hold a value, fewer than min_cluster_size %d", len(sp.items), cfg.MinClusterSize)
		return sc, nil
	}
	sc.Items = len(sp.items)
	items := sp.items
	cl, err := HDBSCAN(len(items), func(a, b int) float64 { return sp.distance(items[a], items[b]) },
		HDBSCANOptions{MinClusterSize: cfg.MinClusterSize, MinSamples: cfg.MinSamples})
	if err != nil {
		return sc, fmt.Errorf("cluster slot %s: %w", s, err)
	}
	for k, i := range items {
		sc.Labels[i] = cl.Labels[k]
		if cl.Labels[k] == Noise {
			sc.Noise++
		}
	}
	sc.Clusters = cl.K()
	return sc, nil
}

func noiseLabels(n int) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = Noise
	}
	return l
}

// Agreement is the weighted agreement of memories a and b (ARCH-09): the sum,
// over the given slots, of the slot's topic weight when a and b share a
// cluster in it (both not Noise, same label). Temporal slots weigh 0.
func Agreement(labels []SlotLabels, a, b int) float64 {
	var s float64
	for _, sl := range labels {
		if la := sl.Labels[a]; la != Noise && la == sl.Labels[b] {
			s += sl.Slot.TopicWeight()
		}
	}
	return s
}

// Group forms topics from per-slot clusterings of n memories by complete
// linkage over the agreement: starting from single memories, the two groups
// whose weakest cross pair agrees most are merged, as long as that weakest
// pair's Agreement is at least threshold. So every two members of a topic
// agree at ≥ threshold (MinAgreement ≥ threshold); groups smaller than
// minSize (at least 2) are not topics. Ties merge the lowest-numbered groups
// first, so the result is deterministic. Topics are ordered by size, then by
// first member; labels[i] is memory i's topic or Noise. Cost O(n²·slots) for
// the agreement matrix (n² float32) and about O(n²) for the merges.
func Group(n int, labels []SlotLabels, threshold float64, minSize int) ([]Topic, []int) {
	parent := mergeGroups(agreementMatrix(n, labels), float32(threshold))
	return topicsOf(parent, labels, minSize)
}

// agreementMatrix is the Agreement of every pair of the n memories (n²
// float32, symmetric).
func agreementMatrix(n int, labels []SlotLabels) [][]float32 {
	ag := make([][]float32, n)
	for a := range n {
		ag[a] = make([]float32, n)
		for b := range a {
			v := float32(Agreement(labels, a, b))
			ag[a][b], ag[b][a] = v, v
		}
	}
	return ag
}

// mergeGroups runs the complete-linkage merges over ag (which it
// overwrites) while the best pair of groups agrees at ≥ th, and returns
// each memory's parent: following parents from a memory reaches its
// group's lowest member. ag[a][b] is the agreement between groups a and b
// (the minimum over their cross pairs); a group is named by its lowest
// member, alive while it has not been merged into another.
func mergeGroups(ag [][]float32, th float32) []int {
	n := len(ag)
	alive := make([]bool, n)
	parent := make([]int, n)
	for i := range alive {
		alive[i], parent[i] = true, i
	}
	// best[a] is a's partner of highest agreement among alive groups.
	best := make([]int, n)
	rowBest := func(a int) {
		best[a] = -1
		for b := range n {
			if b != a && alive[b] && (best[a] < 0 || ag[a][b] > ag[a][best[a]]) {
				best[a] = b
			}
		}
	}
	for a := range n {
		rowBest(a)
	}
	for {
		x, y := -1, -1
		for a := range n {
			if !alive[a] || best[a] < 0 {
				continue
			}
			if x < 0 || ag[a][best[a]] > ag[x][y] {
				x, y = a, best[a]
			}
		}
		if x < 0 || ag[x][y] < th {
			return parent
		}
		if y < x {
			x, y = y, x
		}
		// Merge y into x: complete linkage keeps the weaker agreement.
		alive[y] = false
		parent[y] = x
		for b := range n {
			if alive[b] && b != x {
				v := min(ag[x][b], ag[y][b])
				ag[x][b], ag[b][x] = v, v
			}
		}
		for a := range n {
			if alive[a] && (a == x || best[a] == x || best[a] == y) {
				rowBest(a)
			}
		}
	}
}

// topicsOf turns the merged groups into topics (groups of at least
// minSize, and 2), ordered by size, then by first member, and each
// memory's topic label (or Noise).
func topicsOf(parent []int, labels []SlotLabels, minSize int) ([]Topic, []int) {
	n := len(parent)
	find := func(x int) int {
		for parent[x] != x {
			x = parent[x]
		}
		return x
	}
	groups := map[int][]int{}
	for i := range n {
		r := find(i)
		groups[r] = append(groups[r], i)
	}
	var topics []Topic
	for _, m := range groups {
		if len(m) < max(minSize, 2) {
			continue
		}
		topics = append(topics, describe(m, labels))
	}
	sort.Slice(topics, func(i, j int) bool {
		if len(topics[i].Members) != len(topics[j].Members) {
			return len(topics[i].Members) > len(topics[j].Members)
		}
		return topics[i].Members[0] < topics[j].Members[0]
	})
	out := noiseLabels(n)
	for t, tp := range topics {
		for _, i := range tp.Members {
			out[i] = t
		}
	}
	return topics, out
}

// describe computes a topic's agreement figures and supporting slots.
func describe(members []int, labels []SlotLabels) Topic {
	slices.Sort(members)
	t := Topic{Members: members, MinAgreement: MaxAgreement}
	shared := make([]int, len(labels))
	pairs := 0
	for x := range members {
		for y := x + 1; y < len(members); y++ {
			a, b := members[x], members[y]
			ag := Agreement(labels, a, b)
			t.MeanAgreement += ag
			t.MinAgreement = min(t.MinAgreement, ag)
			pairs++
			for k, sl := range labels {
				if la := sl.Labels[a]; la != Noise && la == sl.Labels[b] {
					shared[k]++
				}
			}
		}
	}
	t.MeanAgreement /= float64(pairs)
	for k, sl := range labels {
		if shared[k] > 0 {
			t.Slots = append(t.Slots, SlotShare{Slot: sl.Slot, Share: float64(shared[k]) / float64(pairs)})
		}
	}
	sort.SliceStable(t.Slots, func(i, j int) bool { return t.Slots[i].Share > t.Slots[j].Share })
	return t
}

// topTerms returns the k E6 terms with the highest TF-IDF summed over the
// members (idf over all fps), ties by term.
func topTerms(fps []*fingerprint.Fingerprint, members []int, k int) []string {
	df := map[string]int{}
	docs := 0
	tfs := make([]fingerprint.TermFreqs, len(fps))
	for i, fp := range fps {
		if fp == nil {
			continue
		}
		if tf, ok := fp.Get(fingerprint.E6).Value.(fingerprint.TermFreqs); ok {
			tfs[i] = tf
			docs++
			for _, t := range tf.Terms {
				df[t]++
			}
		}
	}
	score := map[string]float64{}
	for _, i := range members {
		tf := tfs[i]
		for j, t := range tf.Terms {
			if df[t] < 2 && len(members) > 1 {
				continue // a term of one memory does not name a topic
			}
			score[t] += float64(tf.Counts[j]) * (logIDF(docs, df[t]))
		}
	}
	terms := make([]string, 0, len(score))
	for t := range score {
		terms = append(terms, t)
	}
	sort.Slice(terms, func(i, j int) bool {
		if score[terms[i]] != score[terms[j]] {
			return score[terms[i]] > score[terms[j]]
		}
		return terms[i] < terms[j]
	})
	return terms[:min(k, len(terms))]
}
