package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// Store is what the tools need from an open memory store; *engine.Engine
// implements it. Writes go through Add, Update, Link, Unlink and Delete
// only (never the engine).
type Store interface {
	Add(ctx context.Context, m record.NewMemory) (record.Memory, error)
	Get(ctx context.Context, id record.ID) (record.Memory, error)
	// Peek reads memories without recording an access.
	Peek(ctx context.Context, ids []record.ID) ([]record.Memory, []bool, error)
	// ResolveID turns a full id or a unique prefix of one into the id.
	ResolveID(ctx context.Context, text string) (record.ID, error)
	Update(ctx context.Context, id record.ID, c record.Change) (engine.UpdateResult, error)
	History(ctx context.Context, id record.ID) ([]record.Memory, error)
	// RevisionsAt puts back the revision each memory had at a time
	// (record.Filter.AsOf).
	RevisionsAt(ctx context.Context, ms []record.Memory, t time.Time) error
	Link(ctx context.Context, r record.Relation) (record.Relation, error)
	Unlink(ctx context.Context, from, to record.ID, t record.RelationType) (bool, error)
	Related(ctx context.Context, id record.ID, o engine.RelatedOptions) ([]engine.RelatedMemory, error)
	Delete(ctx context.Context, id record.ID) error
	Fingerprint(ctx context.Context, id record.ID) (*engine.Fingerprint, error)
	EachFingerprint(ctx context.Context, fn func(m record.Memory, fp *engine.Fingerprint) error) error
	Search(ctx context.Context, req engine.SearchRequest) (engine.SearchResult, error)
	Slots() []engine.SlotInfo
	List(ctx context.Context, o record.ListOptions) ([]record.Memory, error)
	SessionTimeline(ctx context.Context, session string, fromSeq uint64, limit int) (engine.Timeline, error)
	SaveTopicSnapshot(ctx context.Context, at time.Time, value []byte, keep int) error
	LatestTopicSnapshot(ctx context.Context) (value []byte, at time.Time, ok bool, err error)
	ReadOnly() bool
	Dir() string
	// Tally and Stats and Maintain serve memory_stats and maintenance_report.
	Tally(ctx context.Context) (engine.Tally, error)
	Stats(ctx context.Context) (record.Stats, error)
	Maintain(ctx context.Context, o engine.MaintainOptions) ([]engine.MaintainAction, error)
}

// Options configure New.
type Options struct {
	// Version is reported to clients in the initialize handshake.
	Version string
	// Tools is ToolsFull (default, "") or ToolsCore.
	Tools string
	// Tokens counts tokens for get_context's budget; nil counts
	// approximately (contextpack.Approx), which the answer says.
	Tokens contextpack.Counter
	// WriterPID is the process holding the store's writer lock when this
	// server opened the store read-only because of it (0: unknown or not
	// applicable). Write tools name it in their refusal.
	WriterPID int
	// Project pins the server to one project (cgraph mcp --project): memories
	// are stored there, searches, get_context and get_related stay inside
	// it, and a tool given another project (filter.project, all_projects,
	// store_memory's or update_memory's project) or the id of another
	// project's memory is refused with an error naming both projects. ""
	// leaves the server unpinned: the default project unless a call names
	// another.
	Project string
	// OutputSchemas lists each tool's output schema with it in tools/list.
	// Off by default: the schemas cost an agent about 50 KB of context on
	// every session and the answers are the same without them (each is
	// tested against its schema, TestOutputSchemas).
	OutputSchemas bool
	// HostsChecked says the caller refuses requests under a foreign Host or
	// Origin itself (httpapi.Hosts, which also knows the names of
	// --allowed-hosts), so HTTPHandler turns the SDK's loopback-only Host
	// check off. Leave it false unless such a check stands in front.
	HostsChecked bool
	// Maintenance is the running maintenance schedule (serve
	// --maintain-every) that maintenance_report and memory_stats report;
	// nil when there is none.
	Maintenance *ops.Schedule
}

