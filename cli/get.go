package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newGetCmd) }

func newGetCmd(a *app.App) *cobra.Command {
	var withFP, history bool
	cmd := &cobra.Command{
		Use:   "get ID",
		Short: "Show one memory (--fingerprint: and its per-slot fingerprint; --history: its earlier revisions)",
		Long: `Show the memory with this id (as add and list print it). The store records
the access (time and count) unless it is opened --read-only or another process
is writing to it, in which case the memory is read without recording.

--fingerprint adds the memory's stored fingerprint, one line per slot: status
(present, fallback, unavailable with the reason), the producer (model and
sha256 prefix), representation, dims, norms, non-zeros and token count. It
loads the models (to open the store as search does), so it is slower; it also
works on a store built with other models than the installed ones, and then
shows which producer made each stored value.

--history adds the memory's earlier revisions (what cgraph update replaced),
oldest first; --json then prints {"memory": …, "history": [...]}.`,
		Args:              app.ExactArgs(1, "one memory id"),
		ValidArgsFunction: completeIDs(a),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if withFP {
				return getWithFingerprint(a, args[0])
			}
			e, err := openForAccess(a)
			if err != nil {
				return err
			}
			defer app.CloseEngine(e, &err)
			id, err := e.ResolveID(a.Context(), args[0])
			if err != nil {
				return err
			}
			m, err := e.Get(a.Context(), id)
			if err != nil {
				return err
			}
			if !history {
				if a.JSON {
					return a.PrintJSON(toJSON(m))
				}
				printMemory(a, m)
				return nil
			}
			h, err := e.History(a.Context(), id)
			if err != nil {
				return err
			}
			if a.JSON {
				out := struct {
					Memory  memoryJSON   `json:"memory"`
					History []memoryJSON `json:"history"`
				}{toJSON(m), make([]memoryJSON, len(h))}
				for i, r := range h {
					out.History[i] = toJSON(r)
				}
				return a.PrintJSON(out)
			}
			a.ShowingHistory = true
			printMemory(a, m)
			for i := len(h) - 1; i >= 0; i-- {
				a.Printf("\n--- revision %d (replaced %s) ---\n", h[i].Revision, nextUpdate(h, i, m).UTC().Format(humanTime))
				printMemory(a, h[i])
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&withFP, "fingerprint", false, "also show the memory's per-slot fingerprint summary")
	cmd.Flags().BoolVar(&history, "history", false, "also show the earlier revisions, newest first")
	cmd.MarkFlagsMutuallyExclusive("fingerprint", "history")
	return cmd
}

// nextUpdate is when revision h[i] was replaced: the update time of the
// revision after it.
func nextUpdate(h []record.Memory, i int, cur record.Memory) time.Time {
	if i+1 < len(h) {
		return h[i+1].UpdatedAt
	}
	return cur.UpdatedAt
}

// memoryWithFingerprint is `get --fingerprint --json`: the memory object
// with its fingerprint summary under "fingerprint".
type memoryWithFingerprint struct {
	memoryJSON
	Fingerprint []ops.FingerprintSlot `json:"fingerprint"`
}

// getWithFingerprint shows a memory and its stored fingerprint.
func getWithFingerprint(a *app.App, idText string) (err error) {
	s, err := a.OpenStoreForInspection()
	if err != nil {
		return err
	}
	defer a.CloseStore(s, &err)
	id, err := s.ResolveID(a.Context(), idText)
	if err != nil {
		return err
	}
	m, err := s.Get(a.Context(), id)
	if err != nil {
		return err
	}
	fp, err := s.Fingerprint(a.Context(), id)
	if err != nil {
		return fmt.Errorf("read the fingerprint of %s: %w", id, err)
	}
	if a.JSON {
		return a.PrintJSON(memoryWithFingerprint{memoryJSON: toJSON(m), Fingerprint: ops.FingerprintOf(fp, false)})
	}
	printMemory(a, m)
	a.Printf("\nfingerprint:\n")
	for _, ss := range fp.Summary() {
		a.Printf("  %s\n", ss)
	}
	return nil
}

// openForAccess opens the store for a read that records accesses: for
// writing, or read-only with --read-only or when another process holds the
// writer lock.
func openForAccess(a *app.App) (*engine.Engine, error) {
	return app.WriterElseReader(a.ReadOnly, a.OpenRecords, nil)
}
