package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// Exit codes of Execute.
const (
	ExitOK    = 0 // the command did what was asked
	ExitError = 1 // the command failed (store, I/O, unknown id, some bulk lines refused)
	ExitUsage = 2 // bad flags, arguments or input values: nothing was done
	// ExitInterrupted and ExitTerminated: stopped by SIGINT or SIGTERM (128
	// + the signal, as shells report it); what was acknowledged before the
	// signal is stored.
	ExitInterrupted = 130
	ExitTerminated  = 143
)

// App is the state one run of the command line shares between its commands:
// the streams and the global flags. Commands get it from register and must
// write only through it (never os.Stdout), so tests can run them in-process.
// An App serves one Execute call and is not safe for concurrent use.
type App struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	DBDir     string // --db, default $CGRAPH_DB, else $XDG_DATA_HOME/cgraph/default (~/.local/share/cgraph/default)
	JSON      bool   // --json: stdout is exactly one JSON value
	ReadOnly  bool   // --read-only: open the store beside a writer; writes are refused
	ModelsDir string // --models-dir, default $CGRAPH_MODELS, else $XDG_CACHE_HOME/cgraph/models
	Device    string // --device cpu|cuda (default cpu)
	Precision string // --precision default|fp32|int8: the model weights (default: int8 e5/bge on the CPU, fp32 on cuda)
	Project   string // --project, default $CGRAPH_PROJECT, else "" (the default project)

	// showingHistory is set by get --history: printMemory then does not
	// point at --history.
	showingHistory bool

	// MaxContentBytes bounds a memory's content (add --max-content-bytes);
	// 0 means record.DefaultMaxContentBytes.
	MaxContentBytes int

	// isTerminal says whether w is an interactive terminal (progress bars
	// are drawn only there). Tests leave the default, which is false for
	// anything but a terminal *os.File.
	isTerminal func(s any) bool

	// afterFlush, when set by a test, runs after each batch add --jsonl
	// stores.
	afterFlush func()
	// skipLines is add --jsonl --skip-lines: lines an earlier run stored.
	skipLines int
	// allowDuplicate is add --allow-duplicate, for --jsonl lines.
	allowDuplicate bool

	ctx         context.Context
	wroteStdout bool // PrintJSON has written the one JSON value

	// registryClosers releases the models of each open engine.Engine
	// (store.go: openStoreWith adds, closeStore calls and removes).
	registryClosers map[*engine.Engine]func() error
}

// UsageError is bad flags, arguments or input values: the command did
// nothing. Execute exits with ExitUsage for it (and for
// *record.ValidationError); every other error exits with ExitError.
type UsageError struct {
	Problem string // what was wrong, e.g. `unknown command "ad"`
	Fix     string // how to fix it, e.g. "did you mean add?"
}

func (e *UsageError) Error() string {
	if e.Fix == "" {
		return e.Problem
	}
	return e.Problem + ": " + e.Fix
}

// usagef builds a *UsageError with a formatted problem.
func usagef(fix, format string, args ...any) error {
	return &UsageError{Problem: fmt.Sprintf(format, args...), Fix: fix}
}

func init() {
	// Run the root's checks of the global flags also for commands that
	// have their own PersistentPreRunE.
	cobra.EnableTraverseRunHooks = true
}

var (
	buildersMu sync.Mutex
	builders   []func(*App) *cobra.Command
)

// register adds a command to every run of the command line. Call it from an
// init function in the command's file: func init() { register(newXCmd) }.
// build is called once per Execute with that run's App.
func register(build func(*App) *cobra.Command) {
	buildersMu.Lock()
	defer buildersMu.Unlock()
	builders = append(builders, build)
}

// Context is the run's context: cancelled on SIGINT/SIGTERM in the real
// binary. Long commands check it between units of work.
func (a *App) Context() context.Context {
	if a.ctx == nil {
		return context.Background()
	}
	return a.ctx
}

// OpenRecords opens the store in a.DBDir for records only: no model is
// loaded and no index built (engine.Options without Embedders). write says
// the command writes: then the store is opened for writing (taking its
// lock) and --read-only is refused with a usage error. A command that only
// reads opens the store read-only, so it works beside a running writer. The
// caller must Close the engine and report Close's error.
func (a *App) OpenRecords(write bool) (*engine.Engine, error) {
	if write && a.ReadOnly {
		return nil, &UsageError{Problem: "--read-only was given but this command writes to the store", Fix: "drop --read-only"}
	}
	red, err := redactor()
	if err != nil {
		return nil, err
	}
	return engine.Open(a.DBDir, engine.Options{ReadOnly: !write, MaxContentBytes: a.MaxContentBytes, Redactor: red})
}

