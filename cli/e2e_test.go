package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// cgraphBinary builds cmd/cgraph once per test run (TestMain removes it).
func cgraphBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cgraph-cli-e2e-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "cgraph")
		if out, err := exec.Command("go", "build", "-o", binPath, "../cmd/cgraph").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// TestBinaryEndToEnd builds the real cgraph binary and runs init, add, get
// and list through os/exec, as a user or script would; then, with the
// installed models, init --samples and searches over them.
func TestBinaryEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	dir := t.TempDir()
	bin := cgraphBinary(t)
	db := filepath.Join(dir, "store")
	cg := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		if args[0] != "--db" {
			args = append([]string{"--db", db}, args...)
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("run %v: %v", args, err)
		}
		return out.String(), errb.String(), code
	}
	if _, stderr, code := cg("", "init"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	out, stderr, code := cg("", "add", "the build needs librocksdb-dev 7.8.3", "--type", "fact", "--tag", "build")
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, stderr)
	}
	id := strings.TrimSpace(out)
	out, _, code = cg("", "--json", "get", id)
	var m memoryJSON
	if err := json.Unmarshal([]byte(out), &m); err != nil || code != 0 {
		t.Fatalf("get: exit %d, %v: %s", code, err, out)
	}
	if m.ID.String() != id || m.Content != "the build needs librocksdb-dev 7.8.3" || m.Type != "fact" || len(m.Tags) != 1 {
		t.Fatalf("get returned %+v", m)
	}
	// A unique prefix of the id, as printed (here its first 8 hex digits), finds it too.
	out, _, code = cg("", "--json", "get", id[:8])
	var byPrefix memoryJSON
	if err := json.Unmarshal([]byte(out), &byPrefix); err != nil || code != 0 || byPrefix.ID.String() != id {
		t.Fatalf("get by prefix %s: exit %d, %v: %s", id[:8], code, err, out)
	}
	out, _, code = cg("{\"content\":\"second\"}\nnot json\n", "--json", "add", "--jsonl", "-")
	var res bulkResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 || res.Added != 1 || res.Failed != 1 || res.Errors[0].Line != 2 {
		t.Fatalf("bulk: exit %d, %+v, %v", code, res, err)
	}
	out, _, code = cg("", "list")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, id) || !strings.Contains(out, "second") {
		t.Fatalf("list: exit %d:\n%s", code, out)
	}
	if _, stderr, code = cg("", "get", "nope"); code != 2 || !strings.HasPrefix(stderr, "cgraph: id: ") {
		t.Fatalf("bad id: exit %d, stderr %q", code, stderr)
	}

	// The main job: the samples embedded with the real models, then searched.
	models := realModelsDir(t)
	samples := filepath.Join(dir, "samples")
	if _, stderr, code := cg("", "--db", samples, "--models-dir", models, "init", "--samples"); code != 0 {
		t.Fatalf("init --samples: exit %d: %s", code, stderr)
	}
	out, stderr, code = cg("", "--db", samples, "--models-dir", models, "--json", "search", "why did the build fail", "--profile", "causal_reasoning", "--explain")
	var sr searchOut
	if err := json.Unmarshal([]byte(out), &sr); err != nil || code != 0 {
		t.Fatalf("search: exit %d, %v, stderr %s:\n%s", code, err, stderr, out)
	}
	if len(sr.Results) == 0 || sr.Profile != "causal_reasoning" || len(sr.Trace) == 0 || len(sr.Spaces) == 0 {
		t.Fatalf("search returned %+v", sr)
	}
	top3 := ""
	for _, r := range sr.Results[:min(3, len(sr.Results))] {
		top3 += r.Content + "\n"
	}
	if !strings.Contains(top3, "go build fails") {
		t.Errorf("the build-failure memory is not in the top 3:\n%s", top3)
	}
	out, stderr, code = cg("", "--db", samples, "--models-dir", models, "search", "rocksdb column family handle", "--mode", "pipeline", "--profile", "pipeline_full", "--explain")
	if code != 0 || !strings.Contains(out, "mode pipeline") || !strings.Contains(out, "S4 rerank") || !strings.Contains(out, "  1. WRRF ") {
		t.Fatalf("pipeline search: exit %d, stderr %s:\n%s", code, stderr, out)
	}
	if _, stderr, code = cg("", "--db", samples, "--models-dir", models, "search", "x", "--profile", "nope"); code != 2 || !strings.Contains(stderr, "causal_reasoning") {
		t.Fatalf("bad profile: exit %d, stderr %q", code, stderr)
	}
}
