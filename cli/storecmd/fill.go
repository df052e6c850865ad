package storecmd

import (
	"time"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/spf13/cobra"
)

func init() { app.Register(newFillCmd) }

func newFillCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "fill",
		Short: "Compute the slots deferred writes left pending (add --defer, serve --defer-slots)",
		Long: `fill computes, batch by batch, every slot that a deferred write left to the
background filler (cgraph add --jsonl --defer, cgraph serve --defer-slots) and
that is still pending — after an interrupt, or a server that stopped before it
caught up. Each batch is one atomic write; an interrupt keeps what is done.
cgraph embedders shows what is pending.`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			s, err := a.Open(app.StoreOpen{Write: true, ManualFill: true})
			if err != nil {
				return err
			}
			defer a.CloseStore(s, &err)
			n, err := s.Pending(a.Context())
			if err != nil {
				return err
			}
			start := time.Now()
			if err := a.FillPending(s); err != nil {
				return err
			}
			if a.JSON {
				return a.PrintJSON(map[string]any{"filled": n, "seconds": time.Since(start).Seconds()})
			}
			a.Printf("filled %d memories in %.1f s\n", n, time.Since(start).Seconds())
			return nil
		},
	}
}
