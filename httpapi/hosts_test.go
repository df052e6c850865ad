package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
)

// modelFreeEngine opens a new store with the model-free slots, closed
// (and checked closed) when the test ends.
func modelFreeEngine(t *testing.T) *engine.Engine {
	t.Helper()
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(filepath.Join(t.TempDir(), "store"), engine.Options{Embedders: reg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// hostServer is a real store behind the API as cgraph serve builds it: the
// Host policy of its listen address plus allowed, the MCP handler with the
// SDK's own check handed to it, and one extra route.
func hostServer(t *testing.T, allowed []string) (*httptest.Server, *engine.Engine) {
	t.Helper()
	e := modelFreeEngine(t)
	srv := mcpserver.New(e, mcpserver.Options{Version: "test", HostsChecked: true})
	hs := httptest.NewUnstartedServer(nil)
	hosts, err := httpapi.NewHosts(hs.Listener.Addr().String(), allowed)
	if err != nil {
		t.Fatal(err)
	}
	extra := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { httpapi.WriteJSON(w, 200, map[string]any{"data": "ran"}) })
	hs.Config.Handler = httpapi.Handler(srv, httpapi.Options{Version: "test", MCP: srv.HTTPHandler(), Stats: e, Hosts: hosts,
		Searcher: e, Records: e, Ingest: e, Audit: e, Routes: map[string]http.Handler{"POST /v1/extra": extra}})
	hs.Start()
	t.Cleanup(hs.Close) // before the store closes: cleanups run last first
	return hs, e
}

// routes is every route of the API (and /mcp, an extra route, an unknown
// path), each with a body that would succeed.
var routes = []struct{ method, path, body string }{
	{"POST", "/v1/memories", `{"content": "planted"}`},
	{"GET", "/v1/memories/0190a1b2c3d4e5f60718293a4b5c6d7e", ""},
	{"PATCH", "/v1/memories/0190a1b2c3d4e5f60718293a4b5c6d7e", `{"importance": 0.1}`},
	{"GET", "/v1/memories/0190a1b2c3d4e5f60718293a4b5c6d7e/history", ""},
	{"DELETE", "/v1/memories/0190a1b2c3d4e5f60718293a4b5c6d7e", ""},
	{"POST", "/v1/relations", `{"from": "a", "to": "b", "type": "fixes"}`},
	{"DELETE", "/v1/relations", `{"from": "a", "to": "b", "type": "fixes"}`},
	{"GET", "/v1/related/0190a1b2c3d4e5f60718293a4b5c6d7e", ""},
	{"POST", "/v1/search", `{"query": "planted"}`},
	{"POST", "/v1/context", `{"query": "planted"}`},
	{"GET", "/v1/embedders", ""},
	{"GET", "/v1/stats", ""},
	{"POST", "/v1/search/explain", `{"query": "planted", "top_k": 3}`},
	{"POST", "/v1/brief", `{"budget": 300}`},
	{"POST", "/v1/ingest", `{"host": "claude-code", "path": "/nonexistent/session.jsonl"}`},
	{"GET", "/v1/maintenance?dry_run=true", ""},
	{"GET", "/v1/log?limit=5", ""},
	{"POST", "/v1/undo", `{"action": "a-0190a1b2c3d4e5f60718293a4b5c6d7e"}`},
	{"POST", "/v1/extra", `{}`},
	{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{"GET", "/nowhere", ""},
}

func send(t *testing.T, hs *httptest.Server, method, path, body, host, origin string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
		req.Header.Set("Sec-Fetch-Site", "same-origin") // what the browser says of a rebound page
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return resp.StatusCode, b.String()
}

// TestDNSRebindingRefused: a page on evil.example whose name was rebound to
// 127.0.0.1 reaches every route under its own name; every route but
// /healthz refuses it (403, naming the Host) and nothing is stored, while the
// same request under the server's own names is served.
func TestDNSRebindingRefused(t *testing.T) {
	hs, e := hostServer(t, nil)
	port := hs.Listener.Addr().String()[strings.LastIndex(hs.Listener.Addr().String(), ":"):]
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			code, body := send(t, hs, r.method, r.path, r.body, "evil.example"+port, "http://evil.example"+port)
			if code != http.StatusForbidden || !strings.Contains(body, "evil.example") {
				t.Fatalf("rebound Host and Origin: %d %s", code, body)
			}
			code, body = send(t, hs, r.method, r.path, r.body, "evil.example"+port, "")
			if code != http.StatusForbidden || !strings.Contains(body, "Host") {
				t.Fatalf("rebound Host alone: %d %s", code, body)
			}
			code, body = send(t, hs, r.method, r.path, r.body, "localhost"+port, "http://evil.example"+port)
			if code != http.StatusForbidden || !strings.Contains(body, "Origin") {
				t.Fatalf("foreign Origin under localhost: %d %s", code, body)
			}
			for _, host := range []string{"", "localhost" + port, "[::1]" + port, "127.0.0.2" + port, "app.localhost" + port} {
				if code, body := send(t, hs, r.method, r.path, r.body, host, ""); code == http.StatusForbidden {
					t.Fatalf("Host %q refused: %s", host, body)
				}
			}
		})
	}
	if got := mustList(t, e); len(got) != 1 || got[0] != "planted" {
		t.Fatalf("store holds %q: only the loopback POST should have stored", got)
	}
	// /healthz stays open under any name: it says only that a cgraph of a
	// version is up, and monitors reach it through proxies.
	if code, body := send(t, hs, "GET", "/healthz", "", "evil.example"+port, "http://evil.example"+port); code != 200 || !strings.Contains(body, `"ok":true`) {
		t.Fatalf("healthz under a foreign name: %d %s", code, body)
	}
}

