package mcpserver_test

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

// connect serves a real store (model-free slots) to an in-memory client.
func connect(t *testing.T, o mcpserver.Options) (*mcp.ClientSession, *engine.Engine) {
	t.Helper()
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(filepath.Join(t.TempDir(), "s"), engine.Options{Create: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	st, ct := mcp.NewInMemoryTransports()
	if _, err := mcpserver.New(e, o).MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, e
}

// TestCoreToolSet: --tools core lists exactly the core tools (at most 8).
func TestCoreToolSet(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{Tools: mcpserver.ToolsCore})
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	want := slices.Clone(mcpserver.CoreTools)
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) || len(names) > 8 {
		t.Fatalf("core tools %v, want %v", names, want)
	}
}

// TestMemoryResourceAndRecallPrompt: memory://ID reads a stored memory
// whole; an unknown id is "not found"; the recall_context prompt packs the
// memories that match the task with their citation handles.
func TestMemoryResourceAndRecallPrompt(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{})
	ctx := context.Background()
	m, err := e.Add(ctx, record.NewMemory{Content: "Decision: RocksDB column families per embedder, one WriteBatch per memory.", Type: "decision", Tags: []string{"storage"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://" + m.ID.String()})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "one WriteBatch per memory") || !strings.Contains(res.Contents[0].Text, "decision · ") {
		t.Fatalf("read memory: %v %+v", err, res)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://0191e0a2-7c3b-7d4e-9f00-1234567890ab"}); err == nil {
		t.Fatal("an absent memory was read")
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "recall_context", Arguments: map[string]string{"task": "WriteBatch column families", "budget": "300"}})
	if err != nil || len(pr.Messages) != 1 {
		t.Fatalf("prompt: %v %+v", err, pr)
	}
	text := pr.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "[1] decision · ") || !strings.Contains(text, "Task: WriteBatch column families") {
		t.Fatalf("prompt text: %s", text)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "recall_context", Arguments: map[string]string{"task": "x", "budget": "lots"}}); err == nil {
		t.Fatal("a non-numeric budget was accepted")
	}
}

// TestStoreMemoryDuplicate: storing a stored text again over MCP returns the
// earlier id with duplicate_of and stores nothing.
func TestStoreMemoryDuplicate(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{})
	ctx := context.Background()
	call := func() map[string]any {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "The CI image lacks librocksdb-dev."}})
		if err != nil || res.IsError {
			t.Fatalf("store_memory: %v %+v", err, res)
		}
		return res.StructuredContent.(map[string]any)
	}
	a, b := call(), call()
	if a["duplicate_of"] != nil || b["duplicate_of"] != a["id"] || b["id"] != a["id"] {
		t.Fatalf("first %v, second %v", a, b)
	}
	if st, err := e.Stats(ctx); err != nil || st.Memories != 1 {
		t.Fatalf("%d memories (%v), want 1", st.Memories, err)
	}
}

// TestOutputSchemas: every tool lists an output schema and answers with
// structured content that validates against it, with and without explain.
func TestOutputSchemas(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{OutputSchemas: true})
	ctx := context.Background()
	var ids []string
	for _, c := range []string{"Decision: pin grocksdb v1.7.15 because Debian ships RocksDB 7.8.3", "The build fails because librocksdb-dev is missing", "to be deleted"} {
		m, err := e.Add(ctx, record.NewMemory{Content: c, Session: "s1", Tags: []string{"build"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID.String())
	}
	// A link and an earlier revision, so that expansions, get_related and
	// history have something to show.
	from, _ := record.ParseID(ids[0])
	to, _ := record.ParseID(ids[1])
	if _, err := e.Link(ctx, record.Relation{From: from, To: to, Type: record.RelFixes}); err != nil {
		t.Fatal(err)
	}
	imp := 0.9
	if _, err := e.Update(ctx, from, record.Change{Importance: &imp, SetMeta: map[string]string{"ticket": "CG-12"}}); err != nil {
		t.Fatal(err)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]map[string]any{
		"store_memory":           {"content": "a new memory about RocksDB", "meta": map[string]any{"file": "engine/write.go"}},
		"update_memory":          {"id": ids[1][:28], "add_tags": []string{"ci"}, "meta": map[string]any{"status": "open"}},
		"link_memories":          {"from": ids[1], "to": ids[0], "type": "informs", "weight": 0.5},
		"get_related":            {"id": ids[0], "depth": 2},
		"search_graph":           {"query": "why does the build fail", "expand": []string{"fixes"}, "filter": map[string]any{"tags_any": []string{"build"}}},
		"search_memory":          {"query": "why does the build fail", "profile": "causal", "expand": []string{"fixes"}, "filter": map[string]any{"tags_any": []string{"build"}}},
		"get_context":            {"query": "why does the build fail", "budget": 200},
		"search_by_embedder":     {"query": "RocksDB", "embedder": "E6"},
		"search_connections":     {"query": "engine/write.go"},
		"search_recent":          {},
		"compare_embedder_views": {"query": "RocksDB", "embedders": []string{"E6", "E9"}},
		"get_session_timeline":   {"session": "s1"},
		"get_divergence_alerts":  {},
		"get_memory":             {"id": ids[0], "fingerprint": true, "history": true},
		"delete_memory":          {"id": ids[2]},
		"list_embedder_indexes":  {},
		"get_embedder_clusters":  {"embedder": "E6", "min_cluster_size": 2},
		"detect_topics":          {},
		"get_topic_stability":    {}, // after detect_topics, which saved a snapshot
		"memory_stats":           {},
		"maintenance_report":     {"dry_run": true},
	}
	checked := 0
	for _, tl := range lt.Tools {
		if tl.OutputSchema == nil {
			t.Errorf("%s lists no output schema", tl.Name)
			continue
		}
		b, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatal(err)
		}
		resolved, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema: %v", tl.Name, err)
		}
		if tl.Name == "search_graph" { // the schema can fail: a wrong shape is refused
			if err := resolved.Validate(map[string]any{"query": 7, "results": "none"}); err == nil {
				t.Fatal("search_graph's output schema accepts anything")
			}
		}
		for _, explain := range []bool{false, true} {
			if explain && !strings.HasPrefix(tl.Name, "search_") {
				continue // one call: only the searches explain
			}
			a, ok := args[tl.Name]
			if !ok {
				a = map[string]any{"query": "why does the build fail"}
			}
			a = maps.Clone(a)
			if strings.HasPrefix(tl.Name, "search_") && explain {
				a["explain"] = true
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tl.Name, Arguments: a})
			if err != nil || res.IsError {
				t.Fatalf("%s %v: %v %+v", tl.Name, a, err, res)
			}
			var v any
			raw, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if err := resolved.Validate(v); err != nil {
				t.Errorf("%s (explain %v): the answer does not fit its output schema: %v\n%s", tl.Name, explain, err, raw)
			}
		}
		checked++
	}
	if checked != 29 {
		t.Fatalf("%d tools with an output schema checked, want 29", checked)
	}
}
