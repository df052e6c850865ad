package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// defaultDBDir is $CGRAPH_DB, else $XDG_DATA_HOME/cgraph/default, else
// ~/.local/share/cgraph/default.
func defaultDBDir(getenv func(string) string) string {
	if d := getenv("CGRAPH_DB"); d != "" {
		return d
	}
	return filepath.Join(app.XDGDir(getenv, "XDG_DATA_HOME", ".local/share"), "cgraph", "default")
}

// defaultModelsDir is $CGRAPH_MODELS, else $XDG_CACHE_HOME/cgraph/models,
// else ~/.cache/cgraph/models.
func defaultModelsDir(getenv func(string) string) string {
	if d := getenv("CGRAPH_MODELS"); d != "" {
		return d
	}
	return filepath.Join(app.XDGDir(getenv, "XDG_CACHE_HOME", ".cache"), "cgraph", "models")
}

// Exit codes of Execute (app's, named here for cmd/cgraph and scripts).
const (
	ExitOK          = app.ExitOK          // the command did what was asked
	ExitError       = app.ExitError       // the command failed
	ExitUsage       = app.ExitUsage       // bad flags, arguments or input values: nothing was done
	ExitInterrupted = app.ExitInterrupted // stopped by SIGINT
	ExitTerminated  = app.ExitTerminated  // stopped by SIGTERM
)

// UsageError is bad flags, arguments or input values (app.UsageError):
// Execute exits with ExitUsage for it.
type UsageError = app.UsageError

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
	a := &app.App{Stdin: stdin, Stdout: stdout, Stderr: stderr, Ctx: ctx, IsTerminal: app.TerminalCheck}
	return execute(a, ctx, args, os.Getenv)
}

// execute runs args with a, printing an error as ExecuteContext documents.
func execute(a *app.App, ctx context.Context, args []string, getenv func(string) string) int {
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
	if (a.JSON || asksJSON(args)) && !a.WroteStdout() {
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
	var ue *app.UsageError
	var ve *record.ValidationError
	if errors.As(err, &ue) || errors.As(err, &ve) {
		return ExitUsage
	}
	var ee *app.ExitCodeError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitError
}

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

func newRoot(a *app.App, getenv func(string) string) *cobra.Command {
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
			return app.Usagef(fix, "unknown command %q", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			switch a.Device {
			case "cpu", "cuda":
			default:
				return app.Usagef("use --device cpu or --device cuda", "--device %q is not a device", a.Device)
			}
			switch a.Precision {
			case "default", "fp32", "int8":
			case "fp16":
				if a.Device != "cuda" {
					return app.Usagef("use --device cuda with --precision fp16 (run `make setup-cuda-fp16` once), or --precision fp32 or the default on the CPU", "--precision fp16 runs on cuda only")
				}
			default:
				return app.Usagef("use --precision default, fp32, int8, or fp16 (cuda only)", "--precision %q is not a weight precision", a.Precision)
			}
			if a.DBDir == "" {
				return app.Usagef("give --db a directory, or set $CGRAPH_DB", "--db is empty")
			}
			if _, err := engine.ParseFusion(a.Fusion); err != nil {
				return app.Usagef("set CGRAPH_FUSION to rrf or minmax, or unset it", "$CGRAPH_FUSION: %v", err)
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &app.UsageError{Problem: err.Error(), Fix: fmt.Sprintf("see `%s --help`", cmd.CommandPath())}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.DBDir, "db", defaultDBDir(getenv), "store directory ($CGRAPH_DB, else $XDG_DATA_HOME/cgraph/default)")
	pf.BoolVar(&a.JSON, "json", false, "print exactly one JSON value on stdout")
	pf.BoolVar(&a.ReadOnly, "read-only", false, "open the store read-only, beside a running writer")
	pf.StringVar(&a.ModelsDir, "models-dir", defaultModelsDir(getenv), "model directory ($CGRAPH_MODELS, else $XDG_CACHE_HOME/cgraph/models)")
	pf.StringVar(&a.Device, "device", "cpu", "where models run: cpu or cuda")
	pf.StringVar(&a.Precision, "precision", "default", "model weights: default (int8 e5/bge on the CPU, fp32 on cuda), fp32, int8, or fp16 (cuda only: run 'make setup-cuda-fp16' once); a store keeps the weights it was built with")
	a.Fusion = getenv("CGRAPH_FUSION")
	pf.StringVar(&a.Project, "project", getenv("CGRAPH_PROJECT"), "the project (namespace) memories are stored in and searched ($CGRAPH_PROJECT, else the default project)")
	_ = root.RegisterFlagCompletionFunc("device", cobra.FixedCompletions([]string{"cpu", "cuda"}, cobra.ShellCompDirectiveNoFileComp))                // fails only for an unknown flag
	_ = root.RegisterFlagCompletionFunc("precision", cobra.FixedCompletions([]string{"default", "fp32", "int8"}, cobra.ShellCompDirectiveNoFileComp)) // fails only for an unknown flag
	_ = root.MarkPersistentFlagDirname("db")                                                                                                          // fails only for an unknown flag
	_ = root.MarkPersistentFlagDirname("models-dir")                                                                                                  // fails only for an unknown flag

	root.AddCommand(app.Commands(a)...)
	return root
}
