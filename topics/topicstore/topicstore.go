// Package topicstore runs package topics over a memory store and keeps topic
// snapshots in the store's topic_profiles column family, for `cgraph topics`
// and the MCP analysis tools (detect_topics, get_topic_stability,
// get_divergence_alerts).
//
// # Snapshot encoding
//
//	value  "CGTP" + format version (uint16 big-endian, 1) + JSON of topics.Snapshot
//
// The engine keeps the values by time in its topic_profiles family
// (engine/FORMAT.md); Save keeps the newest MaxSnapshots. A value that does
// not decode is reported as corrupt, never skipped.
//
// It reads memories through the small Source interface and keeps snapshots
// through Snapshots; engine.Engine implements both.
package topicstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/topics"
)

// MaxSnapshots is how many snapshots Save keeps.
const MaxSnapshots = 32

const (
	magic   = "CGTP"
	version = uint16(1)
)

// Source is what Analyze reads: every memory with its fingerprint.
// engine.Engine implements it.
type Source interface {
	EachFingerprint(ctx context.Context, fn func(m record.Memory, fp *fingerprint.Fingerprint) error) error
}

// Item is one analysed memory, without its full content.
type Item struct {
	ID        record.ID
	Type      record.Type
	Session   string
	CreatedAt time.Time
	Snippet   string // the content's start, one line
}

// Analysis is one run of topic detection over a store.
type Analysis struct {
	Time      time.Time
	Items     []Item // in doc-number order; topics' member indexes point here
	Detection topics.Detection
	// Skipped counts the older memories left out to stay within
	// MaxMemories.
	Skipped int
	fps     []*fingerprint.Fingerprint
}

// MaxMemories bounds the memories one analysis clusters: the newest
// MaxMemories (by doc number) are kept and Analysis.Skipped counts the rest.
// Clustering is O(n²) per slot: about 85 ms per slot at 1,000 memories
// (BenchmarkClusterSlot), so about 2 s per slot at this bound.
const MaxMemories = 5000

// SnippetRunes bounds Item.Snippet.
const SnippetRunes = 160

// Snippet returns the start of content on one line, at most n runes.
func Snippet(content string, n int) string {
	s := strings.Join(strings.Fields(content), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Analyze loads every memory's fingerprint from src and detects topics.
// Cost: one pass over the fingerprints plus topics.Detect (O(n²) per slot).
func Analyze(ctx context.Context, src Source, cfg topics.Config) (*Analysis, error) {
	a, err := Load(ctx, src)
	if err != nil {
		return nil, err
	}
	if a.Detection, err = topics.Detect(a.fps, cfg); err != nil {
		return nil, err
	}
	return a, nil
}

// Load reads every memory's fingerprint from src without detecting topics
// (for ClusterSlot alone). Cost: one pass over the fingerprints.
func Load(ctx context.Context, src Source) (*Analysis, error) {
	a := &Analysis{Time: time.Now().UTC()}
	err := src.EachFingerprint(ctx, func(m record.Memory, fp *fingerprint.Fingerprint) error {
		a.Items = append(a.Items, Item{ID: m.ID, Type: m.Type, Session: m.Session, CreatedAt: m.CreatedAt, Snippet: Snippet(m.Content, SnippetRunes)})
		a.fps = append(a.fps, fp)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read fingerprints: %w", err)
	}
	if n := len(a.Items); n > MaxMemories {
		a.Skipped = n - MaxMemories
		a.Items = slices.Clone(a.Items[a.Skipped:])
		a.fps = slices.Clone(a.fps[a.Skipped:])
	}
	return a, nil
}

// ClusterSlot clusters the analysed memories in one slot's space.
func (a *Analysis) ClusterSlot(s fingerprint.SlotID, cfg topics.Config) (topics.SlotClustering, error) {
	return topics.ClusterSlot(s, a.fps, cfg)
}

// Snapshot is the analysis' topic assignment by memory id.
func (a *Analysis) Snapshot() topics.Snapshot {
	snap := topics.Snapshot{Time: a.Time, Universe: make([]string, len(a.Items))}
	for i, it := range a.Items {
		snap.Universe[i] = it.ID.String()
	}
	slices.Sort(snap.Universe)
	for _, t := range a.Detection.Topics {
		ids := make([]string, len(t.Members))
		for k, m := range t.Members {
			ids[k] = a.Items[m].ID.String()
		}
		slices.Sort(ids)
		snap.Topics = append(snap.Topics, ids)
		snap.Terms = append(snap.Terms, t.Terms)
	}
	return snap
}

// Divergence checks the newest `recent` memories (by creation time) against
// the members of the detected topics — or, when there is no topic, against
// every other memory — in the 7 semantic slots (topics.Divergence).
// reference says which of the two was used.
func (a *Analysis) Divergence(recent int) (r topics.DivergenceReport, targets []int, reference string) {
	order := make([]int, len(a.Items))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return a.Items[order[x]].CreatedAt.After(a.Items[order[y]].CreatedAt) })
	targets = order[:min(recent, len(order))]
	var ref []int
	for i, l := range a.Detection.Labels {
		if l != topics.Noise {
			ref = append(ref, i)
		}
	}
	reference = "topic members"
	if len(ref) == 0 {
		reference = "all other memories (no topic detected)"
		ref = order
	}
	return topics.Divergence(a.fps, targets, ref), targets, reference
}

// Snapshots is where snapshots are kept: engine.Engine implements it.
type Snapshots interface {
	SaveTopicSnapshot(ctx context.Context, at time.Time, value []byte, keep int) error
	LatestTopicSnapshot(ctx context.Context) (value []byte, at time.Time, ok bool, err error)
}

// Save stores snap and drops all but the newest MaxSnapshots. It needs the
// writer lock.
func Save(ctx context.Context, st Snapshots, snap topics.Snapshot) error {
	val, err := encode(snap)
	if err != nil {
		return err
	}
	return st.SaveTopicSnapshot(ctx, snap.Time, val, MaxSnapshots)
}

// Latest returns the newest saved snapshot; ok is false when none is saved.
func Latest(ctx context.Context, st Snapshots) (snap topics.Snapshot, ok bool, err error) {
	val, at, ok, err := st.LatestTopicSnapshot(ctx)
	if err != nil || !ok {
		return snap, false, err
	}
	if snap, err = decode(val); err != nil {
		return snap, false, fmt.Errorf("topic snapshot of %s: %w", at.Format(time.RFC3339Nano), err)
	}
	return snap, true, nil
}

func encode(s topics.Snapshot) ([]byte, error) {
	body, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode topic snapshot: %w", err)
	}
	out := binary.BigEndian.AppendUint16([]byte(magic), version)
	return append(out, body...), nil
}

func decode(b []byte) (topics.Snapshot, error) {
	var s topics.Snapshot
	if len(b) < len(magic)+2 || string(b[:len(magic)]) != magic {
		return s, fmt.Errorf("topic snapshot: %w: no %q magic", record.ErrCorrupt, magic)
	}
	if v := binary.BigEndian.Uint16(b[len(magic):]); v != version {
		return s, fmt.Errorf("topic snapshot: %w: format version %d, this build reads %d", record.ErrCorrupt, v, version)
	}
	dec := json.NewDecoder(bytes.NewReader(b[len(magic)+2:]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("topic snapshot: %w: %v", record.ErrCorrupt, err)
	}
	return s, nil
}
