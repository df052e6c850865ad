package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

var recordListAll = record.ListOptions{Limit: 10_000}

// server is a real store (model-free slots) behind the API and MCP.
func server(t *testing.T, token string, readOnlyOf string) (*httptest.Server, *engine.Engine) {
	t.Helper()
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dir := readOnlyOf
	opts := engine.Options{Embedders: reg, ReadOnly: readOnlyOf != ""}
	if dir == "" {
		dir, opts.Create = filepath.Join(t.TempDir(), "store"), true
	}
	e, err := engine.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(e, mcpserver.Options{Version: "test"})
	hs := httptest.NewServer(httpapi.Handler(srv, httpapi.Options{Version: "test", Token: token, MCP: srv.HTTPHandler(), Stats: e, Searcher: e}))
	t.Cleanup(func() {
		hs.Close()
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return hs, e
}

type envelope struct {
	Data  json.RawMessage `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func do(t *testing.T, hs *httptest.Server, method, path, token, body string) (int, envelope) {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s %s: answer is not the JSON envelope: %v\n%s", method, path, err, b)
	}
	if (env.Error == nil) == (resp.StatusCode >= 400) {
		t.Fatalf("%s %s: status %d with envelope %s", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode, env
}

// TestMemoryLifecycle: store, get, search and delete through the API, each
// answered with its status and the tool's own output.
func TestMemoryLifecycle(t *testing.T) {
	hs, e := server(t, "", "")
	code, env := do(t, hs, "POST", "/v1/memories", "", `{"content": "RocksDB compaction stalls writes when L0 fills up", "type": "fact", "tags": ["rocksdb"]}`)
	if code != http.StatusCreated {
		t.Fatalf("store: %d %+v", code, env.Error)
	}
	var stored struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(env.Data, &stored); err != nil || len(stored.ID) != 36 {
		t.Fatalf("store answer %s: %v", env.Data, err)
	}
	do(t, hs, "POST", "/v1/memories", "", `{"content": "the release checklist lives in docs/RELEASE.md"}`)
	if n := len(mustList(t, e)); n != 2 {
		t.Fatalf("store holds %d memories, want 2", n)
	}
	var st struct {
		Memories uint64         `json:"memories"`
		Families map[string]any `json:"families"`
	}
	if code, env := do(t, hs, "GET", "/v1/stats", "", ""); code != 200 || json.Unmarshal(env.Data, &st) != nil || st.Memories != 2 || st.Families["memories"] == nil {
		t.Fatalf("stats: %d %s", code, env.Data)
	}

	code, env = do(t, hs, "GET", "/v1/memories/"+stored.ID, "", "")
	if code != http.StatusOK || !bytes.Contains(env.Data, []byte("L0 fills up")) {
		t.Fatalf("get: %d %s", code, env.Data)
	}
	code, env = do(t, hs, "POST", "/v1/search", "", `{"query": "compaction stalls", "top_k": 1, "profile": "fact_checking"}`)
	var res struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if code != http.StatusOK || json.Unmarshal(env.Data, &res) != nil || len(res.Results) != 1 || res.Results[0].ID != stored.ID {
		t.Fatalf("search: %d %s", code, env.Data)
	}
	// A typed search may name its fusion; the answer says which one ran.
	var fu struct {
		Fusion string `json:"fusion"`
	}
	for _, f := range []string{"", "rrf", "minmax"} {
		body := `{"query": "compaction stalls", "top_k": 1}`
		if f != "" {
			body = `{"query": "compaction stalls", "top_k": 1, "fusion": "` + f + `"}`
		}
		want := f
		if want == "" {
			want = "rrf"
		}
		if code, env := do(t, hs, "POST", "/v1/search/explain", "", body); code != http.StatusOK || json.Unmarshal(env.Data, &fu) != nil || fu.Fusion != want {
			t.Fatalf("search with fusion %q: %d %s", f, code, env.Data)
		}
	}
	code, env = do(t, hs, "POST", "/v1/context", "", `{"query": "compaction stalls", "budget": 100, "profile": "fact_checking"}`)
	var cx struct {
		Tokens   int    `json:"tokens"`
		Markdown string `json:"markdown"`
	}
	if code != http.StatusOK || json.Unmarshal(env.Data, &cx) != nil || cx.Tokens > 100 || !strings.Contains(cx.Markdown, "[1] fact · ") {
		t.Fatalf("context: %d %s", code, env.Data)
	}
	if code, _ = do(t, hs, "DELETE", "/v1/memories/"+stored.ID, "", ""); code != http.StatusOK {
		t.Fatalf("delete: %d", code)
	}
	if code, env = do(t, hs, "GET", "/v1/memories/"+stored.ID, "", ""); code != http.StatusNotFound || env.Error.Code != "not_found" {
		t.Fatalf("get after delete: %d %+v", code, env.Error)
	}
	if n := len(mustList(t, e)); n != 1 {
		t.Fatalf("store holds %d memories after the delete, want 1", n)
	}
}

func mustList(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	ms, err := e.List(t.Context(), recordListAll)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Content
	}
	return out
}

// TestBadRequests: each mistake gets its status, code and a message naming
// what was wrong, and nothing is stored.
func TestBadRequests(t *testing.T) {
	hs, e := server(t, "", "")
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		code, says               string
	}{
		{"not JSON", "POST", "/v1/memories", `{"content": `, 400, "bad_request", "not JSON"},
		{"unknown field", "POST", "/v1/memories", `{"content": "x", "colour": "red"}`, 400, "bad_request", "colour"},
		{"empty content", "POST", "/v1/memories", `{"content": ""}`, 400, "bad_request", "content"},
		{"wrong type", "POST", "/v1/memories", `{"content": 7}`, 400, "bad_request", "content"},
		{"bad type value", "POST", "/v1/memories", `{"content": "x", "type": "gossip"}`, 400, "bad_request", "gossip"},
		{"empty query", "POST", "/v1/search", `{"query": "  "}`, 400, "bad_request", "query"},
		{"unknown profile", "POST", "/v1/search", `{"query": "x", "profile": "fastest"}`, 400, "bad_request", "semantic_search"},
		{"top_k out of range", "POST", "/v1/search", `{"query": "x", "top_k": 1000}`, 400, "bad_request", "top_k"},
		{"unknown fusion", "POST", "/v1/search/explain", `{"query": "x", "fusion": "sum"}`, 400, "bad_request", `unknown fusion "sum"`},
		{"bad id", "GET", "/v1/memories/not-an-id", "", 400, "bad_request", "not a memory id"},
		{"absent id", "DELETE", "/v1/memories/0191e0a2-7c3b-7d4e-9f00-1234567890ab", "", 404, "not_found", "0191e0a2"},
		{"bad fingerprint flag", "GET", "/v1/memories/0191e0a2-7c3b-7d4e-9f00-1234567890ab?fingerprint=yes", "", 400, "bad_request", "fingerprint"},
		{"no route", "GET", "/v2/memories", "", 404, "not_found", "/v1"},
		{"wrong method", "PUT", "/v1/search", `{}`, 405, "method_not_allowed", "PUT /v1/search: this route answers POST"},
		{"wrong method on an id", "PUT", "/v1/memories/0191e0a2-7c3b-7d4e-9f00-1234567890ab", `{}`, 405, "method_not_allowed", "GET, PATCH, DELETE"},
		// encoding/json turns these into U+FFFD: refused on the raw body, as the CLI refuses them.
		{"content not UTF-8", "POST", "/v1/memories", "{\"content\": \"bad \xff\"}", 400, "bad_request", "content: is not valid UTF-8: send UTF-8 text"},
		{"lone surrogate", "POST", "/v1/memories", `{"content": "bad \ud800"}`, 400, "bad_request", `content: is not valid UTF-8 (a lone UTF-16 high surrogate \ud800)`},
		{"tag not UTF-8", "POST", "/v1/memories", "{\"content\": \"ok\", \"tags\": [\"\xc3\"]}", 400, "bad_request", "tags: is not valid UTF-8"},
		{"update not UTF-8", "PATCH", "/v1/memories/0191e0a2-7c3b-7d4e-9f00-1234567890ab", `{"content": "\udc01"}`, 400, "bad_request", "content: is not valid UTF-8"},
		{"query not UTF-8", "POST", "/v1/search", "{\"query\": \"\xff\"}", 400, "bad_request", "query: is not valid UTF-8"},
		{"context not UTF-8", "POST", "/v1/context", `{"query": "\ud800x"}`, 400, "bad_request", "query: is not valid UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, env := do(t, hs, c.method, c.path, "", c.body)
			if code != c.status || env.Error == nil || env.Error.Code != c.code || !strings.Contains(env.Error.Message, c.says) {
				t.Fatalf("%d %+v, want %d %s mentioning %q", code, env.Error, c.status, c.code, c.says)
			}
		})
	}
	if n := len(mustList(t, e)); n != 0 {
		t.Fatalf("bad requests stored %d memories", n)
	}
	req, err := http.NewRequest(http.MethodPut, hs.URL+"/v1/memories", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("PUT /v1/memories: %d, Allow %q; want 405 and POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestToken: with a token every route but /healthz needs it, MCP included.
func TestToken(t *testing.T) {
	const token = "0123456789abcdef0123"
	hs, _ := server(t, token, "")
	if code, env := do(t, hs, "GET", "/healthz", "", ""); code != 200 || !bytes.Contains(env.Data, []byte(`"ok":true`)) {
		t.Fatalf("healthz without token: %d %s", code, env.Data)
	}
	for _, tok := range []string{"", "wrong-token-of-same-length!", token + "x"} {
		if code, env := do(t, hs, "GET", "/v1/embedders", tok, ""); code != 401 || env.Error.Code != "unauthorized" {
			t.Fatalf("token %q: %d %+v", tok, code, env.Error)
		}
	}
	if code, _ := do(t, hs, "GET", "/v1/embedders", token, ""); code != 200 {
		t.Fatalf("right token: %d", code)
	}
	// MCP on the same process: refused without the token, served with it.
	ctx := t.Context()
	noTok := &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, noTok, nil); err == nil {
		t.Fatal("MCP connected without the token")
	}
	withTok := &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, withTok, nil)
	if err != nil {
		t.Fatalf("MCP with the token: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "stored over MCP"}})
	if err != nil || res.IsError {
		t.Fatalf("store_memory over MCP: %v %+v", err, res)
	}
	code, env := do(t, hs, "POST", "/v1/search", token, `{"query": "stored over MCP", "profile": "fact_checking"}`)
	if code != 200 || !bytes.Contains(env.Data, []byte("stored over MCP")) {
		t.Fatalf("the API does not see the memory MCP stored: %d %s", code, env.Data)
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestReadOnlyServer: a write on a server that opened the store read-only is
// a 409 naming why; reads work.
func TestReadOnlyServer(t *testing.T) {
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "store")
	e, err := engine.Open(dir, engine.Options{Create: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	hs, _ := server(t, "", dir)
	code, env := do(t, hs, "POST", "/v1/memories", "", `{"content": "x"}`)
	if code != http.StatusConflict || env.Error.Code != "read_only" || !strings.Contains(env.Error.Message, "read-only") {
		t.Fatalf("write on read-only: %d %+v", code, env.Error)
	}
	if code, _ := do(t, hs, "GET", "/v1/embedders", "", ""); code != 200 {
		t.Fatalf("read on read-only: %d", code)
	}
}

// TestBrowsersAndContentTypes: curl's default form content type is taken
// when the body is JSON; a cross-site browser POST is refused and stores
// nothing.
func TestBrowsersAndContentTypes(t *testing.T) {
	hs, e := server(t, "", "")
	req, _ := http.NewRequest("POST", hs.URL+"/v1/memories", strings.NewReader(`{"content": "sent like curl -d"}`))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hs.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("curl-style POST: %v %v", err, resp.Status)
	}
	resp.Body.Close()
	req, _ = http.NewRequest("POST", hs.URL+"/v1/memories", strings.NewReader(`{"content": "from a web page"}`))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	resp, err = hs.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site browser POST: %v %v", err, resp.Status)
	}
	resp.Body.Close()
	if got := mustList(t, e); len(got) != 1 || got[0] != "sent like curl -d" {
		t.Fatalf("store holds %q", got)
	}
}

// corrupting is a client transport that puts into request bodies what a
// careless client sends and Go's JSON encoder cannot: a byte that is not
// UTF-8 and a lone surrogate escape.
type corrupting struct{}

func (corrupting) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		b = bytes.ReplaceAll(b, []byte("BADBYTE"), []byte("\xff"))
		b = bytes.ReplaceAll(b, []byte("LONESURROGATE"), []byte(`\ud800`))
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPHTTPRefusesBadUTF8: /mcp refuses content that decoding would
// rewrite as U+FFFD with the CLI's refusal, as the call's error, and the
// session goes on.
func TestMCPHTTPRefusesBadUTF8(t *testing.T) {
	hs, e := server(t, "", "")
	ctx := t.Context()
	tr := &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: corrupting{}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct{ content, says string }{
		{"bad BADBYTE", "content: is not valid UTF-8: send UTF-8 text"},
		{"bad LONESURROGATE", `content: is not valid UTF-8 (a lone UTF-16 high surrogate \ud800)`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": c.content}})
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("store_memory %q over /mcp: %v %+v, want an error saying %q", c.content, err, res, c.says)
		}
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "good after bad"}}); err != nil || res.IsError {
		t.Fatalf("store_memory after the refusals: %v %+v", err, res)
	}
	if got := mustList(t, e); len(got) != 1 || got[0] != "good after bad" {
		t.Fatalf("store holds %q, want only the good memory", got)
	}
}