// Server serves the cgraph tools over MCP for one open store. It is safe for
// concurrent use (the store is); it does not close the store.
type Server struct {
	store Store
	opts  Options
	mcp   *mcp.Server
	defs  []toolDef

	// pinned are the servers pinned to a project that HTTPHandler made for
	// sessions asking for one (?project=P), by project; guarded by pinMu.
	pinMu  sync.Mutex
	pinned map[string]*Server
	// coreTwin serves the core set to sessions asking for it
	// (?tools=core); guarded by pinMu.
	coreTwin *Server
}

// New builds the MCP server with every tool of Tools registered.
func New(store Store, o Options) *Server {
	if o.Version == "" {
		o.Version = engine.Version
	}
	s := &Server{store: store, opts: o, defs: toolDefs()}
	offered := func(name string) bool { return o.Tools != ToolsCore || slices.Contains(CoreTools, name) }
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "cgraph", Title: "cgraph memory and retrieval", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructionsFor(offered), Capabilities: &mcp.ServerCapabilities{}})
	for _, t := range s.defs {
		if !offered(t.Name) {
			continue // Call still reaches every tool: the HTTP API and the CLI use it
		}
		t.register(s, s.mcp, t.output)
	}
	s.addResourcesAndPrompts()
	return s
}

// Tool sets of Options.Tools.
const (
	ToolsFull = "full" // every tool (the default)
	ToolsCore = "core" // CoreTools only: a small surface that costs an agent little context
)

// CoreTools are the tools of the core set, an agent's day: remember (store,
// correct, link), recall (search, context), browse (recent), read, forget.
var CoreTools = []string{"store_memory", "update_memory", "link_memories", "search_memory", "get_context",
	"search_recent", "get_memory", "delete_memory"}

// instructionsFor are the server instructions for the tools offered: each
// sentence names only tools in offered (TestInstructionsNameOfferedTools).
func instructionsFor(offered func(string) bool) string {
	parts := []string{"cgraph is a memory store for coding agents: store what you learn (facts, decisions, errors and their fixes, code, preferences) with store_memory, and get it back when it matters."}
	add := func(s string, tools ...string) {
		for _, t := range tools {
			if !offered(t) {
				return
			}
		}
		parts = append(parts, s)
	}
	add("At the start of a task call get_context with the task: it returns the relevant memories packed into a token budget as Markdown, with a citation index.", "get_context")
	add("Use search_memory for a ranked search (profile: code, causal, recent, …; filter narrows it to a project, types, tags, dates or metadata); each result says why it matched.", "search_memory")
	add("search_by_keywords finds exact identifiers and error codes, search_causes why something happened.", "search_by_keywords", "search_causes")
	add("search_recent lists the newest memories.", "search_recent")
	add("Correct a memory with update_memory instead of storing a second one.", "update_memory")
	add("Link an error to its fix, or a new decision to the one it replaces, with link_memories.", "link_memories")
	add("Follow links with get_related.", "get_related")
	add("Read a memory whole with get_memory; delete_memory forgets one.", "get_memory", "delete_memory")
	add("Answers are compact; explain: true shows how each result was ranked.", "search_memory")
	return strings.Join(parts, " ")
}

// Call runs the tool name with JSON arguments outside MCP (the HTTP API
// uses it), through the same definition an MCP call goes through: the
// arguments are checked against the tool's input schema (an *ArgsError when
// they do not fit), a write tool on a read-only store is a *ReadOnlyError,
// a panic is an error, and the result is the tool's structured output.
func (s *Server) Call(ctx context.Context, name string, args json.RawMessage) (any, error) {
	for _, d := range s.defs {
		if d.Name == name {
			return d.call(ctx, s, args)
		}
	}
	return nil, fmt.Errorf("mcpserver: no tool %q", name)
}

// ArgsError is a tool call whose arguments do not fit the tool's schema.
type ArgsError struct {
	Tool string
	Err  error
}

