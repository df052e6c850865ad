package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/cgraph/cgraph/engine"
)

// Auditor serves the audit log of maintenance actions and their undo;
// *engine.Engine is one.
type Auditor interface {
	AuditLog(ctx context.Context, limit int) ([]engine.AuditEntry, error)
	ResolveAction(ctx context.Context, text string) (engine.ActionID, error)
	Undo(ctx context.Context, id engine.ActionID) (engine.AuditEntry, error)
}

// DefaultLogLimit is how many entries GET /v1/log returns without ?limit.
const DefaultLogLimit = 50

// auditLog serves GET /v1/log?limit=N: the newest N entries, newest first.
func (h *handler) auditLog(w http.ResponseWriter, r *http.Request) {
	if h.pinnedRefused(w, "the audit log") {
		return
	}
	limit := DefaultLogLimit
	if q := r.URL.Query().Get("limit"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > 100000 {
			WriteError(w, http.StatusBadRequest, "bad_request", "limit="+strconv.Quote(q)+": give a whole number from 1 to 100000")
			return
		}
		limit = n
	}
	log, err := h.o.Audit.AuditLog(r.Context(), limit)
	if log == nil {
		log = []engine.AuditEntry{}
	}
	h.answer(w, log, err)
}

// undo serves POST /v1/undo {"action": ID}: the id or its last 8+ hex
// digits.
func (h *handler) undo(w http.ResponseWriter, r *http.Request) {
	if h.pinnedRefused(w, "undo") {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.o.MaxBody)
	e, err := func() (engine.AuditEntry, error) {
		raw, err := bodyArgs(r)
		if err != nil {
			return engine.AuditEntry{}, err
		}
		var req struct {
			Action string `json:"action"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil || req.Action == "" {
			return engine.AuditEntry{}, badRequest("the body is not {\"action\": ID}: give the action id `cgraph log` prints, or its last 8 hex digits (%v)", err)
		}
		id, err := h.o.Audit.ResolveAction(r.Context(), req.Action)
		if err != nil {
			return engine.AuditEntry{}, err
		}
		return h.o.Audit.Undo(r.Context(), id)
	}()
	h.answer(w, e, err)
}

// pinnedRefused answers 403 to a route that covers every project (the
// audit log, undo) on a server pinned to one (serve --project): its
// clients must not see or change other projects' memories.
func (h *handler) pinnedRefused(w http.ResponseWriter, what string) bool {
	p := h.o.Project
	if p == "" {
		return false
	}
	WriteError(w, http.StatusForbidden, "forbidden", what+" covers every project of the store, and this server is pinned to project "+strconv.Quote(p)+": run cgraph log / cgraph undo against the store, or serve it without --project")
	return true
}

// answer writes {"data": v} (200), or err with its status and code: the
// end of every handler that is not a tool.
func (h *handler) answer(w http.ResponseWriter, v any, err error) {
	if err != nil {
		var ae *apiError
		if !errors.As(err, &ae) {
			ae = classify(err)
		}
		WriteError(w, ae.status, ae.code, ae.msg)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"data": v})
}
