package cli

import (
	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/engine"
)

func init() { register(newDeleteCmd) }

func newDeleteCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:               "delete ID",
		Short:             "Delete one memory from every part of the store",
		Args:              exactArgs(1, "one memory id"),
		ValidArgsFunction: a.completeIDs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			id, err := engine.ParseMemoryID(args[0])
			if err != nil {
				return err
			}
			e, err := a.OpenEngine(true)
			if err != nil {
				return err
			}
			defer closeEngine(e, &err)
			if err := e.Delete(a.Context(), id); err != nil {
				return err
			}
			if a.JSON {
				return a.PrintJSON(map[string]any{"deleted": id})
			}
			a.Printf("deleted %s\n", id)
			return nil
		},
	}
}
