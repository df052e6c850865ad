package servecmd

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/serverfile"
)

func init() { app.Register(newMCPCmd) }

// mcpHelp is cgraph mcp's long help: the transports, --project, and how
// sessions share a store (a serve's relay, one writer).
const mcpHelp = `mcp serves the store's memory, search and analysis tools over the Model Context Protocol:
on stdin/stdout by default (what Claude Code, Cursor and other MCP hosts start), or on
streamable HTTP with --http 127.0.0.1:PORT.

--project P (default $CGRAPH_PROJECT) pins the server to one project: memories are stored
there, searches, get_context and get_related stay inside it, and a tool call that names another
project (filter.project, filter.all_projects, store_memory's or update_memory's project) or the id
of another project's memory is refused with an error naming both projects.

When a cgraph serve serves the store (it announces itself in the store directory), cgraph mcp
relays the session to it: every agent shares its one writer and warm models
(CGRAPH_NO_SERVER=1, --read-only or --http serve locally instead; with --project the relayed
session is pinned to the project by the server, /mcp?project=P, and with --tools core it is
served the core set, /mcp?tools=core).

Otherwise the first cgraph mcp on a store takes its writer lock. Later ones (or any beside another
writing cgraph command) open the store read-only: their read tools see the writer's
memories, and their write tools (store_memory, update_memory, link_memories, delete_memory)
answer with an error that names the writing process.`

func newMCPCmd(a *app.App) *cobra.Command {
	var httpAddr, tools string
	var allowRemote bool
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the cgraph tools to a coding agent over MCP (stdio, or streamable HTTP with --http)",
		Long:  mcpHelp,
		Example: `  claude mcp add cgraph -- cgraph mcp --db ~/.local/share/cgraph/default
  claude mcp add cgraph -- cgraph mcp --project myrepo --tools core
  cgraph mcp --http 127.0.0.1:8765`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMCP(a, tools, httpAddr, allowRemote) },
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this address (host:port, loopback unless --allow-remote) instead of stdio")
	cmd.Flags().StringVar(&tools, "tools", mcpserver.ToolsFull, "tool set: full (every tool) or core (8 tools: store, update, link, search, context, recent, get, delete)")
	cmd.Flags().BoolVar(&allowRemote, "allow-remote", false, "allow --http on a non-loopback address (the tools read and write the store without authentication)")
	return cmd
}

// runMCP is cgraph mcp: it relays the session to the cgraph serve of the
// store when one answers (unless --http, --read-only or
// CGRAPH_NO_SERVER), else serves it here, on stdio or on httpAddr.
func runMCP(a *app.App, tools, httpAddr string, allowRemote bool) error {
	if err := checkTools(tools); err != nil {
		return err
	}
	if err := record.CheckProject(a.Project); err != nil {
		return err // a *record.ValidationError: exit 2
	}
	// A relayed session with a project is pinned to it by the server
	// (/mcp?project=P).
	if httpAddr == "" && !a.ReadOnly && os.Getenv("CGRAPH_NO_SERVER") == "" {
		if info, ok := serverfile.Read(a.DBDir); ok && (!info.Token || hasClientToken()) {
			a.Warnf("store %s is served by cgraph serve at %s (pid %d): relaying this MCP session to it", a.DBDir, info.URL, info.PID)
			return mcpserver.Bridge(a.Context(), a.Stdin, a.Stdout, mcpserver.BridgeOptions{URL: info.URL, Project: a.Project, Tools: tools, Token: app.ClientToken})
		}
	}
	if httpAddr == "" {
		return serveStdioMCP(a, tools)
	}
	ln, err := listenMCP(httpAddr, allowRemote)
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it first; a second close's error means nothing
	return serveHTTPMCP(a, ln, tools)
}

// serveHTTPMCP serves MCP over streamable HTTP on ln. The handshake does
// not wait for the models: they load in the background while the client
// initializes and lists the tools, and the first search waits for them
// (sessions open on first use). The store closes only after the warm-up
// has stopped.
func serveHTTPMCP(a *app.App, ln net.Listener, tools string) (err error) {
	s, writer, err := openStoreForMCP(a)
	if err != nil {
		return err
	}
	defer a.CloseStore(s, &err)
	warmed := make(chan struct{})
	go func() {
		defer close(warmed)
		warm(a, s)
	}()
	defer func() { <-warmed }()
	srv := mcpserver.New(s, mcpserver.Options{Version: engine.Version, WriterPID: writer, Tokens: a.TokenCounter(), Tools: tools, Project: a.Project})
	hosts, err := httpapi.NewHosts(ln.Addr().String(), nil)
	if err != nil {
		return err // ln's own address: cannot be malformed
	}
	return serveHTTP(a, hosts.Guard(srv.HTTPHandler()), ln, "MCP (streamable HTTP)")
}

