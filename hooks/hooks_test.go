package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func TestProjectOf(t *testing.T) {
	root := filepath.Join(t.TempDir(), "My Repo.v2")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cwd, want string }{
		{deep, "my-repo.v2"},
		{root, "my-repo.v2"},
		{"", ""},
	} {
		if got := ProjectOf(c.cwd); got != c.want {
			t.Errorf("ProjectOf(%q) = %q, want %q", c.cwd, got, c.want)
		}
	}
}

// TestFileOncePerSession: a touched file surfaces only the hits that name
// it, at most FileTopK, and a second touch of the same file in the same
// session surfaces nothing and does not search again; a tool that does
// not touch a file searches nothing. (The end-to-end run against a real
// server and models is cli's TestHooksEndToEnd.)
func TestFileOncePerSession(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	hit := func(content, source string) ops.SearchHit {
		return ops.SearchHit{ID: record.NewID(), Content: content, Memory: ops.HitMemory{Type: record.TypeError, Source: source}}
	}
	ans := ops.SearchAnswer{Results: []ops.SearchHit{
		hit("nil map in store.go when opening", ""),
		hit("unrelated memory", ""),
		hit("fixed", "/repo/cli/store.go"),
		hit("store.go again", ""),
		hit("store.go a fourth", ""),
	}}
	searches := 0
	search := func(req engine.SearchRequest) (ops.SearchAnswer, error) {
		searches++
		if req.Query != "cli/store.go" || req.Filter.Project != "p" {
			t.Errorf("searched %q in project %q, want cli/store.go in p", req.Query, req.Filter.Project)
		}
		return ans, nil
	}
	ev := Input{SessionID: "s1", CWD: "/repo", ToolName: "Read", ToolInput: map[string]any{"file_path": "/repo/cli/store.go"}}
	text, err := File(ev, "p", search)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "cgraph remembers about cli/store.go:\n") || strings.Count(text, "\n- ") != FileTopK || strings.Contains(text, "unrelated") {
		t.Errorf("first touch:\n%s", text)
	}
	if text, err = File(ev, "p", search); err != nil || text != "" || searches != 1 {
		t.Errorf("second touch: %q, %v after %d searches, want nothing after 1", text, err, searches)
	}
	if text, err = File(Input{SessionID: "s1", ToolName: "Bash", ToolInput: map[string]any{"file_path": "x.go"}}, "p", search); err != nil || text != "" || searches != 1 {
		t.Errorf("a tool that touches no file: %q, %v after %d searches", text, err, searches)
	}
}

// TestAnswer: the context a hook adds is Claude Code's JSON shape.
func TestAnswer(t *testing.T) {
	raw, err := json.Marshal(Answer("SessionStart", "ctx"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}`; string(raw) != want {
		t.Errorf("got %s, want %s", raw, want)
	}
}

// FuzzParseInput: any bytes either decode to an event or are refused with
// the reason; decoding never panics, and blank input is an empty event.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{"", "  \n", `{"session_id":"a","cwd":"/x","tool_input":{"file_path":"y"}}`, `{"prompt":1}`, "[", "null"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ev, err := ParseInput(raw)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "the event is not JSON") {
				t.Errorf("error %q does not say what was wrong", err)
			}
			return
		}
		if strings.TrimSpace(string(raw)) == "" && (ev.SessionID != "" || ev.ToolInput != nil) {
			t.Errorf("blank input gave %+v", ev)
		}
	})
}
