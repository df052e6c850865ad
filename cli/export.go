package cli

import (
	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() {
	app.Register(newExportCmd)
	app.Register(newImportCmd)
}

func newExportCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "export",
		Short: "Write every memory as JSON Lines, oldest first, for import into another store",
		Long: `export writes one JSON object per memory on stdout, oldest first: id, content, type,
tags, source, session, sequence, created_at, importance, project and meta — what cgraph
import (or add --jsonl) reads back, ids, sessions and times kept — then one line per
relation between exported memories ({"relation": {"from", "to", "type", "weight",
"created_at"}}). Fingerprints are not exported: the importing store computes them with
its own models. Access counts, update times and earlier revisions are not exported
either. With --project P (or $CGRAPH_PROJECT) only that project's memories are
exported. It opens the store read-only and loads no model.`,
		Example: `  cgraph export > memories.jsonl
  cgraph --db new-store init && cgraph --db new-store import memories.jsonl`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			s, err := a.OpenRecords(false)
			if err != nil {
				return err
			}
			defer app.CloseEngine(s, &err)
			n, err := ops.Export(a.Context(), s, a.Stdout, a.Project)
			if err != nil {
				return err
			}
			a.Warnf("exported %d memories, %d relations", n.Memories, n.Relations)
			return nil
		},
	}
}

func newImportCmd(a *app.App) *cobra.Command {
	var f addFlags
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Store the memories of an export (or any add --jsonl file), ids and times kept",
		Long: `import reads JSON Lines as cgraph export writes them and stores each memory with its id,
session, sequence and creation time, fingerprinted by this store's models. It is add
--jsonl under another name: bad lines are reported by number and skipped, content the
store already holds is reported as a duplicate (so importing the same file twice stores
nothing the second time), an id the store already holds is refused, and an interrupted
import names the line to resume after (--skip-lines N).`,
		Example: `  cgraph export > memories.jsonl
  cgraph --db new-store init && cgraph --db new-store import memories.jsonl`,
		Args: app.ExactArgs(1, "the file to import (- for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.jsonl = args[0]
			return runAddJSONL(a, cmd, f, nil)
		},
	}
	cmd.Flags().IntVar(&f.skipLines, "skip-lines", 0, "skip the first N lines (resume an interrupted import)")
	cmd.Flags().BoolVar(&f.allowDuplicate, "allow-duplicate", false, "store a memory even if the store already holds the same content")
	cmd.Flags().IntVar(&a.MaxContentBytes, "max-content-bytes", record.DefaultMaxContentBytes, "refuse content longer than this many bytes")
	return cmd
}
