package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Say string `json:"say" jsonschema:"what to echo; \"panic\" makes the handler panic"`
}

// TestPanicBecomesToolError: a handler that panics gives the caller a tool
// error naming the tool, and the server goes on serving.
func TestPanicBecomesToolError(t *testing.T) {
	ctx := context.Background()
	s := &Server{mcp: mcp.NewServer(&mcp.Implementation{Name: "t"}, nil)}
	d := define("echo", "test", false, "echo or panic", func(_ context.Context, _ *Server, in echoIn) (any, error) {
		if in.Say == "panic" {
			var m map[string]int
			m["x"] = 1 // nil map write
		}
		return map[string]string{"said": in.Say}, nil
	})
	d.register(s, s.mcp)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.mcp.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"say": "panic"}})
	if err != nil {
		t.Fatalf("protocol error: %v", err)
	}
	if !res.IsError || !strings.Contains(text(res), "internal error in echo") || !strings.Contains(text(res), "still running") {
		t.Fatalf("panic result: IsError %v %q", res.IsError, text(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"say": "hi"}})
	if err != nil || res.IsError || !strings.Contains(text(res), `"said":"hi"`) {
		t.Fatalf("after the panic: %v %v %q", err, res.IsError, text(res))
	}
}
