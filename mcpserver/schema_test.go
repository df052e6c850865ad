package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/record"
)

// sampleArgs gives every tool arguments that set every field its handler
// reads. TestSchemasMatchHandlers checks that the samples cover every field.
var sampleArgs = map[string]map[string]any{
	"store_memory": {"content": "Decision: pin grocksdb v1.7.15", "type": "decision", "tags": []string{"go"}, "source": "go.mod",
		"session": "s1", "importance": 0.8, "created_at": "2026-02-20T10:40:00Z", "project": "cgraph", "meta": map[string]string{"ticket": "CG-12"}, "supersede": true, "fingerprint": true, "on_conflict": "supersede-newer"},
	"update_memory": {"id": "0191e0a2", "content": "Decision: pin grocksdb v1.7.16", "type": "decision", "add_tags": []string{"deps"},
		"remove_tags": []string{"go"}, "importance": 0.9, "meta": map[string]string{"status": "done"}, "unset_meta": []string{"ticket"}, "project": "cgraph"},
	"link_memories":          {"from": "0191e0a2-7c3b-7d4e-9f00-1234567890ab", "to": "0191e0a2-7c3b-7d4e-9f00-1234567890ac", "type": "fixes", "weight": 0.8, "unlink": false},
	"get_related":            {"id": "0191e0a2-7c3b-7d4e-9f00-1234567890ab", "types": []string{"fixes", "causes"}, "depth": 2, "limit": 20},
	"get_memory":             {"id": "0191e0a2-7c3b-7d4e-9f00-1234567890ab", "fingerprint": true, "history": true},
	"delete_memory":          {"id": "0191e0a2-7c3b-7d4e-9f00-1234567890ab"},
	"search_by_embedder":     {"explain": true, "query": "q", "embedder": "E1", "top_k": 5, "direction": "causes", "filter": sampleFilter},
	"list_embedder_indexes":  {},
	"get_embedder_clusters":  {"embedder": "E1", "min_cluster_size": 3, "min_samples": 2, "members_shown": 5},
	"compare_embedder_views": {"query": "q", "embedders": []string{"E1", "E6"}, "top_k": 5, "filter": sampleFilter},
	"search_memory":          {"explain": true, "query": "q", "profile": "causal", "top_k": 5, "filter": sampleFilter, "expand": []string{"fixes"}},
	"search_graph": {"explain": true, "query": "q", "profile": "causal_reasoning", "weights": map[string]float64{"E5": 0.6}, "mode": "multi_space", "top_k": 5, "direction": "effects",
		"filter": sampleFilter, "expand": []string{"fixes"}},
	"get_context":           {"query": "q", "budget": 500, "profile": "causal", "candidates": 10, "filter": sampleFilter, "expand": []string{"fixes", "causes"}},
	"search_robust":         {"explain": true, "query": "q", "top_k": 5, "filter": sampleFilter},
	"search_by_intent":      {"explain": true, "query": "q", "top_k": 5, "enhanced": true, "filter": sampleFilter},
	"search_by_keywords":    {"explain": true, "query": "q", "top_k": 5, "filter": sampleFilter},
	"search_code":           {"explain": true, "query": "q", "top_k": 5, "filter": sampleFilter},
	"search_causes":         {"explain": true, "query": "q", "top_k": 5, "filter": sampleFilter},
	"search_effects":        {"explain": true, "query": "q", "top_k": 5, "filter": sampleFilter},
	"search_connections":    {"explain": true, "query": "q", "top_k": 5, "direction": "targets", "filter": sampleFilter},
	"search_by_entities":    {"explain": true, "query": "q", "top_k": 5, "filter": sampleFilter},
	"search_recent":         {"explain": true, "query": "q", "top_k": 5, "filter": sampleFilter},
	"search_periodic":       {"explain": true, "query": "q", "at": "2026-03-02T09:00:00Z", "top_k": 5, "filter": sampleFilter},
	"get_session_timeline":  {"session": "s1", "from_seq": 1, "limit": 5},
	"detect_topics":         {"min_cluster_size": 3, "min_samples": 2, "save": false, "members_shown": 5},
	"get_topic_stability":   {"min_cluster_size": 3, "min_samples": 2},
	"get_divergence_alerts": {"recent": 5, "min_cluster_size": 3, "min_samples": 2, "all_checks": true},
	"memory_stats":          {},
	"maintenance_report":    {"dry_run": true},
}

