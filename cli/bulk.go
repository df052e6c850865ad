package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/bulkimport"
	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/record"
)

// bulkResult is add --jsonl's summary (bulkimport).
type bulkResult = bulkimport.Result

// runAddJSONL stores the memories of a JSONL file or stdin.
func runAddJSONL(a *app.App, cmd *cobra.Command, f addFlags, args []string) (err error) {
	if len(args) > 0 || f.file != "" {
		return app.Usagef("give either --jsonl or TEXT/--file, not both", "add --jsonl takes no TEXT or --file")
	}
	for _, name := range []string{"type", "tag", "source", "session", "importance", "created-at"} {
		if cmd.Flags().Changed(name) {
			return app.Usagef("put the field in each JSONL line instead", "--%s does not apply to add --jsonl", name)
		}
	}
	if a.MaxContentBytes <= 0 {
		return app.Usagef("give a positive number of bytes", "--max-content-bytes %d is not positive", a.MaxContentBytes)
	}
	if f.skipLines < 0 {
		return app.Usagef("give 0 or the number of lines already stored", "--skip-lines %d is negative", f.skipLines)
	}
	a.SkipLines, a.AllowDuplicate = f.skipLines, f.allowDuplicate
	in, size := a.Stdin, int64(-1)
	if f.jsonl == "-" {
		stdinHint(a)
	} else {
		fh, err := os.Open(f.jsonl)
		if err != nil {
			return &app.UsageError{Problem: fmt.Sprintf("--jsonl: %v", err), Fix: "give a readable JSONL file, or - for stdin"}
		}
		defer fh.Close() // read-only: a close error loses nothing
		if err := notDir(fh, "--jsonl"); err != nil {
			return err
		}
		if a.IsTerminal != nil && a.IsTerminal(a.Stderr) && !a.JSON { // the bar's total: one pass to count the lines
			if n, err := bulkimport.CountLines(fh); err == nil {
				size = n
			}
			if _, err := fh.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("--jsonl %s: %w", f.jsonl, err)
			}
		}
		in = fh
	}
	s, err := a.Open(app.StoreOpen{Write: true, DeferSlots: f.deferSlots, ManualFill: true})
	if err != nil {
		return err
	}
	defer a.CloseStore(s, &err)
	start := time.Now()
	res, err := addJSONL(a, s, in, size)
	if err != nil || !f.deferSlots {
		return reportBulk(a, res, err)
	}
	stored := time.Since(start)
	a.Warnf("%d memories searchable (E1, keywords and the model-free slots) in %.1f s (%.1f/s); filling the other model slots", res.Added, stored.Seconds(), rate(res.Added, stored))
	if ferr := a.FillPending(s); ferr != nil {
		return errors.Join(reportBulk(a, res, nil), ferr)
	}
	all := time.Since(start)
	a.Warnf("every slot filled in %.1f s (%.1f memories/s overall)", all.Seconds(), rate(res.Added, all))
	return reportBulk(a, res, nil)
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// reportBulk prints a bulk summary and turns refused lines into exit code 1.
func reportBulk(a *app.App, res bulkResult, runErr error) error {
	if a.JSON {
		if err := a.PrintJSON(res); err != nil {
			return errors.Join(runErr, err)
		}
	} else {
		for _, le := range res.Errors {
			a.Warnf("line %d: %s", le.Line, le.Error)
		}
		a.Printf("added %d, already stored %d, failed %d", res.Added, len(res.Duplicates), res.Failed)
		if res.Linked > 0 {
			a.Printf(", relations %d", res.Linked)
		}
		a.Printf("\n")
	}
	if runErr != nil {
		return runErr
	}
	if res.Failed > 0 {
		return &app.ExitCodeError{Code: ExitError, Msg: fmt.Sprintf("%d of %d lines were not stored (see the errors by line): fix those lines and add only them again",
			res.Failed, res.Failed+res.Added)}
	}
	return nil
}

// addJSONL stores the memories of r (bulkimport) with the run's settings;
// size is r's number of lines for the progress bar (-1 if unknown: a
// spinner with the count and rate).
func addJSONL(a *app.App, e bulkimport.Adder, r io.Reader, size int64) (bulkResult, error) {
	o := bulkimport.Options{MaxContent: maxContent(a), Project: a.Project, AllowDuplicate: a.AllowDuplicate,
		SkipLines: a.SkipLines, AfterFlush: a.AfterFlush}
	if a.Device == "cuda" {
		o.BatchSize, o.InFlight = bulkimport.GPUBatchSize, bulkimport.GPUInFlight
	}
	bar := a.Progress(size)
	if bar != nil {
		o.Progress = func(n int) { _ = bar.Add(n) } // only draws on the terminal
	}
	res, err := bulkimport.Import(a.Context(), e, r, o)
	if err == nil && bar != nil {
		_ = bar.Finish() // only draws on the terminal
	}
	return res, err
}

func maxContent(a *app.App) int {
	if a.MaxContentBytes <= 0 {
		return record.DefaultMaxContentBytes
	}
	return a.MaxContentBytes
}
