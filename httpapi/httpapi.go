// Package httpapi is cgraph's versioned JSON HTTP API: memories, search and
// the slots of one open store, for programs that are not MCP hosts (hooks,
// scripts, editors). Every route but /v1/search/explain and /v1/stats is a
// tool of package mcpserver reached through Server.Call, so the HTTP API and
// MCP share one definition per operation — the same arguments, the same
// checks, the same output; /v1/search/explain answers the engine's typed
// request with ops.SearchAnswer, the form the CLI prints.
//
// Routes (all JSON; a request body is the tool's arguments):
//
//	GET    /healthz                   liveness and version, never authenticated
//	POST   /v1/memories               store_memory (201; "project" and "meta" too)
//	GET    /v1/memories/{id}          get_memory (?fingerprint=true)
//	PATCH  /v1/memories/{id}          update_memory: the body is the change (content, type,
//	                                  add_tags, remove_tags, importance, meta, unset_meta, project)
//	GET    /v1/memories/{id}/history  get_memory with history: the memory and its earlier revisions
//	DELETE /v1/memories/{id}          delete_memory
//	POST   /v1/relations              link_memories {"from", "to", "type", "weight"} (201)
//	DELETE /v1/relations              link_memories with unlink: the same body, or ?from=&to=&type=;
//	                                  answers {"removed": true|false, …}
//	GET    /v1/related/{id}           get_related (?type=fixes,causes&depth=1..3&limit=1..100)
//	POST   /v1/search                 search_graph ("filter" and "expand" too)
//	POST   /v1/brief                  {"project", "budget"}: a project's preferences, decisions,
//	                                  errors and facts packed for a session start (ops.Brief)
//	POST   /v1/search/explain         a typed engine.SearchRequest → the whole answer
//	                                  (ops.SearchAnswer: memories, per-space explanation,
//	                                  spaces, trace): what cgraph search prints
//	POST   /v1/context                get_context: memories packed into a token budget ("filter", "expand")
//	POST   /v1/ingest                 a transcript on the server's machine into the store
//	                                  {"host": "claude-code", "path": "/abs.jsonl", "project", "final"}
//	                                  → ops.IngestReport (ops.Ingest: idempotent, resumable)
//	GET    /v1/embedders              list_embedder_indexes
//	GET    /v1/stats                  memory count, format version, per-family sizes (the engine's Stats)
//	GET    /v1/maintenance            maintenance_report: the schedule (serve --maintain-every), its last
//	                                  run with every action and its evidence (?dry_run=true: a dry run now)
//	GET    /v1/log                    the audit log of applied maintenance actions, newest first (?limit=N, default 50)
//	POST   /v1/undo                   {"action": ID}: undo one action (engine.Undo); answers its entry
//
// An {id} is a full memory id or a unique suffix or prefix of 8 or more hex
// digits (the ids of one session share their first digits: give the last). A
// "filter" is record.Filter's JSON form: {"project", "all_projects",
// "types", "tags_any", "tags_all", "session", "source", "created_after",
// "created_before", "updated_after", "updated_before" (RFC 3339),
// "min_importance", "meta" {key: value}, "superseded" exclude|include|only};
// without one a search covers the default project (or the server's pinned
// project) without superseded memories.
//
// A success is {"data": …}; a failure is {"error": {"code", "message"}}
// with the HTTP status of its code: bad_request 400, unauthorized 401,
// forbidden 403 (a cross-origin browser request, or a Host or Origin that
// is not a name of this server: see Hosts), not_found 404, read_only
// 409, wrong_store 409 (the request's X-Cgraph-Store names another store:
// see RequireStore), too_large 413, internal 500.
//
// It must not open, close or write the store itself, and it does not listen:
// the caller (cgraph serve) owns the listener and the store.
package httpapi

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// Statser reports the store's figures; *engine.Engine is one.
type Statser interface {
	Stats(ctx context.Context) (record.Stats, error)
}

// Searcher runs a typed search; *engine.Engine is one.
type Searcher interface {
	Search(ctx context.Context, req engine.SearchRequest) (engine.SearchResult, error)
}

// Caller runs a tool by name with JSON arguments; *mcpserver.Server is one.
type Caller interface {
	Call(ctx context.Context, name string, args json.RawMessage) (any, error)
}

