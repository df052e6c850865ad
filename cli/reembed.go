package cli

import (
	"fmt"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newReembedCmd) }

// reembedJSON is reembed's --json output.
type reembedJSON struct {
	DB         string   `json:"db"`
	Slots      []string `json:"slots"`      // the slots recomputed
	Reembedded int      `json:"reembedded"` // memories with at least one of them recomputed
	// Unreadable are memories skipped: their fingerprint is in a damaged block.
	Unreadable []record.ID `json:"unreadable"`
}

func newReembedCmd(a *app.App) *cobra.Command {
	var slotNames []string
	cmd := &cobra.Command{
		Use:   "reembed",
		Short: "Recompute slots of every memory with the installed models",
		Long: `Recompute the fingerprint slots of every memory with the embedders installed
now, and record the new producers in the store. Without --slot it recomputes
every slot whose stored producer (model id + sha256, or algorithm + parameters)
differs from the installed one: what a store opened after a model change needs,
since search and add refuse a store built with other models. --slot Ek (repeat)
limits the work to those slots. A memory whose value of a slot already comes
from the installed embedder is skipped, so an interrupted run resumes where it
stopped and a second run re-embeds nothing.

It refuses, changing nothing, while a slot it would recompute has a missing
or corrupt model: re-embedding would drop that slot's values. Fix the model
(cgraph models pull ID) instead.

It writes: it takes the writer lock (refused with --read-only) and stores each
batch of memories atomically, so an interrupted run leaves every memory whole
and can be run again. A progress bar is drawn on a terminal.`,
		Example: `  cgraph reembed
  cgraph reembed --slot E1 --slot E7`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			slots, err := parseSlots(slotNames)
			if err != nil {
				return err
			}
			s, err := a.Open(app.StoreOpen{Write: true, Reembed: true})
			if err != nil {
				return err
			}
			defer a.CloseStore(s, &err)
			var bar *progressbar.ProgressBar
			progress := func(done, total int) {
				if bar == nil {
					// Memory reports after each batch, so the total is
					// known only now; draw at once, the throttle would
					// hide a short run.
					if bar = a.CountBar(total, "re-embedding"); bar == nil {
						return
					}
					_ = bar.RenderBlank() // only draws on the terminal
				}
				_ = bar.Set(done) // only draws on the terminal
			}
			rep, err := s.Reembed(a.Context(), slots, progress)
			if bar != nil {
				_ = bar.Finish() // only draws on the terminal
			}
			if err != nil {
				if rep.Memories == 0 {
					return err
				}
				return fmt.Errorf("reembed (%d memories re-embedded before the error; run it again to finish): %w", rep.Memories, err)
			}
			return printReembed(a, s.Dir(), rep)
		},
	}
	cmd.Flags().StringArrayVar(&slotNames, "slot", nil, "recompute only this slot, e.g. E1 (repeat for several; default every slot whose model changed)")
	_ = cmd.RegisterFlagCompletionFunc("slot", cobra.FixedCompletions(slotCompletions(engine.Slots()), cobra.ShellCompDirectiveNoFileComp)) // fails only for an unknown flag
	return cmd
}

// printReembed says what reembed did (or, with --json, gives reembedJSON).
func printReembed(a *app.App, dir string, rep engine.ReembedReport) error {
	n := rep.Memories
	out := reembedJSON{DB: dir, Slots: []string{}, Reembedded: n, Unreadable: rep.Unreadable}
	if out.Unreadable == nil {
		out.Unreadable = []record.ID{}
	}
	for _, sl := range rep.Slots {
		out.Slots = append(out.Slots, sl.String())
	}
	if a.JSON {
		return a.PrintJSON(out)
	}
	if len(rep.Unreadable) > 0 {
		a.Printf("skipped %d memories whose fingerprint is in a damaged block and cannot be read: %v; `cgraph check --repair` rewrites the family and names them, or `cgraph export` + `cgraph import` into a new store\n",
			len(rep.Unreadable), rep.Unreadable)
	}
	what := "no slot's model changed"
	if len(rep.Slots) > 0 {
		what = slotList(rep.Slots)
	}
	if n == 0 {
		a.Printf("nothing to re-embed (%s): every memory's values already come from the installed embedders in %s\n", what, dir)
		return nil
	}
	a.Printf("re-embedded %d memories (%s) in %s\n", n, what, dir)
	return nil
}

// parseSlots parses --slot values, refusing an unknown or repeated slot with
// a usage error that lists the valid ones.
func parseSlots(names []string) ([]engine.SlotID, error) {
	var out []engine.SlotID
	seen := map[engine.SlotID]bool{}
	for _, n := range names {
		s, err := engine.ParseSlot(n)
		if err != nil {
			return nil, &app.UsageError{Problem: "--slot: " + err.Error(), Fix: "see `cgraph embedders`"}
		}
		if seen[s] {
			return nil, app.Usagef("give each slot once", "--slot %s given twice", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}