func (e *ArgsError) Error() string {
	return fmt.Sprintf("%s: invalid arguments: %v", e.Tool, e.Err)
}

func (e *ArgsError) Unwrap() error { return e.Err }

// ReadOnlyError is a write refused because this server opened the store
// read-only; its text names the writing process.
type ReadOnlyError struct{ msg string }

func (e *ReadOnlyError) Error() string { return e.msg }

// MCP returns the underlying SDK server (for custom transports).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Serve serves one client over a newline-delimited JSON stream (stdio: r is
// stdin, w stdout) until the client disconnects or ctx ends. Nothing else may
// write to w. A line that is not a JSON-RPC message is answered with a
// JSON-RPC error and the session goes on (lineFilter).
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	out := &syncWriter{w: w}
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: readCloser{newLineFilter(r, out)}, Writer: out, MaxLineLength: maxLine + 64<<10})
}

type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

// HTTPHandler serves the streamable HTTP transport (one endpoint, any path).
// It refuses what a web page could send: a request that reached a loopback
// address under another host name (DNS rebinding, the SDK's localhost
// protection) and a cross-origin browser request (http.CrossOriginProtection).
//
// A session opened with tools=core (/mcp?tools=core) is served the core
// set (Options.Tools). A session opened with the query parameter project (/mcp?project=P) is
// served pinned to P (Options.Project), so agents of several projects can
// share one server; on a server pinned to a project only that one is
// accepted.
func (s *Server) HTTPHandler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		srv := s
		if p := r.URL.Query().Get("project"); p != "" && p != s.opts.Project {
			if srv = s.pinnedTo(p); srv == nil {
				return nil // refused below before it gets here
			}
		}
		if r.URL.Query().Get("tools") == ToolsCore && srv.opts.Tools != ToolsCore {
			srv = srv.core()
		}
		return srv.mcp
	}, &mcp.StreamableHTTPOptions{DisableLocalhostProtection: s.opts.HostsChecked})
	check := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Query().Get("project"); p != "" && p != s.opts.Project {
			var msg string
			switch err := record.CheckProject(p); {
			case s.opts.Project != "":
				msg = fmt.Sprintf("project %q: this server is pinned to project %q: connect without ?project= or with ?project=%s", p, s.opts.Project, s.opts.Project)
			case err != nil:
				msg = fmt.Sprintf("?project=: %v", err)
			case s.pinnedTo(p) == nil:
				msg = fmt.Sprintf("project %q: this server already serves %d projects, its most: restart it, or use cgraph mcp --project", p, maxPinned)
			}
			if msg != "" {
				http.Error(w, msg, http.StatusBadRequest)
				return
			}
		}
		if r.Method == http.MethodPost && !checkBodyUTF8(w, r) {
			return
		}
		h.ServeHTTP(w, r)
	})
	return http.NewCrossOriginProtection().Handler(check)
}

// maxHTTPBody bounds a POST body /mcp reads to check it, as lineFilter
// bounds a stdio line.
const maxHTTPBody = maxLine

// checkBodyUTF8 refuses a POST body that encoding/json would silently
// change (record.CheckRawJSON) with the JSON-RPC error lineFilter gives on
// stdio, and otherwise puts the body back for the SDK. It reports whether
// the request goes on.
func checkBodyUTF8(w http.ResponseWriter, r *http.Request) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHTTPBody))
	if err != nil {
		http.Error(w, fmt.Sprintf("reading the body: %v", err), http.StatusRequestEntityTooLarge)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	verr := record.CheckRawJSON(b)
	if verr == nil {
		return true
	}
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(b, &m) // a body that is no message answers with id null
	out, err := json.Marshal(errorAnswer(m.ID, codeInvalidParams, "Invalid params: "+verr.Error()))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	status := http.StatusOK // the request's answer: a client takes it as its call's error, and its session goes on
	if len(m.ID) == 0 || string(m.ID) == "null" {
		status = http.StatusBadRequest
	}
	w.WriteHeader(status)
	_, _ = w.Write(out) // the client is gone if this fails
	return false
}