// Options configure Handler.
type Options struct {
	// Version is reported by /healthz.
	Version string
	// Token, when set, is required as "Authorization: Bearer TOKEN" on every
	// route but /healthz, compared in constant time.
	Token string
	// MCP, when set, is served on /mcp (streamable HTTP) behind the same
	// token check.
	MCP http.Handler
	// MaxBody caps a request body in bytes (0: 8 MiB, enough for the 1 MiB
	// content limit escaped six times).
	MaxBody int64
	// Stats, when set, serves GET /v1/stats.
	Stats Statser
	// Routes are more handlers by pattern ("POST /v1/x"), behind the same
	// token check.
	Routes map[string]http.Handler
	// Searcher, when set, serves POST /v1/search/explain: the engine's
	// whole answer (ops.SearchAnswer) to a typed engine.SearchRequest, the
	// route the CLI beside a server uses. Project pins it as
	// mcpserver.Options.Project pins the tools.
	Searcher Searcher
	Project  string
	// Records, when set, serves POST /v1/brief: ops.Brief, a project's
	// standing knowledge packed for a session start (hooks).
	Records ops.BriefStore
	// Tokens counts /v1/brief's tokens (nil: approximately).
	Tokens ops.TokenCounter
	// Ingest, when set, serves POST /v1/ingest (ingest.go): a transcript
	// on this machine read into the store by ops.Ingest.
	Ingest ops.IngestStore
	// Audit, when set, serves GET /v1/log and POST /v1/undo (audit.go).
	Audit Auditor
	// Hosts are the names a request may reach the server under (Host and
	// Origin headers); nil allows the loopback names only. Every route but
	// /healthz is behind it.
	Hosts *Hosts
}

// Handler returns the API over c. The routes are a table: each line names
// a route and the tool (or handler) that answers it.
func Handler(c Caller, o Options) http.Handler {
	if o.MaxBody <= 0 {
		o.MaxBody = 8 << 20
	}
	if o.Hosts == nil {
		o.Hosts, _ = NewHosts("", nil) // loopback names only: cannot fail
	}
	h := &handler{c: c, o: o}
	mux := http.NewServeMux()
	// /healthz answers under any name: it tells only that a cgraph of this
	// version is up (what a rebound page could learn by timing anyway), and
	// monitors reach it through proxies and container names.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"ok": true, "version": o.Version}})
	})
	mux.Handle("POST /v1/memories", h.auth(h.tool("store_memory", bodyArgs)))
	mux.Handle("GET /v1/memories/{id}", h.auth(h.tool("get_memory", getMemoryArgs)))
	mux.Handle("DELETE /v1/memories/{id}", h.auth(h.tool("delete_memory", idArgs)))
	mux.Handle("PATCH /v1/memories/{id}", h.auth(h.tool("update_memory", func(r *http.Request) (json.RawMessage, error) {
		return withBody(r, map[string]any{"id": r.PathValue("id")})
	})))
	mux.Handle("GET /v1/memories/{id}/history", h.auth(h.tool("get_memory", func(r *http.Request) (json.RawMessage, error) {
		return json.Marshal(map[string]any{"id": r.PathValue("id"), "history": true})
	})))
	mux.Handle("POST /v1/relations", h.auth(h.tool("link_memories", func(r *http.Request) (json.RawMessage, error) {
		return withBody(r, map[string]any{"unlink": false})
	})))
	mux.Handle("DELETE /v1/relations", h.auth(h.tool("link_memories", unlinkArgs)))
	mux.Handle("GET /v1/related/{id}", h.auth(h.tool("get_related", relatedArgs)))
	mux.Handle("POST /v1/search", h.auth(h.tool("search_graph", bodyArgs)))
	mux.Handle("POST /v1/context", h.auth(h.tool("get_context", bodyArgs)))
	mux.Handle("GET /v1/embedders", h.auth(h.tool("list_embedder_indexes", func(*http.Request) (json.RawMessage, error) {
		return json.RawMessage("{}"), nil
	})))
	mux.Handle("GET /v1/maintenance", h.auth(h.tool("maintenance_report", maintenanceArgs)))
	if o.Audit != nil {
		mux.Handle("GET /v1/log", h.auth(http.HandlerFunc(h.auditLog)))
		mux.Handle("POST /v1/undo", h.auth(http.HandlerFunc(h.undo)))
	}
	if o.MCP != nil {
		mux.Handle("/mcp", h.auth(o.MCP))
	}
	if o.Stats != nil {
		mux.Handle("GET /v1/stats", h.auth(http.HandlerFunc(h.stats)))
	}
	if o.Searcher != nil {
		mux.Handle("POST /v1/search/explain", h.auth(http.HandlerFunc(h.explainedSearch)))
	}
	if o.Records != nil {
		mux.Handle("POST /v1/brief", h.auth(http.HandlerFunc(h.brief)))
	}
	if o.Ingest != nil {
		mux.Handle("POST /v1/ingest", h.auth(http.HandlerFunc(h.ingest)))
	}
	for pattern, rh := range o.Routes {
		mux.Handle(pattern, h.auth(rh))
	}
	mux.Handle("/", h.o.Hosts.Guard(noRoute(mux)))
	return sameOrigin(mux)
}

