package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
)

// TestPinnedServerRefusesWholeStoreRoutes: on a server pinned to one
// project (serve --project), the routes that report on or change every
// project — the audit log, undo, the maintenance report — answer an error
// naming the pin, while the same routes of an unpinned server answer.
func TestPinnedServerRefusesWholeStoreRoutes(t *testing.T) {
	e := modelFreeEngine(t)
	serve := func(project string) *httptest.Server {
		srv := mcpserver.New(e, mcpserver.Options{Version: "test", Project: project})
		hs := httptest.NewServer(httpapi.Handler(srv, httpapi.Options{Version: "test", MCP: srv.HTTPHandler(), Stats: e,
			Searcher: e, Records: e, Ingest: e, Audit: e, Project: project}))
		t.Cleanup(hs.Close)
		return hs
	}
	open, pinned := serve(""), serve("alpha")
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/log", ""},
		{"POST", "/v1/undo", `{"action": "a-0190a1b2c3d4e5f60718293a4b5c6d7e"}`},
		{"GET", "/v1/maintenance", ""},
	} {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			code, body := send(t, pinned, r.method, r.path, r.body, "", "")
			if code < 400 || !strings.Contains(body, `pinned to project \"alpha\"`) && !strings.Contains(body, `pinned to project "alpha"`) {
				t.Errorf("pinned server: %d %s, want a refusal naming the pin", code, body)
			}
			code, body = send(t, open, r.method, r.path, r.body, "", "")
			if strings.Contains(body, "pinned") {
				t.Errorf("unpinned server: %d %s mentions a pin", code, body)
			}
			if r.method == "GET" && code != http.StatusOK {
				t.Errorf("unpinned server: %d %s, want 200", code, body)
			}
		})
	}
}
