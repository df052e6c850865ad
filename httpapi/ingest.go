package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"

	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// ingestBody is POST /v1/ingest's body.
type ingestBody struct {
	Host    string `json:"host"`
	Path    string `json:"path"`
	Project string `json:"project"`
	Final   bool   `json:"final"`
}

// ingest is POST /v1/ingest: the server reads the transcript at an
// absolute path on its own machine (the caller is a hook or the CLI beside
// it) and answers ops.IngestReport. A path that is relative, missing, not a
// regular file or not readable is a 400 naming it.
func (h *handler) ingest(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, h.o.MaxBody)
	rep, err := h.ingestReport(r)
	if err != nil {
		var ae *apiError
		var ve *record.ValidationError
		switch {
		case errors.As(err, &ae):
		case errors.As(err, &ve):
			ae = &apiError{status: http.StatusBadRequest, code: "bad_request", msg: err.Error()}
		default:
			ae = classify(err)
		}
		WriteError(w, ae.status, ae.code, ae.msg)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"data": rep})
}

func (h *handler) ingestReport(r *http.Request) (ops.IngestReport, error) {
	raw, err := bodyArgs(r)
	if err != nil {
		return ops.IngestReport{}, err
	}
	var b ingestBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return ops.IngestReport{}, badRequest("the body is not an ingest request: %v; send {\"host\": \"claude-code\", \"path\": \"/abs/session.jsonl\", \"project\": \"p\", \"final\": false}", err)
	}
	if b.Path == "" || !filepath.IsAbs(b.Path) {
		return ops.IngestReport{}, badRequest("path: %q is not an absolute path: give the transcript's absolute path on the server's machine", b.Path)
	}
	f, err := os.Open(b.Path)
	if err != nil {
		return ops.IngestReport{}, badRequest("path: %v: give a transcript file the server can read", err)
	}
	fi, err := f.Stat()
	_ = f.Close() // opened to check it can be read
	if err != nil || !fi.Mode().IsRegular() {
		return ops.IngestReport{}, badRequest("path: %s is not a regular file: give one transcript file (.jsonl)", b.Path)
	}
	if p := h.o.Project; p != "" {
		if b.Project != "" && b.Project != p {
			return ops.IngestReport{}, badRequest("project: this server is pinned to project %q: ingest into that project, or use a server without --project", p)
		}
		b.Project = p
	}
	return ops.Ingest(r.Context(), h.o.Ingest, ops.IngestRequest{Host: b.Host, Path: b.Path, Project: b.Project, Final: b.Final})
}