// getMemoryArgs are get_memory's arguments for GET /v1/memories/{id}
// (?fingerprint=true adds the memory's slots).
func getMemoryArgs(r *http.Request) (json.RawMessage, error) {
	fp := r.URL.Query().Get("fingerprint")
	if fp != "" && fp != "true" && fp != "false" {
		return nil, badRequest("fingerprint=%q: give true or false", fp)
	}
	return json.Marshal(map[string]any{"id": r.PathValue("id"), "fingerprint": fp == "true"})
}

// idArgs are the arguments {"id"} of a route on /v1/memories/{id}.
func idArgs(r *http.Request) (json.RawMessage, error) {
	return json.Marshal(map[string]any{"id": r.PathValue("id")})
}

// maintenanceArgs are maintenance_report's arguments for GET
// /v1/maintenance (?dry_run=true runs a dry run now).
func maintenanceArgs(r *http.Request) (json.RawMessage, error) {
	dry := r.URL.Query().Get("dry_run")
	if dry != "" && dry != "true" && dry != "false" {
		return nil, badRequest("dry_run=%q: give true or false", dry)
	}
	return json.Marshal(map[string]any{"dry_run": dry == "true"})
}

// stats serves GET /v1/stats: the memory count, next doc number, format
// version and per-family sizes.
func (h *handler) stats(w http.ResponseWriter, r *http.Request) {
	st, err := h.o.Stats.Stats(r.Context())
	if err != nil {
		ae := classify(err)
		WriteError(w, ae.status, ae.code, ae.msg)
		return
	}
	fams := map[string]any{}
	for name, f := range st.Families {
		fams[name] = map[string]uint64{"keys": f.Keys, "bytes": f.Bytes}
	}
	WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"memories": st.Memories, "next_doc_num": st.NextDocNum,
		"format_version": st.FormatVersion, "families": fams}})
}

// noRoute answers a request no route of mux matched: 405 with Allow when
// another method of the path has a route, 404 otherwise.
func noRoute(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allow := allowed(mux, r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			WriteError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s %s: this route answers %s", r.Method, r.URL.Path, strings.Join(allow, ", ")))
			return
		}
		WriteError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no route %s %s: the API is under /v1 (memories, relations, related, search, context, embedders, stats), MCP on /mcp", r.Method, r.URL.Path))
	})
}

// sameOrigin wraps next so that a web page the user visits cannot write to
// or read from the store through the user's browser: cross-origin
// requests that are not safe (POST, DELETE) are refused (Sec-Fetch-Site /
// Origin checks).
func sameOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		WriteError(w, http.StatusForbidden, "forbidden", "cross-origin browser request refused: call the API from a program, not from a web page")
	}))
	return cop.Handler(next)
}

// allowed lists the methods mux has a route for at r's path, other than
// the catch-all "/" (which otherwise turns a wrong method into a 404).
func allowed(mux *http.ServeMux, r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
			out = append(out, m)
		}
	}
	return out
}