// warm loads the models of s and says why it could not, unless the run is
// stopping (the first search then loads them).
func warm(a *app.App, s *engine.Engine) {
	if err := s.Warm(a.Context()); err != nil && a.Context().Err() == nil {
		a.Warnf("warming the models: %v (the first search loads them)", err)
	}
}

// serveStdioMCP serves MCP on stdin/stdout before the store is open: the
// handshake and tools/list are answered at once while the store opens (and
// then the models warm up) in the background; the first tool call waits for
// the store. The store closes after the session, once the warm-up stopped.
func serveStdioMCP(a *app.App, tools string) (err error) {
	ls := mcpserver.NewLazyStore(a.DBDir)
	warmed := make(chan struct{})
	go func() {
		defer close(warmed)
		s, writer, err := openStoreForMCP(a)
		ls.Set(s, writer, err)
		if err != nil {
			a.Warnf("open the store: %v", err)
			return
		}
		warm(a, s)
	}()
	defer func() {
		<-warmed
		if s, oerr := ls.Opened(); oerr == nil && s != nil {
			a.CloseStore(s, &err)
		}
	}()
	srv := mcpserver.New(ls, mcpserver.Options{Version: engine.Version, Tokens: a.TokenCounter(), Tools: tools, Project: a.Project})
	return srv.Serve(a.Context(), a.Stdin, a.Stdout)
}

// checkTools validates --tools.
func checkTools(t string) error {
	if t != mcpserver.ToolsFull && t != mcpserver.ToolsCore {
		return app.Usagef("give --tools full or --tools core", "--tools %q is not a tool set", t)
	}
	return nil
}

// openStoreForMCP opens the store for writing, or read-only when --read-only
// is given or another process holds the writer lock; writer is then that
// process's pid (0 if unknown).
func openStoreForMCP(a *app.App) (s *engine.Engine, writer int, err error) {
	s, err = app.WriterElseReader(a.ReadOnly, a.OpenStore, func(inUse *record.StoreInUseError) {
		a.Warnf("store %s is in use by process %d: serving read-only; store_memory, update_memory, link_memories and delete_memory will be refused", a.DBDir, inUse.PID)
		writer = inUse.PID
	})
	return s, writer, err
}

// listenMCP listens on addr, refusing a non-loopback host unless allowed.
func listenMCP(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, app.Usagef("give host:port, e.g. 127.0.0.1:8765", "--http %q: %v", addr, err)
	}
	if !allowRemote && !httpapi.IsLoopback(host) {
		return nil, app.Usagef("use 127.0.0.1:PORT or localhost:PORT, or add --allow-remote if the network is trusted (the tools have no authentication)",
			"--http %s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

// serveHTTP serves h on ln until the run's context ends (SIGINT/SIGTERM),
// then shuts down gracefully: the listener closes at once and requests in
// flight get up to shutdownGrace to finish, before the caller closes the
// store.
func serveHTTP(a *app.App, h http.Handler, ln net.Listener, what string) error {
	// No WriteTimeout: MCP streams answers over long-lived responses. A
	// client must send its request, body included, within ReadTimeout (a
	// slow or stalled body must not hold a connection for minutes: 30 s
	// carries the largest body at well under 1 MB/s); idle keep-alive
	// connections close after IdleTimeout.
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	a.Warnf("serving %s on http://%s/", what, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s on %s: %w", what, ln.Addr(), err)
	case <-a.Context().Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		return fmt.Errorf("stop %s on %s: %w", what, ln.Addr(), err)
	}
	return nil
}

// shutdownGrace is how long a stopping server waits for requests in flight.
const shutdownGrace = 30 * time.Second

// hasClientToken reports whether $CGRAPH_TOKEN_FILE gives a token to send
// to a server that wants one.
func hasClientToken() bool {
	_, ok := app.ClientToken()
	return ok
}
