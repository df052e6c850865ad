package mcpserver_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

// connect serves a real store (model-free slots) to an in-memory client.
func connect(t *testing.T, o mcpserver.Options) (*mcp.ClientSession, *engine.Engine) {
	t.Helper()
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(filepath.Join(t.TempDir(), "s"), engine.Options{Create: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	st, ct := mcp.NewInMemoryTransports()
	if _, err := mcpserver.New(e, o).MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, e
}

// TestCoreToolSet: --tools core lists exactly the core tools (at most 8).
func TestCoreToolSet(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{Tools: mcpserver.ToolsCore})
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	want := slices.Clone(mcpserver.CoreTools)
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) || len(names) > 8 {
		t.Fatalf("core tools %v, want %v", names, want)
	}
}

// TestMemoryResourceAndRecallPrompt: memory://ID reads a stored memory
// whole; an unknown id is "not found"; the recall_context prompt packs the
// memories that match the task with their citation handles.
func TestMemoryResourceAndRecallPrompt(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{})
	ctx := context.Background()
	m, err := e.Add(ctx, record.NewMemory{Content: "Decision: RocksDB column families per embedder, one WriteBatch per memory.", Type: "decision", Tags: []string{"storage"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://" + m.ID.String()})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "one WriteBatch per memory") || !strings.Contains(res.Contents[0].Text, "decision · ") {
		t.Fatalf("read memory: %v %+v", err, res)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://0191e0a2-7c3b-7d4e-9f00-1234567890ab"}); err == nil {
		t.Fatal("an absent memory was read")
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "recall_context", Arguments: map[string]string{"task": "WriteBatch column families", "budget": "300"}})
	if err != nil || len(pr.Messages) != 1 {
		t.Fatalf("prompt: %v %+v", err, pr)
	}
	text := pr.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "[1] decision · ") || !strings.Contains(text, "Task: WriteBatch column families") {
		t.Fatalf("prompt text: %s", text)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "recall_context", Arguments: map[string]string{"task": "x", "budget": "lots"}}); err == nil {
		t.Fatal("a non-numeric budget was accepted")
	}
}

// TestStoreMemoryDuplicate: storing a stored text again over MCP returns the
// earlier id with duplicate_of and stores nothing.
func TestStoreMemoryDuplicate(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{})
	ctx := context.Background()
	call := func() map[string]any {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "The CI image lacks librocksdb-dev."}})
		if err != nil || res.IsError {
			t.Fatalf("store_memory: %v %+v", err, res)
		}
		return res.StructuredContent.(map[string]any)
	}
	a, b := call(), call()
	if a["duplicate_of"] != nil || b["duplicate_of"] != a["id"] || b["id"] != a["id"] {
		t.Fatalf("first %v, second %v", a, b)
	}
	if st, err := e.Stats(ctx); err != nil || st.Memories != 1 {
		t.Fatalf("%d memories (%v), want 1", st.Memories, err)
	}
}
