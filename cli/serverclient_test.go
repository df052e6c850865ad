package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

// TestCommandsRunOnTheServer: with a server for the store, search and
// context send their typed requests to its /v1 routes and print its
// answers — proved by a --db that holds no store here, where a local run
// would fail — byte for byte what a local run prints; the server's errors
// come back as the command's; a command line that chooses other models runs
// here; /v1/cli (a remote command line) is gone.
func TestCommandsRunOnTheServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	// The server loads the models the CLI would ($CGRAPH_MODELS: none in
	// tests), so both explain their unavailable slots alike.
	reg, closeReg, err := engine.LoadModels(t.Context(), engine.ModelsConfig{ModelsDir: os.Getenv("CGRAPH_MODELS")})
	if err != nil {
		t.Fatal(err)
	}
	defer closeReg()
	e, err := engine.Open(dir, engine.Options{Create: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Add(t.Context(), record.NewMemory{Content: "the nightly build fails when librocksdb-dev is missing"}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(httpapi.Handler(mcpserver.New(e, mcpserver.Options{}), httpapi.Options{Searcher: e}))
	defer hs.Close()
	nowhere := filepath.Join(t.TempDir(), "no-store-here")
	now := time.Now().Add(time.Minute).UTC().Format(time.RFC3339) // one E2/E3 anchor for both runs
	args := [][]string{
		{"search", "librocksdb-dev missing", "--profile", "fact_checking", "--explain", "--now", now},
		{"--json", "search", "librocksdb-dev missing", "--weight", "E6=0.5", "--top-k", "3", "--now", now},
		{"--json", "context", "librocksdb-dev", "--budget", "100"},
	}
	t.Setenv("CGRAPH_SERVER", hs.URL)
	var served []result
	for _, a := range args {
		r := run(t, "", append([]string{"--db", nowhere}, a...)...)
		if r.code != ExitOK || !strings.Contains(r.stdout, "nightly build fails") {
			t.Fatalf("%v via the server: exit %d\n%s\n%s", a, r.code, r.stdout, r.stderr)
		}
		served = append(served, r)
	}
	// The server's errors come back with their exit code and message.
	if r := run(t, "", "--db", nowhere, "context", "x", "--budget", "10"); r.code != ExitUsage || !strings.Contains(r.stderr, "budget") {
		t.Fatalf("a bad budget via the server: exit %d %s", r.code, r.stderr)
	}
	// /v1/cli is gone.
	resp, err := http.Post(hs.URL+"/v1/cli", "application/json", strings.NewReader(`{"args": ["search", "x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/v1/cli: status %d, want 404", resp.StatusCode)
	}
	// --models-dir chooses other models: the command runs here (and finds no store).
	if r := run(t, "", "--db", nowhere, "search", "x", "--models-dir", t.TempDir()); r.code == ExitOK || !strings.Contains(r.stderr, "no store") {
		t.Fatalf("--models-dir ran on the server: exit %d %s", r.code, r.stderr)
	}
	// The same commands run here print the same bytes (timings aside).
	hs.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CGRAPH_SERVER", "")
	for i, a := range args {
		r := run(t, "", append([]string{"--db", dir}, a...)...)
		if r.code != ExitOK || withoutTimes(r.stdout) != withoutTimes(served[i].stdout) {
			t.Errorf("%v here and on the server differ:\nhere:\n%s\nserver:\n%s", a, r.stdout, served[i].stdout)
		}
	}
}

// withoutTimes blanks the figures that differ between two runs of a
// search: milliseconds in JSON and in the human trace.
func withoutTimes(s string) string {
	s = regexp.MustCompile(`"(encode_ms|total_ms|ms)": ?[0-9.e-]+`).ReplaceAllString(s, `"$1":0`)
	s = regexp.MustCompile(`(?m)^(  S[0-9] \S+\s+[0-9]+\s+)[0-9]+\.[0-9]{2}`).ReplaceAllString(s, "${1}0")
	return regexp.MustCompile(`query encoding [0-9.]+ ms, total [0-9.]+ ms`).ReplaceAllString(s, "")
}

// TestServerFile: the discovery file names a live server; a file left by a

// TestCommandsRunOnATokenServer: a server that wants a token runs the
// command for a client that has it ($CGRAPH_TOKEN_FILE); without it the
// command runs here.
func TestCommandsRunOnATokenServer(t *testing.T) {
	e, err := engine.Open(filepath.Join(t.TempDir(), "s"), engine.Options{Create: true, Embedders: modelFreeEmbedders(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Add(t.Context(), record.NewMemory{Content: "served behind a token"}); err != nil {
		t.Fatal(err)
	}
	const token = "0123456789abcdef0123456789"
	hs := httptest.NewServer(httpapi.Handler(mcpserver.New(e, mcpserver.Options{}), httpapi.Options{Token: token, Searcher: e}))
	defer hs.Close()
	t.Setenv("CGRAPH_SERVER", hs.URL)
	nowhere := filepath.Join(t.TempDir(), "no-store-here")
	if r := run(t, "", "--db", nowhere, "search", "served token", "--profile", "fact_checking"); r.code == ExitOK {
		t.Fatalf("ran on the server without the token: %s", r.stdout)
	}
	tf := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tf, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CGRAPH_TOKEN_FILE", tf)
	if r := run(t, "", "--db", nowhere, "search", "served token", "--profile", "fact_checking"); r.code != ExitOK || !strings.Contains(r.stdout, "served behind a token") {
		t.Fatalf("with the token: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
}
