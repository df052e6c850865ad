package topics

import (
	"slices"
	"sort"
	"time"
)

// Snapshot is a saved topic assignment: which memories (by key, the memory id
// text) formed which topic at a time. It is what the store keeps in
// topic_profiles and what stability compares.
type Snapshot struct {
	Time time.Time `json:"time"`
	// Universe holds every memory clustered, sorted: stability compares
	// only memories present in both snapshots, so additions and deletions
	// are not counted as topic change.
	Universe []string `json:"universe"`
	// Topics hold each topic's member keys, sorted.
	Topics [][]string `json:"topics"`
	// Terms label the topics (Detection's E6 terms), parallel to Topics.
	Terms [][]string `json:"terms,omitempty"`
}

// Topic stability statuses.
const (
	StatusStable  = "stable"  // best Jaccard ≥ StableJaccard
	StatusChanged = "changed" // some common members, Jaccard below StableJaccard
	StatusNew     = "new"     // no member in any earlier topic
)

// StableJaccard is the membership Jaccard at or above which a topic counts as
// stable.
const StableJaccard = 0.8

// TopicStability is one current topic compared with the previous snapshot.
type TopicStability struct {
	Topic int `json:"topic"` // index into the current snapshot's Topics
	// Previous is the best-matching previous topic, −1 when none shares a
	// member.
	Previous int     `json:"previous"`
	Jaccard  float64 `json:"jaccard"`
	Status   string  `json:"status"`
}

// Stability compares two snapshots.
type Stability struct {
	Previous, Current time.Time
	// Common is the number of memories in both universes: the only ones
	// compared.
	Common int
	// Overall is the mean best-match Jaccard of the current topics, each
	// weighted by its size on the common memories; 1 when neither snapshot
	// has a topic on them (nothing changed), 0 when exactly one has.
	Overall float64
	Topics  []TopicStability
	// Vanished are previous topics that no current topic shares a member
	// with.
	Vanished []int
}

// Compare measures how the topics of cur continue those of prev (ARCH-09
// stability over time): each topic restricted to the memories both snapshots
// clustered, matched to the previous topic with the highest Jaccard of
// membership. Cost O(total members · log).
func Compare(prev, cur Snapshot) Stability {
	common := map[string]bool{}
	inPrev := map[string]bool{}
	for _, k := range prev.Universe {
		inPrev[k] = true
	}
	for _, k := range cur.Universe {
		if inPrev[k] {
			common[k] = true
		}
	}
	restrict := func(ts [][]string) [][]string {
		out := make([][]string, len(ts))
		for i, t := range ts {
			for _, k := range t {
				if common[k] {
					out[i] = append(out[i], k)
				}
			}
			slices.Sort(out[i])
		}
		return out
	}
	p, c := restrict(prev.Topics), restrict(cur.Topics)
	st := Stability{Previous: prev.Time, Current: cur.Time, Common: len(common)}
	matched := make([]bool, len(p))
	var weighted, total float64
	for i, ct := range c {
		ts := TopicStability{Topic: i, Previous: -1, Status: StatusNew}
		for j, pt := range p {
			jac := jaccardSorted(ct, pt)
			if jac > 0 {
				matched[j] = true
			}
			if jac > ts.Jaccard {
				ts.Jaccard, ts.Previous = jac, j
			}
		}
		switch {
		case ts.Jaccard >= StableJaccard:
			ts.Status = StatusStable
		case ts.Jaccard > 0:
			ts.Status = StatusChanged
		}
		st.Topics = append(st.Topics, ts)
		weighted += ts.Jaccard * float64(len(ct))
		total += float64(len(ct))
	}
	var prevTotal int
	for j, pt := range p {
		prevTotal += len(pt)
		if !matched[j] {
			st.Vanished = append(st.Vanished, j)
		}
	}
	switch {
	case total > 0:
		st.Overall = weighted / total
	case prevTotal == 0:
		st.Overall = 1
	}
	sort.Ints(st.Vanished)
	return st
}

// jaccardSorted is |a ∩ b| / |a ∪ b| of two sorted sets; 0 when both are empty.
func jaccardSorted(a, b []string) float64 { return jaccard(a, b) }
