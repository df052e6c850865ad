package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/hooks"
)

// hookRun runs the real binary's `cgraph hook HOST EVENT` with the event of
// testdata/hooks/HOST/EVENT.json (CWD and TRANSCRIPT filled in) on stdin.
func hookRun(t *testing.T, bin, db, host, event, cwd, transcript string) (stdout string, code int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hooks", host, event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	payload := strings.NewReplacer("CWD", cwd, "TRANSCRIPT", transcript).Replace(string(raw))
	return hookRunRaw(t, bin, db, host, event, payload)
}

func hookRunRaw(t *testing.T, bin, db, host, event, payload string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, "--db", db, "hook", host, event)
	cmd.Stdin = strings.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if errb.Len() > 0 {
		t.Errorf("hook %s %s wrote to stderr: %s", host, event, errb.String())
	}
	return out.String(), code
}

// additional is the context a hook's answer adds, "" when it printed none.
func additional(t *testing.T, stdout string) string {
	t.Helper()
	if strings.TrimSpace(stdout) == "" {
		return ""
	}
	var out hooks.Output
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("hook output is not the host's JSON: %v\n%s", err, stdout)
	}
	return out.HookSpecificOutput.AdditionalContext
}

// TestHooksEndToEnd drives `cgraph hook` with a real Claude Code payload of
// every event against a real `cgraph serve` with the installed models: the
// session start briefs the project, a prompt gets only the memories that
// match it strongly and never one twice, a read file surfaces what the
// store knows of it once, Stop and SessionEnd queue the transcript and the
// drain ingests it through the server; events cgraph does not use print
// nothing, and a broken event exits 0 with a line in the hooks log.
func TestHooksEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads the models; skipped with -short")
	}
	bin := cgraphBinary(t)
	t.Setenv("CGRAPH_MODELS", realModelsDir(t))
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("CGRAPH_HOOK_NO_DRAIN", "1")
	t.Setenv("CGRAPH_NO_SERVER", "")
	work := filepath.Join(t.TempDir(), "Shop-API")
	if err := os.MkdirAll(filepath.Join(work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(work, "engine")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	db := initStore(t, bin)
	for _, m := range []struct{ typ, text string }{
		{"preference", "The user wants table-driven tests and gofmt on every file"},
		{"decision", "Pin github.com/linxGnu/grocksdb at v1.7.15: librocksdb-dev 7.8.3 lacks the C functions newer releases link against"},
		{"error", "engine/write.go: AddBatch panicked with a nil fingerprint when E4 was deferred; fixed by refusing to defer E4"},
		{"note", "Lunch is at noon on Fridays"},
	} {
		if out, err := exec.Command(bin, "--db", db, "--project", "shop-api", "add", m.text, "--type", m.typ).CombinedOutput(); err != nil {
			t.Fatalf("add: %v %s", err, out)
		}
	}
	base, _ := startServe(t, bin, db)
	t.Logf("serve at %s", base)
	transcript := filepath.Join(t.TempDir(), "5d7f0c2e-9a41-4b8e-a1f3-2c6e8b9d0a17.jsonl")
	fixture, err := filepath.Glob("../capture/extract/testdata/transcripts/*.jsonl")
	if err != nil || len(fixture) == 0 {
		t.Fatalf("no transcript fixture: %v", err)
	}
	body, err := os.ReadFile(fixture[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, body, 0o600); err != nil {
		t.Fatal(err)
	}

	out, code := hookRun(t, bin, db, "claude-code", "SessionStart", cwd, transcript)
	brief := additional(t, out)
	if code != 0 || !strings.Contains(brief, "table-driven tests") || !strings.Contains(brief, "grocksdb at v1.7.15") || strings.Contains(brief, "Lunch") {
		t.Fatalf("SessionStart: exit %d\n%s", code, brief)
	}
	out, _ = hookRun(t, bin, db, "claude-code", "UserPromptSubmit", cwd, transcript)
	prompt := additional(t, out)
	if !strings.Contains(prompt, "grocksdb") || strings.Contains(prompt, "Lunch") {
		t.Fatalf("UserPromptSubmit injected:\n%s", prompt)
	}
	if out, _ = hookRun(t, bin, db, "claude-code", "UserPromptSubmit", cwd, transcript); strings.Contains(additional(t, out), "grocksdb") {
		t.Fatalf("the same memory was injected twice in one session:\n%s", out)
	}
	off := `{"session_id": "other", "cwd": "` + cwd + `", "hook_event_name": "UserPromptSubmit", "prompt": "how do I bake sourdough bread with a rye starter"}`
	if out, _ := hookRunRaw(t, bin, db, "claude-code", "UserPromptSubmit", off); additional(t, out) != "" {
		t.Fatalf("an off-topic prompt got memories:\n%s", out)
	}
	out, _ = hookRun(t, bin, db, "claude-code", "PostToolUse", cwd, transcript)
	if file := additional(t, out); !strings.Contains(file, "AddBatch panicked") || !strings.Contains(file, "write.go") {
		t.Fatalf("PostToolUse Read engine/write.go:\n%s", out)
	}
	if out, _ = hookRun(t, bin, db, "claude-code", "PostToolUse", cwd, transcript); additional(t, out) != "" {
		t.Fatalf("the file's memories were surfaced twice:\n%s", out)
	}
	for _, ev := range []string{"PreToolUse", "Notification"} {
		if out, code := hookRun(t, bin, db, "claude-code", ev, cwd, transcript); out != "" || code != 0 {
			t.Fatalf("%s: exit %d %q", ev, code, out)
		}
	}
	for _, ev := range []string{"Stop", "PreCompact", "SubagentStop", "SessionEnd"} {
		if out, code := hookRun(t, bin, db, "claude-code", ev, cwd, transcript); out != "" || code != 0 {
			t.Fatalf("%s: exit %d %q", ev, code, out)
		}
	}
	queued, _ := filepath.Glob(filepath.Join(state, "cgraph", "capture-queue", "*.json"))
	if len(queued) != 1 {
		t.Fatalf("queue holds %d entries, want the one transcript", len(queued))
	}
	if raw, _ := os.ReadFile(queued[0]); !strings.Contains(string(raw), `"final":true`) || !strings.Contains(string(raw), `"project":"shop-api"`) {
		t.Fatalf("queue entry %s", raw)
	}
	if out, code := hookRunRaw(t, bin, db, "claude-code", "drain", ""); out != "" || code != 0 {
		t.Fatalf("drain: exit %d %q", code, out)
	}
	if left, _ := filepath.Glob(filepath.Join(state, "cgraph", "capture-queue", "*.json")); len(left) != 0 {
		log, _ := os.ReadFile(filepath.Join(state, "cgraph", "hooks.log"))
		t.Fatalf("the drain left %d entries; hooks.log:\n%s", len(left), log)
	}
	var first struct {
		SessionID string `json:"sessionId"`
	}
	for _, line := range strings.Split(string(body), "\n") {
		if json.Unmarshal([]byte(line), &first) == nil && first.SessionID != "" {
			break
		}
	}
	resp, err := exec.Command(bin, "--db", db, "--json", "search", "tests", "--project", "shop-api", "--in-session", first.SessionID, "--top-k", "3").Output()
	if err != nil || !strings.Contains(string(resp), `"id"`) {
		t.Fatalf("the ingested session is not searchable: %v %s", err, resp)
	}

	for _, ev := range []string{"beforeSubmitPrompt", "afterFileEdit", "stop"} {
		if out, code := hookRun(t, bin, db, "cursor", ev, cwd, transcript); code != 0 || strings.TrimSpace(out) != `{"continue":true}` && !strings.Contains(out, `"continue": true`) {
			t.Fatalf("cursor %s: exit %d %q", ev, code, out)
		}
	}
	if out, code := hookRunRaw(t, bin, db, "claude-code", "SessionStart", "{not json"); out != "" || code != 0 {
		t.Fatalf("a broken event: exit %d %q", code, out)
	}
	log, err := os.ReadFile(filepath.Join(state, "cgraph", "hooks.log"))
	if err != nil || !strings.Contains(string(log), "SessionStart: the event is not JSON") {
		t.Fatalf("hooks.log: %v\n%s", err, log)
	}
}
