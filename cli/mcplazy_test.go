package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioMCPAnswersBeforeTheStoreOpens: a stdio `cgraph mcp` answers the
// handshake and tools/list without the store — shown with a --db that holds
// a file where the store should be, which a store open refuses — and a
// tool call then answers with the open's error rather than hanging; on a
// real store the first tool call waits for it and works.
func TestStdioMCPAnswersBeforeTheStoreOpens(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := cgraphBinary(t)
	bad := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(bad, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	cmd := exec.Command(bin, "--db", bad, "mcp")
	cmd.Env = append(os.Environ(), "CGRAPH_NO_SERVER=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lazy-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize without a store: %v", err)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil || len(lt.Tools) == 0 {
		t.Fatalf("tools/list without a store: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memory", Arguments: map[string]any{"query": "anything"}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "not a directory") {
		t.Fatalf("a tool call on a store that did not open: %v %s", err, toolText(res))
	}
	cs.Close()

	db := initStore(t, bin)
	cmd = exec.Command(bin, "--db", db, "mcp")
	cmd.Env = append(os.Environ(), "CGRAPH_NO_SERVER=1")
	cs, err = mcp.NewClient(&mcp.Implementation{Name: "lazy-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "stored while the store opened lazily"}})
	if err != nil || res.IsError {
		t.Fatalf("store_memory on the lazily opened store: %v %s", err, toolText(res))
	}
}

// toolText is a tool answer's text content.
func toolText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
