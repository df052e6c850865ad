package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
)

// A running `cgraph serve` keeps the store open and the models loaded. The
// read commands that need models (search, context) send their command line
// to it when one serves the same store, and print what it answers: the same
// bytes, exit code and stderr as running them here, in milliseconds instead
// of the second it takes to load the models. Without a server (or when it
// does not answer) they run here as before.

// servedCommands are the commands a server runs for a client.
var servedCommands = []string{"search", "context"}

// localOnlyFlags make a command run here: they name this machine's files or
// choose another store or models than the server's.
var localOnlyFlags = []string{"--models-dir", "--device", "--profile-file", "--read-only"}

// serverInfo is the discovery file's content.
type serverInfo struct {
	URL     string    `json:"url"`
	PID     int       `json:"pid"`
	Version string    `json:"version"`
	Token   bool      `json:"token"` // requests need the bearer token of --token-file
	Started time.Time `json:"started"`
	Store   string    `json:"store"` // the served store's identity (meta/store_id)
	Dir     string    `json:"dir"`   // the served store's directory, absolute
}

// storeHeader names, on every request a client sends to a server, the
// identity of the store it means; a server of another store refuses it.
const storeHeader = "X-Cgraph-Store"

// requireStore refuses a request whose storeHeader names another store
// than id (409): a client that found the server through a stale or copied
// discovery file must not get another store's answers. A request without
// the header (curl, MCP clients) is served.
func requireStore(id, dir string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if want := r.Header.Get(storeHeader); want != "" && want != id {
			httpapi.WriteError(w, http.StatusConflict, "wrong_store", fmt.Sprintf("this server serves store %s (%s), the request is for store %s: "+
				"open that store with --db, or set CGRAPH_NO_SERVER=1 to run the command here", id, dir, want))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// servedRun is POST /v1/cli's request and answer.
type servedRun struct {
	Args []string `json:"args"`
}

type servedOutput struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exit_code"`
}

// servedExit ends a command the server ran with its exit code; its output
// is already printed.
type servedExit struct{ code int }

func (e *servedExit) Error() string { return fmt.Sprintf("exit %d", e.code) }

// writeServerFile announces a server for the store in dir; the returned
// func removes the file if it still names this process.
func writeServerFile(dir string, info serverInfo) (func(), error) {
	b, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	path := engine.ServerFile(dir)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return func() {
		if cur, ok := readServerFile(dir); ok && cur.PID == info.PID {
			_ = os.Remove(path) // a leftover is ignored by clients: its pid is gone
		}
	}, nil
}

// readServerFile returns the live server announced for the store in dir.
// A file that names another directory (it was copied with the store, as
// `cp -a` does) or no store identity (an older server's) is ignored.
func readServerFile(dir string) (serverInfo, bool) {
	b, err := os.ReadFile(engine.ServerFile(dir))
	if err != nil {
		return serverInfo{}, false
	}
	var info serverInfo
	if json.Unmarshal(b, &info) != nil || info.URL == "" || info.PID <= 0 || info.Store == "" || !sameDir(info.Dir, dir) {
		return serverInfo{}, false
	}
	if err := syscall.Kill(info.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return serverInfo{}, false // a server that died without removing it
	}
	return info, true
}

// sameDir reports whether a and b name the same existing directory.
func sameDir(a, b string) bool {
	if a == "" {
		return false
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// viaServer runs the command on a server when one serves this store and
// the command line allows it. handled is false when the command must run
// here; then err is nil.
func (a *App) viaServer() (handled bool, err error) {
	if a.shared != nil || os.Getenv("CGRAPH_NO_SERVER") != "" {
		return false, nil
	}
	args, ok := forwardable(a.rawArgs)
	if !ok {
		return false, nil
	}
	if a.Project != "" && !slices.ContainsFunc(args, func(s string) bool { return s == "--project" || strings.HasPrefix(s, "--project=") }) {
		args = append(args, "--project="+a.Project) // $CGRAPH_PROJECT is the client's, not the server's
	}
	url := os.Getenv("CGRAPH_SERVER")
	token, hasToken := clientToken()
	store := ""
	if url == "" {
		info, ok := readServerFile(a.DBDir)
		if !ok || (info.Token && !hasToken) {
			return false, nil
		}
		url, store = info.URL, info.Store
	}
	body, err := json.Marshal(servedRun{Args: args})
	if err != nil {
		return false, nil
	}
	req, err := http.NewRequestWithContext(a.Context(), http.MethodPost, strings.TrimSuffix(url, "/")+"/v1/cli", bytes.NewReader(body))
	if err != nil {
		return false, nil
	}
	req.Header.Set("Content-Type", "application/json")
	if hasToken {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if store != "" {
		req.Header.Set(storeHeader, store)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		return false, nil // no server after all: run here
	}
	defer resp.Body.Close()
	var env struct {
		Data *servedOutput `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&env) != nil || env.Data == nil {
		return false, nil
	}
	if _, err := fmt.Fprint(a.Stdout, env.Data.Stdout); err != nil {
		return true, err
	}
	a.wroteStdout = env.Data.Stdout != ""
	fmt.Fprint(a.Stderr, env.Data.Stderr)
	if env.Data.ExitCode != ExitOK {
		return true, &servedExit{env.Data.ExitCode}
	}
	return true, nil
}

// clientToken is the bearer token of $CGRAPH_TOKEN_FILE (the file the
// server's --token-file names), for a server that wants one.
func clientToken() (string, bool) {
	path := os.Getenv("CGRAPH_TOKEN_FILE")
	if path == "" {
		return "", false
	}
	t, err := readToken(path)
	if err != nil || t == "" {
		return "", false
	}
	return t, true
}

// forwardable is the command line a server can run: a served command with
// no flag that names this machine's files, without --db (the server has
// the store).
func forwardable(raw []string) ([]string, bool) {
	var out []string
	cmd := ""
	for i := 0; i < len(raw); i++ {
		t := raw[i]
		name, _, hasValue := strings.Cut(t, "=")
		switch {
		case t == "--":
			return nil, false
		case name == "--db":
			if !hasValue {
				i++ // its value
			}
			continue
		case slices.Contains(localOnlyFlags, name):
			return nil, false
		case cmd == "" && !strings.HasPrefix(t, "-"):
			cmd = t
		}
		out = append(out, t)
	}
	return out, slices.Contains(servedCommands, cmd)
}

// cliHandler is POST /v1/cli of cgraph serve: it runs a served command on
// the server's open store with the client's arguments and answers with the
// command's stdout, stderr and exit code. Anything else is refused.
func (a *App) cliHandler(s *engine.Engine) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var run servedRun
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&run); err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, "bad_request", "the body is not {\"args\": [...]}: "+err.Error())
			return
		}
		if args, ok := forwardable(run.Args); !ok || len(args) != len(run.Args) {
			httpapi.WriteError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("the server runs only %s, without --db, %s",
				strings.Join(servedCommands, " and "), strings.Join(localOnlyFlags, ", ")))
			return
		}
		var out, errb bytes.Buffer
		c := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, ctx: r.Context(), isTerminal: func(any) bool { return false },
			shared: s, rawArgs: run.Args}
		code := c.execute(r.Context(), run.Args, func(k string) string {
			if k == "CGRAPH_MODELS" {
				return a.ModelsDir // the server's models (context counts tokens with them)
			}
			return os.Getenv(k)
		})
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"data": servedOutput{Stdout: out.String(), Stderr: errb.String(), ExitCode: code}})
	})
}
