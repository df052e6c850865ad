package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/ops"
)

// TestIngestRoute: POST /v1/ingest reads a transcript on the server's
// machine into the real store and answers the report; a second post
// stores nothing; relative, missing and non-regular paths, unknown fields
// and another project than the pinned one are 400s naming the problem.
func TestIngestRoute(t *testing.T) {
	e := modelFreeEngine(t)
	srv := mcpserver.New(e, mcpserver.Options{Version: "test"})
	hs := httptest.NewServer(httpapi.Handler(srv, httpapi.Options{Version: "test", Stats: e, Ingest: e, Project: "billing"}))
	t.Cleanup(hs.Close)
	b, err := os.ReadFile("../capture/extract/testdata/transcripts/go-failing-test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"host": "claude-code", "path": %q, "final": true}`, path)
	status, env := do(t, hs, http.MethodPost, "/v1/ingest", "", body)
	var rep ops.IngestReport
	if status != http.StatusOK || json.Unmarshal(env.Data, &rep) != nil || rep.Stored == 0 || rep.Project != "billing" || rep.Typed["error"] == 0 {
		t.Fatalf("POST /v1/ingest: %d %s", status, env.Data)
	}
	st, err := e.Stats(t.Context())
	if err != nil || st.Memories != uint64(rep.Stored) {
		t.Fatalf("store holds %d memories (%v), the report says %d", st.Memories, err, rep.Stored)
	}
	status, env = do(t, hs, http.MethodPost, "/v1/ingest", "", body)
	if status != http.StatusOK || json.Unmarshal(env.Data, &rep) != nil || rep.Stored != 0 {
		t.Fatalf("second POST /v1/ingest: %d %s, want nothing stored", status, env.Data)
	}
	for _, c := range []struct{ body, want string }{
		{`{"path": "s.jsonl"}`, "absolute"},
		{fmt.Sprintf(`{"path": %q}`, path+".missing"), "no such file"},
		{fmt.Sprintf(`{"path": %q}`, dir), "not a regular file"},
		{fmt.Sprintf(`{"path": %q, "host": "cursor"}`, path), "host"},
		{fmt.Sprintf(`{"path": %q, "project": "other"}`, path), "pinned"},
		{fmt.Sprintf(`{"path": %q, "since": 3}`, path), "unknown field"},
	} {
		status, env := do(t, hs, http.MethodPost, "/v1/ingest", "", c.body)
		if status != http.StatusBadRequest || !strings.Contains(env.Error.Message, c.want) {
			t.Errorf("POST /v1/ingest %s: %d %+v, want 400 saying %q", c.body, status, env.Error, c.want)
		}
	}
}