// core returns this server's core-set twin (a session opened on
// /mcp?tools=core: what cgraph mcp --tools core relays to), made on first
// use.
func (s *Server) core() *Server {
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	if s.coreTwin == nil {
		o := s.opts
		o.Tools = ToolsCore
		s.coreTwin = New(s.store, o)
	}
	return s.coreTwin
}

// maxPinned bounds the projects one HTTP server makes pinned servers for.
const maxPinned = 256

// pinnedTo returns the server pinned to project p, made on first use (nil
// once maxPinned projects have one).
func (s *Server) pinnedTo(p string) *Server {
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	if ps, ok := s.pinned[p]; ok {
		return ps
	}
	if len(s.pinned) >= maxPinned {
		return nil
	}
	if s.pinned == nil {
		s.pinned = map[string]*Server{}
	}
	o := s.opts
	o.Project = p
	ps := New(s.store, o)
	s.pinned[p] = ps
	return ps
}

// ToolInfo describes one tool: its name, group, whether it writes, and the
// Go type its arguments decode into (the schema is derived from that type).
type ToolInfo struct {
	Name        string
	Kind        string // "memory", "embedder", "domain" or "analysis"
	Write       bool
	Description string
	Input       reflect.Type
}

// Tools lists the tools in registration order.
func Tools() []ToolInfo {
	defs := toolDefs()
	out := make([]ToolInfo, len(defs))
	for i, d := range defs {
		out[i] = d.ToolInfo
	}
	return out
}

// toolDef is one tool's single definition: the typed handler from which the
// SDK derives the input schema (additionalProperties false, required fields
// = those without omitempty) and validates every call before the handler
// runs.
type toolDef struct {
	ToolInfo
	register func(s *Server, m *mcp.Server, output func() *jsonschema.Schema)
	// call runs the tool outside MCP (Server.Call): the same schema check,
	// read-only refusal, panic recovery and handler.
	call func(ctx context.Context, s *Server, args json.RawMessage) (any, error)
	// output, when set, is the schema of the tool's structured output
	// (withOutput), listed with the tool.
	output func() *jsonschema.Schema
}

// withOutput declares d's structured output to be an Out, so tools/list
// shows its schema (TestOutputSchemas validates real answers against it).
func withOutput[Out any](d toolDef) toolDef {
	d.output = outputSchema[Out]
	return d
}

// outputSchema is Out's JSON schema as the answers are written: the types
// with their own JSON form are given theirs.
func outputSchema[Out any]() *jsonschema.Schema {
	str := func(format string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Format: format} }
	s, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[engine.SlotScores](): {Type: "object", Description: "per slot (E1 …): rank, score, contribution, level"},
		reflect.TypeFor[engine.View]():       str(""),
		reflect.TypeFor[record.ID]():         str("uuid"),
		reflect.TypeFor[time.Time]():         str("date-time"),
	}})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: output schema of %T: %v", *new(Out), err)) // a programming error, caught by every test
	}
	singleTypes(s)
	return s
}

// singleTypes gives every property one JSON type: the inference writes
// ["null", T] for slices, maps and pointers, which hosts that map schemas
// onto a single-type dialect reject. The answers never hold null there:
// such fields are omitted when empty or always set (TestOutputSchemas).
func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		singleTypes(p)
	}
	singleTypes(s.Items)
	singleTypes(s.AdditionalProperties)
	for _, d := range s.Defs {
		singleTypes(d)
	}
}

