package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/hookstate"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() { register(newHookCmd) }

// Hook budgets and floors.
const (
	// hookPromptFloor is the relevance (engine.RelevanceEvidence, calibrated
	// on the development sets with off-topic queries) a memory must reach
	// to be injected for a prompt: the engine's floor, which answers
	// "nothing relevant" to ≥ 90% of off-topic queries while keeping the
	// relevant top hit of ≥ 98% of the others (docs/BENCHMARKS.md,
	// "Relevance"). It replaces a raw E1 cosine floor of 0.84.
	hookPromptFloor = engine.RelevanceFloor
	hookPromptTopK  = 5
	// hookFileTopK bounds the memories surfaced for one touched file.
	hookFileTopK = 3
	// hookMaxInput bounds the event read from stdin.
	hookMaxInput = 8 << 20
)

// hookInput is the JSON a host sends on a hook's stdin: Claude Code's
// fields (session_id, transcript_path, cwd, hook_event_name and the
// event's own), and Cursor's where they differ.
type hookInput struct {
	SessionID      string         `json:"session_id"`
	TranscriptPath string         `json:"transcript_path"`
	CWD            string         `json:"cwd"`
	Event          string         `json:"hook_event_name"`
	Source         string         `json:"source"` // SessionStart: startup, resume, clear, compact
	Prompt         string         `json:"prompt"` // UserPromptSubmit; Cursor beforeSubmitPrompt
	ToolName       string         `json:"tool_name"`
	ToolInput      map[string]any `json:"tool_input"`
	Reason         string         `json:"reason"` // SessionEnd
	// Cursor.
	ConversationID string   `json:"conversation_id"`
	FilePath       string   `json:"file_path"`
	WorkspaceRoots []string `json:"workspace_roots"`
}

// hookOutput is what a Claude Code hook prints to add context.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func newHookCmd(a *App) *cobra.Command {
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
			if err := a.hook(cmd, args[0], args[1], budget); err != nil {
				hookstate.Logf("%s %s: %v", args[0], args[1], err)
			}
			return nil // never fail the agent
		},
	}
	cmd.Flags().IntVar(&budget, "budget", ops.DefaultBriefBudget, "tokens of context a session start may add")
	return cmd
}

// hook handles one event; its error is logged, never returned to the host.
func (a *App) hook(cmd *cobra.Command, host, event string, budget int) error {
	if host == "claude-code" && isCaptureDrain(event) {
		return a.drainCaptures(cmd)
	}
	raw, err := io.ReadAll(io.LimitReader(a.Stdin, hookMaxInput))
	if err != nil {
		return fmt.Errorf("read the event: %w", err)
	}
	var ev hookInput
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("the event is not JSON: %w", err)
		}
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
		project = projectOf(ev.CWD)
	}
	var text string
	switch event {
	case "SessionStart":
		text, err = a.hookBrief(cmd, project, budget)
	case "UserPromptSubmit":
		text, err = a.hookPrompt(cmd, ev, project)
	case "PostToolUse":
		text, err = a.hookFile(cmd, ev, project)
	case "Stop", "PreCompact", "SessionEnd", "SubagentStop":
		return a.hookCapture(ev, project, event == "SessionEnd")
	default:
		return nil // an event cgraph does not use
	}
	if err != nil || text == "" {
		return err
	}
	var out hookOutput
	out.HookSpecificOutput.HookEventName = event
	out.HookSpecificOutput.AdditionalContext = text
	return a.PrintJSON(out)
}

