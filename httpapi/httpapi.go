// Package httpapi is cgraph's versioned JSON HTTP API: memories, search and
// the slots of one open store, for programs that are not MCP hosts (hooks,
// scripts, editors). Every route is a tool of package mcpserver reached
// through Server.Call, so the HTTP API and MCP share one definition per
// operation — the same arguments, the same checks, the same output.
//
// Routes (all JSON; a request body is the tool's arguments):
//
//	GET    /healthz             liveness and version, never authenticated
//	POST   /v1/memories         store_memory
//	GET    /v1/memories/{id}    get_memory (?fingerprint=true)
//	DELETE /v1/memories/{id}    delete_memory
//	POST   /v1/search           search_graph
//	POST   /v1/context          get_context (memories packed into a token budget)
//	GET    /v1/embedders        list_embedder_indexes
//	GET    /v1/stats            memory count, format version, per-family sizes (the engine's Stats)
//
// A success is {"data": …}; a failure is {"error": {"code", "message"}}
// with the HTTP status of its code: bad_request 400, unauthorized 401,
// forbidden 403 (a cross-origin browser request), not_found 404, read_only
// 409, too_large 413, internal 500.
//
// It must not open, close or write the store itself, and it does not listen:
// the caller (cgraph serve) owns the listener and the store.
package httpapi

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

// Statser reports the store's figures; *engine.Engine is one.
type Statser interface {
	Stats(ctx context.Context) (record.Stats, error)
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
	// Routes are more handlers by pattern ("POST /v1/cli"), behind the same
	// token check.
	Routes map[string]http.Handler
}

// Handler returns the API over c.
func Handler(c Caller, o Options) http.Handler {
	if o.MaxBody <= 0 {
		o.MaxBody = 8 << 20
	}
	h := &handler{c: c, o: o}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"ok": true, "version": o.Version}})
	})
	mux.Handle("POST /v1/memories", h.auth(h.tool("store_memory", bodyArgs)))
	mux.Handle("GET /v1/memories/{id}", h.auth(h.tool("get_memory", func(r *http.Request) (json.RawMessage, error) {
		fp := r.URL.Query().Get("fingerprint")
		if fp != "" && fp != "true" && fp != "false" {
			return nil, badRequest("fingerprint=%q: give true or false", fp)
		}
		return json.Marshal(map[string]any{"id": r.PathValue("id"), "fingerprint": fp == "true"})
	})))
	mux.Handle("DELETE /v1/memories/{id}", h.auth(h.tool("delete_memory", func(r *http.Request) (json.RawMessage, error) {
		return json.Marshal(map[string]any{"id": r.PathValue("id")})
	})))
	mux.Handle("POST /v1/search", h.auth(h.tool("search_graph", bodyArgs)))
	mux.Handle("POST /v1/context", h.auth(h.tool("get_context", bodyArgs)))
	mux.Handle("GET /v1/embedders", h.auth(h.tool("list_embedder_indexes", func(*http.Request) (json.RawMessage, error) {
		return json.RawMessage("{}"), nil
	})))
	if o.MCP != nil {
		mux.Handle("/mcp", h.auth(o.MCP))
	}
	if o.Stats != nil {
		mux.Handle("GET /v1/stats", h.auth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			st, err := o.Stats.Stats(r.Context())
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
		})))
	}
	for pattern, rh := range o.Routes {
		mux.Handle(pattern, h.auth(rh))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no route %s %s: the API is under /v1 (memories, search, embedders), MCP on /mcp", r.Method, r.URL.Path))
	})
	// A web page the user visits must not write to or read from the store
	// through the user's browser: cross-origin requests that are not safe
	// (POST, DELETE) are refused (Sec-Fetch-Site / Origin checks).
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		WriteError(w, http.StatusForbidden, "forbidden", "cross-origin browser request refused: call the API from a program, not from a web page")
	}))
	return cop.Handler(mux)
}

type handler struct {
	c Caller
	o Options
}

// auth requires the bearer token when one is set.
func (h *handler) auth(next http.Handler) http.Handler {
	if h.o.Token == "" {
		return next
	}
	want := []byte("Bearer " + h.o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cgraph"`)
			WriteError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token: send Authorization: Bearer TOKEN with the token of the server's --token-file")
			return
		}
		next.ServeHTTP(w, r)
	})
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
	return b, nil
}

func (h *handler) tool(name string, args argsFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, h.o.MaxBody)
		a, err := args(r)
		if err == nil {
			var out any
			if out, err = h.c.Call(r.Context(), name, a); err == nil {
				status := http.StatusOK
				if r.Method == http.MethodPost && name == "store_memory" {
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
