package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/bulkimport"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// bulkResult is add --jsonl's summary (bulkimport).
type bulkResult = bulkimport.Result

// runAddJSONL stores the memories of a JSONL file or stdin.
func (a *App) runAddJSONL(cmd *cobra.Command, f addFlags, args []string) (err error) {
	if len(args) > 0 || f.file != "" {
		return usagef("give either --jsonl or TEXT/--file, not both", "add --jsonl takes no TEXT or --file")
	}
	for _, name := range []string{"type", "tag", "source", "session", "importance", "created-at"} {
		if cmd.Flags().Changed(name) {
			return usagef("put the field in each JSONL line instead", "--%s does not apply to add --jsonl", name)
		}
	}
	if a.MaxContentBytes <= 0 {
		return usagef("give a positive number of bytes", "--max-content-bytes %d is not positive", a.MaxContentBytes)
	}
	if f.skipLines < 0 {
		return usagef("give 0 or the number of lines already stored", "--skip-lines %d is negative", f.skipLines)
	}
	a.skipLines, a.allowDuplicate = f.skipLines, f.allowDuplicate
	in, size := a.Stdin, int64(-1)
	if f.jsonl == "-" {
		a.stdinHint()
	} else {
		fh, err := os.Open(f.jsonl)
		if err != nil {
			return &UsageError{Problem: fmt.Sprintf("--jsonl: %v", err), Fix: "give a readable JSONL file, or - for stdin"}
		}
		defer fh.Close() // read-only: a close error loses nothing
		if err := notDir(fh, "--jsonl"); err != nil {
			return err
		}
		if a.isTerminal != nil && a.isTerminal(a.Stderr) && !a.JSON { // the bar's total: one pass to count the lines
			if n, err := bulkimport.CountLines(fh); err == nil {
				size = n
			}
			if _, err := fh.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("--jsonl %s: %w", f.jsonl, err)
			}
		}
		in = fh
	}
	s, err := a.openStore(storeOpen{write: true, deferSlots: f.deferSlots, manualFill: true})
	if err != nil {
		return err
	}
	defer a.closeStore(s, &err)
	start := time.Now()
	res, err := a.addJSONL(s, in, size)
	if err != nil || !f.deferSlots {
		return a.reportBulk(res, err)
	}
	stored := time.Since(start)
	a.Warnf("%d memories searchable (E1, keywords and the model-free slots) in %.1f s (%.1f/s); filling the other model slots", res.Added, stored.Seconds(), rate(res.Added, stored))
	if ferr := a.fillPending(s); ferr != nil {
		return errors.Join(a.reportBulk(res, nil), ferr)
	}
	all := time.Since(start)
	a.Warnf("every slot filled in %.1f s (%.1f memories/s overall)", all.Seconds(), rate(res.Added, all))
	return a.reportBulk(res, nil)
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// fillPending computes every pending deferred slot of the store, batch by
// batch. An interrupt leaves the rest pending, persisted, for `cgraph fill`
// or a cgraph serve.
func (a *App) fillPending(s *engine.Engine) error {
	for {
		n, err := s.FillPending(a.Context(), 64)
		if err != nil {
			left, _ := s.Pending(context.WithoutCancel(a.Context()))
			if ctxErr := a.Context().Err(); ctxErr != nil {
				err = ctxErr // the interrupt, not each slot's report of it
			}
			return fmt.Errorf("fill the deferred slots: %d memories still wait for them, stored and searchable; `cgraph fill` (or a running cgraph serve) completes them: %w", left, err)
		}
		if n == 0 {
			return nil
		}
	}
}

// reportBulk prints a bulk summary and turns refused lines into exit code 1.
func (a *App) reportBulk(res bulkResult, runErr error) error {
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
		return &exitError{code: ExitError, msg: fmt.Sprintf("%d of %d lines were not stored (see the errors by line): fix those lines and add only them again",
			res.Failed, res.Failed+res.Added)}
	}
	return nil
}

// addJSONL stores the memories of r (bulkimport) with the run's settings;
// size is r's number of lines for the progress bar (-1 if unknown: a
// spinner with the count and rate).
func (a *App) addJSONL(e bulkimport.Adder, r io.Reader, size int64) (bulkResult, error) {
	o := bulkimport.Options{MaxContent: a.maxContent(), Project: a.Project, AllowDuplicate: a.allowDuplicate,
		SkipLines: a.skipLines, AfterFlush: a.afterFlush}
	if a.Device == "cuda" {
		o.BatchSize = bulkimport.GPUBatchSize
	}
	bar := a.progress(size)
	if bar != nil {
		o.Progress = func(n int) { _ = bar.Add(n) } // only draws on the terminal
	}
	res, err := bulkimport.Import(a.Context(), e, r, o)
	if err == nil && bar != nil {
		_ = bar.Finish() // only draws on the terminal
	}
	return res, err
}

func (a *App) maxContent() int {
	if a.MaxContentBytes <= 0 {
		return record.DefaultMaxContentBytes
	}
	return a.MaxContentBytes
}