// define builds a toolDef from a typed handler. The wrapper refuses writes
// on a read-only store, turns panics into tool errors (the server keeps
// serving) and returns every error as an MCP tool error (IsError) whose text
// says what was wrong and how to fix it.
func define[In any](name, kind string, write bool, desc string, h func(ctx context.Context, s *Server, in In) (any, error)) toolDef {
	d := toolDef{ToolInfo: ToolInfo{Name: name, Kind: kind, Write: write, Description: desc, Input: reflect.TypeFor[In]()}}
	d.register = func(s *Server, m *mcp.Server, output func() *jsonschema.Schema) {
		destructive := write && name == "delete_memory"
		open := false
		// detect_topics runs on read-only servers too but saves a snapshot
		// where it can: not a read-only tool for the host.
		readOnly := !write && name != "detect_topics"
		tool := &mcp.Tool{Name: name, Description: desc, InputSchema: inputSchema[In](name), Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint: readOnly, DestructiveHint: &destructive, IdempotentHint: readOnly, OpenWorldHint: &open}}
		if output != nil && s.opts.OutputSchemas {
			tool.OutputSchema = output()
		}
		// The raw handler: arguments are checked by d.call, so an MCP call
		// and Server.Call give the same answers, and an argument outside its
		// enum or bounds is told in words (checkConstraints) rather than in
		// the schema validator's terms.
		m.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, err := d.call(ctx, s, req.Params.Arguments)
			if err != nil {
				var res mcp.CallToolResult
				res.SetError(err)
				return &res, nil
			}
			b, err := json.Marshal(out)
			if err != nil {
				return nil, fmt.Errorf("%s: marshaling the output: %w", name, err)
			}
			// The structured content is the answer (hosts such as Claude Code
			// and VS Code give the model only that when it is present); the
			// text content is a short summary where the answer has one, not
			// a second copy.
			text := string(b)
			if sm, ok := out.(summarizer); ok {
				text = sm.summary()
			}
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	var once sync.Once
	var schema *jsonschema.Schema
	var resolved *jsonschema.Resolved
	var resolveErr error
	d.call = func(ctx context.Context, s *Server, args json.RawMessage) (any, error) {
		once.Do(func() {
			schema = inputSchema[In](name)
			resolved, resolveErr = schema.Resolve(nil)
		})
		if resolveErr != nil {
			return nil, fmt.Errorf("mcpserver: schema of %s: %w", name, resolveErr)
		}
		if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
			args = json.RawMessage("{}")
		}
		var instance any
		if err := json.Unmarshal(args, &instance); err != nil {
			return nil, &ArgsError{Tool: name, Err: err}
		}
		if err := checkConstraints(schema, instance); err != nil {
			return nil, err
		}
		if err := resolved.Validate(instance); err != nil {
			return nil, &ArgsError{Tool: name, Err: err}
		}
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, &ArgsError{Tool: name, Err: err}
		}
		return runTool(ctx, s, d.ToolInfo, in, h)
	}
	return d
}

// summarizer is an answer whose MCP text content is a short summary of its
// structured content rather than a copy of it.
type summarizer interface{ summary() string }

// runTool is the wrapper every call of a tool goes through, over MCP or Call.
func runTool[In any](ctx context.Context, s *Server, d ToolInfo, in In, h func(ctx context.Context, s *Server, in In) (any, error)) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
			err = fmt.Errorf("internal error in %s: %v; the server is still running — please report this with the arguments used (stack: %s)", d.Name, r, firstFrames(debug.Stack()))
		}
	}()
	if d.Write && s.store.ReadOnly() {
		return nil, &ReadOnlyError{msg: s.readOnlyError(d.Name).Error()}
	}
	out, err = h(ctx, s, in)
	if err != nil {
		return nil, toolError(err)
	}
	if so, ok := out.(SearchOutput); ok && !explains(in) {
		so.compact()
		out = so
	}
	return out, nil
}

