package hookscmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/hooks"
	"github.com/cgraph/cgraph/hookstate"
	"github.com/cgraph/cgraph/ops"
)

func init() { app.Register(newHookCmd) }

func newHookCmd(a *app.App) *cobra.Command {
	var budget int
	cmd := &cobra.Command{
		Use:   "hook HOST EVENT",
		Short: "Handle one agent hook event (stdin: the host's JSON): recall before the agent asks, capture the transcript",
		Long: `hook is what cgraph hooks install puts in an agent's configuration; it reads the host's event
JSON on stdin. HOST is claude-code or cursor; EVENT the host's event name:

  claude-code SessionStart       prints the project's standing knowledge (preferences, decisions,
                                 errors, facts), packed into --budget tokens, as additional context
  claude-code UserPromptSubmit   prints the memories relevant to a prompt (calibrated relevance at or
                                 above the engine's floor), never one already shown in the session;
                                 nothing when none clears
  claude-code PostToolUse        after Read, Edit, Write or MultiEdit of a file: the errors,
                                 decisions and fixes that name the file, once per file and session
  claude-code Stop|PreCompact|SessionEnd
                                 queues the session's transcript and starts its ingestion in the
                                 background (through a running cgraph serve when there is one)
  cursor beforeSubmitPrompt|afterFileEdit|stop
                                 answers {"continue": true}; Cursor's hooks cannot add context

The project is --project, else the name of the git root above the event's cwd. A hook never
blocks or breaks the agent: on any failure it prints nothing, exits 0 and logs one line to
$XDG_STATE_HOME/cgraph/hooks.log (~/.local/state/cgraph/hooks.log).`,
		// A hook must never fail the agent (Claude Code reads exit 2 from
		// UserPromptSubmit as "block the prompt"): wrong arguments and
		// unknown flags are logged, not refused.
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				hookstate.Logf("hook %s: give the host and the event, e.g. cgraph hook claude-code SessionStart", strings.Join(args, " "))
				return nil
			}
			if err := hook(a, cmd, args[0], args[1], budget); err != nil {
				hookstate.Logf("%s %s: %v", args[0], args[1], err)
			}
			return nil // never fail the agent
		},
	}
	cmd.Flags().IntVar(&budget, "budget", ops.DefaultBriefBudget, "tokens of context a session start may add")
	return cmd
}

// hook handles one event; its error is logged, never returned to the host.
func hook(a *app.App, cmd *cobra.Command, host, event string, budget int) error {
	if host == "claude-code" && isCaptureDrain(event) {
		return drainCaptures(a, cmd)
	}
	raw, err := io.ReadAll(io.LimitReader(a.Stdin, hooks.MaxInput))
	if err != nil {
		return fmt.Errorf("read the event: %w", err)
	}
	ev, err := hooks.ParseInput(raw)
	if err != nil {
		return err
	}
	switch host {
	case "cursor":
		return a.PrintJSON(map[string]any{"continue": true}) // Cursor's hooks take no context
	case "claude-code":
	default:
		return fmt.Errorf("unknown host %q: give claude-code or cursor", host)
	}
	project := a.Project
	if project == "" {
		project = hooks.ProjectOf(ev.CWD)
	}
	search := func(req engine.SearchRequest) (ops.SearchAnswer, error) { return a.Search(cmd, req) }
	var text string
	switch event {
	case "SessionStart":
		text, err = hookBrief(a, cmd, project, budget)
	case "UserPromptSubmit":
		text, err = hooks.Prompt(ev, project, search)
	case "PostToolUse":
		text, err = hooks.File(ev, project, search)
	case "Stop", "PreCompact", "SessionEnd", "SubagentStop":
		return hookCapture(a, ev, project, event == "SessionEnd")
	default:
		return nil // an event cgraph does not use
	}
	if err != nil || text == "" {
		return err
	}
	return a.PrintJSON(hooks.Answer(event, text))
}

// hookBrief is a session start's context: ops.Brief through the server
// when one runs, else over the store's records (no model is loaded).
func hookBrief(a *app.App, cmd *cobra.Command, project string, budget int) (string, error) {
	req := ops.BriefRequest{Project: project, Budget: budget}
	var ans ops.ContextAnswer
	if srv, ok := a.Server(cmd); ok {
		err := srv.Post(a.Context(), "/v1/brief", map[string]any{"project": project, "budget": budget}, &ans)
		if err == nil {
			return hooks.BriefText(ans), nil
		}
		if !errors.Is(err, app.ErrNoServer) {
			return "", err
		}
	}
	if _, err := os.Stat(a.DBDir); err != nil {
		return "", nil // no store yet: nothing to brief
	}
	e, err := a.OpenRecords(false)
	if err != nil {
		return "", err
	}
	defer e.Close()
	req.Tokens = a.TokenCounter()
	if ans, err = ops.Brief(a.Context(), e, req); err != nil {
		return "", err
	}
	return hooks.BriefText(ans), nil
}