// closeEngine closes e and joins Close's error to *err, so no error is lost
// in a defer.
func closeEngine(e *engine.Engine, err *error) {
	if cerr := e.Close(); cerr != nil {
		*err = errors.Join(*err, fmt.Errorf("close store %s: %w", e.Dir(), cerr))
	}
}

// PrintJSON writes v as one indented JSON value and a newline on Stdout. A
// command calls it at most once per run.
func (a *App) PrintJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JSON output: %w", err)
	}
	a.wroteStdout = true
	if _, err := a.Stdout.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Printf writes human output on Stdout. It writes nothing with --json, so a
// command can print its human form unconditionally beside PrintJSON.
func (a *App) Printf(format string, args ...any) {
	if a.JSON {
		return
	}
	fmt.Fprintf(a.Stdout, format, args...)
}

// Warnf writes a note on Stderr ("cgraph: ..."), in both output modes.
func (a *App) Warnf(format string, args ...any) {
	fmt.Fprintf(a.Stderr, "cgraph: "+format+"\n", args...)
}

// defaultDBDir is $CGRAPH_DB, else $XDG_DATA_HOME/cgraph/default, else
// ~/.local/share/cgraph/default.
func defaultDBDir(getenv func(string) string) string {
	if d := getenv("CGRAPH_DB"); d != "" {
		return d
	}
	return filepath.Join(xdgDir(getenv, "XDG_DATA_HOME", ".local/share"), "cgraph", "default")
}

// defaultModelsDir is $CGRAPH_MODELS, else $XDG_CACHE_HOME/cgraph/models,
// else ~/.cache/cgraph/models.
func defaultModelsDir(getenv func(string) string) string {
	if d := getenv("CGRAPH_MODELS"); d != "" {
		return d
	}
	return filepath.Join(xdgDir(getenv, "XDG_CACHE_HOME", ".cache"), "cgraph", "models")
}

// xdgDir returns $env when it is absolute (the XDG spec says relative values
// are ignored), else $HOME/fallback.
func xdgDir(getenv func(string) string, env, fallback string) string {
	if d := getenv(env); filepath.IsAbs(d) {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir() // "" falls back to a relative path, which the error of Open then names
	}
	return filepath.Join(home, fallback)
}

// Execute runs the command line args (without the program name) and returns
// the exit code: ExitOK, ExitError or ExitUsage. Errors are printed on
// stderr as "cgraph: <what was wrong>: <how to fix it>". It stops long
// commands on the first SIGINT/SIGTERM; a second one kills the process.
func Execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, sigterm)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs) // restore the default action for the next signal
			cancel(&signalError{sig})
		case <-ctx.Done():
		}
	}()
	return ExecuteContext(ctx, args, stdin, stdout, stderr)
}

// signalError is the cause of a run's context cancelled by a signal.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "stopped by " + e.sig.String() }

// interruptCode is the exit code of a command a signal stopped: 128 + the
// signal's number, as shells report it (130 for SIGINT, 143 for SIGTERM).
func interruptCode(ctx context.Context) int {
	var se *signalError
	if errors.As(context.Cause(ctx), &se) && se.sig == sigterm {
		return ExitTerminated
	}
	return ExitInterrupted
}

// ExecuteContext is Execute with a caller's context and no signal handling.
func ExecuteContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &App{Stdin: stdin, Stdout: stdout, Stderr: stderr, ctx: ctx, isTerminal: terminalCheck}
	return a.execute(ctx, args, os.Getenv)
}

// execute runs args with a, printing an error as ExecuteContext documents.
func (a *App) execute(ctx context.Context, args []string, getenv func(string) string) int {
	root := newRoot(a, getenv)
	root.SetArgs(args)
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		code = interruptCode(ctx)
	}
	msg := errorMessage(err)
	fmt.Fprintf(a.Stderr, "cgraph: %s\n", msg)
	if (a.JSON || asksJSON(args)) && !a.wroteStdout {
		// --json promises one JSON value on stdout, also on failure, and
		// also when a flag before it failed to parse (cobra then never set it).
		_ = a.PrintJSON(map[string]any{"error": map[string]any{"message": msg, "exit_code": code}}) // the error is already on stderr
	}
	return code
}

