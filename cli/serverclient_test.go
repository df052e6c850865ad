package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

// TestCommandsRunOnTheServer: with a server for the store, search and
// context print what the server's run of them printed — proved by a --db
// that holds no store here, where a local run would fail — while a command
// line naming this machine's files runs here, and the server refuses
// anything but the served commands.
func TestCommandsRunOnTheServer(t *testing.T) {
	e, err := engine.Open(filepath.Join(t.TempDir(), "s"), engine.Options{Create: true, Embedders: modelFreeEmbedders(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Add(t.Context(), record.NewMemory{Content: "the nightly build fails when librocksdb-dev is missing"}); err != nil {
		t.Fatal(err)
	}
	server := &App{}
	hs := httptest.NewServer(httpapi.Handler(mcpserver.New(e, mcpserver.Options{}), httpapi.Options{
		Routes: map[string]http.Handler{"POST /v1/cli": server.cliHandler(e)}}))
	defer hs.Close()
	t.Setenv("CGRAPH_SERVER", hs.URL)
	nowhere := filepath.Join(t.TempDir(), "no-store-here")

	r := run(t, "", "--db", nowhere, "search", "librocksdb-dev missing", "--profile", "fact_checking")
	if r.code != ExitOK || !strings.Contains(r.stdout, "nightly build fails") {
		t.Fatalf("search via the server: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "", "--db", nowhere, "--json", "context", "librocksdb-dev", "--budget", "100")
	if r.code != ExitOK || !strings.Contains(r.stdout, `"markdown"`) {
		t.Fatalf("context via the server: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// The server's errors come back with their exit code and message.
	r = run(t, "", "--db", nowhere, "search", "x", "--profile", "nope")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "unknown profile") {
		t.Fatalf("a bad profile via the server: exit %d %s", r.code, r.stderr)
	}
	// --profile-file names a file here: the command runs here (and finds no store).
	pf := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(pf, []byte("name = \"mine\"\n[weights]\nE6 = 1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "", "--db", nowhere, "search", "x", "--profile-file", pf); r.code == ExitOK || !strings.Contains(r.stderr, "no store") {
		t.Fatalf("--profile-file ran on the server: exit %d %s", r.code, r.stderr)
	}
	// The server runs nothing else.
	for _, body := range []string{`{"args": ["add", "x"]}`, `{"args": ["search", "x", "--db", "/etc"]}`, `{"args": ["search", "x", "--models-dir", "/tmp"]}`, `not json`} {
		resp, err := http.Post(hs.URL+"/v1/cli", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", body, resp.StatusCode)
		}
	}
}

// TestServerFile: the discovery file names a live server; a file left by a
// server that died is ignored; removal leaves another server's file alone.
func TestServerFile(t *testing.T) {
	dir := t.TempDir()
	const id = "0190a1b2-0000-4000-8000-000000000001"
	remove, err := writeServerFile(dir, serverInfo{URL: "http://127.0.0.1:1", PID: os.Getpid(), Store: id, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if info, ok := readServerFile(dir); !ok || info.URL != "http://127.0.0.1:1" {
		t.Fatalf("live server not found: %+v", info)
	}
	// A copy of the file in another directory (cp -a of the store) and a
	// file without a store identity are not this store's server.
	other := t.TempDir()
	b, err := os.ReadFile(engine.ServerFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(engine.ServerFile(other), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := readServerFile(other); ok {
		t.Fatal("a discovery file copied into another directory was taken")
	}
	if _, err := writeServerFile(other, serverInfo{URL: "http://127.0.0.1:1", PID: os.Getpid(), Dir: other}); err != nil {
		t.Fatal(err)
	}
	if _, ok := readServerFile(other); ok {
		t.Fatal("a discovery file without a store identity was taken")
	}
	remove()
	if _, ok := readServerFile(dir); ok {
		t.Fatal("the file outlived its server")
	}
	if _, err := writeServerFile(dir, serverInfo{URL: "http://127.0.0.1:2", PID: 1 << 30, Store: id, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, ok := readServerFile(dir); ok {
		t.Fatal("a dead server's file was taken")
	}
}

func TestForwardable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"--db /s search q --profile code_search", "search q --profile code_search", true},
		{"--db=/s --json context q", "--json context q", true},
		{"search q --db /s", "search q", true},
		{"add q", "", false},
		{"search q --profile-file p.toml", "", false},
		{"--models-dir /m search q", "", false},
		{"--read-only search q", "", false},
		{"search -- --db", "", false},
	} {
		got, ok := forwardable(strings.Fields(c.in))
		if ok != c.ok || (ok && strings.Join(got, " ") != c.want) {
			t.Errorf("forwardable(%q) = %q, %v; want %q, %v", c.in, strings.Join(got, " "), ok, c.want, c.ok)
		}
	}
}

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
	server := &App{}
	hs := httptest.NewServer(httpapi.Handler(mcpserver.New(e, mcpserver.Options{}), httpapi.Options{Token: token,
		Routes: map[string]http.Handler{"POST /v1/cli": server.cliHandler(e)}}))
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

// TestTokenFileWarning: a token file others can read is named with its
// mode and the fix; an owner-only one is not.
func TestTokenFileWarning(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		mode os.FileMode
		want string
	}{
		{0o600, ""},
		{0o400, ""},
		{0o644, "can be read by other users (mode 0644): run `chmod 600"},
		{0o640, "(mode 0640)"},
	} {
		p := filepath.Join(dir, c.mode.String())
		if err := os.WriteFile(p, []byte("0123456789abcdef0123\n"), c.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, c.mode); err != nil { // the umask may have narrowed it
			t.Fatal(err)
		}
		got := tokenFileWarning(p)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("mode %04o: %q, want %q", c.mode, got, c.want)
		}
	}
}
