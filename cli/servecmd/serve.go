package servecmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/serverfile"
)

func init() { app.Register(newServeCmd) }

// DefaultServeAddr is cgraph serve's address when --addr is not given.
const DefaultServeAddr = "127.0.0.1:7411"

// serveHelp is cgraph serve's long help: the routes, the security rules,
// scheduled maintenance and shutdown.
const serveHelp = `serve opens the store for writing, loads the models once and serves until SIGINT or
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
  GET    /v1/maintenance             the maintenance schedule and its last run (?dry_run=true: a dry run now)
  GET    /v1/log                     the audit log of applied maintenance actions (?limit=N)
  POST   /v1/undo                    {"action"}: undo one of them
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
--maintain-every 6h runs maintenance every 6 hours on the open store (in batches that
yield to searches): a dry run, logged one line per run and reported at GET /v1/maintenance
and by the MCP tool maintenance_report; with --maintain-apply and --maintain-policy FILE it
carries out what the policy allows, each action in its own atomic write, listed by cgraph
log and reversed by cgraph undo ACTION-ID.
On SIGTERM the listener closes, requests in flight finish (up to 30 s) and the store
is closed cleanly; a memory whose store request was answered is durable.`

// serveFlags are cgraph serve's flags.
type serveFlags struct {
	addr, tokenFile, tools, onConflict  string
	allowedHosts                        []string
	deferSlots, install, uninstall, now bool
	maintainEvery                       time.Duration
	maintainApply                       bool
	maintainPolicy                      string
}

func newServeCmd(a *app.App) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the store over HTTP: a JSON API (/v1) and MCP (/mcp) from one warm process",
		Long:  serveHelp,
		Example: `  cgraph serve
  cgraph serve --install      # a systemd user unit (Linux) or launchd agent (macOS) that keeps it running
  cgraph serve --addr 0.0.0.0:7411 --token-file ~/.config/cgraph/token
  curl -s localhost:7411/v1/search -d '{"query": "why did the build fail", "top_k": 5}'`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.install || f.uninstall || f.now {
				if f.install == f.uninstall {
					return app.Usagef("give --install, or --uninstall (with --now to run systemctl/launchctl too)", "serve needs exactly one of --install and --uninstall here")
				}
				return serveService(a, cmd, f.install, f.now) // service.go
			}
			return serve(a, f)
		},
	}
	cmd.Flags().StringVar(&f.addr, "addr", DefaultServeAddr, "address to listen on (host:port); not loopback needs --token-file")
	cmd.Flags().StringVar(&f.onConflict, "on-conflict", string(record.ConflictReport), "default policy of writes through this server (HTTP, MCP, the CLI beside it) that name none, for stored memories a new one contradicts or updates: report (keep the pair as an open contradiction) or supersede-newer (mark the old one superseded)")
	cmd.Flags().StringVar(&f.tools, "tools", mcpserver.ToolsFull, "MCP tool set on /mcp: full or core (the /v1 routes work either way)")
	cmd.Flags().BoolVar(&f.deferSlots, "defer-slots", false, "store memories with E1, keywords and the model-free slots, and fill the other model slots in the background (faster writes; restarts resume the filling)")
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", "file holding the bearer token every request must send (required off loopback)")
	_ = cmd.MarkFlagFilename("token-file") // fails only for an unknown flag
	cmd.Flags().BoolVar(&f.install, "install", false, "write a systemd user unit (~/.config/systemd/user/cgraph.service) or launchd agent (~/Library/LaunchAgents/dev.cgraph.serve.plist) that runs this serve command, print how to start it, and exit")
	cmd.Flags().BoolVar(&f.uninstall, "uninstall", false, "remove the file --install wrote")
	cmd.Flags().BoolVar(&f.now, "now", false, "with --install or --uninstall: also run the systemctl --user (or launchctl) commands that start or stop it")
	cmd.Flags().DurationVar(&f.maintainEvery, "maintain-every", 0, "run maintenance on this schedule (e.g. 6h; 0: never): a dry run reported in the log and at GET /v1/maintenance, unless --maintain-apply")
	cmd.Flags().BoolVar(&f.maintainApply, "maintain-apply", false, "with --maintain-every: carry out what the --maintain-policy file allows, each action logged (cgraph log) and undoable (cgraph undo)")
	cmd.Flags().StringVar(&f.maintainPolicy, "maintain-policy", "", "policy file (TOML or YAML) of the scheduled maintenance: actions, prune_below, types, max_actions, near (README \"Upkeep\")")
	_ = cmd.MarkFlagFilename("maintain-policy", "toml", "yaml", "yml") // fails only for an unknown flag
	cmd.Flags().StringSliceVar(&f.allowedHosts, "allowed-hosts", nil, "more host names (or addresses) requests may name in Host and Origin, comma-separated; loopback names and the --addr host are always allowed")
	return cmd
}

// serveSettings are serve's flags checked and read: the write policy, the
// maintenance policy and the bearer token ("" on loopback without one).
type serveSettings struct {
	conflicts record.ConflictPolicy
	policy    ops.Policy
	token     string
}

