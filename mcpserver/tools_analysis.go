package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/topics"
	"github.com/cgraph/cgraph/topics/topicstore"
)

// ---- session timeline (E4)

type timelineIn struct {
	Session string `json:"session" jsonschema:"the session id given to store_memory"`
	FromSeq int    `json:"from_seq,omitempty" jsonschema:"first sequence number to list (1-based); default 1"`
	Limit   int    `json:"limit,omitempty" jsonschema:"how many memories, 1 to 100; default 20"`
}

// TimelineEntry is one memory of a session in E4 order.
type TimelineEntry struct {
	Sequence  uint64      `json:"sequence"`
	ID        record.ID   `json:"id"`
	Type      record.Type `json:"type"`
	CreatedAt time.Time   `json:"created_at"`
	Snippet   string      `json:"snippet"`
}

type timelineOut struct {
	Session string          `json:"session"`
	Total   int             `json:"total"` // memories in the session
	Entries []TimelineEntry `json:"entries"`
	NextSeq uint64          `json:"next_seq,omitempty"` // from_seq of the next page, when there is one
}

func getSessionTimeline(ctx context.Context, s *Server, in timelineIn) (any, error) {
	if in.Session == "" {
		return nil, badArg("session", "give the session id used with store_memory", "is empty")
	}
	if len(in.Session) > record.MaxSessionBytes {
		return nil, badArg("session", fmt.Sprintf("session ids are at most %d bytes", record.MaxSessionBytes), "is %d bytes", len(in.Session))
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > maxTopK {
		return nil, badArg("limit", "give a number from 1 to 100", "%d is out of range", in.Limit)
	}
	if in.FromSeq < 0 {
		return nil, badArg("from_seq", "give a sequence number from 1", "%d is negative", in.FromSeq)
	}
	tl, err := s.store.SessionTimeline(ctx, in.Session, uint64(in.FromSeq), limit)
	if err != nil {
		return nil, err
	}
	if tl.Total == 0 {
		return nil, badArg("session", "check the id (store_memory's session argument, or the session field of a search result)", "no memory has session %q", in.Session)
	}
	out := timelineOut{Session: in.Session, Total: tl.Total, Entries: []TimelineEntry{}, NextSeq: tl.Next}
	for _, en := range tl.Entries {
		m := en.Memory
		out.Entries = append(out.Entries, TimelineEntry{Sequence: en.Seq, ID: m.ID, Type: m.Type, CreatedAt: m.CreatedAt.UTC(),
			Snippet: topicstore.Snippet(m.Content, snippetRunes)})
	}
	return out, nil
}

// ---- clusters and topics

type clusterParams struct {
	MinClusterSize int `json:"min_cluster_size,omitempty" jsonschema:"HDBSCAN min_cluster_size, 2 to 1000: the smallest group counted; default 3"`
	MinSamples     int `json:"min_samples,omitempty" jsonschema:"HDBSCAN min_samples (the point itself counted), 1 to 1000; default 2"`
}

func (p clusterParams) config() (topics.Config, error) {
	if p.MinClusterSize != 0 && (p.MinClusterSize < 2 || p.MinClusterSize > 1000) {
		return topics.Config{}, badArg("min_cluster_size", "give a number from 2 to 1000, or leave it out for 3", "%d is out of range", p.MinClusterSize)
	}
	if p.MinSamples != 0 && (p.MinSamples < 1 || p.MinSamples > 1000) {
		return topics.Config{}, badArg("min_samples", "give a number from 1 to 1000, or leave it out for 2", "%d is out of range", p.MinSamples)
	}
	return topics.Config{MinClusterSize: p.MinClusterSize, MinSamples: p.MinSamples}, nil
}

// Member is a memory listed in a cluster or topic.
type Member = topicstore.Member

func members(a *topicstore.Analysis, idx []int, max int) []Member {
	return a.Members(idx, max, 120)
}

type clustersIn struct {
	Embedder string `json:"embedder" jsonschema:"the slot whose space to cluster, e.g. E1 or code; temporal slots E2-E4 are not clustered"`
	clusterParams
	MembersShown int `json:"members_shown,omitempty" jsonschema:"members listed per cluster, 1 to 100; default 10"`
}

type clusterOut struct {
	Cluster int      `json:"cluster"`
	Size    int      `json:"size"`
	Members []Member `json:"members"`
}

// clustersOut is get_embedder_clusters' result: one slot's clustering.
type clustersOut struct {
	Embedder  string       `json:"embedder"`
	Memories  int          `json:"memories"`   // memories loaded
	WithValue int          `json:"with_value"` // of those, the ones with a value in the slot
	Noise     int          `json:"noise"`
	Skipped   string       `json:"skipped,omitempty"` // why the slot was not clustered
	Clusters  []clusterOut `json:"clusters"`
}

func getEmbedderClusters(ctx context.Context, s *Server, in clustersIn) (any, error) {
	slot, err := parseSlot("embedder", in.Embedder)
	if err != nil {
		return nil, err
	}
	if slot.Category() == engine.TemporalSlots {
		return nil, badArg("embedder", "give a non-temporal slot such as E1, E6 or E7; use get_session_timeline or search_recent for time", "%s is temporal: it has no space to cluster", slot)
	}
	cfg, err := in.config()
	if err != nil {
		return nil, err
	}
	shown := in.MembersShown
	if shown == 0 {
		shown = 10
	}
	if shown < 1 || shown > 100 {
		return nil, badArg("members_shown", "give a number from 1 to 100", "%d is out of range", in.MembersShown)
	}
	a, err := topicstore.Load(ctx, s.store)
	if err != nil {
		return nil, err
	}
	sc, err := a.ClusterSlot(slot, cfg)
	if err != nil {
		return nil, err
	}
	byCluster := make([][]int, sc.Clusters)
	for i, l := range sc.Labels {
		if l >= 0 {
			byCluster[l] = append(byCluster[l], i)
		}
	}
	out := clustersOut{Embedder: slot.String(), Memories: len(a.Items), WithValue: sc.Items, Noise: sc.Noise, Skipped: sc.Skipped,
		Clusters: []clusterOut{}}
	for c, idx := range byCluster {
		out.Clusters = append(out.Clusters, clusterOut{Cluster: c, Size: len(idx), Members: members(a, idx, shown)})
	}
	return out, nil
}

type topicsIn struct {
	clusterParams
	Save         *bool `json:"save,omitempty" jsonschema:"save this result as a snapshot in topic_profiles for later stability checks; default true on the writing server (read-only servers never save)"`
	MembersShown int   `json:"members_shown,omitempty" jsonschema:"members listed per topic, 1 to 100; default 10"`
}

// topicsOut is detect_topics' result: the report `cgraph topics --json`
// shares, plus the saved flag and the stability against the last snapshot.
type topicsOut struct {
	topicstore.Report
	Saved     bool          `json:"saved"`
	Stability *stabilityOut `json:"stability,omitempty"`
}

// detect runs ops.Topics with the tools' bounds on members_shown.
func (s *Server) detect(ctx context.Context, p clusterParams, shown int, compare, save bool) (ops.TopicsAnswer, error) {
	cfg, err := p.config()
	if err != nil {
		return ops.TopicsAnswer{}, err
	}
	if shown == 0 {
		shown = 10
	}
	if shown < 1 || shown > 100 {
		return ops.TopicsAnswer{}, badArg("members_shown", "give a number from 1 to 100", "%d is out of range", shown)
	}
	return ops.Topics(ctx, s.store, ops.TopicsRequest{Config: cfg, Shown: shown, SnippetRunes: 120, SlotHint: "see list_embedder_indexes",
		Compare: compare, Save: save})
}

type stabilityOut struct {
	Previous    *time.Time `json:"previous_snapshot"`
	Common      int        `json:"common_memories"`
	Overall     float64    `json:"overall"`
	Vanished    int        `json:"vanished_topics"`
	Explanation string     `json:"explanation"`
}

// topicsOutOf is a topics answer in the tools' shape.
func topicsOutOf(ans ops.TopicsAnswer) topicsOut {
	out := topicsOut{Report: ans.Report, Saved: ans.Saved}
	if st := ans.Stability; st != nil {
		t := ans.Previous
		out.Stability = &stabilityOut{Previous: &t, Common: st.Common, Overall: st.Overall, Vanished: len(st.Vanished),
			Explanation: "each topic restricted to memories present in both snapshots and matched to the previous topic of highest membership Jaccard; stable ≥ 0.8, changed > 0, new = no common member; overall = size-weighted mean Jaccard"}
	}
	return out
}

func detectTopics(ctx context.Context, s *Server, in topicsIn) (any, error) {
	ans, err := s.detect(ctx, in.clusterParams, in.MembersShown, true, in.Save == nil || *in.Save)
	if err != nil {
		return nil, err
	}
	return topicsOutOf(ans), nil
}

type stabilityIn struct {
	clusterParams
}

func getTopicStability(ctx context.Context, s *Server, in stabilityIn) (any, error) {
	ans, err := s.detect(ctx, in.clusterParams, 5, true, false)
	if err != nil {
		return nil, err
	}
	if ans.Stability == nil {
		return nil, fmt.Errorf("no topic snapshot saved yet: call detect_topics (on the writing server) first, then get_topic_stability later to see how the topics moved")
	}
	return topicsOutOf(ans), nil
}

type divergenceIn struct {
	Recent int `json:"recent,omitempty" jsonschema:"how many of the newest memories to check, 1 to 100; default 5"`
	clusterParams
	AllChecks bool `json:"all_checks,omitempty" jsonschema:"also list the checks that raised no alert"`
}

// CheckOut is one divergence measurement (its wire form,
// ops.DivergenceCheck).
type CheckOut = ops.DivergenceCheck

type divergenceOut struct {
	Checked    int        `json:"checked_memories"`
	Reference  string     `json:"reference"`
	Slots      []string   `json:"semantic_slots"`
	Unmeasured []string   `json:"unmeasured_slots"`
	Alerts     []CheckOut `json:"alerts"`
	Checks     []CheckOut `json:"checks,omitempty"`
	Rule       string     `json:"rule"`
}

func getDivergenceAlerts(ctx context.Context, s *Server, in divergenceIn) (any, error) {
	recent := in.Recent
	if recent == 0 {
		recent = 5
	}
	if recent < 1 || recent > 100 {
		return nil, badArg("recent", "give a number from 1 to 100", "%d is out of range", in.Recent)
	}
	ans, err := s.detect(ctx, in.clusterParams, 1, false, false)
	if err != nil {
		return nil, err
	}
	d := ops.DivergenceOf(ans.Analysis, recent)
	out := divergenceOut{Checked: d.Checked, Reference: d.Reference, Alerts: d.Alerts, Unmeasured: d.Unmeasured,
		Rule: "per semantic slot (E1 E5 E6 E7 E10 E12 E13 only), a memory's best similarity to any reference memory; high below 0.10, medium below 0.20"}
	for _, sl := range topics.SemanticSlots() {
		out.Slots = append(out.Slots, sl.String())
	}
	if in.AllChecks {
		out.Checks = d.Checks
	}
	return out, nil
}
