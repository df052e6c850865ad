package storecmd

import (
	"path/filepath"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/spf13/cobra"
)

func init() { app.Register(newBackupCmd) }

func newBackupCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "backup DIR",
		Short: "Write a consistent copy of the store into DIR (a new directory), while it stays usable",
		Long: `backup takes an online checkpoint of the store into DIR, which must not exist yet: table
files are hard-linked when DIR is on the same file system (copied otherwise), so it is fast
and small. The copy is a complete store: open it with --db DIR, check it with
cgraph --db DIR check, or restore by moving it into the store's place (stop writers first).
Only the process holding the store's writer lock can back up: stop a running cgraph serve or
cgraph mcp first, or run the backup from a moment without one.`,
		Example: `  cgraph backup ~/backups/cgraph-$(date +%F)
  cgraph --db ~/backups/cgraph-2026-11-24 check`,
		Args: app.ExactArgs(1, "the backup directory"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			s, err := a.OpenRecords(true)
			if err != nil {
				return err
			}
			defer app.CloseEngine(s, &err)
			if err := s.Backup(a.Context(), args[0]); err != nil {
				return err
			}
			st, err := s.Stats(a.Context())
			if err != nil {
				return err
			}
			dir, _ := filepath.Abs(args[0])
			if a.JSON {
				return a.PrintJSON(map[string]any{"db": a.DBDir, "backup": dir, "memories": st.Memories})
			}
			a.Printf("backed up %d memories to %s (open it with --db %s)\n", st.Memories, dir, dir)
			return nil
		},
	}
}