// check validates serve's flags together and reads the files they name.
// It starts nothing.
func (f serveFlags) check(a *app.App) (serveSettings, error) {
	var st serveSettings
	if err := checkTools(f.tools); err != nil {
		return st, err
	}
	conflicts, err := record.ParseConflictPolicy(f.onConflict)
	if err != nil {
		return st, &app.UsageError{Problem: "--on-conflict: " + err.Error(), Fix: "give report or supersede-newer"}
	}
	if err := record.CheckProject(a.Project); err != nil {
		return st, err // a *record.ValidationError: exit 2
	}
	policy, err := maintainFlags(f.maintainEvery, f.maintainApply, f.maintainPolicy)
	if err != nil {
		return st, err
	}
	token, err := httpapi.ReadToken(f.tokenFile)
	if err != nil {
		return st, err
	}
	if w := httpapi.TokenFileWarning(f.tokenFile); w != "" {
		a.Warnf("%s", w)
	}
	host, _, err := net.SplitHostPort(f.addr)
	if err != nil {
		return st, app.Usagef("give host:port, e.g. "+DefaultServeAddr, "--addr %q: %v", f.addr, err)
	}
	if !httpapi.IsLoopback(host) && token == "" {
		return st, app.Usagef("give --token-file FILE (a file holding a secret token) to serve beyond this machine, or use 127.0.0.1:PORT",
			"--addr %s is not a loopback address and no token protects it", f.addr)
	}
	return serveSettings{conflicts: conflicts, policy: policy, token: token}, nil
}

// serve is cgraph serve: it checks the flags, listens, opens and warms
// the store, starts the maintenance schedule, writes the server file the
// CLI finds the server by, and serves until the run's context ends.
func serve(a *app.App, f serveFlags) (err error) {
	st, err := f.check(a)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w: choose another port with --addr", f.addr, err)
	}
	defer ln.Close() // Serve closes it first; a second close's error means nothing
	hosts, err := httpapi.NewHosts(ln.Addr().String(), f.allowedHosts)
	if err != nil {
		return app.Usagef("give --allowed-hosts a comma-separated list of bare names or addresses, e.g. --allowed-hosts memory.internal,10.0.0.5", "--allowed-hosts: %v", err)
	}
	s, err := a.Open(app.StoreOpen{Write: true, DeferSlots: f.deferSlots, OnConflict: st.conflicts})
	if err != nil {
		return err
	}
	defer a.CloseStore(s, &err)
	s.StartFiller() // completes slots deferred writes left pending, now or before a restart
	if err := s.Warm(a.Context()); err != nil {
		return err
	}
	sched, stop := startSchedule(a, s, f, st.policy)
	defer stop() // before the store closes: a run in flight stops between actions
	// One token counter, its tokenizer loaded once, for MCP and HTTP.
	tokens := a.TokenCounter()
	srv := mcpserver.New(s, mcpserver.Options{Version: engine.Version, Tokens: tokens, Tools: f.tools, Project: a.Project, HostsChecked: true, Maintenance: sched})
	h := httpapi.Handler(srv, httpapi.Options{Version: engine.Version, Token: st.token, MCP: srv.HTTPHandler(), Stats: s, Hosts: hosts, Searcher: s, Records: s, Tokens: tokens, Project: a.Project, Ingest: s, Audit: s})
	abs, err := filepath.Abs(a.DBDir)
	if err != nil {
		return fmt.Errorf("store directory %s: %w", a.DBDir, err)
	}
	h = httpapi.RequireStore(s.StoreID(), abs, h)
	remove, err := serverfile.Write(a.DBDir, serverfile.Info{URL: "http://" + ln.Addr().String(), PID: os.Getpid(),
		Version: engine.Version, Token: st.token != "", Started: time.Now().UTC(), Store: s.StoreID(), Dir: abs})
	if err != nil {
		return err
	}
	defer remove()
	return serveHTTP(a, h, ln, "the cgraph API (/v1) and MCP (/mcp)")
}

// startSchedule runs maintenance on s every f.maintainEvery in the
// background (nil and a no-op stop without a schedule); stop ends it and
// waits for it, so a run in flight stops between actions.
func startSchedule(a *app.App, s *engine.Engine, f serveFlags, policy ops.Policy) (sched *ops.Schedule, stop func()) {
	if f.maintainEvery <= 0 {
		return nil, func() {}
	}
	sched = ops.NewSchedule(s, ops.ScheduleOptions{Every: f.maintainEvery, Request: ops.MaintenanceRequest{Policy: policy, Apply: f.maintainApply},
		Log: func(line string) { a.Warnf("%s", line) }})
	ctx, cancel := context.WithCancel(a.Context())
	stopped := make(chan struct{})
	go func() { defer close(stopped); sched.Run(ctx) }()
	return sched, func() { cancel(); <-stopped }
}

// MinMaintainEvery is the shortest --maintain-every: a run reads every
// record, so a schedule tighter than this would keep the store busy.
const MinMaintainEvery = time.Second

// maintainFlags checks serve's maintenance flags together and reads the
// policy file: --maintain-apply and --maintain-policy need a schedule, and
// applying needs a policy written down.
func maintainFlags(every time.Duration, apply bool, policyFile string) (ops.Policy, error) {
	switch {
	case every < 0 || (every > 0 && every < MinMaintainEvery):
		return ops.Policy{}, app.Usagef("give a duration of 1s or more, such as 6h (0: no schedule)", "--maintain-every %s is too short", every)
	case every == 0 && (apply || policyFile != ""):
		return ops.Policy{}, app.Usagef("add --maintain-every DURATION, such as --maintain-every 6h", "--maintain-apply and --maintain-policy need a schedule")
	case apply && policyFile == "":
		return ops.Policy{}, app.Usagef("write what a run may apply in a policy file and give --maintain-policy FILE (README \"Upkeep\" has an example)", "--maintain-apply needs --maintain-policy")
	case policyFile == "":
		return ops.DefaultPolicy(), nil
	}
	p, err := ops.LoadPolicy(policyFile)
	if err != nil {
		var ve *record.ValidationError
		if errors.As(err, &ve) {
			return ops.Policy{}, &app.UsageError{Problem: "--maintain-policy: " + err.Error(), Fix: ve.Fix}
		}
		return ops.Policy{}, app.Usagef("give a readable policy file", "--maintain-policy: %v", err)
	}
	return p, nil
}