// explains reports whether a tool's arguments ask for the explanation (a
// bool field Explain, which every search tool's arguments have).
func explains(in any) bool {
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName("Explain")
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// inputSchema is the schema the SDK would infer from In, with every
// optional field given one JSON type: the inference marks slices, maps and
// pointers nullable (type ["null", "array"]), which some MCP hosts cannot map
// (the MCP Inspector's portability check flags it). An omitted field is
// still optional; an explicit null is refused.
func inputSchema[In any](tool string) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(In), err)) // a programming error, caught by every test
	}
	for name, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
		constrain(tool, name, p)
	}
	return s
}

// constrain gives an argument its enumeration, bounds or format, by the
// argument's name: the same name means the same thing in every tool (one
// parser in args.go serves them all), so one table serves every schema. The
// handlers keep their own checks (Call and MCP both validate first).
func constrain(tool, name string, p *jsonschema.Schema) {
	bounds := func(lo, hi float64) {
		p.Minimum = &lo
		if hi > 0 {
			p.Maximum = &hi
		}
	}
	switch name {
	case "top_k", "limit", "members_shown", "recent", "candidates":
		bounds(1, maxTopK)
	case "depth":
		bounds(1, engine.MaxRelatedDepth)
	case "weight":
		zero, one := 0.0, 1.0
		p.ExclusiveMinimum, p.Maximum = &zero, &one
	case "types", "expand": // relation types (the memory types of a filter are filter.types)
		p.Items.Enum = enum(relationNames())
	case "filter":
		p.Description = filterDesc
		constrainFilter(p)
	case "budget":
		bounds(64, 32000)
	case "from_seq":
		bounds(1, 0)
	case "min_cluster_size":
		bounds(2, 1000)
	case "min_samples":
		bounds(1, 1000)
	case "importance":
		zero, one := 0.0, 1.0
		p.ExclusiveMinimum, p.Maximum = &zero, &one
	case "profile":
		switch tool {
		case "search_memory":
			p.Enum, p.Description = enum(agentProfileNames(true)), agentProfileDesc(true)
		case "get_context": // no enum: the built-in names are taken too (cgraph context --profile, HTTP callers), refused by ops when unknown
			p.Description = agentProfileDesc(false) + "; or a built-in profile name"
		default:
			p.Enum = enum(engine.ProfileNames())
		}
	case "mode":
		p.Enum = enum([]string{engine.ModeMultiSpace.String(), engine.ModePipeline.String(), engine.ModeE1Only.String()})
	case "direction":
		if tool == "search_connections" { // E8: what the query imports or calls, or what imports or calls it
			p.Enum = enum([]string{"sources", "targets"})
			return
		}
		p.Enum = enum([]string{engine.DirectionAny.String(), engine.DirectionCauses.String(), engine.DirectionEffects.String()})
	case "type":
		if tool == "link_memories" {
			p.Enum = enum(relationNames())
			return
		}
		p.Enum = enum(strings.Split(typeNames(), ", "))
	case "created_at", "at":
		p.Format = "date-time"
	case "id", "from", "to":
		// A full id or a unique prefix (memoryID), so no uuid format.
		p.Pattern = idPattern
	}
}

// checkConstraints checks the enums and bounds constrain gave, and that
// the required arguments are there, naming the argument and the fix; the
// schema validator then checks the rest (types, unknown arguments). Objects
// (the filter) are checked field by field, arrays of an enumeration item by
// item.
func checkConstraints(schema *jsonschema.Schema, instance any) error {
	return checkObject("", schema, instance)
}

