package cli

import (
	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newListCmd) }

func newListCmd(a *app.App) *cobra.Command {
	var (
		limit       int
		after       string
		oldest      bool
		allProjects bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories by creation time, newest first",
		Long: `List one page of memories by creation time, newest first (--oldest: oldest
first), of the project (--project, $CGRAPH_PROJECT, else the default project) or of
every project with --all-projects. The next page starts --after the last id of this
one; human output prints that command when there are more. --json prints an array of
memories.`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if limit < 1 {
				return app.Usagef("give a page size of 1 or more", "--limit %d is too small", limit)
			}
			o := record.ListOptions{Limit: limit + 1, Oldest: oldest}
			if after != "" {
				if o.After, err = record.ParseID(after); err != nil {
					return err
				}
			}
			e, err := a.OpenRecords(false)
			if err != nil {
				return err
			}
			defer app.CloseEngine(e, &err)
			ms, err := listProject(a, e, o, allProjects)
			if err != nil {
				return err
			}
			more := len(ms) > limit
			if more {
				ms = ms[:limit]
			}
			if a.JSON {
				out := make([]memoryJSON, len(ms))
				for i, m := range ms {
					out[i] = toJSON(m)
				}
				return a.PrintJSON(out)
			}
			if len(ms) == 0 && after == "" {
				a.Printf("no memories in %s: add one with `cgraph add TEXT`\n", e.Dir())
			}
			for _, m := range ms {
				a.Printf("%s\n", summaryLine(m, 70))
			}
			if more {
				next := "cgraph list --after " + ms[len(ms)-1].ID.String()
				if oldest {
					next += " --oldest"
				}
				if allProjects {
					next += " --all-projects"
				}
				a.Warnf("more memories follow: %s", next)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&limit, "limit", 20, "memories per page")
	fl.StringVar(&after, "after", "", "start after this memory id (the last of the previous page)")
	fl.BoolVar(&oldest, "oldest", false, "oldest first")
	fl.BoolVar(&allProjects, "all-projects", false, "list the memories of every project")
	return cmd
}

// listProject returns up to o.Limit memories from o.After on, of a.Project
// unless all: pages of the store are read until that many match or the
// store ends.
func listProject(a *app.App, e *engine.Engine, o record.ListOptions, all bool) ([]record.Memory, error) {
	if all {
		return e.List(a.Context(), o)
	}
	want := o.Limit
	o.Limit = max(want, 256)
	var out []record.Memory
	for {
		page, err := e.List(a.Context(), o)
		if err != nil {
			return nil, err
		}
		for _, m := range page {
			if m.Project == a.Project {
				out = append(out, m)
				if len(out) == want {
					return out, nil
				}
			}
		}
		if len(page) < o.Limit {
			return out, nil
		}
		o.After = page[len(page)-1].ID
	}
}
