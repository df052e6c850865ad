// Package hooks is what an agent hook event does once its host's JSON is
// read: the project an event belongs to (ProjectOf), the context a session
// start adds (BriefText), the memories a prompt matches strongly (Prompt)
// and what the store knows of a file just read or edited (File), each never
// shown twice in a session (hookstate), and the answer a Claude Code hook
// prints (Answer). It decides what to inject; it does not reach a store or
// a server itself: the face passes the search it has (a running cgraph
// serve or the local store), reads stdin and prints. It must never fail
// the agent: the face logs its errors and prints nothing. The capture
// events (Stop, PreCompact, SessionEnd) queue the transcript through
// capture/queue in the face.
package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/hookstate"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// Hook budgets and floors.
const (
	// PromptFloor is the relevance (engine.RelevanceEvidence, calibrated
	// on the development sets with off-topic queries) a memory must reach
	// to be injected for a prompt: the engine's floor, which answers
	// "nothing relevant" to ≥ 90% of off-topic queries while keeping the
	// relevant top hit of ≥ 98% of the others (docs/BENCHMARKS.md,
	// "Relevance"). It replaces a raw E1 cosine floor of 0.84.
	PromptFloor = engine.RelevanceFloor
	PromptTopK  = 5
	// FileTopK bounds the memories surfaced for one touched file.
	FileTopK = 3
	// MaxInput bounds the event read from stdin.
	MaxInput = 8 << 20
)

// Input is the JSON a host sends on a hook's stdin: Claude Code's
// fields (session_id, transcript_path, cwd, hook_event_name and the
// event's own), and Cursor's where they differ.
type Input struct {
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

// ParseInput decodes an event; empty input is an event with no fields.
func ParseInput(raw []byte) (Input, error) {
	var ev Input
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := json.Unmarshal(raw, &ev); err != nil {
			return Input{}, fmt.Errorf("the event is not JSON: %w", err)
		}
	}
	return ev, nil
}

// Output is what a Claude Code hook prints to add context.
type Output struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Answer is the output that adds text as the event's context.
func Answer(event, text string) Output {
	var out Output
	out.HookSpecificOutput.HookEventName = event
	out.HookSpecificOutput.AdditionalContext = text
	return out
}

// Search is the search a face gives the hooks: through a running server
// when there is one, else over the local store.
type Search func(engine.SearchRequest) (ops.SearchAnswer, error)

// BriefText is a session start's context from ops.Brief's answer, "" when
// it holds nothing.
func BriefText(ans ops.ContextAnswer) string {
	if len(ans.Items) == 0 {
		return ""
	}
	return "Memories cgraph keeps for this project (cite them by their [n]; `cgraph get ID` reads one whole):\n\n" + ans.Markdown
}

// Prompt is the memories a prompt matches strongly, none shown before
// in the session.
func Prompt(ev Input, project string, search Search) (string, error) {
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
	ans, err := search(engine.SearchRequest{Query: q, Profile: p, Mode: engine.ModeMultiSpace, TopK: PromptTopK,
		Filter: record.Filter{Project: project}, MinRelevance: PromptFloor})
	if err != nil {
		return "", err
	}
	shown := hookstate.Load(ev.SessionID)
	var lines []string
	for _, h := range ans.Results {
		if h.Relevance < PromptFloor || shown.Has(h.ID) { // a server that predates MinRelevance answers every hit
			continue
		}
		shown.Add(h.ID)
		lines = append(lines, line(h))
	}
	if len(lines) == 0 {
		return "", nil
	}
	if err := shown.Save(); err != nil {
		hookstate.Logf("claude-code UserPromptSubmit: remember what was shown: %v", err)
	}
	return "Memories that may matter for this prompt (from cgraph):\n" + strings.Join(lines, "\n"), nil
}

// File is what the store knows of a file just read or edited: errors,
// decisions and fixes that name it, once per file and session.
func File(ev Input, project string, search Search) (string, error) {
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
	ans, err := search(engine.SearchRequest{Query: rel, Profile: p, Mode: engine.ModeEmbedderFirst, Embedder: engine.E6, TopK: 20,
		Filter: record.Filter{Project: project, Types: []record.Type{record.TypeError, record.TypeDecision, record.TypeNote, record.TypeFact}}})
	if err != nil {
		return "", err
	}
	shown.AddFile(rel)
	base := filepath.Base(rel)
	var lines []string
	for _, h := range ans.Results {
		if len(lines) == FileTopK {
			break
		}
		if shown.Has(h.ID) || !strings.Contains(h.Content, base) && !strings.Contains(h.Memory.Source, base) {
			continue
		}
		shown.Add(h.ID)
		lines = append(lines, line(h))
	}
	if err := shown.Save(); err != nil {
		hookstate.Logf("claude-code PostToolUse: remember what was shown: %v", err)
	}
	if len(lines) == 0 {
		return "", nil
	}
	return fmt.Sprintf("cgraph remembers about %s:\n%s", rel, strings.Join(lines, "\n")), nil
}

// line is one injected memory: type, date, id and its text cut at a
// line or sentence boundary.
func line(h ops.SearchHit) string {
	return fmt.Sprintf("- %s %s (%s): %s", h.Memory.Type, h.Memory.CreatedAt.Format("2006-01-02"), h.ID, ops.Snippet(h.Content, 400))
}

// GitRoot returns the nearest directory at or above dir holding .git (a
// directory, or a file in a worktree), else dir: a project's root, as the
// hooks name its project and cgraph hooks install finds its settings.
func GitRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// ProjectOf is the project of a working directory: the name of the git
// root above it (or of the directory itself), made a valid project name;
// "" (the default project) when there is none.
func ProjectOf(cwd string) string {
	if cwd == "" {
		return ""
	}
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(GitRoot(cwd))) {
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