func checkObject(prefix string, schema *jsonschema.Schema, instance any) error {
	args, ok := instance.(map[string]any)
	if !ok {
		return nil // not an object: the validator says so
	}
	for _, name := range schema.Required {
		if _, ok := args[name]; !ok {
			fix := "give it"
			if p := schema.Properties[name]; p != nil && p.Description != "" {
				fix = "give " + p.Description
			}
			return badArg(prefix+name, fix, "is missing")
		}
	}
	for name, p := range schema.Properties {
		v, ok := args[name]
		if !ok {
			continue
		}
		if err := checkValue(prefix+name, p, v); err != nil {
			return err
		}
		if vs, ok := v.([]any); ok && p.Items != nil {
			for _, x := range vs {
				if err := checkValue(prefix+name, p.Items, x); err != nil {
					return err
				}
			}
		}
		if len(p.Properties) > 0 {
			if err := checkObject(prefix+name+".", p, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// idRE is idPattern compiled.
var idRE = regexp.MustCompile(idPattern)

// checkValue checks one value against its schema's enum, id pattern and
// bounds.
func checkValue(name string, p *jsonschema.Schema, v any) error {
	if str, ok := v.(string); ok && p.Pattern == idPattern && !idRE.MatchString(str) {
		return badArg(name, idFix, "%s is not a memory id", jsonText(v))
	}
	if len(p.Enum) > 0 && !slices.Contains(p.Enum, v) {
		vs := make([]string, len(p.Enum))
		for i, e := range p.Enum {
			vs[i] = fmt.Sprint(e)
		}
		return badArg(name, "give one of "+strings.Join(vs, ", ")+", or leave it out", "%s is not a valid value", jsonText(v))
	}
	x, isNum := v.(float64)
	if !isNum {
		return nil
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if p.Minimum != nil {
		lo = *p.Minimum
	}
	if p.Maximum != nil {
		hi = *p.Maximum
	}
	above := p.ExclusiveMinimum == nil || x > *p.ExclusiveMinimum
	if x < lo || x > hi || !above {
		fix := fmt.Sprintf("give a number from %g to %g, or leave it out for the default", lo, hi)
		switch {
		case p.ExclusiveMinimum != nil:
			fix = fmt.Sprintf("give a number above %g and at most %g, or leave it out for the default", *p.ExclusiveMinimum, hi)
		case math.IsInf(hi, 1):
			fix = fmt.Sprintf("give a number of %g or more, or leave it out for the default", lo)
		}
		return badArg(name, fix, "%s is out of range", jsonText(v))
	}
	return nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func enum(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// readOnlyError is the refusal of a write tool on a server that does not
// hold the writer lock.
func (s *Server) readOnlyError(tool string) error {
	who := "another process"
	pid := s.opts.WriterPID
	if w, ok := s.store.(interface{ WriterPID() int }); ok && pid == 0 {
		pid = w.WriterPID() // a store that opened after the server started knows it
	}
	if pid > 0 {
		who = fmt.Sprintf("process %d", pid)
	}
	return fmt.Errorf("%s cannot write: this cgraph mcp server opened store %s read-only because %s holds its writer lock (the first cgraph mcp or cgraph command on a store is its only writer). "+
		"Use the MCP server of the writing process for %s, or stop that process and restart this server; the read tools work here and see the writer's memories",
		tool, s.store.Dir(), who, tool)
}

// toolError adds how to fix the errors the store reports.
func toolError(err error) error {
	var ve *record.ValidationError
	switch {
	case errors.As(err, &ve):
		return err // says field, problem and fix
	case errors.Is(err, record.ErrNotFound):
		return fmt.Errorf("%w: check the id (search_memory or search_recent list ids), or it was deleted", err)
	case errors.Is(err, record.ErrReadOnly):
		return fmt.Errorf("%w: this server cannot write; use the writing cgraph mcp server", err)
	}
	return err
}

func firstFrames(stack []byte) string {
	const max = 600
	if len(stack) > max {
		stack = stack[:max]
	}
	return string(stack)
}

// IsBadInput reports whether err is the caller's mistake — arguments that
// do not fit a tool's schema, a bad argument value, an invalid memory — so
// that a face such as the HTTP API can answer it as bad input (400) rather
// than as a server failure.
func IsBadInput(err error) bool {
	var ae *ArgsError
	var bad *argError
	var ve *record.ValidationError
	var pe *engine.ProfileError
	return errors.As(err, &ae) || errors.As(err, &bad) || errors.As(err, &ve) || errors.As(err, &pe)
}
