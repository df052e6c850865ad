package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/mcpserver"
)

// TestServeEndToEnd starts the real binary's `cgraph serve` on a random
// loopback port, writes memories over the HTTP API from two clients, sends
// SIGTERM in the middle of the writes, and checks that every memory the
// server acknowledged (201) is in the store afterwards and that the store
// opens cleanly.
func TestServeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := cgraphBinary(t)
	db := initStore(t, bin)
	// Off loopback without a token is refused before anything is opened.
	if out, err := exec.Command(bin, "--db", db, "serve", "--addr", "0.0.0.0:0").CombinedOutput(); err == nil || !strings.Contains(string(out), "--token-file") {
		t.Fatalf("serve on 0.0.0.0 without a token: %v %s", err, out)
	}

	base, srv := startServe(t, bin, db)

	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id, ok := storeOverHTTP(base, fmt.Sprintf("writer %d memory %d", w, i))
				if !ok {
					return // the server stopped
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		}()
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d memories acknowledged in a minute", n)
		}
	}
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v (want a clean exit)", err)
	}
	wg.Wait()

	out, err := exec.Command(bin, "--db", db, "--json", "list", "--limit", "100000").Output()
	if err != nil {
		t.Fatalf("list after the server stopped: %v", err)
	}
	var listed []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		t.Fatalf("list: %v %s", err, out)
	}
	have := map[string]bool{}
	for _, m := range listed {
		have[m.ID] = true
	}
	for _, id := range acked {
		if !have[id] {
			t.Errorf("acknowledged memory %s is not in the store", id)
		}
	}
	t.Logf("%d acknowledged, %d stored", len(acked), len(listed))
}

// TestSignalExitCodes: a bulk add stopped by SIGINT exits 130, by SIGTERM
// 143; either way the lines it read are stored and it names the line to
// resume after, which matches what the store holds.
func TestSignalExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := cgraphBinary(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, ExitInterrupted}, {syscall.SIGTERM, ExitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			db := initStore(t, bin)
			cmd := exec.Command(bin, "--db", db, "add", "--jsonl", "-")
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				fmt.Fprintf(in, "{\"content\": \"line %d\"}\n", i+1)
			}
			time.Sleep(time.Second) // let it read and store them (it stores after 200 ms of quiet); stdin stays open
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Fatalf("exit: %v, want code %d; stderr %s", err, c.code, stderr.String())
			}
			m := regexp.MustCompile(`resume with --skip-lines (\d+)`).FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("stderr names no line to resume after: %s", stderr.String())
			}
			out, err := exec.Command(bin, "--db", db, "--json", "stats").Output()
			if err != nil {
				t.Fatal(err)
			}
			var st statsJSON
			if err := json.Unmarshal(out, &st); err != nil || fmt.Sprint(st.Memories) != m[1] {
				t.Fatalf("store holds %d memories, the message says %s were read: %v", st.Memories, m[1], err)
			}
		})
	}
}

// BenchmarkCLISearch runs `cgraph search` as a separate process, as a hook
// would, on the bundled samples with the installed models: "local" opens
// the store and loads the models itself (CGRAPH_NO_SERVER=1), "served" finds
// the running `cgraph serve` of the store and lets it search. Same run, same
// query; the ratio is the point.
//
//	go test ./cli -run '^$' -bench CLISearch -benchtime 10x
func BenchmarkCLISearch(b *testing.B) {
	models := realModelsDir(b)
	bin := cgraphBinary(b)
	db := filepath.Join(b.TempDir(), "store")
	if out, err := exec.Command(bin, "--db", db, "--models-dir", models, "init", "--samples").CombinedOutput(); err != nil {
		b.Fatalf("init --samples: %v %s", err, out)
	}
	_, srv := startServeArgs(b, bin, "--db", db, "--models-dir", models, "serve", "--addr", "127.0.0.1:0")
	defer func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() }()
	for _, mode := range []string{"local", "served"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bin, "--db", db, "search", "why does the process abort when the tests finish")
				cmd.Env = append(os.Environ(), "CGRAPH_MODELS="+models)
				if mode == "local" {
					cmd.Env = append(cmd.Env, "CGRAPH_NO_SERVER=1")
				}
				if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "abort") {
					b.Fatalf("search: %v %s", err, out)
				}
			}
		})
	}
}

// TestMCPRelaysToTheServer: with a cgraph serve on the store, a stdio
// `cgraph mcp` (driven by the real MCP client) relays to it: its writes
// land in the server's store — a local cgraph mcp beside the writer would
// be read-only and refuse them — and its searches see the server's memories.
func TestMCPRelaysToTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := cgraphBinary(t)
	db := initStore(t, bin)
	base, srv := startServe(t, bin, db)
	defer func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() }()
	if _, ok := storeOverHTTP(base, "stored over HTTP: the CI image lacks librocksdb-dev"); !ok {
		t.Fatal("store over HTTP")
	}
	ctx := t.Context()
	cmd := exec.Command(bin, "--db", db, "mcp")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "relay-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v; cgraph mcp said: %s", err, stderr.String())
	}
	defer cs.Close()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil || len(lt.Tools) != len(mcpserver.Tools()) {
		t.Fatalf("tools/list through the relay: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "stored over MCP through the relay"}})
	if err != nil || res.IsError {
		t.Fatalf("store_memory through the relay: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_by_keywords", Arguments: map[string]any{"query": "librocksdb-dev"}})
	if err != nil || res.IsError || !strings.Contains(fmt.Sprint(res.StructuredContent), "stored over HTTP") {
		t.Fatalf("search through the relay: %v %+v", err, res)
	}
	resp, err := http.Get(base + "/v1/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Data struct {
			Memories int `json:"memories"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.Data.Memories != 2 {
		t.Fatalf("the server holds %d memories (%v), want 2", st.Data.Memories, err)
	}

	// With --project the relayed session is pinned to it by the server: its
	// store lands there and its searches stay there.
	pcmd := exec.Command(bin, "--db", db, "mcp", "--project", "alpha")
	var pstderr strings.Builder
	pcmd.Stderr = &pstderr
	ps, err := mcp.NewClient(&mcp.Implementation{Name: "relay-project-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: pcmd}, nil)
	if err != nil {
		t.Fatalf("%v; cgraph mcp --project said: %s", err, pstderr.String())
	}
	defer ps.Close()
	res, err = ps.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "alpha note through the relay"}})
	if err != nil || res.IsError {
		t.Fatalf("store_memory through the pinned relay: %v %+v; stderr %s", err, res, pstderr.String())
	}
	res, err = ps.CallTool(ctx, &mcp.CallToolParams{Name: "search_by_keywords", Arguments: map[string]any{"query": "relay"}})
	got := fmt.Sprint(res.StructuredContent)
	if err != nil || res.IsError || !strings.Contains(got, "alpha note") || strings.Contains(got, "stored over MCP") {
		t.Fatalf("search through the pinned relay: %v %s", err, got)
	}
	if !strings.Contains(pstderr.String(), "relaying") {
		t.Fatalf("cgraph mcp --project served locally: %s", pstderr.String())
	}
}
