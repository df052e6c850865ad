package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

func init() { register(newServeCmd) }

// DefaultServeAddr is cgraph serve's address when --addr is not given.
const DefaultServeAddr = "127.0.0.1:7411"

func newServeCmd(a *App) *cobra.Command {
	var addr, tokenFile, tools, onConflict string
	var allowedHosts []string
	var deferSlots, install, uninstall, now bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the store over HTTP: a JSON API (/v1) and MCP (/mcp) from one warm process",
		Long: `serve opens the store for writing, loads the models once and serves until SIGINT or
SIGTERM:

  GET    /healthz                    liveness and version (never needs the token)
  POST   /v1/memories                store a memory: {"content", "type", "tags", "session", "source", "importance", "created_at", "project", "meta"}
  GET    /v1/memories/{id}           one memory (?fingerprint=true adds its slots)
  PATCH  /v1/memories/{id}           change it: {"content", "type", "add_tags", "remove_tags", "importance", "meta", "unset_meta", "project"}
  GET    /v1/memories/{id}/history   the memory with its earlier revisions
  DELETE /v1/memories/{id}           delete a memory
  POST   /v1/relations               link two memories: {"from", "to", "type", "weight"}
  DELETE /v1/relations               unlink them (the same body, or ?from=&to=&type=)
  GET    /v1/related/{id}            linked memories (?type=fixes,causes&depth=2&limit=20)
  POST   /v1/search                  {"query", "profile", "mode", "top_k", "direction", "weights", "filter", "expand"}
  POST   /v1/context                 {"query", "budget", "profile", "candidates", "filter", "expand"}
  GET    /v1/embedders               the slots, their models and indexes
  GET    /v1/stats                   memory count, format version, per-family sizes
  /mcp                               MCP over streamable HTTP (the same tools as cgraph mcp;
                                     /mcp?project=P serves the session pinned to project P)

Answers are {"data": …} or {"error": {"code", "message"}} (docs: package httpapi). The
API and the MCP tools share one definition per operation. --project P (default
$CGRAPH_PROJECT) pins the API and /mcp to one project, as cgraph mcp --project does;
without it every project is reachable and searches default to the default project
(give "filter": {"project": …}). Loopback by default; any
other address needs --token-file, whose token every request but /healthz must send as
"Authorization: Bearer TOKEN". Every route but /healthz refuses (403) a request whose
Host or Origin header names another host than localhost, a loopback address, the --addr
host or one of --allowed-hosts: a web page that rebinds its own name to 127.0.0.1 cannot
drive the server. Cross-origin browser requests are refused (403).
--on-conflict sets what a write that names no policy does with a stored memory it
contradicts (report: keep the pair open; supersede-newer: supersede the old one).
On SIGTERM the listener closes, requests in flight finish (up to 30 s) and the store
is closed cleanly; a memory whose store request was answered is durable.`,
		Example: `  cgraph serve
  cgraph serve --install      # a systemd user unit (Linux) or launchd agent (macOS) that keeps it running
  cgraph serve --addr 0.0.0.0:7411 --token-file ~/.config/cgraph/token
  curl -s localhost:7411/v1/search -d '{"query": "why did the build fail", "top_k": 5}'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if install || uninstall || now {
				if install == uninstall {
					return usagef("give --install, or --uninstall (with --now to run systemctl/launchctl too)", "serve needs exactly one of --install and --uninstall here")
				}
				return a.serveService(cmd, install, now) // service.go
			}
			if err := checkTools(tools); err != nil {
				return err
			}
			policy, err := record.ParseConflictPolicy(onConflict)
			if err != nil {
				return &UsageError{Problem: "--on-conflict: " + err.Error(), Fix: "give report or supersede-newer"}
			}
			if err := record.CheckProject(a.Project); err != nil {
				return err // a *record.ValidationError: exit 2
			}
			token, err := readToken(tokenFile)
			if err != nil {
				return err
			}
			if w := tokenFileWarning(tokenFile); w != "" {
				a.Warnf("%s", w)
			}
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return usagef("give host:port, e.g. "+DefaultServeAddr, "--addr %q: %v", addr, err)
			}
			if !isLoopback(host) && token == "" {
				return usagef("give --token-file FILE (a file holding a secret token) to serve beyond this machine, or use 127.0.0.1:PORT",
					"--addr %s is not a loopback address and no token protects it", addr)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w: choose another port with --addr", addr, err)
			}
			defer ln.Close() // Serve closes it first; a second close's error means nothing
			hosts, err := httpapi.NewHosts(ln.Addr().String(), allowedHosts)
			if err != nil {
				return usagef("give --allowed-hosts a comma-separated list of bare names or addresses, e.g. --allowed-hosts memory.internal,10.0.0.5", "--allowed-hosts: %v", err)
			}
			s, err := a.openStore(storeOpen{write: true, deferSlots: deferSlots, onConflict: policy})
			if err != nil {
				return err
			}
			defer a.closeStore(s, &err)
			s.StartFiller() // completes slots deferred writes left pending, now or before a restart
			if err := s.Warm(a.Context()); err != nil {
				return err
			}
			srv := mcpserver.New(s, mcpserver.Options{Version: engine.Version, Tokens: a.tokenCounter(), Tools: tools, Project: a.Project, HostsChecked: true})
			h := httpapi.Handler(srv, httpapi.Options{Version: engine.Version, Token: token, MCP: srv.HTTPHandler(), Stats: s, Hosts: hosts, Searcher: s, Records: s, Tokens: a.tokenCounter(), Project: a.Project, Ingest: s})
			abs, err := filepath.Abs(a.DBDir)
			if err != nil {
				return fmt.Errorf("store directory %s: %w", a.DBDir, err)
			}
			h = requireStore(s.StoreID(), abs, h)
			remove, err := writeServerFile(a.DBDir, serverInfo{URL: "http://" + ln.Addr().String(), PID: os.Getpid(),
				Version: engine.Version, Token: token != "", Started: time.Now().UTC(), Store: s.StoreID(), Dir: abs})
			if err != nil {
				return err
			}
			defer remove()
			return serveHTTP(a, h, ln, "the cgraph API (/v1) and MCP (/mcp)")
		},
	}
	cmd.Flags().StringVar(&addr, "addr", DefaultServeAddr, "address to listen on (host:port); not loopback needs --token-file")
	cmd.Flags().StringVar(&onConflict, "on-conflict", string(record.ConflictReport), "default policy of writes through this server (HTTP, MCP, the CLI beside it) that name none, for stored memories a new one contradicts or updates: report (keep the pair as an open contradiction) or supersede-newer (mark the old one superseded)")
	cmd.Flags().StringVar(&tools, "tools", mcpserver.ToolsFull, "MCP tool set on /mcp: full or core (the /v1 routes work either way)")
	cmd.Flags().BoolVar(&deferSlots, "defer-slots", false, "store memories with E1, keywords and the model-free slots, and fill the other model slots in the background (faster writes; restarts resume the filling)")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "file holding the bearer token every request must send (required off loopback)")
	_ = cmd.MarkFlagFilename("token-file") // fails only for an unknown flag
	cmd.Flags().BoolVar(&install, "install", false, "write a systemd user unit (~/.config/systemd/user/cgraph.service) or launchd agent (~/Library/LaunchAgents/dev.cgraph.serve.plist) that runs this serve command, print how to start it, and exit")
	cmd.Flags().BoolVar(&uninstall, "uninstall", false, "remove the file --install wrote")
	cmd.Flags().BoolVar(&now, "now", false, "with --install or --uninstall: also run the systemctl --user (or launchctl) commands that start or stop it")
	cmd.Flags().StringSliceVar(&allowedHosts, "allowed-hosts", nil, "more host names (or addresses) requests may name in Host and Origin, comma-separated; loopback names and the --addr host are always allowed")
	return cmd
}

// tokenFileWarning says what is wrong with a token file others can read
// (the secret then is not one); "" when only its owner can. A warning,
// not a refusal: the server still starts for a user who shares the
// machine with no one, and the message says how to fix it.
func tokenFileWarning(path string) string {
	if path == "" {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("--token-file %s can be read by other users (mode %04o): run `chmod 600 %s`", path, fi.Mode().Perm(), path)
}

// readToken reads a bearer token file; "" with no file.
func readToken(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &UsageError{Problem: fmt.Sprintf("--token-file: %v", err), Fix: "give a readable file holding the token"}
	}
	t := strings.TrimSpace(string(b))
	switch {
	case len(t) < 16:
		return "", usagef("put a random secret of 16 or more characters in it, e.g. `openssl rand -hex 32 > FILE`", "--token-file %s holds %d characters", path, len(t))
	case strings.ContainsAny(t, " \t\r\n"):
		return "", usagef("put the token alone on one line", "--token-file %s holds more than one word", path)
	}
	return t, nil
}
