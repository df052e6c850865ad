package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/serverfile"
)

// A running `cgraph serve` keeps the store open and the models loaded. The
// read commands that need models (search, context) send their typed request
// to its /v1 routes (POST /v1/search/explain, POST /v1/context) when one
// serves the same store, and print its typed answer with the same printer
// as a local run: the same bytes, in milliseconds instead of the second it
// takes to load the models. Without a server (or when it does not answer)
// they run here as before.

// localOnlyFlags make a command run here: they choose other models, another
// device or a read-only open than the server's.
var localOnlyFlags = []string{"models-dir", "device", "read-only"}

// ServerClient reaches a running cgraph serve of this store through its
// typed /v1 routes.
type ServerClient struct {
	url, token, store string
	http              *http.Client
}

// ErrNoServer: no server answered; the command runs here.
var ErrNoServer = errors.New("no server answered")

// Server is the cgraph serve for this store, when one runs, the command
// line lets it serve (no local-only flag) and the client has its token if
// it needs one.
func (a *App) Server(cmd *cobra.Command) (*ServerClient, bool) {
	if os.Getenv("CGRAPH_NO_SERVER") != "" {
		return nil, false
	}
	for _, name := range localOnlyFlags {
		if f := cmd.Flag(name); f != nil && f.Changed {
			return nil, false
		}
	}
	c := &ServerClient{url: os.Getenv("CGRAPH_SERVER"), http: &http.Client{Timeout: 5 * time.Minute}}
	token, hasToken := ClientToken()
	if c.url == "" {
		info, ok := serverfile.Read(a.DBDir)
		if !ok || (info.Token && !hasToken) {
			return nil, false
		}
		c.url, c.store = info.URL, info.Store
	}
	if hasToken {
		c.token = token
	}
	c.url = strings.TrimSuffix(c.url, "/")
	return c, true
}

// serverError is an error the server answered with.
type serverError struct {
	status        int
	code, message string
}

func (e *serverError) Error() string { return e.message }

// Post sends body to path as JSON and decodes the answer's data into out.
// A server that cannot be reached is ErrNoServer; an error the server
// answers is a *serverError, or a *UsageError for a bad request.
func (c *ServerClient) Post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return c.Do(ctx, http.MethodPost, path, b, out)
}

// Get reads path (with its query) and decodes the answer's data into out,
// as post does.
func (c *ServerClient) Get(ctx context.Context, path string, out any) error {
	return c.Do(ctx, http.MethodGet, path, nil, out)
}

func (c *ServerClient) Do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, rd)
	if err != nil {
		return ErrNoServer
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.store != "" {
		req.Header.Set(httpapi.StoreHeader, c.store)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return ErrNoServer
	}
	defer resp.Body.Close()
	var env struct {
		Data  json.RawMessage `json:"data"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("server %s: %s answered %s without a JSON envelope: %w", c.url, path, resp.Status, err)
	}
	switch {
	case env.Error != nil && env.Error.Code == "bad_request":
		return &UsageError{Problem: env.Error.Message, Fix: "see the command's --help"}
	case env.Error != nil:
		return &serverError{status: resp.StatusCode, code: env.Error.Code, message: env.Error.Message}
	case resp.StatusCode != http.StatusOK:
		return &serverError{status: resp.StatusCode, code: "http", message: fmt.Sprintf("server %s: %s answered %s", c.url, path, resp.Status)}
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return fmt.Errorf("server %s: decode the answer of %s: %w", c.url, path, err)
	}
	return nil
}

// ClientToken is the bearer token of $CGRAPH_TOKEN_FILE (the file the
// server's --token-file names), for a server that wants one.
func ClientToken() (string, bool) {
	path := os.Getenv("CGRAPH_TOKEN_FILE")
	if path == "" {
		return "", false
	}
	t, err := httpapi.ReadToken(path)
	if err != nil || t == "" {
		return "", false
	}
	return t, true
}