// hookBrief is a session start's context: ops.Brief through the server
// when one runs, else over the store's records (no model is loaded).
func (a *App) hookBrief(cmd *cobra.Command, project string, budget int) (string, error) {
	req := ops.BriefRequest{Project: project, Budget: budget}
	var ans ops.ContextAnswer
	if srv, ok := a.server(cmd); ok {
		err := srv.post(a.Context(), "/v1/brief", map[string]any{"project": project, "budget": budget}, &ans)
		if err == nil {
			return briefText(ans), nil
		}
		if !errors.Is(err, errNoServer) {
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
	req.Tokens = a.tokenCounter()
	if ans, err = ops.Brief(a.Context(), e, req); err != nil {
		return "", err
	}
	return briefText(ans), nil
}

func briefText(ans ops.ContextAnswer) string {
	if len(ans.Items) == 0 {
		return ""
	}
	return "Memories cgraph keeps for this project (cite them by their [n]; `cgraph get ID` reads one whole):\n\n" + ans.Markdown
}

// hookPrompt is the memories a prompt matches strongly, none shown before
// in the session.
func (a *App) hookPrompt(cmd *cobra.Command, ev hookInput, project string) (string, error) {
	if strings.TrimSpace(ev.Prompt) == "" {
		return "", nil
	}
	p, err := engine.LookupProfile("")
	if err != nil {
		return "", err
	}
	q := ev.Prompt
	if len(q) > 2048 {
		q = q[:2048] // the opening of a long prompt says what it is about
	}
	ans, err := a.search(cmd, engine.SearchRequest{Query: q, Profile: p, Mode: engine.ModeMultiSpace, TopK: hookPromptTopK,
		Filter: record.Filter{Project: project}, MinRelevance: hookPromptFloor})
	if err != nil {
		return "", err
	}
	shown := hookstate.Load(ev.SessionID)
	var lines []string
	for _, h := range ans.Results {
		if h.Relevance < hookPromptFloor || shown.Has(h.ID) { // a server that predates MinRelevance answers every hit
			continue
		}
		shown.Add(h.ID)
		lines = append(lines, hookLine(h))
	}
	if len(lines) == 0 {
		return "", nil
	}
	if err := shown.Save(); err != nil {
		hookstate.Logf("claude-code UserPromptSubmit: remember what was shown: %v", err)
	}
	return "Memories that may matter for this prompt (from cgraph):\n" + strings.Join(lines, "\n"), nil
}

// hookFile is what the store knows of a file just read or edited: errors,
// decisions and fixes that name it, once per file and session.
func (a *App) hookFile(cmd *cobra.Command, ev hookInput, project string) (string, error) {
	if !slices.Contains([]string{"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"}, ev.ToolName) {
		return "", nil
	}
	path, _ := ev.ToolInput["file_path"].(string)
	if path == "" {
		path, _ = ev.ToolInput["notebook_path"].(string)
	}
	if path == "" {
		return "", nil
	}
	rel := path
	if ev.CWD != "" {
		if r, err := filepath.Rel(ev.CWD, path); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
	}
	shown := hookstate.Load(ev.SessionID)
	if shown.HasFile(rel) {
		return "", nil
	}
	p, err := engine.LookupProfile("")
	if err != nil {
		return "", err
	}
	ans, err := a.search(cmd, engine.SearchRequest{Query: rel, Profile: p, Mode: engine.ModeEmbedderFirst, Embedder: engine.E6, TopK: 20,
		Filter: record.Filter{Project: project, Types: []record.Type{record.TypeError, record.TypeDecision, record.TypeNote, record.TypeFact}}})
	if err != nil {
		return "", err
	}
	shown.AddFile(rel)
	base := filepath.Base(rel)
	var lines []string
	for _, h := range ans.Results {
		if len(lines) == hookFileTopK {
			break
		}
		if shown.Has(h.ID) || !strings.Contains(h.Content, base) && !strings.Contains(h.Memory.Source, base) {
			continue
		}
		shown.Add(h.ID)
		lines = append(lines, hookLine(h))
	}
	if err := shown.Save(); err != nil {
		hookstate.Logf("claude-code PostToolUse: remember what was shown: %v", err)
	}
	if len(lines) == 0 {
		return "", nil
	}
	return fmt.Sprintf("cgraph remembers about %s:\n%s", rel, strings.Join(lines, "\n")), nil
}

// hookLine is one injected memory: type, date, id and its text cut at a
// line or sentence boundary.
func hookLine(h ops.SearchHit) string {
	return fmt.Sprintf("- %s %s (%s): %s", h.Memory.Type, h.Memory.CreatedAt.Format("2006-01-02"), h.ID, ops.Snippet(h.Content, 400))
}

// projectOf is the project of a working directory: the name of the git
// root above it (or of the directory itself), made a valid project name;
// "" (the default project) when there is none.
func projectOf(cwd string) string {
	if cwd == "" {
		return ""
	}
	root := cwd
	for dir := cwd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			root = dir
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(root)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	name := strings.Trim(b.String(), "-.")
	if record.CheckProject(name) != nil || name == "" {
		return ""
	}
	return name
}
