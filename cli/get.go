package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/engine"
)

func init() { register(newGetCmd) }

func newGetCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "Show one memory",
		Long: `Show the memory with this id (as add and list print it). The store records
the access (time and count) unless it is opened --read-only or another process
is writing to it, in which case the memory is read without recording.`,
		Args:              exactArgs(1, "one memory id"),
		ValidArgsFunction: a.completeIDs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			id, err := engine.ParseMemoryID(args[0])
			if err != nil {
				return err
			}
			e, err := a.openForAccess()
			if err != nil {
				return err
			}
			defer closeEngine(e, &err)
			m, err := e.Get(a.Context(), id)
			if err != nil {
				return err
			}
			if a.JSON {
				return a.PrintJSON(toJSON(m))
			}
			a.printMemory(m)
			return nil
		},
	}
}

// openForAccess opens the store for a read that records accesses: for
// writing, or read-only with --read-only or when another process holds the
// writer lock.
func (a *App) openForAccess() (*engine.Engine, error) {
	if a.ReadOnly {
		return a.OpenEngine(false)
	}
	e, err := a.OpenEngine(true)
	var inUse *engine.StoreInUseError
	if errors.As(err, &inUse) {
		return a.OpenEngine(false)
	}
	return e, err
}
