package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/topics"
	"github.com/cgraph/cgraph/topics/topicstore"
)

// TopicsStore is what Topics needs of a store; *engine.Engine is one.
type TopicsStore interface {
	topicstore.Source
	topicstore.Snapshots
	ReadOnly() bool
}

// TopicsRequest asks for the store's topics.
type TopicsRequest struct {
	// Config are HDBSCAN's parameters (zero: its defaults).
	Config topics.Config
	// Shown is how many members each topic lists (0: all) and how many
	// runes a member's snippet keeps (0: all).
	Shown, SnippetRunes int
	// SlotHint is what the report tells to see a slot's model (a face's
	// own command or tool).
	SlotHint string
	// Compare compares the topics with the last saved snapshot.
	Compare bool
	// Save saves this result as the newest snapshot (a read-only store
	// cannot: the answer notes it).
	Save bool
}

// TopicsAnswer is the topics, the analysis they came from (for divergence
// checks), and their stability against the previous snapshot when one was
// asked for and exists.
type TopicsAnswer struct {
	Report   topicstore.Report
	Analysis *topicstore.Analysis
	// Previous is when the snapshot compared with was saved; Stability is
	// nil when there was none (or Compare was not asked).
	Previous  time.Time
	Stability *topics.Stability
	Saved     bool
}

// Topics detects the store's topics (HDBSCAN per non-temporal slot,
// grouped by weighted agreement), compares them with the last snapshot and
// saves this one, as asked. Cost: every fingerprint is read and clustered.
func Topics(ctx context.Context, s TopicsStore, r TopicsRequest) (TopicsAnswer, error) {
	a, err := topicstore.Analyze(ctx, s, r.Config)
	if err != nil {
		return TopicsAnswer{}, err
	}
	out := TopicsAnswer{Report: a.Report(r.Shown, r.SnippetRunes, r.SlotHint), Analysis: a}
	if r.Compare {
		prev, ok, err := topicstore.Latest(ctx, s)
		if err != nil {
			return TopicsAnswer{}, err
		}
		if ok {
			st := out.Report.CompareWith(prev, a)
			out.Previous, out.Stability = prev.Time, &st
		}
	}
	switch {
	case !r.Save:
	case s.ReadOnly():
		out.Report.Notes = append(out.Report.Notes, "snapshot not saved: the store is open read-only (another process holds its writer lock)")
	default:
		if err := topicstore.Save(ctx, s, a.Snapshot()); err != nil {
			return TopicsAnswer{}, fmt.Errorf("save the topic snapshot: %w", err)
		}
		out.Saved = true
	}
	return out, nil
}
