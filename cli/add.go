package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newAddCmd) }

// addFlags are add's per-memory flags and input choices.
type addFlags struct {
	typ, source, session, createdAt string
	tags, meta                      []string
	importance                      float64
	file, jsonl                     string
	skipLines                       int
	allowDuplicate, supersede       bool
	onConflict                      string
	deferSlots                      bool
}

func newAddCmd(a *app.App) *cobra.Command {
	var f addFlags
	cmd := &cobra.Command{
		Use:   "add [TEXT | -]",
		Short: "Store a memory (text, --file, stdin) or many (--jsonl)",
		Long: `Store one memory from TEXT, from --file F, or from stdin ("-"), and print its id.

With --jsonl F (or --jsonl - for stdin) store one memory per line:
  {"content": "...", "type": "decision", "tags": ["db"], "session": "s1",
   "source": "chat", "created_at": "2026-01-02T15:04:05Z", "importance": 0.8}
Only "content" is required; other fields are refused. A bad line is reported
with its line number and skipped; the others are stored, each atomically.
The exit code is 1 when any line was refused. An interrupted run (Ctrl-C:
exit 130; SIGTERM: 143) has stored every line it read and says how many:
resume with --skip-lines N.`,
		Example: `  cgraph add "use RocksDB column families per embedder: one atomic batch per memory" --type decision --tag storage
  git log -1 --format=%B | cgraph add - --type note --source git
  cgraph add --jsonl memories.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return app.Usagef(`quote the text: cgraph add "several words"`, "add takes one TEXT argument, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.jsonl != "" {
				return runAddJSONL(a, cmd, f, args)
			}
			return runAddOne(a, cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.typ, "type", "", "memory type: "+typeList()+" (default note)")
	fl.StringArrayVar(&f.tags, "tag", nil, "a tag (repeat for several)")
	fl.StringArrayVar(&f.meta, "meta", nil, "metadata key=value, filterable with search --meta (repeat for several)")
	fl.StringVar(&f.source, "source", "", "where the memory came from (file, URL, tool)")
	fl.StringVar(&f.session, "session", "", "session id; the memory gets the next sequence number in it")
	fl.Float64Var(&f.importance, "importance", 0.5, "importance from 0 to 1")
	fl.StringVar(&f.createdAt, "created-at", "", "creation time, RFC 3339 (default now)")
	fl.StringVar(&f.file, "file", "", "read the content from this file")
	fl.StringVar(&f.jsonl, "jsonl", "", "store one memory per line of this JSONL file (- for stdin)")
	fl.StringVar(&f.onConflict, "on-conflict", "", "what to do with stored memories the new one contradicts or updates: report (keep the pair as an open contradiction: search badges it, maintain --contradictions lists it), or supersede-newer (mark them superseded by it); default report, or the policy of the serve that writes")
	fl.BoolVar(&f.supersede, "supersede", false, "mark the near-duplicates found (every space agreeing) as superseded by the new memory")
	fl.BoolVar(&f.allowDuplicate, "allow-duplicate", false, "store the memory even if the store already holds the same content (by default its id is returned instead)")
	fl.BoolVar(&f.deferSlots, "defer", false, "with --jsonl: store every line with E1, keywords and the model-free slots first (searchable at once), then fill the other model slots")
	fl.IntVar(&f.skipLines, "skip-lines", 0, "with --jsonl: skip the first N lines (resume an interrupted run)")
	fl.IntVar(&a.MaxContentBytes, "max-content-bytes", record.DefaultMaxContentBytes, "refuse content longer than this many bytes")
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(typeNames(), cobra.ShellCompDirectiveNoFileComp)) // fails only for an unknown flag
	_ = cmd.MarkFlagFilename("jsonl", "jsonl", "json")                                                                  // fails only for an unknown flag
	return cmd
}

func typeNames() []string {
	var s []string
	for _, t := range record.Types() {
		s = append(s, string(t))
	}
	return s
}

func typeList() string { return strings.Join(typeNames(), ", ") }

// runAddOne stores one memory from TEXT, --file or stdin.
func runAddOne(a *app.App, cmd *cobra.Command, f addFlags, args []string) (err error) {
	if a.MaxContentBytes <= 0 {
		return app.Usagef("give a positive number of bytes", "--max-content-bytes %d is not positive", a.MaxContentBytes)
	}
	content, err := readContent(a, f, args)
	if err != nil {
		return err
	}
	n, err := newMemoryFromFlags(cmd, f, content)
	if err != nil {
		return err
	}
	n.Project = a.Project
	if err := n.Validate(a.MaxContentBytes); err != nil {
		return err
	}
	s, err := a.OpenStore(true)
	if err != nil {
		return err
	}
	defer a.CloseStore(s, &err)
	m, err := s.Add(a.Context(), n)
	if err != nil {
		return fmt.Errorf("add memory: %w", err)
	}
	if m.Duplicate {
		a.Warnf("already stored as %s (the same content): nothing added; --allow-duplicate stores a second copy", m.ID)
	}
	for _, sim := range m.Similar {
		if sim.Superseded {
			a.Warnf("%s: %s", sim.ID, sim.Decision)
		} else if sim.Near {
			a.Warnf("%s: %s (--supersede would mark it superseded by this one)", sim.ID, sim.Decision)
		}
	}
	for _, c := range m.Contradicts {
		if c.Superseded {
			a.Warnf("%s: %s", c.ID, c.Reason)
		} else {
			a.Warnf("%s: %s (kept as an open contradiction: `cgraph link %s %s --type supersedes` resolves it; --on-conflict supersede-newer would have marked it superseded by this one)", c.ID, c.Reason, m.ID, c.ID)
		}
	}
	if a.JSON {
		out := map[string]any{"id": m.ID}
		if len(m.Contradicts) > 0 {
			out["contradicts"] = m.Contradicts
		}
		if m.Duplicate {
			out["duplicate_of"] = m.ID
		}
		if len(m.Similar) > 0 {
			out["similar"] = m.Similar
		}
		return a.PrintJSON(out)
	}
	a.Printf("%s\n", m.ID)
	return nil
}

// readContent takes the content from exactly one of TEXT, "-" (stdin) and
// --file, reading at most the content limit plus one byte.
func readContent(a *app.App, f addFlags, args []string) (string, error) {
	switch {
	case len(args) == 1 && f.file != "":
		return "", app.Usagef("drop TEXT or --file", "add got both TEXT and --file")
	case len(args) == 0 && f.file == "":
		return "", app.Usagef(`give the text (cgraph add "TEXT"), - for stdin, --file F, or --jsonl F`, "add needs something to store")
	case f.file != "":
		fh, err := os.Open(f.file)
		if err != nil {
			return "", &app.UsageError{Problem: fmt.Sprintf("--file: %v", err), Fix: "give a readable file"}
		}
		defer fh.Close() // read-only: a close error loses nothing
		if err := notDir(fh, "--file"); err != nil {
			return "", err
		}
		return readLimited(a, fh, "--file "+f.file)
	case args[0] == "-":
		stdinHint(a)
		return readLimited(a, a.Stdin, "stdin")
	}
	return args[0], nil
}

// notDir refuses a directory given where a file is wanted.
func notDir(fh *os.File, flag string) error {
	if fi, err := fh.Stat(); err == nil && fi.IsDir() {
		return app.Usagef("give a file, not a directory", "%s %s is a directory", flag, fh.Name())
	}
	return nil
}

// stdinHint tells a user typing at a terminal how to end the input.
func stdinHint(a *app.App) {
	if a.IsTerminal != nil && a.IsTerminal(a.Stdin) {
		a.Warnf("reading stdin: end with Ctrl-D on a line of its own")
	}
}

// readLimited reads r up to the content limit; what says where r came from.
// One trailing newline (as echo and editors add) is dropped.
func readLimited(a *app.App, r io.Reader, what string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(a.MaxContentBytes)+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", what, err)
	}
	if len(b) > a.MaxContentBytes {
		return "", &record.ValidationError{Field: "content", Problem: fmt.Sprintf("%s is over the limit of %d bytes", what, a.MaxContentBytes),
			Fix: "split it into smaller memories or raise --max-content-bytes"}
	}
	s := strings.TrimSuffix(string(b), "\n")
	return strings.TrimSuffix(s, "\r"), nil
}

// newMemoryFromFlags builds the memory add's flags describe.
func newMemoryFromFlags(cmd *cobra.Command, f addFlags, content string) (record.NewMemory, error) {
	n := record.NewMemory{Content: content, Tags: f.tags, Source: f.source, Session: f.session, Importance: f.importance, AllowDuplicate: f.allowDuplicate, Supersede: f.supersede}
	var err error
	if n.OnConflict, err = record.ParseConflictPolicy(f.onConflict); err != nil {
		return n, &app.UsageError{Problem: "--on-conflict: " + err.Error(), Fix: "give report or supersede-newer"}
	}
	if f.typ != "" {
		t, err := record.ParseType(f.typ)
		if err != nil {
			return n, err
		}
		n.Type = t
	}
	t, err := record.ParseCreatedAt(f.createdAt)
	if err != nil {
		var ve *record.ValidationError
		errors.As(err, &ve)
		return n, app.Usagef(ve.Fix, "--created-at: %s", ve.Problem)
	}
	n.CreatedAt = t
	if n.Meta, err = record.ParseMeta(f.meta); err != nil {
		return n, &app.UsageError{Problem: "--meta: " + err.Error(), Fix: "write --meta key=value"}
	}
	if cmd.Flags().Changed("importance") && f.importance == 0 {
		return n, app.Usagef("give a small positive number such as 0.01; 0 means the default 0.5 in this store version", "--importance 0 cannot be stored")
	}
	return n, nil
}
