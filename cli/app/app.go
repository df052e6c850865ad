package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/engine"
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
// the streams and the global flags. Commands get it from Register and must
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
	Precision string // --precision default|fp32|int8|fp16: the model weights (default: int8 e5/bge on the CPU, fp32 on cuda; fp16 cuda only)
	Project   string // --project, default $CGRAPH_PROJECT, else "" (the default project)
	// Fusion is $CGRAPH_FUSION: the fusion of every search the engines this
	// run opens make without naming one (engine.Options.Fusion), so that
	// `cgraph mcp`, `serve`, hooks and `context` take it too. "" is the
	// engine's default (WRRF); the root command refuses a bad value.
	Fusion string

	// ShowingHistory is set by get --history: printMemory then does not
	// point at --history.
	ShowingHistory bool

	// MaxContentBytes bounds a memory's content (add --max-content-bytes);
	// 0 means record.DefaultMaxContentBytes.
	MaxContentBytes int

	// IsTerminal says whether w is an interactive terminal (progress bars
	// are drawn only there). Tests leave the default, which is false for
	// anything but a terminal *os.File.
	IsTerminal func(s any) bool

	// AfterFlush, when set by a test, runs after each batch add --jsonl
	// stores.
	AfterFlush func()
	// SkipLines is add --jsonl --skip-lines: lines an earlier run stored.
	SkipLines int
	// AllowDuplicate is add --allow-duplicate, for --jsonl lines.
	AllowDuplicate bool

	Ctx         context.Context // the run's context (Context); nil: context.Background
	wroteStdout bool            // PrintJSON has written the one JSON value

	// registryClosers releases the models of each open engine.Engine
	// (store.go: OpenStoreWith adds, CloseStore calls and removes).
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

// Usagef builds a *UsageError with a formatted problem.
func Usagef(fix, format string, args ...any) error {
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

// Register adds a command to every run of the command line. Call it from an
// init function in the command's file: func init() { Register(newXCmd) }.
// build is called once per Execute with that run's App.
func Register(build func(*App) *cobra.Command) {
	buildersMu.Lock()
	defer buildersMu.Unlock()
	builders = append(builders, build)
}

// Commands builds every registered command for a's run, in the order
// they registered (the root adds them; help lists them sorted).
func Commands(a *App) []*cobra.Command {
	buildersMu.Lock()
	bs := append([]func(*App) *cobra.Command(nil), builders...)
	buildersMu.Unlock()
	out := make([]*cobra.Command, len(bs))
	for i, b := range bs {
		out[i] = b(a)
	}
	return out
}

// Context is the run's context: cancelled on SIGINT/SIGTERM in the real
// binary. Long commands check it between units of work.
func (a *App) Context() context.Context {
	if a.Ctx == nil {
		return context.Background()
	}
	return a.Ctx
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
	red, err := Redactor()
	if err != nil {
		return nil, err
	}
	return engine.Open(a.DBDir, engine.Options{ReadOnly: !write, MaxContentBytes: a.MaxContentBytes, Redactor: red, Fusion: a.FusionChoice()})
}

// CloseEngine closes e and joins Close's error to *err, so no error is lost
// in a defer.
func CloseEngine(e *engine.Engine, err *error) {
	if cerr := e.Close(); cerr != nil {
		*err = errors.Join(*err, fmt.Errorf("close store %s: %w", e.Dir(), cerr))
	}
}

// WroteStdout reports whether PrintJSON has written the run's one JSON
// value, so Execute knows whether a failure may still print its own.
func (a *App) WroteStdout() bool { return a.wroteStdout }

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

// XDGDir returns $env when it is absolute (the XDG spec says relative values
// are ignored), else $HOME/fallback.
func XDGDir(getenv func(string) string, env, fallback string) string {
	if d := getenv(env); filepath.IsAbs(d) {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir() // "" falls back to a relative path, which the error of open then names
	}
	return filepath.Join(home, fallback)
}

// ExitCodeError carries an exit code for an error already explained to the
// user (e.g. bulk lines that failed, each reported on stderr).
type ExitCodeError struct {
	Code int
	Msg  string
}

func (e *ExitCodeError) Error() string { return e.Msg }

// NoArgs refuses positional arguments with a usage error.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef(fmt.Sprintf("see `%s --help`", cmd.CommandPath()), "%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// ExactArgs refuses any number of positional arguments but n, naming what
// is expected.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return Usagef(fmt.Sprintf("usage: %s", cmd.UseLine()), "%s needs %s, got %d arguments", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// FusionChoice is Fusion parsed (the root command has checked it; a bad
// value here is the engine's default).
func (a *App) FusionChoice() engine.Fusion {
	f, err := engine.ParseFusion(a.Fusion)
	if err != nil {
		return engine.FusionDefault
	}
	return f
}