// sampleFilter sets every field of the filter argument.
var sampleFilter = map[string]any{"project": "cgraph", "all_projects": false, "types": []string{"decision", "error"}, "tags_any": []string{"ci"},
	"tags_all": []string{"build"}, "session": "s1", "source": "go.mod", "created_after": "2026-01-01T00:00:00Z", "created_before": "2026-06-01T00:00:00Z",
	"updated_after": "2026-01-01T00:00:00Z", "updated_before": "2026-06-01T00:00:00Z", "min_importance": 0.5, "meta": map[string]string{"ticket": "CG-12"},
	"superseded": "include", "as_of": "2026-06-01"}

// wantTools is DESIGN.md's tool list ("Interfaces") with the lifecycle
// tools of issue 17 (update_memory, link_memories, get_related) and the
// upkeep tools of issue 31 (memory_stats, maintenance_report), exactly.
var wantTools = []string{"store_memory", "update_memory", "link_memories", "get_related", "get_memory", "delete_memory",
	"search_by_embedder", "list_embedder_indexes", "get_embedder_clusters", "compare_embedder_views", "get_context",
	"search_memory", "search_graph", "search_robust", "search_by_intent", "search_by_keywords", "search_code", "search_causes",
	"search_effects", "search_connections", "search_by_entities", "search_recent", "search_periodic", "get_session_timeline",
	"detect_topics", "get_topic_stability", "get_divergence_alerts", "memory_stats", "maintenance_report"}

// jsonFields lists the JSON names of t's fields, embedded structs flattened
// as encoding/json does: exactly what the handler can read.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, name)
	}
	return out
}

// listedTools starts the server on in-memory transports (no store: no
// handler is reached) and returns the tools as a client sees them.
func listedTools(t *testing.T) (*mcp.ClientSession, map[string]*mcp.Tool) {
	t.Helper()
	ctx := context.Background()
	srv := New(nil, Options{Version: "test"})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "schema-test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	return cs, tools
}

func resolve(t *testing.T, tl *mcp.Tool) *jsonschema.Resolved {
	t.Helper()
	b, err := json.Marshal(tl.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(b, &sch); err != nil {
		t.Fatal(err)
	}
	r, err := sch.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: resolve schema: %v", tl.Name, err)
	}
	return r
}

