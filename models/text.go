package models

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// HumanBytes is n in the largest binary unit it reaches (B, KiB, MiB,
// GiB), as the model commands print sizes.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Status is l's state as `cgraph models list` prints it: installed, needs
// hub or not installed, marked (default) for the default set.
func (l Listing) Status() string {
	status := "not installed"
	switch {
	case l.Installed:
		status = "installed"
	case l.NeedsHub:
		status = "needs hub"
	}
	if l.Default {
		status += " (default)"
	}
	return status
}

// WriteListings writes ls as the table of `cgraph models list`: id,
// slots, task, dimensions, the pinned files' total size ("?" when the
// manifest pins none) and status.
func WriteListings(w io.Writer, ls []Listing) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSLOTS\tTASK\tDIMS\tSIZE\tSTATUS")
	for _, l := range ls {
		var size int64
		for _, f := range l.Files {
			size += f.Size
		}
		sz := "?"
		if size > 0 {
			sz = HumanBytes(size)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", l.ID, strings.Join(l.Slots, ","), l.Task, l.Dims, sz, l.Status())
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// WriteChecks writes the findings of Verify as the table of `cgraph
// models verify`.
func WriteChecks(w io.Writer, checks []FileCheck) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tFILE\tSTATUS\tSIZE")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Model, c.File, c.Status, HumanBytes(c.Size))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Line is r as `cgraph models pull` says it: failed, already installed,
// or the files it installed.
func (r Result) Line() string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("%s: FAILED", r.Model)
	case len(r.Installed) == 0:
		return fmt.Sprintf("%s: already installed", r.Model)
	}
	return fmt.Sprintf("%s: installed %s", r.Model, strings.Join(r.Installed, ", "))
}

// Line is e as `cgraph models pull` reports it on stderr: a download
// (its first event; on a terminal a progress bar draws the bytes
// instead), a registry fetch, an install, a failure; "" for the phases
// it does not report (extract, convert, present).
func (e Event) Line() string {
	key := string(e.Model) + "/" + e.File
	switch e.Phase {
	case PhaseDownload:
		return fmt.Sprintf("downloading %s from %s", key, e.Source)
	case PhaseRegistry:
		return fmt.Sprintf("fetching %s (registry client)", e.Source)
	case PhaseInstalled:
		return fmt.Sprintf("installed %s (%s) from %s", key, HumanBytes(e.Total), e.Source)
	case PhaseFailed:
		return fmt.Sprintf("%s: %s failed: %v", key, e.Source, e.Err)
	}
	return ""
}
