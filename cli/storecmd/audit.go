package storecmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
)

func init() {
	app.Register(newLogCmd)
	app.Register(newUndoCmd)
}

func newLogCmd(a *app.App) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "log",
		Short: "List the maintenance actions applied to the store (the audit log), newest first",
		Long: `log lists every action maintenance applied (cgraph maintain --apply, or a schedule of
cgraph serve --maintain-every with --maintain-apply): its action id, when, what
(prune, merge_duplicate, supersede), the memory, the evidence, what ran it, and
whether it was undone. cgraph undo ACTION-ID reverses one. Beside a running
cgraph serve the server answers (GET /v1/log).`,
		Example: `  cgraph log --limit 20
  cgraph log --json | jq '.[] | select(.action == "prune")'`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if limit < 1 || limit > 100000 {
				return app.Usagef("give --limit from 1 to 100000", "--limit %d is out of range", limit)
			}
			var log []engine.AuditEntry
			served := false
			if srv, ok := a.Server(cmd); ok {
				err := srv.Get(a.Context(), fmt.Sprintf("/v1/log?limit=%d", limit), &log)
				if err != nil && !errors.Is(err, app.ErrNoServer) {
					return err
				}
				served = err == nil
			}
			if !served {
				e, err := a.OpenRecords(false)
				if err != nil {
					return err
				}
				defer app.CloseEngine(e, &err)
				if log, err = e.AuditLog(a.Context(), limit); err != nil {
					return err
				}
			}
			if a.JSON {
				if log == nil {
					log = []engine.AuditEntry{}
				}
				return a.PrintJSON(log)
			}
			if len(log) == 0 {
				a.Warnf("the audit log is empty: no maintenance action was applied to this store")
				return nil
			}
			for _, e := range log {
				state := ""
				if !e.UndoneAt.IsZero() {
					state = "  (undone " + e.UndoneAt.Local().Format(time.DateTime) + ")"
				}
				a.Printf("%s  %s  %-15s %s  by %s%s\n", e.ID, e.At.Local().Format(time.DateTime), e.Action, e.Memory, e.By, state)
				a.Printf("    evidence: %s\n    content:  %s\n", e.Evidence, e.Content)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", httpapi.DefaultLogLimit, "list at most this many actions")
	return cmd
}

func newUndoCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "undo ACTION-ID",
		Short: "Reverse one maintenance action of the audit log (cgraph log)",
		Long: `undo reverses one applied maintenance action, in one atomic write: a pruned or merged
memory comes back with the same id, record, earlier revisions and relations (those
whose other memory still exists), indexed again from its kept fingerprint (no model
runs); the links the action added (a merge's moved links, a supersede link) are
removed. Give the id cgraph log prints, or its last 8 or more hex digits. Beside
a running cgraph serve the server undoes it (POST /v1/undo).`,
		Example: `  cgraph undo a-019b0c2d3e4f7a8b9c0d1e2f3a4b5c6d
  cgraph undo 3a4b5c6d`,
		Args: app.ExactArgs(1, "one action id (cgraph log lists them)"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var e engine.AuditEntry
			served := false
			if srv, ok := a.Server(cmd); ok {
				err := srv.Post(a.Context(), "/v1/undo", map[string]string{"action": args[0]}, &e)
				if err != nil && !errors.Is(err, app.ErrNoServer) {
					return err
				}
				served = err == nil
			}
			if !served {
				s, err := a.OpenRecords(true)
				if err != nil {
					return err
				}
				defer app.CloseEngine(s, &err)
				id, err := s.ResolveAction(a.Context(), args[0])
				if err != nil {
					return err
				}
				if e, err = s.Undo(a.Context(), id); err != nil {
					return err
				}
			}
			if a.JSON {
				return a.PrintJSON(e)
			}
			switch {
			case e.Kept:
				a.Printf("undid %s: %s %s is back\n", e.ID, e.Action, e.Memory)
			default:
				a.Printf("undid %s: %s of %s removed\n", e.ID, e.Action, e.Memory)
			}
			return nil
		},
	}
}