// explainedSearch is POST /v1/search/explain: the body is an
// engine.SearchRequest in its JSON form, the answer its ops.SearchAnswer.
func (h *handler) explainedSearch(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, h.o.MaxBody)
	ans, err := h.search(r)
	h.answer(w, ans, err)
}

func (h *handler) search(r *http.Request) (ops.SearchAnswer, error) {
	raw, err := bodyArgs(r)
	if err != nil {
		return ops.SearchAnswer{}, err
	}
	var req engine.SearchRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return ops.SearchAnswer{}, badRequest("the body is not a search request: %v", err)
	}
	if strings.TrimSpace(req.Query) == "" {
		return ops.SearchAnswer{}, badRequest("query: is empty: give the text to search for")
	}
	if req.Profile.Name != "" || req.Profile.Weights != (engine.Weights{}) {
		if err := req.Profile.Validate(); err != nil {
			return ops.SearchAnswer{}, badRequest("profile: %v", err)
		}
	}
	if p := h.o.Project; p != "" {
		if req.Filter.AllProjects || req.Filter.Project != "" && req.Filter.Project != p {
			return ops.SearchAnswer{}, badRequest("filter.project: this server is pinned to project %q: search that project, or use a server without --project", p)
		}
		req.Filter.Project = p
	}
	res, err := h.o.Searcher.Search(r.Context(), req)
	if err != nil {
		if errors.Is(err, engine.ErrSlotUnavailable) {
			return ops.SearchAnswer{}, badRequest("%v: GET /v1/embedders shows which slots have a model", err)
		}
		return ops.SearchAnswer{}, err
	}
	ans := ops.SearchAnswerOf(res, req)
	if sl, ok := h.o.Searcher.(interface{ Slots() []engine.SlotInfo }); ok {
		ans.Models = ops.ModelDevices(sl.Slots())
	}
	return ans, nil
}

// brief is POST /v1/brief {"project", "budget"}: ops.Brief's answer.
func (h *handler) brief(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, h.o.MaxBody)
	ans, err := func() (ops.ContextAnswer, error) {
		raw, err := bodyArgs(r)
		if err != nil {
			return ops.ContextAnswer{}, err
		}
		var req struct {
			Project string `json:"project"`
			Budget  int    `json:"budget"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return ops.ContextAnswer{}, badRequest("the body is not {\"project\", \"budget\"}: %v", err)
		}
		if p := h.o.Project; p != "" {
			if req.Project != "" && req.Project != p {
				return ops.ContextAnswer{}, badRequest("project: this server is pinned to project %q", p)
			}
			req.Project = p
		}
		return ops.Brief(r.Context(), h.o.Records, ops.BriefRequest{Project: req.Project, Budget: req.Budget, Tokens: h.o.Tokens})
	}()
	h.answer(w, ans, err)
}

type handler struct {
	c Caller
	o Options
}

// auth refuses a request under a name the server does not answer to
// (Options.Hosts), then requires the bearer token when one is set.
func (h *handler) auth(next http.Handler) http.Handler {
	if h.o.Token == "" {
		return h.o.Hosts.Guard(next)
	}
	want := []byte("Bearer " + h.o.Token)
	return h.o.Hosts.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cgraph"`)
			WriteError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token: send Authorization: Bearer TOKEN with the token of the server's --token-file")
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// argsFunc builds a tool's JSON arguments from a request.
type argsFunc func(r *http.Request) (json.RawMessage, error)

// bodyArgs reads the JSON arguments from the body. Any Content-Type is
// taken (curl -d sends application/x-www-form-urlencoded) as long as the body
// is JSON: browsers are kept out by the cross-origin check, not by the type.
func bodyArgs(r *http.Request) (json.RawMessage, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &apiError{status: http.StatusRequestEntityTooLarge, code: "too_large",
				msg: fmt.Sprintf("request body over %d bytes: store large content in several memories", tooBig.Limit)}
		}
		return nil, badRequest("reading the body: %v", err)
	}
	if !json.Valid(b) {
		return nil, badRequest("the body is not JSON: send the arguments as one JSON object")
	}
	if err := record.CheckRawJSON(b); err != nil { // decoding would turn it into U+FFFD silently
		return nil, badRequest("%v", err)
	}
	return b, nil
}