// asksJSON reports whether the command line has --json before any "--".
func asksJSON(args []string) bool {
	for _, t := range args {
		switch t {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}

// exitCode maps an error to ExitUsage (bad input, nothing done) or ExitError.
func exitCode(err error) int {
	var ue *UsageError
	var ve *record.ValidationError
	if errors.As(err, &ue) || errors.As(err, &ve) {
		return ExitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}

// exitError carries an exit code for an error already explained to the
// user (e.g. bulk lines that failed, each reported on stderr).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// errorMessage adds how to fix the engine's sentinel errors, whose own text
// says only what was wrong.
func errorMessage(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, record.ErrNotFound):
		return msg + ": see the store's ids with `cgraph list`"
	case errors.Is(err, record.ErrReadOnly):
		return msg + ": drop --read-only to write"
	case errors.Is(err, record.ErrCorrupt) && !strings.Contains(msg, "cgraph "):
		return msg + ": run `cgraph check` to see what is damaged; `cgraph check --repair` rebuilds what can be derived again, else restore the store from a copy (cgraph backup)"
	}
	return msg
}

// newRoot builds the command tree for one run: the global flags and every
// registered command.
// versionString is engine.Version (make build stamps the commit into it)
// and the Go toolchain's VCS stamp when the binary carries one.
func versionString() string {
	if c := bench.ReadBuildCommit(); c.Revision != "" {
		return engine.Version + ", " + c.String()
	}
	return engine.Version
}

func newRoot(a *App, getenv func(string) string) *cobra.Command {
	root := &cobra.Command{
		Use:   "cgraph",
		Short: "cgraph keeps and retrieves the memory of AI coding assistants",
		Long: `cgraph keeps memories (decisions, errors and fixes, code, conversation turns,
notes) in a local RocksDB store and retrieves them.

The store is the directory --db (default $CGRAPH_DB, else $XDG_DATA_HOME/cgraph/default).
Create it with "cgraph init" (--samples adds bundled example memories).
--json makes stdout exactly one JSON value. Exit codes: 0 done, 1 failed, 2 bad usage or input,
130/143 stopped by SIGINT/SIGTERM.`,
		Version:                    versionString(),
		SilenceErrors:              true,
		SilenceUsage:               true,
		SuggestionsMinimumDistance: 2,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			fix := "run `cgraph --help` to see the commands"
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				fix = "did you mean " + strings.Join(s, " or ") + "?"
			}
			return usagef(fix, "unknown command %q", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			switch a.Device {
			case "cpu", "cuda":
			default:
				return usagef("use --device cpu or --device cuda", "--device %q is not a device", a.Device)
			}
			switch a.Precision {
			case "default", "fp32", "int8":
			default:
				return usagef("use --precision default, fp32 or int8", "--precision %q is not a weight precision", a.Precision)
			}
			if a.DBDir == "" {
				return usagef("give --db a directory, or set $CGRAPH_DB", "--db is empty")
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &UsageError{Problem: err.Error(), Fix: fmt.Sprintf("see `%s --help`", cmd.CommandPath())}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.DBDir, "db", defaultDBDir(getenv), "store directory ($CGRAPH_DB, else $XDG_DATA_HOME/cgraph/default)")
	pf.BoolVar(&a.JSON, "json", false, "print exactly one JSON value on stdout")
	pf.BoolVar(&a.ReadOnly, "read-only", false, "open the store read-only, beside a running writer")
	pf.StringVar(&a.ModelsDir, "models-dir", defaultModelsDir(getenv), "model directory ($CGRAPH_MODELS, else $XDG_CACHE_HOME/cgraph/models)")
	pf.StringVar(&a.Device, "device", "cpu", "where models run: cpu or cuda")
	pf.StringVar(&a.Precision, "precision", "default", "model weights: default (int8 e5/bge on the CPU, fp32 on cuda), fp32 or int8; a store keeps the weights it was built with")
	pf.StringVar(&a.Project, "project", getenv("CGRAPH_PROJECT"), "the project (namespace) memories are stored in and searched ($CGRAPH_PROJECT, else the default project)")
	_ = root.RegisterFlagCompletionFunc("device", cobra.FixedCompletions([]string{"cpu", "cuda"}, cobra.ShellCompDirectiveNoFileComp))                // fails only for an unknown flag
	_ = root.RegisterFlagCompletionFunc("precision", cobra.FixedCompletions([]string{"default", "fp32", "int8"}, cobra.ShellCompDirectiveNoFileComp)) // fails only for an unknown flag
	_ = root.MarkPersistentFlagDirname("db")                                                                                                          // fails only for an unknown flag
	_ = root.MarkPersistentFlagDirname("models-dir")                                                                                                  // fails only for an unknown flag

	buildersMu.Lock()
	bs := append([]func(*App) *cobra.Command(nil), builders...)
	buildersMu.Unlock()
	for _, b := range bs {
		root.AddCommand(b(a))
	}
	return root
}

// noArgs refuses positional arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef(fmt.Sprintf("see `%s --help`", cmd.CommandPath()), "%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// exactArgs refuses any number of positional arguments but n, naming what
// is expected.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef(fmt.Sprintf("usage: %s", cmd.UseLine()), "%s needs %s, got %d arguments", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}
