package cli

import (
	"github.com/cgraph/cgraph/cli/app"
	"github.com/spf13/cobra"
)

func init() { app.Register(newDeleteCmd) }

func newDeleteCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:               "delete ID",
		Short:             "Delete one memory from every part of the store (record, fingerprint, every index)",
		Args:              app.ExactArgs(1, "one memory id"),
		ValidArgsFunction: completeIDs(a),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			s, err := a.OpenStore(true)
			if err != nil {
				return err
			}
			defer a.CloseStore(s, &err)
			id, err := s.ResolveID(a.Context(), args[0])
			if err != nil {
				return err
			}
			if err := s.Delete(a.Context(), id); err != nil {
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
