package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newIngestCmd) }

func newIngestCmd(a *app.App) *cobra.Command {
	var final, deferSlots bool
	cmd := &cobra.Command{
		Use:   "ingest claude-code FILE|DIR",
		Short: "Store an agent's session transcripts as conversation turns and the errors, fixes, decisions, preferences and facts found in them",
		Long: `ingest reads Claude Code session transcripts (JSON Lines, as Claude Code writes them
under ~/.claude/projects/<project>/<session>.jsonl) into the store: every turn as a
conversation memory (session, sequence, time, cwd, branch, files, tool; secrets redacted,
tool output cut), and what extraction finds in them as typed memories (errors linked by
"fixes" to their fix, decisions, preferences, facts) with their confidence and the
lines they came from. A DIR ingests every *.jsonl under it.

It is incremental and idempotent: each file is read from where the last ingest of it
into the same project stopped (a cursor kept in the store directory, under capture/),
and every memory's id is derived from its transcript line, so running it again, after
a crash, or beside another ingest of the same file stores nothing twice. With a
cgraph serve on the store, the server reads the files (POST /v1/ingest). The memories
go into --project (default $CGRAPH_PROJECT, else the default project).

--final says the session has ended: a last line without its newline is read and tool
calls still waiting for a result are stored without one. --defer stores the turns
with the model-free slots only (keywords, typo n-grams, entity names, time: found by
keyword search at once, ~17× faster than computing E1 on the way), then fills every
model slot, E1 first (a server's own --defer-slots decides for it).`,
		Example: `  cgraph ingest claude-code ~/.claude/projects/-home-me-src-app/
  cgraph ingest claude-code ~/.claude/projects/-home-me-src-app/0b6c….jsonl --final --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return app.Usagef("cgraph ingest claude-code FILE|DIR", "ingest takes a host and a transcript file or directory, got %d arguments", len(args))
			}
			if args[0] != ops.HostClaudeCode {
				return app.Usagef("give claude-code (the one host whose transcripts cgraph reads)", "unknown host %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := transcripts(args[1])
			if err != nil {
				return err
			}
			return ingest(a, cmd, files, ops.IngestRequest{Host: args[0], Project: a.Project, Final: final}, deferSlots)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&final, "final", false, "the session has ended: read a last line without its newline and store tool calls without a result")
	fl.BoolVar(&deferSlots, "defer", false, "store with the model-free slots first (found by keyword search at once), then fill every model slot")
	return cmd
}

// transcripts are the files to ingest: arg itself, or every *.jsonl under
// it, in name order.
func transcripts(arg string) ([]string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, app.Usagef("give a transcript file or a directory of them", "%s: %v", arg, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, app.Usagef("give a transcript file (.jsonl) or a directory of them, e.g. ~/.claude/projects/<project>/", "%v", err)
	}
	if !fi.IsDir() {
		return []string{abs}, nil
	}
	var out []string
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the transcripts under %s: %w", abs, err)
	}
	if len(out) == 0 {
		return nil, app.Usagef("give the directory Claude Code keeps a project's sessions in, e.g. ~/.claude/projects/<project>/", "%s holds no *.jsonl transcript", abs)
	}
	slices.Sort(out)
	return out, nil
}

// ingest reads files through the cgraph serve of this store when one
// answers, else into the store opened here.
func ingest(a *app.App, cmd *cobra.Command, files []string, req ops.IngestRequest, deferSlots bool) (err error) {
	start := time.Now()
	total := ops.NewIngestTotal()
	done := func(i int, r ops.IngestReport) {
		total.Add(r)
		a.Warnf("[%d/%d] %s: %d turns, %d stored, %d already stored", i+1, len(files), r.Path, r.Turns, r.Stored, r.Skipped+r.Duplicates)
		for _, p := range r.Problems {
			a.Warnf("  %s", p)
		}
		for _, n := range r.Notes {
			a.Warnf("  %s", n)
		}
	}
	if srv, ok := a.Server(cmd); ok {
		if deferSlots {
			a.Warnf("--defer: the server stores with its own --defer-slots")
		}
		for i, f := range files {
			var rep ops.IngestReport
			body := map[string]any{"host": req.Host, "path": f, "project": req.Project, "final": req.Final}
			err := srv.Post(a.Context(), "/v1/ingest", body, &rep)
			if errors.Is(err, app.ErrNoServer) && i == 0 {
				break // no server after all: run here
			}
			if err != nil {
				return errors.Join(printIngest(a, total, start), fmt.Errorf("ingest %s: %w", f, err))
			}
			total.Served = true
			done(i, rep)
		}
		if total.Served {
			return printIngest(a, total, start)
		}
	}
	s, err := a.Open(app.StoreOpen{Write: true, DeferAll: deferSlots, ManualFill: true})
	if err != nil {
		return err
	}
	defer a.CloseStore(s, &err)
	for i, f := range files {
		r := req
		r.Path = f
		rep, err := ops.Ingest(a.Context(), s, r)
		if err != nil {
			var ve *record.ValidationError
			if errors.As(err, &ve) {
				err = &app.UsageError{Problem: ve.Field + ": " + ve.Problem, Fix: ve.Fix}
			}
			total.Add(rep)
			return errors.Join(printIngest(a, total, start), fmt.Errorf("ingest %s: %w", f, err))
		}
		done(i, rep)
	}
	if deferSlots && total.Stored > 0 {
		a.Warnf("%d memories searchable by keywords (and the other model-free slots) in %.1f s; filling the model slots (E1 first)", total.Stored, time.Since(start).Seconds())
		if err := a.FillPending(s); err != nil {
			return errors.Join(printIngest(a, total, start), err)
		}
		a.Warnf("every slot filled in %.1f s", time.Since(start).Seconds())
	}
	return printIngest(a, total, start)
}

func printIngest(a *app.App, t ops.IngestTotal, start time.Time) error {
	t.Seconds = time.Since(start).Seconds()
	if a.JSON {
		return a.PrintJSON(t)
	}
	kinds := make([]string, 0, len(t.Typed))
	for k, n := range t.Typed {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	slices.Sort(kinds)
	a.Printf("%d files, %d turns read: %d memories stored, %d already stored (%d exact copies), %d relations", len(t.Files), t.Turns, t.Stored, t.Skipped+t.Duplicates, t.Duplicates, t.Links)
	if len(kinds) > 0 {
		a.Printf("; extracted: %s", strings.Join(kinds, ", "))
	}
	if t.Problems > 0 {
		a.Printf("; %d lines skipped (above)", t.Problems)
	}
	a.Printf("\n")
	return nil
}
