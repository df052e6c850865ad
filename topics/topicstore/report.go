package topicstore

import (
	"fmt"

	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/topics"
)

// Report is how an Analysis is shown: the shared body of `cgraph topics
// --json` and the MCP detect_topics result, so the two cannot drift apart.
// Callers add what only they have (divergence, the saved flag, stability
// details) beside it.
type Report struct {
	Memories   int           `json:"memories"`
	Threshold  float64       `json:"threshold"`
	Reachable  float64       `json:"reachable_agreement"`
	Topics     []TopicReport `json:"topics"`
	Unassigned int           `json:"unassigned"`
	Slots      []SlotReport  `json:"slots"`
	Notes      []string      `json:"notes"`
}

// TopicReport is one detected topic.
type TopicReport struct {
	Topic         int      `json:"topic"`
	Size          int      `json:"size"`
	Terms         []string `json:"terms"`
	MeanAgreement float64  `json:"mean_agreement"`
	MinAgreement  float64  `json:"min_agreement"`
	// SlotSupport is, per slot, the share of member pairs co-clustered.
	SlotSupport map[string]float64 `json:"slot_support"`
	Members     []Member           `json:"members"`
	// Stability and Jaccard compare the topic with the previous snapshot
	// (CompareWith); empty and 0 without one.
	Stability string  `json:"stability,omitempty"`
	Jaccard   float64 `json:"jaccard_with_previous"`
}

// Member is a memory listed in a topic or cluster.
type Member struct {
	ID      record.ID `json:"id"`
	Snippet string    `json:"snippet"`
}

// SlotReport is one slot's clustering.
type SlotReport struct {
	Slot     string  `json:"slot"`
	Weight   float64 `json:"weight"`
	Items    int     `json:"with_value"`
	Clusters int     `json:"clusters"`
	Noise    int     `json:"noise"`
	Skipped  string  `json:"skipped,omitempty"`
}

// Members lists the items idx of a, at most max of them (0: all), their
// snippets cut to snippetLen runes (0: as analysed).
func (a *Analysis) Members(idx []int, max, snippetLen int) []Member {
	out := []Member{}
	for _, i := range idx {
		if max > 0 && len(out) == max {
			break
		}
		s := a.Items[i].Snippet
		if snippetLen > 0 {
			s = Snippet(s, snippetLen)
		}
		out = append(out, Member{ID: a.Items[i].ID, Snippet: s})
	}
	return out
}

// Report builds the report of a: members per topic as Members(max,
// snippetLen), and notes for memories left out and for slots that cannot
// reach the topic threshold; modelsHint tells the reader where to see which
// slots have models (a command or a tool name).
func (a *Analysis) Report(max, snippetLen int, modelsHint string) Report {
	d := a.Detection
	r := Report{Memories: len(a.Items), Threshold: d.Threshold, Reachable: d.Reachable,
		Topics: []TopicReport{}, Slots: []SlotReport{}, Notes: []string{}}
	for i, t := range d.Topics {
		tr := TopicReport{Topic: i, Size: len(t.Members), Terms: t.Terms, MeanAgreement: t.MeanAgreement, MinAgreement: t.MinAgreement,
			SlotSupport: map[string]float64{}, Members: a.Members(t.Members, max, snippetLen)}
		if tr.Terms == nil {
			tr.Terms = []string{}
		}
		for _, sh := range t.Slots {
			tr.SlotSupport[sh.Slot.String()] = sh.Share
		}
		r.Topics = append(r.Topics, tr)
	}
	for _, l := range d.Labels {
		if l == topics.Noise {
			r.Unassigned++
		}
	}
	for _, sc := range d.Slots {
		r.Slots = append(r.Slots, SlotReport{Slot: sc.Slot.String(), Weight: sc.Weight, Items: sc.Items, Clusters: sc.Clusters, Noise: sc.Noise, Skipped: sc.Skipped})
	}
	if a.Skipped > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("only the newest %d memories were analysed (%d older ones left out: clustering is O(n²) per slot)", len(a.Items), a.Skipped))
	}
	if d.Reachable < d.Threshold {
		r.Notes = append(r.Notes, fmt.Sprintf("the slots that could be clustered reach an agreement of at most %.1f, below the topic threshold %.1f: no topic can form until more slots have models (%s)", d.Reachable, d.Threshold, modelsHint))
	}
	return r
}

// CompareWith marks each topic of r (built from a) with its stability
// against the previous snapshot prev and returns the comparison.
func (r *Report) CompareWith(prev topics.Snapshot, a *Analysis) topics.Stability {
	st := topics.Compare(prev, a.Snapshot())
	for _, ts := range st.Topics {
		r.Topics[ts.Topic].Stability, r.Topics[ts.Topic].Jaccard = ts.Status, ts.Jaccard
	}
	return st
}