// TestAllowedHosts: --allowed-hosts names are served (on /mcp too, where
// the SDK's own loopback-only check would refuse them); others are not.
func TestAllowedHosts(t *testing.T) {
	hs, _ := hostServer(t, []string{"Memory.Internal.", "10.1.2.3"})
	for _, r := range []struct {
		host, origin string
		ok           bool
	}{
		{"memory.internal", "", true},
		{"MEMORY.INTERNAL:7411", "http://memory.internal:7411", true},
		{"10.1.2.3:7411", "", true},
		{"10.1.2.4:7411", "", false},
		{"internal", "", false},
		{"memory.internal.evil.example", "", false},
		{"localhost", "https://memory.internal", true},
		{"localhost", "null", false},
		{"localhost", "not a url", false},
	} {
		for _, path := range []string{"/v1/stats", "/mcp"} {
			body := ""
			method := "GET"
			if path == "/mcp" {
				method, body = "POST", routes[len(routes)-2].body
			}
			code, text := send(t, hs, method, path, body, r.host, r.origin)
			if (code != http.StatusForbidden) != r.ok {
				t.Errorf("%s Host %q Origin %q: %d %s", path, r.host, r.origin, code, text)
			}
		}
	}
}

func TestNewHostsRefusesMalformedNames(t *testing.T) {
	for _, bad := range []string{"http://memory.internal", "memory.internal:7411", "*.internal", "a/b"} {
		if _, err := httpapi.NewHosts("127.0.0.1:7411", []string{bad}); err == nil || !strings.Contains(err.Error(), "bare host name") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	h, err := httpapi.NewHosts("0.0.0.0:7411", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Allow("192.168.1.9:7411") || h.Allow("evil.example:7411") {
		t.Error("a server on every interface takes any address as Host, never a foreign name")
	}
	h, _ = httpapi.NewHosts("192.168.1.9:7411", nil)
	if !h.Allow("192.168.1.9") || h.Allow("192.168.1.10") {
		t.Error("a server on one address takes that address only")
	}
}