// withBody is the body's JSON object with set's fields set; a field the
// body gives another value is refused (the path names the memory, the
// method what to do).
func withBody(r *http.Request, set map[string]any) (json.RawMessage, error) {
	raw, err := bodyArgs(r)
	if err != nil {
		return nil, err
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return nil, badRequest("the body is not a JSON object: send the arguments as one JSON object")
	}
	for k, v := range set {
		if got, ok := args[k]; ok && got != v {
			return nil, badRequest("%q is %v in the body and %v by the request's path or method: leave it out of the body", k, jsonText(got), jsonText(v))
		}
		args[k] = v
	}
	return json.Marshal(args)
}

// unlinkArgs are DELETE /v1/relations' arguments: the body, or the query
// parameters from, to and type when there is no body.
func unlinkArgs(r *http.Request) (json.RawMessage, error) {
	q := r.URL.Query()
	if r.ContentLength == 0 && q.Get("from")+q.Get("to")+q.Get("type") != "" {
		for k := range q {
			if k != "from" && k != "to" && k != "type" {
				return nil, badRequest("unknown query parameter %q: give from, to and type", k)
			}
		}
		return json.Marshal(map[string]any{"from": q.Get("from"), "to": q.Get("to"), "type": q.Get("type"), "unlink": true})
	}
	args, err := withBody(r, map[string]any{"unlink": true})
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, err
	}
	delete(m, "weight") // the body of the link it removes may carry its weight
	return json.Marshal(m)
}

// relatedArgs are GET /v1/related/{id}'s: ?type=a,b (or type repeated),
// depth and limit.
func relatedArgs(r *http.Request) (json.RawMessage, error) {
	args := map[string]any{"id": r.PathValue("id")}
	q := r.URL.Query()
	for k, vs := range q {
		switch k {
		case "type", "types":
			var types []string
			for _, v := range vs {
				for _, t := range strings.Split(v, ",") {
					if t = strings.TrimSpace(t); t != "" {
						types = append(types, t)
					}
				}
			}
			args["types"] = types
		case "depth", "limit":
			n, err := strconv.Atoi(q.Get(k))
			if err != nil {
				return nil, badRequest("%s=%q: give a whole number", k, q.Get(k))
			}
			args[k] = n
		default:
			return nil, badRequest("unknown query parameter %q: give type, depth or limit", k)
		}
	}
	return json.Marshal(args)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (h *handler) tool(name string, args argsFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, h.o.MaxBody)
		a, err := args(r)
		if err == nil {
			var out any
			if out, err = h.c.Call(r.Context(), name, a); err == nil {
				status := http.StatusOK
				if r.Method == http.MethodPost && (name == "store_memory" || name == "link_memories") {
					status = http.StatusCreated
				}
				WriteJSON(w, status, map[string]any{"data": out})
				return
			}
		}
		var ae *apiError
		if !errors.As(err, &ae) {
			ae = classify(err)
		}
		WriteError(w, ae.status, ae.code, ae.msg)
	})
}

// apiError is a failure with its HTTP status and code.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, a ...any) error {
	return &apiError{status: http.StatusBadRequest, code: "bad_request", msg: fmt.Sprintf(format, a...)}
}

// classify maps a tool's error to its status and code.
func classify(err error) *apiError {
	var ro *mcpserver.ReadOnlyError
	switch {
	case mcpserver.IsBadInput(err):
		return &apiError{http.StatusBadRequest, "bad_request", err.Error()}
	case errors.Is(err, record.ErrNotFound):
		return &apiError{http.StatusNotFound, "not_found", err.Error()}
	case errors.As(err, &ro), errors.Is(err, record.ErrReadOnly):
		return &apiError{http.StatusConflict, "read_only", err.Error()}
	}
	return &apiError{http.StatusInternalServerError, "internal", err.Error()}
}

// WriteJSON writes v as the answer with status: the API's one way to answer,
// for the routes of Options.Routes too.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away: nothing to tell it
}

// WriteError answers with the API's error envelope, {"error": {"code",
// "message"}}.
func WriteError(w http.ResponseWriter, status int, code, msg string) {
	WriteJSON(w, status, map[string]any{"error": map[string]any{"code": code, "message": msg}})
}
