package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStoreMemoryCallsKeepFilesBounded stores memories one MCP call at a
// time through one `cgraph mcp` session running under `ulimit -n 256`, and
// counts the store's table files as it goes. CGRAPH_MCP_STORE_CALLS sets the
// number of calls (default 40; the figure is 2,000, see
// scripts/store_files.sh) and CGRAPH_MCP_STORE_DB an existing store to use.
func TestStoreMemoryCallsKeepFilesBounded(t *testing.T) {
	calls := 40
	if s := os.Getenv("CGRAPH_MCP_STORE_CALLS"); s != "" {
		var err error
		if calls, err = strconv.Atoi(s); err != nil {
			t.Fatalf("CGRAPH_MCP_STORE_CALLS=%q: %v", s, err)
		}
	}
	e := newE2E(t)
	if db := os.Getenv("CGRAPH_MCP_STORE_DB"); db != "" {
		e.db = db
	}
	cmd := exec.Command("sh", "-c", `ulimit -n 256 && exec "$0" "$@"`, e.bin, "--db", e.db, "mcp")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cgraph-store-files", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	cancel()
	if err != nil {
		t.Fatalf("connect to cgraph mcp under ulimit -n 256: %v", err)
	}
	var curve []string
	peak := 0
	start := time.Now()
	for i := range calls {
		r := call(t, cs, "store_memory", map[string]any{
			"content": fmt.Sprintf("Decision %d: keep table files bounded; store memory %d of the MCP session (%s)", i, i, strings.Repeat("detail ", i%40)),
			"type":    "decision", "session": "mcp-files"})
		if r.isError {
			t.Fatalf("store_memory %d: %s", i, r.text)
		}
		if (i+1)%max(calls/10, 1) == 0 {
			n := countTables(t, e.db)
			peak = max(peak, n)
			curve = append(curve, fmt.Sprintf("%d:%d", i+1, n))
		}
	}
	elapsed := time.Since(start)
	if err := cs.Close(); err != nil {
		t.Fatalf("close the session: %v", err)
	}
	n := countTables(t, e.db)
	t.Logf("%d store_memory calls in %v (%.1f ms each); table files after N calls (N:files): %s; after close %d",
		calls, elapsed.Round(time.Millisecond), float64(elapsed.Milliseconds())/float64(calls), strings.Join(curve, " "), n)
	const bound = 6 * 22 // engine's maxTableFiles: 6 sorted runs per family
	if peak > bound || n > bound {
		t.Fatalf("peak %d, final %d table files; bound %d", peak, n, bound)
	}
	out, err := e.command("--json", "check").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"ok": true`) {
		t.Fatalf("check after the session: %v\n%s", err, out)
	}
}

func countTables(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}
