package storecmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newCheckCmd) }

// CheckJSON is what `cgraph check --json` prints: the problems found,
// the memory count and, with --repair, what was repaired.
type CheckJSON struct {
	DB       string   `json:"db"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
	Memories uint64   `json:"memories"`
	// Repair is what --repair did; absent without --repair.
	Repair *ops.RepairReport `json:"repair,omitempty"`
}

// repairContents opens the store with the writer lock and repairs its
// contents (ops.RepairContents), recording what was done in r.
func repairContents(a *app.App, r *ops.RepairReport) (err error) {
	e, err := a.OpenRecords(true)
	if errors.Is(err, record.ErrDamaged) {
		return nil // the check below reports it
	}
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	defer app.CloseEngine(e, &err)
	return ops.RepairContents(a.Context(), e, r)
}

func newCheckCmd(a *app.App) *cobra.Command {
	var repair bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify the store's files and cross-family invariants; --repair recovers a damaged store",
		Long: `Open the store read-only (beside a running writer) and verify it: every record
decodes, the memory count and doc-number counter match the records, and every
per-memory family holds exactly the keys of stored memories, every E6/E13 posting
names a stored memory and the posting statistics match. Exit code 1 when a
problem is found, each named by family and key.

A store whose CURRENT file is missing, or names a manifest without cgraph
metadata (what a failed re-creation leaves), is reported as damaged and is
never opened for writing or created over. --repair takes the writer lock,
points CURRENT at the newest manifest that RocksDB reads and that holds
cgraph metadata, and checks the result. It only rewrites CURRENT, and puts it
back when no manifest serves. A store refused because a write-ahead log it needs
is gone opens again: --repair accepts the loss, naming each log, and rebuilds the
memory count, the doc-number counter and the docnums, created_index and sequence
families from the memories that remain. It then drops postings (E6, E13) of memories that no longer
exist and resets the posting statistics from the postings, reporting each family it
changed; drops earlier revisions and relations of memories that no longer exist and
writes back a relation's missing mirror key; and rewrites every per-memory derived value
(vectors, hypervectors, entity sets) that differs from the memory's stored fingerprint,
dropping an unreadable E12 matrix for ` + "`cgraph reembed --slot E12`" + ` to compute again.`,
		Example: `  cgraph check
  cgraph check --repair --db ~/.local/share/cgraph/default`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return check(a, repair) },
	}
	cmd.Flags().BoolVar(&repair, "repair", false, "recover a store whose CURRENT file is missing or names the wrong manifest (takes the writer lock)")
	return cmd
}

// check is `cgraph check`: repair first when asked, then verify the store
// read-only and report; a problem found exits 1.
func check(a *app.App, repair bool) (err error) {
	out := CheckJSON{DB: a.DBDir, Problems: []string{}}
	if repair {
		if out.Repair, err = repairStore(a); err != nil {
			return err
		}
	}
	if err := verifyStore(a, &out); err != nil {
		return err
	}
	out.OK = len(out.Problems) == 0
	if a.JSON {
		if err := a.PrintJSON(out); err != nil {
			return err
		}
	} else {
		if out.Repair != nil {
			printRepair(a, out.Repair)
		}
		if out.OK {
			a.Printf("store %s is consistent: %d memories\n", out.DB, out.Memories)
		}
	}
	if !out.OK {
		return &app.ExitCodeError{Code: app.ExitError, Msg: fmt.Sprintf("store %s has %d problem(s):\n  %s", out.DB, len(out.Problems), strings.Join(out.Problems, "\n  "))}
	}
	return nil
}

// repairStore is check --repair: the store's files (CURRENT, lost logs),
// then its records, postings, links and derived values.
func repairStore(a *app.App) (*ops.RepairReport, error) {
	if a.ReadOnly {
		return nil, &app.UsageError{Problem: "--repair writes to the store, and --read-only was given", Fix: "drop --read-only"}
	}
	rep, err := engine.Repair(a.DBDir)
	if err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	r := ops.RepairReportOf(rep)
	if err := repairContents(a, r); err != nil {
		return nil, err
	}
	return r, nil
}

// verifyStore opens the store read-only and adds what Check finds to
// out's problems (a damaged store is one problem), and the memory count.
func verifyStore(a *app.App, out *CheckJSON) (err error) {
	e, err := a.OpenRecords(false)
	switch {
	case errors.Is(err, record.ErrDamaged):
		out.Problems = append(out.Problems, err.Error())
		return nil
	case err != nil:
		return err
	}
	defer app.CloseEngine(e, &err)
	if cerr := e.Check(a.Context()); cerr != nil {
		out.Problems = append(out.Problems, strings.Split(cerr.Error(), "\n")...)
	}
	st, err := e.Stats(a.Context())
	if err != nil {
		return err
	}
	out.Memories = st.Memories
	return nil
}

// printRepair says what check --repair did, one line per change.
func printRepair(a *app.App, r *ops.RepairReport) {
	for _, t := range r.Tried {
		a.Printf("repair: refused %s\n", t)
	}
	for _, l := range r.LostLogs {
		a.Printf("repair: accepted the loss of a write-ahead log: %s\n", l)
	}
	switch {
	case len(r.Tried) > 0 || (r.Changed && len(r.LostLogs) == 0):
		a.Printf("repair: CURRENT now names %s\n", r.Manifest)
	case !r.Changed:
		a.Printf("repair: the store opened as it was (%s)\n", r.Manifest)
	}
	if fr := r.Fingerprints; fr.Salvaged {
		a.Printf("repair: fingerprints had a damaged block: rewrote the family without its table files, kept %d fingerprints\n", fr.Kept)
		for _, d := range fr.Dropped {
			a.Printf("repair: dropped memory %s, whose fingerprint could not be read; add its content again: %q\n", d.ID, d.Content)
		}
	}
	if rr := r.Records; rr.Changed() {
		a.Printf("repair: rebuilt from the stored records: counters reset %v, %d index keys of docnums, created_index and sequence written or dropped, %d keys of no stored memory dropped\n",
			rr.Counters, rr.IndexKeys, rr.Orphans)
	}
	for _, p := range r.Postings {
		a.Printf("repair: %s: dropped %d postings of memories that no longer exist; statistics set to %d documents, length %d\n",
			p.Family, p.Dropped, p.Docs, p.Length)
	}
	if d := r.Derived; d.Rewritten > 0 || len(d.E12Dropped) > 0 {
		a.Printf("repair: rewrote %d derived values from the fingerprints", d.Rewritten)
		if n := len(d.E12Dropped); n > 0 {
			a.Printf("; dropped %d unreadable E12 matrices: run `cgraph reembed --slot E12` to compute them again", n)
		}
		a.Printf("\n")
	}
	if l := r.Links; l.Changed() {
		a.Printf("repair: dropped %d earlier revisions and %d relation keys of memories that no longer exist; wrote back %d missing relation mirrors; set %d valid-until times from the supersedes relations\n",
			l.DroppedHistory, l.DroppedRelations, l.Mirrored, l.Validity)
	}
}
