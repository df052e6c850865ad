package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// memoryJSON is the --json form of a memory (get, list and other commands
// that print memories): the one wire form, ops.Memory.
type memoryJSON = ops.Memory

// toJSON converts a stored memory to its --json form.
func toJSON(m record.Memory) memoryJSON { return ops.MemoryOf(m) }

// humanTime is the time format of human output.
const humanTime = "2006-01-02 15:04:05Z07:00"

// printMemory writes the human form of m: a header of fields, a blank line
// and the content.
func printMemory(a *app.App, m record.Memory) {
	a.Printf("id:         %s\n", m.ID)
	a.Printf("type:       %s\n", m.Type)
	if len(m.Tags) > 0 {
		a.Printf("tags:       %s\n", strings.Join(m.Tags, ", "))
	}
	if m.Source != "" {
		a.Printf("source:     %s\n", m.Source)
	}
	if m.Session != "" {
		a.Printf("session:    %s #%d\n", m.Session, m.Sequence)
	}
	a.Printf("created:    %s\n", m.CreatedAt.UTC().Format(humanTime))
	a.Printf("updated:    %s\n", m.UpdatedAt.UTC().Format(humanTime))
	if !m.AccessedAt.IsZero() {
		a.Printf("accessed:   %s (accesses: %d)\n", m.AccessedAt.UTC().Format(humanTime), m.AccessCount)
	}
	a.Printf("importance: %g\n", m.Importance)
	if m.Project != "" {
		a.Printf("project:    %s\n", m.Project)
	}
	for _, k := range slices.Sorted(maps.Keys(m.Meta)) {
		a.Printf("meta:       %s=%s\n", k, m.Meta[k])
	}
	switch {
	case m.Revision > 1 && !a.ShowingHistory:
		a.Printf("revision:   %d (cgraph get %s --history shows the earlier ones)\n", m.Revision, m.ID)
	case m.Revision > 1:
		a.Printf("revision:   %d\n", m.Revision)
	}
	for _, by := range m.SupersededBy {
		a.Printf("superseded: by %s\n", by)
	}
	if !m.ValidUntil.IsZero() {
		a.Printf("valid until: %s (search --as-of an earlier time still finds it)\n", m.ValidUntil.UTC().Format(humanTime))
	}
	for _, by := range m.ContradictedBy {
		a.Printf("contradicted: by %s (open: cgraph maintain --contradictions)\n", by)
	}
	a.Printf("doc:        %d\n\n", m.DocNum)
	a.Printf("%s\n", strings.TrimRight(m.Content, "\n"))
}

// summaryLine is the one-line human form of m used by list: id, creation
// time, type and the start of the content's first line.
func summaryLine(m record.Memory, width int) string {
	first, _, more := strings.Cut(strings.TrimSpace(m.Content), "\n")
	first = strings.Join(strings.Fields(first), " ") // tabs and runs of spaces read as one space
	if r := []rune(first); len(r) > width {
		first, more = string(r[:width-1]), true
	}
	if more {
		first += "…"
	}
	return fmt.Sprintf("%s  %s  %-12s  %s", m.ID, m.CreatedAt.UTC().Format("2006-01-02 15:04"), m.Type, first)
}

// completeIDs completes a memory id argument with the newest ids in the store
// (each described by its summary), for get and delete. It opens the store
// read-only and completes nothing when that fails: completion must not print
// errors into the shell.
func completeIDs(a *app.App) func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		e, err := engine.Open(a.DBDir, engine.Options{ReadOnly: true})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer e.Close() // read-only; nothing to lose on a close error
		ms, err := e.List(cmd.Context(), record.ListOptions{Limit: 50})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, m := range ms {
			if id := m.ID.String(); strings.HasPrefix(id, toComplete) {
				first, _, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
				out = append(out, cobra.CompletionWithDesc(id, string(m.Type)+": "+first))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
