package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/topics"
	"github.com/cgraph/cgraph/topics/topicstore"
)

func init() { app.Register(newTopicsCmd) }

// topicsJSON is the --json form of `cgraph topics`: the report MCP's
// detect_topics shares, plus stability, divergence and the saved flag.
type topicsJSON struct {
	topicstore.Report
	Stability  *stabilityJSON        `json:"stability"`
	Divergence []ops.DivergenceAlert `json:"divergence_alerts"`
	Unmeasured []string              `json:"divergence_unmeasured_slots"`
	Saved      bool                  `json:"saved"`
}

type stabilityJSON struct {
	Previous time.Time `json:"previous_snapshot"`
	Common   int       `json:"common_memories"`
	Overall  float64   `json:"overall"`
	Vanished int       `json:"vanished_topics"`
}

func newTopicsCmd(a *app.App) *cobra.Command {
	var cfg topics.Config
	var noSave bool
	var recent int
	cmd := &cobra.Command{
		Use:   "topics",
		Short: "Detect topics across the embedder slots, their stability since the last run, and divergence alerts",
		Long: `topics clusters the memories with HDBSCAN in every non-temporal slot's space and groups
memories whose weighted agreement across slots is at least 2.5 (semantic slots 1.0, relational
and structural 0.5, temporal 0) into topics. It compares them with the last saved snapshot
(stability), checks the newest memories for divergence in the 7 semantic slots (high below
0.10, medium below 0.20) and saves a new snapshot in the store (unless --no-save, or the
store is in use by another writer).`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if cfg.MinClusterSize != 0 && cfg.MinClusterSize < 2 {
				return app.Usagef("give 2 or more", "--min-cluster-size %d is too small", cfg.MinClusterSize)
			}
			if cfg.MinSamples < 0 {
				return app.Usagef("give 1 or more, or 0 for the default", "--min-samples %d is negative", cfg.MinSamples)
			}
			if recent < 0 {
				return app.Usagef("give 0 (no check) or more", "--recent %d is negative", recent)
			}
			s, err := openStoreForTopics(a, noSave)
			if err != nil {
				return err
			}
			defer a.CloseStore(s, &err)
			ans, err := ops.Topics(a.Context(), s, ops.TopicsRequest{Config: cfg, SlotHint: "see `cgraph embedders`", Compare: true, Save: !noSave})
			if err != nil {
				return err
			}
			out := topicsReport(ans, recent)
			if a.JSON {
				return a.PrintJSON(out)
			}
			printTopics(a, out)
			return nil
		},
	}
	cmd.Flags().IntVar(&cfg.MinClusterSize, "min-cluster-size", 0, "HDBSCAN min_cluster_size and the smallest topic (default 3)")
	cmd.Flags().IntVar(&cfg.MinSamples, "min-samples", 0, "HDBSCAN min_samples, the point itself counted (default 2)")
	cmd.Flags().BoolVar(&noSave, "no-save", false, "do not save this result as a snapshot")
	cmd.Flags().IntVar(&recent, "recent", 5, "check the newest N memories for divergence (0: no check)")
	return cmd
}

// openStoreForTopics opens the store for writing (to save the snapshot), or
// read-only with --read-only, --no-save or when another process writes.
func openStoreForTopics(a *app.App, noSave bool) (*engine.Engine, error) {
	return app.WriterElseReader(a.ReadOnly || noSave, a.OpenStore, nil)
}

func topicsReport(ans ops.TopicsAnswer, recent int) topicsJSON {
	an := ans.Analysis
	out := topicsJSON{Report: ans.Report, Divergence: []ops.DivergenceAlert{}, Unmeasured: []string{}, Saved: ans.Saved}
	if st := ans.Stability; st != nil {
		out.Stability = &stabilityJSON{Previous: ans.Previous, Common: st.Common, Overall: st.Overall, Vanished: len(st.Vanished)}
	}
	if recent > 0 && len(an.Items) > 1 {
		d := ops.DivergenceOf(an, recent)
		for _, c := range d.Alerts {
			out.Divergence = append(out.Divergence, c.Alert())
		}
		out.Unmeasured = d.Unmeasured
	}
	return out
}

func printTopics(a *app.App, out topicsJSON) {
	a.Printf("%d memories, %d topics (agreement ≥ %.1f of at most %.1f reachable), %d unassigned\n",
		out.Memories, len(out.Topics), out.Threshold, out.Reachable, out.Unassigned)
	for _, t := range out.Topics {
		stab := ""
		if t.Stability != "" {
			stab = fmt.Sprintf("  %s (Jaccard %.2f)", t.Stability, t.Jaccard)
		}
		a.Printf("\ntopic %d: %d memories  [%s]  agreement mean %.2f min %.2f%s\n", t.Topic, t.Size, strings.Join(t.Terms, ", "), t.MeanAgreement, t.MinAgreement, stab)
		for _, m := range t.Members {
			a.Printf("  %s  %s\n", m.ID, snippetOf(m.Snippet, 90))
		}
	}
	a.Printf("\nslots:\n")
	for _, s := range out.Slots {
		if s.Skipped != "" {
			a.Printf("  %-4s w=%.1f  skipped: %s\n", s.Slot, s.Weight, s.Skipped)
			continue
		}
		a.Printf("  %-4s w=%.1f  %d clusters over %d memories, %d noise\n", s.Slot, s.Weight, s.Clusters, s.Items, s.Noise)
	}
	if out.Stability != nil {
		a.Printf("\nstability since %s: %.2f over %d common memories, %d topics vanished\n",
			out.Stability.Previous.UTC().Format(humanTime), out.Stability.Overall, out.Stability.Common, out.Stability.Vanished)
	}
	if len(out.Divergence) > 0 {
		a.Printf("\ndivergence alerts (semantic slots; high < 0.10, medium < 0.20):\n")
		for _, d := range out.Divergence {
			a.Printf("  %-6s %s %-4s similarity %.3f (nearest %s)\n", d.Severity, d.ID, d.Slot, d.Similarity, d.Nearest)
		}
	}
	for _, n := range out.Notes {
		a.Printf("\nnote: %s\n", n)
	}
	if out.Saved {
		a.Printf("\nsnapshot saved\n")
	}
}

func snippetOf(s string, n int) string { return topicstore.Snippet(s, n) }
