package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newMaintainCmd) }

// maintainHelp is cgraph maintain's long help: each action and what
// --apply and --contradictions do.
const maintainHelp = `maintain walks every memory and lists what could go, each with its reason:
  prune            a memory superseded by a newer one (cgraph link NEW OLD --type
                   supersedes, or add --supersede), or one whose effective importance has
                   faded below --prune-below: importance × 2^(-idle days / half-life), the
                   half-life 30 days × (1 + log2(1 + uses)); a use is a read by id or
                   a search, context or MCP/HTTP answer that returned the memory.
                   A memory used within its half-life is never listed, and decisions
                   and preferences only when --types names them
  merge_duplicate  a copy of an older memory with the same content in the same project
                   (stored with --allow-duplicate); the older one stays
  supersede        with --near: an older near-duplicate of a newer memory (E1 cosine,
                   E6 and E11 overlap all agreeing, as add reports); the newer one is
                   linked as superseding it, nothing is deleted (loads the models)
  consolidate      with --near --consolidate, instead of supersede: each cluster of
                   near-duplicates in one project (pairs that share a member join) is
                   folded into its newest memory, one action per older member: its content
                   becomes an earlier revision of the newest (cgraph get NEWEST --history shows
                   it), its links move to the newest, and it is deleted, kept for undo.
                   Decisions and preferences only when --types names them, and never a
                   memory used within its half-life; undo brings the member and its
                   links back and takes its revision out of the newest
Nothing is removed without --apply; then each action is carried out in its own atomic
write with its entry in the audit log (cgraph log): a deleted memory is kept, with its
relations and earlier revisions, so that cgraph undo ACTION-ID brings it back, and a
merged copy's links move to the memory kept. serve --maintain-every runs this on a
schedule.

--contradictions lists instead the open contradictions: pairs a write kept under the
report policy (add --on-conflict, serve --on-conflict) whose two memories are both still
valid, newest first, each with its evidence judged again (kind, reason, E1/E6/E11).
Resolve one by linking the memory that holds as superseding the other.`

func newMaintainCmd(a *app.App) *cobra.Command {
	var o engine.MaintainOptions
	var types []string
	var contradictions bool
	cmd := &cobra.Command{
		Use:   "maintain",
		Short: "List (and with --apply remove) faded, superseded and duplicate memories",
		Long:  maintainHelp,
		Example: `  cgraph maintain --prune-below 0.05
  cgraph maintain --prune-below 0.05 --apply
  cgraph maintain --near --consolidate
  cgraph maintain --near --consolidate --apply
  cgraph maintain --contradictions --json`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if contradictions {
				if o.Apply || o.Near || o.Consolidate || o.PruneBelow != 0 || len(types) > 0 {
					return app.Usagef("run maintain --contradictions alone; resolve a pair with cgraph link NEWER OLDER --type supersedes",
						"--contradictions lists open pairs and takes none of --apply, --near, --consolidate, --prune-below, --types")
				}
				return listContradictions(a)
			}
			o, err := maintainOptions(o, types)
			if err != nil {
				return err
			}
			return maintain(a, o)
		},
	}
	cmd.Flags().Float64Var(&o.PruneBelow, "prune-below", 0, "list memories whose effective importance is below this (0: only superseded ones and duplicates)")
	cmd.Flags().BoolVar(&o.Apply, "apply", false, "carry out the actions (default: list them only)")
	cmd.Flags().BoolVar(&o.Near, "near", false, "also find near-duplicates and propose that the newer supersedes the older")
	cmd.Flags().BoolVar(&o.Consolidate, "consolidate", false, "with --near: fold each near-duplicate cluster into its newest memory (earlier revisions, moved links) instead of linking them")
	cmd.Flags().BoolVar(&contradictions, "contradictions", false, "list the open contradictions (both memories still valid) with their evidence, instead of pruning")
	cmd.Flags().StringSliceVar(&types, "types", nil, "prune only memories of these types (default: every type but decision and preference, which are pruned only when named)")
	return cmd
}

// maintainOptions checks maintain's flags and adds the --types to o.
func maintainOptions(o engine.MaintainOptions, types []string) (engine.MaintainOptions, error) {
	if o.Consolidate && !o.Near {
		return o, app.Usagef("add --near: cgraph maintain --near --consolidate (it folds the near-duplicates --near finds)", "--consolidate needs --near")
	}
	if o.PruneBelow < 0 || o.PruneBelow > 1 {
		return o, app.Usagef("give an effective importance from 0 to 1, such as 0.05", "--prune-below %v is outside [0, 1]", o.PruneBelow)
	}
	for _, t := range types {
		typ, err := record.ParseType(t)
		if err != nil {
			return o, app.Usagef("give --types a comma-separated list of memory types, e.g. note,conversation", "--types: %v", err)
		}
		o.Types = append(o.Types, typ)
	}
	return o, nil
}

// maintain is cgraph maintain without --contradictions: it opens the
// store (with its models for --near), runs engine.Maintain and prints
// each action, then a summary on stderr.
func maintain(a *app.App, o engine.MaintainOptions) (err error) {
	var e *engine.Engine
	if o.Near {
		e, err = a.OpenStore(o.Apply)
	} else {
		e, err = a.OpenRecords(o.Apply)
	}
	if err != nil {
		return err
	}
	defer app.CloseEngine(e, &err)
	acts, err := e.Maintain(a.Context(), o)
	if a.JSON {
		if acts == nil {
			acts = []engine.MaintainAction{}
		}
		return errors.Join(a.PrintJSON(acts), err)
	}
	for _, x := range acts {
		verb := "would " + x.Action
		if x.Applied {
			verb = "did " + x.Action
		}
		a.Printf("%-22s %s  %s\n", verb, x.ID, x.Reason)
		if x.Applied {
			a.Printf("%-22s undo with: cgraph undo %s\n", "", x.ActionID)
		}
	}
	if err != nil {
		return err
	}
	switch {
	case len(acts) == 0:
		a.Warnf("nothing to prune or merge")
	case !o.Apply:
		a.Warnf("%d actions listed, nothing changed: run again with --apply to carry them out", len(acts))
	default:
		a.Warnf("%d actions applied", len(acts))
	}
	return nil
}