// TestSchemasMatchHandlers: the listed tools are exactly DESIGN.md's; each
// tool's schema has exactly the fields its handler's argument struct reads,
// refuses unknown names, accepts the sample that sets every field and
// rejects a wrongly typed one.
func TestSchemasMatchHandlers(t *testing.T) {
	cs, listed := listedTools(t)
	var names []string
	for _, ti := range Tools() {
		names = append(names, ti.Name)
	}
	if !slices.Equal(names, wantTools) || len(listed) != len(wantTools) {
		t.Fatalf("tools %v (listed %d), want %v", names, len(listed), wantTools)
	}
	for _, ti := range Tools() {
		t.Run(ti.Name, func(t *testing.T) {
			tl := listed[ti.Name]
			if tl == nil {
				t.Fatal("not listed")
			}
			if len(tl.Description) < 60 {
				t.Errorf("description too short for an agent to act on: %q", tl.Description)
			}
			schema, _ := tl.InputSchema.(map[string]any)
			if schema["additionalProperties"] != false {
				t.Errorf("additionalProperties = %v, want false", schema["additionalProperties"])
			}
			props, _ := schema["properties"].(map[string]any)
			var schemaFields []string
			for k, v := range props {
				schemaFields = append(schemaFields, k)
				if _, many := v.(map[string]any)["type"].([]any); many {
					t.Errorf("property %s has several types (not portable to every MCP host)", k)
				}
				if d, _ := v.(map[string]any)["description"].(string); d == "" {
					t.Errorf("property %s has no description", k)
				}
			}
			handlerFields := jsonFields(ti.Input)
			slices.Sort(schemaFields)
			slices.Sort(handlerFields)
			if !slices.Equal(schemaFields, handlerFields) {
				t.Fatalf("schema properties %v, handler reads %v", schemaFields, handlerFields)
			}
			sample, ok := sampleArgs[ti.Name]
			if !ok {
				t.Fatal("no sample arguments")
			}
			var sampleFields []string
			for k := range sample {
				sampleFields = append(sampleFields, k)
			}
			slices.Sort(sampleFields)
			if !slices.Equal(sampleFields, handlerFields) {
				t.Fatalf("sample sets %v, handler reads %v", sampleFields, handlerFields)
			}
			r := resolve(t, tl)
			if err := r.Validate(roundTrip(t, sample)); err != nil {
				t.Errorf("sample rejected: %v", err)
			}
			bad := maps(sample)
			bad["no_such_argument"] = 1
			if err := r.Validate(roundTrip(t, bad)); err == nil {
				t.Error("unknown argument accepted by the schema")
			}
			// The server refuses it too, as a tool error, before the
			// handler (which would fail on the nil store) runs.
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ti.Name, Arguments: bad})
			if err != nil {
				t.Fatalf("protocol error instead of a tool error: %v", err)
			}
			if !res.IsError || !strings.Contains(text(res), "no_such_argument") {
				t.Errorf("unknown argument: IsError %v, %q", res.IsError, text(res))
			}
			for k, v := range sample {
				wrong := maps(sample)
				switch v.(type) {
				case string:
					wrong[k] = 12
				default:
					wrong[k] = "not-" + k
				}
				if err := r.Validate(roundTrip(t, wrong)); err == nil {
					t.Errorf("%s of the wrong type accepted", k)
				}
			}
		})
	}
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func roundTrip(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func text(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// TestSchemaConstraints: as the listed tools show them to a client, every
// numeric argument has bounds, every enumeration argument lists its values,
// every time and id argument names its format, and a value outside them is
// refused before the handler runs.
func TestSchemaConstraints(t *testing.T) {
	cs, tools := listedTools(t)
	enums := map[string]bool{"profile": true, "mode": true, "direction": true, "type": true}
	arrayEnums := map[string]bool{"types": true, "expand": true}
	formats := map[string]string{"created_at": "date-time", "at": "date-time"}
	patterns := map[string]bool{"id": true, "from": true, "to": true} // a full id or a prefix of 8 or more
	for name, tl := range tools {
		b, err := json.Marshal(tl.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatal(err)
		}
		for arg, p := range sch.Properties {
			switch {
			case p.Type == "integer" || p.Type == "number":
				if p.Minimum == nil && p.ExclusiveMinimum == nil {
					t.Errorf("%s.%s: a number without a lower bound", name, arg)
				}
			case name == "get_context" && arg == "profile":
				// No enum: it takes the agent's choices and the built-in
				// names (cgraph context --profile); an unknown one is
				// refused by the handler (TestContextProfiles).
				if !strings.Contains(p.Description, "causal (") {
					t.Errorf("get_context.profile: the choices are not described: %q", p.Description)
				}
			case enums[arg]:
				if len(p.Enum) == 0 {
					t.Errorf("%s.%s: an enumeration without its values", name, arg)
				}
				for _, v := range p.Enum {
					if _, ok := v.(string); !ok {
						t.Errorf("%s.%s: enum value %v is not a string", name, arg, v)
					}
				}
			case arrayEnums[arg]:
				if p.Items == nil || len(p.Items.Enum) == 0 {
					t.Errorf("%s.%s: a list of an enumeration without its values", name, arg)
				}
			case formats[arg] != "":
				if p.Format != formats[arg] {
					t.Errorf("%s.%s: format %q, want %q", name, arg, p.Format, formats[arg])
				}
			case patterns[arg]:
				if p.Pattern == "" {
					t.Errorf("%s.%s: an id without its pattern", name, arg)
				}
			case arg == "filter":
				checkFilterSchema(t, name, p)
			}
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		says string
	}{
		{"search_graph", map[string]any{"query": "q", "profile": "fastest"}, "profile"},
		{"search_graph", map[string]any{"query": "q", "mode": "embedder_first"}, "mode"},
		{"search_graph", map[string]any{"query": "q", "top_k": 0}, "top_k"},
		{"search_graph", map[string]any{"query": "q", "top_k": 101}, "top_k"},
		{"search_connections", map[string]any{"query": "q", "direction": "effects"}, "direction"},
		{"store_memory", map[string]any{"content": "x", "type": "gossip"}, "type"},
		{"store_memory", map[string]any{"content": "x", "importance": 0}, "importance"},
		{"get_session_timeline", map[string]any{"session": "s", "limit": 1000}, "limit"},
		{"link_memories", map[string]any{"from": "0191e0a2", "to": "0191e0a3", "type": "blames"}, `"type"`},
		{"link_memories", map[string]any{"from": "0191e0a2", "to": "0191e0a3", "type": "fixes", "weight": 0}, `"weight"`},
		{"get_related", map[string]any{"id": "0191e0a2", "depth": 4}, `"depth"`},
		{"get_related", map[string]any{"id": "0191e0a2", "types": []string{"fixes", "blames"}}, `"types"`},
		{"update_memory", map[string]any{"id": "0191e0a2", "importance": 2}, `"importance"`},
		{"update_memory", map[string]any{"content": "x"}, `"id": is missing`},
		{"search_graph", map[string]any{"query": "q", "expand": []string{"because"}}, `"expand"`},
		{"search_graph", map[string]any{"query": "q", "filter": map[string]any{"types": []string{"gossip"}}}, `"filter.types"`},
		{"search_graph", map[string]any{"query": "q", "filter": map[string]any{"superseded": "hide"}}, `"filter.superseded"`},
		{"get_context", map[string]any{"query": "q", "filter": map[string]any{"min_importance": 1.5}}, `"filter.min_importance"`},
		{"search_code", map[string]any{"query": "q", "filter": map[string]any{"colour": "red"}}, "colour"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err == nil && (res == nil || !res.IsError) {
			t.Errorf("%s %v: accepted", c.tool, c.args)
			continue
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		} else {
			msg = text(res)
		}
		if !strings.Contains(msg, c.says) {
			t.Errorf("%s %v: refusal %q does not name %s", c.tool, c.args, msg, c.says)
		}
	}
}

// TestDescriptionsInTheUsersWords: the memory and search tools say what they
// find and when to use them without slot numbers (E1…E13); only the tools
// about the embedders themselves name slots.
func TestDescriptionsInTheUsersWords(t *testing.T) {
	slot := regexp.MustCompile(`\bE(1[0-3]|[1-9])\b`)
	for _, ti := range Tools() {
		if ti.Kind == "embedder" || ti.Kind == "analysis" {
			continue
		}
		if m := slot.FindString(ti.Description); m != "" {
			t.Errorf("%s: the description names slot %s: %q", ti.Name, m, ti.Description)
		}
	}
}

// checkFilterSchema: the filter object lists the memory types and the
// superseded modes, bounds min_importance and names the time formats.
func checkFilterSchema(t *testing.T, tool string, p *jsonschema.Schema) {
	t.Helper()
	f := p.Properties
	if p.Type != "object" || p.AdditionalProperties == nil || p.Description == "" {
		t.Errorf("%s.filter: type %q, additionalProperties %v, description %q", tool, p.Type, p.AdditionalProperties, p.Description)
	}
	if f["types"] == nil || len(f["types"].Items.Enum) != len(record.Types()) {
		t.Errorf("%s.filter.types: no enumeration of the memory types", tool)
	}
	if f["superseded"] == nil || len(f["superseded"].Enum) != 3 {
		t.Errorf("%s.filter.superseded: no enumeration", tool)
	}
	if m := f["min_importance"]; m == nil || m.Minimum == nil || m.Maximum == nil || *m.Maximum != 1 {
		t.Errorf("%s.filter.min_importance: no bounds", tool)
	}
	for _, k := range []string{"created_after", "created_before", "updated_after", "updated_before"} {
		if f[k] == nil || f[k].Format != "date-time" {
			t.Errorf("%s.filter.%s: format is not date-time", tool, k)
		}
	}
	// The field names speak for themselves; the filter's one description
	// says the rest (a description each would repeat on every tool).
	for k, q := range f {
		if q.Type == "" {
			t.Errorf("%s.filter.%s: type %q (one type each)", tool, k, q.Type)
		}
	}
}

// TestFilterArgMatchesRecord: the filter argument has exactly the JSON
// names of record.Filter's wire form, which the HTTP API shares.
func TestFilterArgMatchesRecord(t *testing.T) {
	got, want := jsonFields(reflect.TypeFor[filterArg]()), jsonFields(reflect.TypeFor[record.Filter]())
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("filter argument fields %v, record.Filter's JSON %v", got, want)
	}
}
