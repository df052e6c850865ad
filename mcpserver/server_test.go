package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
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
	d.register(s, s.mcp, nil)
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

// TestHTTPRefusesBrowsers: a cross-site browser request and a request for a
// foreign host name on a loopback address are refused before MCP sees them.
func TestHTTPRefusesBrowsers(t *testing.T) {
	srv := httptest.NewServer(New(nil, Options{}).HTTPHandler())
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, c := range []struct {
		name    string
		headers map[string]string
		host    string
	}{
		{"cross-site page", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, ""},
		{"DNS rebinding", nil, "evil.example"},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range c.headers {
			req.Header.Set(k, v)
		}
		if c.host != "" {
			req.Host = c.host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", c.name, res.StatusCode)
		}
	}
	// The same request from a non-browser client on the loopback address is served.
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("plain client: status %d", res.StatusCode)
	}
}
