package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

// tool calls name on cs and returns the structured answer, or the error
// text when the tool answered with an error.
func tool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError {
		return nil, text
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil || out == nil {
		t.Fatalf("%s: structured content is not a JSON object: %v: %s", name, err, raw)
	}
	return out, ""
}

// must is tool for a call that must succeed.
func must(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	out, msg := tool(t, cs, name, args)
	if out == nil {
		t.Fatalf("%s(%v): tool error: %s", name, args, msg)
	}
	return out
}

// refused asserts a tool error that mentions every one of want.
func refused(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want ...string) {
	t.Helper()
	out, msg := tool(t, cs, name, args)
	if out != nil {
		t.Fatalf("%s(%v) succeeded: %v", name, args, out)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s(%v): error %q does not mention %q", name, args, msg, w)
		}
	}
}

func ids(t *testing.T, list any, key string) []string {
	t.Helper()
	var out []string
	xs, _ := list.([]any)
	for _, x := range xs {
		m := x.(map[string]any)
		if key != "" {
			m = m[key].(map[string]any)
		}
		out = append(out, m["id"].(string))
	}
	return out
}

func store(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	return must(t, cs, "store_memory", args)["id"].(string)
}

// TestUpdateMemory: a content change re-indexes under the same id, counts
// the revision and keeps the old text in the history; a change that
// changes nothing says so; bad changes are refused naming the argument.
func TestUpdateMemory(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	id := store(t, cs, map[string]any{"content": "The CI image ships librocksdb-dev 7.8.3.", "type": "fact", "tags": []string{"ci"}, "meta": map[string]any{"ticket": "CG-7"}})

	up := must(t, cs, "update_memory", map[string]any{"id": id, "content": "The CI image ships librocksdb-dev 8.1.1 since the March rebuild.",
		"add_tags": []string{"rocksdb"}, "meta": map[string]any{"status": "verified"}, "unset_meta": []string{"ticket"}})
	if up["changed"] != true || up["reembedded"] != true || up["revision"] != float64(2) || up["id"] != id {
		t.Fatalf("update: %v", up)
	}
	if meta, _ := up["meta"].(map[string]any); len(meta) != 1 || meta["status"] != "verified" {
		t.Fatalf("meta after update: %v", up["meta"])
	}
	hits := must(t, cs, "search_by_keywords", map[string]any{"query": "March rebuild"})
	if got := ids(t, hits["results"], ""); len(got) != 1 || got[0] != id {
		t.Fatalf("the new content is not found under the same id: %v", got)
	}
	if old := must(t, cs, "search_by_keywords", map[string]any{"query": "7.8.3"}); len(ids(t, old["results"], "")) != 0 {
		t.Fatalf("the old content is still indexed: %v", old["results"])
	}
	got := must(t, cs, "get_memory", map[string]any{"id": id, "history": true})
	hist, _ := got["history"].([]any)
	if len(hist) != 1 || hist[0].(map[string]any)["revision"] != float64(1) || !strings.Contains(hist[0].(map[string]any)["content"].(string), "7.8.3") {
		t.Fatalf("history: %v", got["history"])
	}
	if h := must(t, cs, "get_memory", map[string]any{"id": id}); h["history"] != nil {
		t.Fatalf("history without asking: %v", h["history"])
	}

	same := must(t, cs, "update_memory", map[string]any{"id": id, "add_tags": []string{"ci"}})
	if same["changed"] != false || same["revision"] != float64(2) {
		t.Fatalf("an update that changes nothing: %v", same)
	}
	imp := must(t, cs, "update_memory", map[string]any{"id": id, "importance": 0.9, "type": "decision"})
	if imp["reembedded"] != false || imp["revision"] != float64(3) || imp["type"] != "decision" {
		t.Fatalf("a record-only update: %v", imp)
	}

	refused(t, cs, "update_memory", map[string]any{"id": id, "importance": 2}, `"importance"`, "at most 1")
	refused(t, cs, "update_memory", map[string]any{"id": id, "meta": map[string]any{"bad key": "x"}}, "meta", "letters, digits")
	refused(t, cs, "update_memory", map[string]any{"id": id}, "nothing to change", "content")
	refused(t, cs, "update_memory", map[string]any{"content": "x"}, `"id"`, "is missing")
	refused(t, cs, "update_memory", map[string]any{"id": "0191e0a2-7c3b-7d4e-9f00-1234567890ab", "content": "x"}, `"id"`, "not found")
	refused(t, cs, "update_memory", map[string]any{"id": "zebra", "content": "x"}, `"id"`, "last 8 or more")
	refused(t, cs, "update_memory", map[string]any{"id": id, "content": "  "}, "content", "empty")
	refused(t, cs, "update_memory", map[string]any{"id": id, "type": "gossip"}, `"type"`, "decision")
}

// TestIDPrefixes: every id argument takes a unique prefix of 8 or more hex
// digits; an ambiguous one lists the memories it matches.
func TestIDPrefixes(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{})
	ctx := context.Background()
	a, err := e.Add(ctx, record.NewMemory{Content: "first memory about prefixes"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Add(ctx, record.NewMemory{Content: "second memory about prefixes"})
	if err != nil {
		t.Fatal(err)
	}
	common := 0
	for common < 32 && a.ID.String()[common] == b.ID.String()[common] {
		common++
	}
	unique := a.ID.String()[:max(common+1, 9)]
	t.Logf("ids %s and %s share %d characters", a.ID, b.ID, common)
	if got := must(t, cs, "get_memory", map[string]any{"id": unique}); got["id"] != a.ID.String() {
		t.Fatalf("get_memory by prefix %s: %v", unique, got["id"])
	}
	if common >= 9 {
		refused(t, cs, "get_memory", map[string]any{"id": a.ID.String()[:common]}, `"id"`, "matches several", b.ID.String(), "give more of the id")
	}
}

// TestLinksAndRelated: link_memories links, relinks and unlinks; get_related
// follows links both ways to the depth asked, with the direction as seen
// from the memory followed from; bad links are refused in words.
func TestLinksAndRelated(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	errID := store(t, cs, map[string]any{"content": "Error: the store tests abort with SIGABRT at exit.", "type": "error"})
	fixID := store(t, cs, map[string]any{"content": "Fix: close every RocksDB handle before the test binary exits.", "type": "pattern"})
	causeID := store(t, cs, map[string]any{"content": "A deferred Close on the iterator was removed in the refactor.", "type": "fact"})

	l := must(t, cs, "link_memories", map[string]any{"from": fixID, "to": errID, "type": "fixes"})
	if l["linked"] != true || l["weight"] != float64(1) || l["type"] != "fixes" || l["created_at"] == nil {
		t.Fatalf("link: %v", l)
	}
	if l := must(t, cs, "link_memories", map[string]any{"from": fixID, "to": errID, "type": "fixes", "weight": 0.6}); l["weight"] != 0.6 {
		t.Fatalf("relink with a weight: %v", l)
	}
	must(t, cs, "link_memories", map[string]any{"from": causeID, "to": errID, "type": "causes"})

	rel := must(t, cs, "get_related", map[string]any{"id": fixID})
	list := rel["related"].([]any)
	if len(list) != 1 {
		t.Fatalf("depth 1 from the fix: %v", rel)
	}
	first := list[0].(map[string]any)
	if first["relation"] != "fixes" || first["direction"] != "out" || first["via"] != fixID || first["depth"] != float64(1) || first["weight"] != 0.6 ||
		first["memory"].(map[string]any)["id"] != errID {
		t.Fatalf("the fix's link: %v", first)
	}
	deep := must(t, cs, "get_related", map[string]any{"id": fixID, "depth": 2})
	if got := ids(t, deep["related"], "memory"); len(got) != 2 || got[1] != causeID {
		t.Fatalf("depth 2 from the fix: %v", got)
	}
	second := deep["related"].([]any)[1].(map[string]any)
	if second["direction"] != "in" || second["via"] != errID || second["depth"] != float64(2) || second["relation"] != "causes" {
		t.Fatalf("the cause, reached through the error: %v", second)
	}
	if only := must(t, cs, "get_related", map[string]any{"id": errID, "types": []string{"causes"}}); len(only["related"].([]any)) != 1 {
		t.Fatalf("types causes: %v", only)
	}

	un := must(t, cs, "link_memories", map[string]any{"from": causeID, "to": errID, "type": "causes", "unlink": true})
	if un["removed"] != true || un["linked"] != false {
		t.Fatalf("unlink: %v", un)
	}
	if un := must(t, cs, "link_memories", map[string]any{"from": causeID, "to": errID, "type": "causes", "unlink": true}); un["removed"] != false {
		t.Fatalf("unlink again: %v", un)
	}
	if none := must(t, cs, "get_related", map[string]any{"id": causeID}); len(none["related"].([]any)) != 0 || len(none["notes"].([]any)) == 0 {
		t.Fatalf("related of an unlinked memory: %v", none)
	}

	refused(t, cs, "link_memories", map[string]any{"from": fixID, "to": errID, "type": "blames"}, `"type"`, "fixes", "supersedes")
	refused(t, cs, "link_memories", map[string]any{"from": fixID, "to": fixID, "type": "fixes"}, `"to"`, "two different memories")
	refused(t, cs, "link_memories", map[string]any{"from": fixID, "to": "0191e0a2-7c3b-7d4e-9f00-1234567890ab", "type": "fixes"}, `"to"`, "not found")
	refused(t, cs, "link_memories", map[string]any{"from": fixID, "to": errID, "type": "fixes", "weight": 1.5}, `"weight"`, "at most 1")
	refused(t, cs, "link_memories", map[string]any{"to": errID, "type": "fixes"}, `"from"`, "is missing")
	refused(t, cs, "get_related", map[string]any{"id": fixID, "depth": 4}, `"depth"`, "from 1 to 3")
	refused(t, cs, "get_related", map[string]any{"id": fixID, "types": []string{"blames"}}, `"types"`, "fixes")
}

// TestSupersedeAndFilters: a superseded memory leaves default searches and
// comes back, marked, with superseded include; filters narrow every search
// tool by project, type, tags and metadata, and bad filters are refused
// naming the field.
func TestSupersedeAndFilters(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	old := store(t, cs, map[string]any{"content": "Decision: the zebra cache holds 100 entries.", "type": "decision", "tags": []string{"cache"}})
	newer := store(t, cs, map[string]any{"content": "Decision: the zebra cache holds 500 entries since the load test.", "type": "decision", "tags": []string{"cache", "perf"},
		"meta": map[string]any{"ticket": "CG-9"}})
	other := store(t, cs, map[string]any{"content": "Note: the zebra cache of project two is unbounded.", "project": "two"})
	must(t, cs, "link_memories", map[string]any{"from": newer, "to": old, "type": "supersedes"})

	search := func(args map[string]any) []string {
		t.Helper()
		args["query"] = "zebra cache entries"
		return ids(t, must(t, cs, "search_graph", args)["results"], "")
	}
	if got := search(map[string]any{}); len(got) != 1 || got[0] != newer {
		t.Fatalf("default search: %v, want only the newer decision of the default project", got)
	}
	inc := must(t, cs, "search_by_keywords", map[string]any{"query": "zebra cache", "filter": map[string]any{"superseded": "include"}})
	var marked bool
	for _, h := range inc["results"].([]any) {
		if h := h.(map[string]any); h["id"] == old {
			sb, _ := h["superseded_by"].([]any)
			marked = len(sb) == 1 && sb[0] == newer
		}
	}
	if !marked {
		t.Fatalf("superseded include: the old decision is missing or not marked: %v", inc["results"])
	}
	if got := search(map[string]any{"filter": map[string]any{"superseded": "only"}}); len(got) != 1 || got[0] != old {
		t.Fatalf("superseded only: %v", got)
	}
	if got := search(map[string]any{"filter": map[string]any{"project": "two"}}); len(got) != 1 || got[0] != other {
		t.Fatalf("project two: %v", got)
	}
	if got := search(map[string]any{"filter": map[string]any{"all_projects": true}}); len(got) != 2 {
		t.Fatalf("all projects: %v", got)
	}
	if got := search(map[string]any{"filter": map[string]any{"meta": map[string]any{"ticket": "CG-9"}, "tags_all": []string{"cache", "perf"}}}); len(got) != 1 || got[0] != newer {
		t.Fatalf("meta and tags: %v", got)
	}
	if got := search(map[string]any{"filter": map[string]any{"types": []string{"note"}}}); len(got) != 0 {
		t.Fatalf("types note in the default project: %v", got)
	}
	empty := must(t, cs, "search_graph", map[string]any{"query": "zebra", "filter": map[string]any{"project": "nowhere"}})
	if notes := empty["notes"].([]any); !strings.Contains(notes[len(notes)-1].(string), "the filter") {
		t.Fatalf("an empty project: notes %v", notes)
	}
	newest := must(t, cs, "search_recent", map[string]any{"filter": map[string]any{"project": "two"}})
	if got := ids(t, newest["results"], ""); len(got) != 1 || got[0] != other {
		t.Fatalf("search_recent without a query, project two: %v", got)
	}
	newest = must(t, cs, "search_recent", map[string]any{})
	if got := ids(t, newest["results"], ""); len(got) != 1 || got[0] != newer {
		t.Fatalf("search_recent without a query, default filter: %v", got)
	}
	for tl, args := range map[string]map[string]any{
		"search_code": {}, "search_causes": {}, "search_effects": {}, "search_robust": {}, "search_by_intent": {},
		"search_by_entities": {}, "search_connections": {}, "search_periodic": {}, "search_by_embedder": {"embedder": "E6"},
	} {
		args["query"] = "zebra cache"
		args["filter"] = map[string]any{"project": "two"}
		for _, id := range ids(t, must(t, cs, tl, args)["results"], "") {
			if id != other {
				t.Errorf("%s with filter project two found %s", tl, id)
			}
		}
	}

	refused(t, cs, "search_graph", map[string]any{"query": "q", "filter": map[string]any{"created_after": "yesterday"}}, `"filter.created_after"`, "RFC 3339")
	refused(t, cs, "search_graph", map[string]any{"query": "q", "filter": map[string]any{"as_of": "yesterday"}}, `"filter.as_of"`, "a date such as")
	if got := ids(t, must(t, cs, "search_recent", map[string]any{"filter": map[string]any{"as_of": "2000-01-01"}})["results"], ""); len(got) != 0 {
		t.Fatalf("search_recent as of a date before every memory: %v", got)
	}
	if got := ids(t, must(t, cs, "search_recent", map[string]any{"filter": map[string]any{"as_of": time.Now().UTC().Add(time.Hour).Format(time.RFC3339)}})["results"], ""); len(got) != 1 || got[0] != newer {
		t.Fatalf("search_recent as of now: %v", got)
	}
	refused(t, cs, "search_graph", map[string]any{"query": "q", "filter": map[string]any{"meta": map[string]any{"a b": "c"}}}, `"filter.meta"`, "letters")
	refused(t, cs, "search_graph", map[string]any{"query": "q", "filter": map[string]any{"created_after": "2026-05-01T00:00:00Z", "created_before": "2026-04-01T00:00:00Z"}},
		"filter.created_after", "earlier than")
	refused(t, cs, "store_memory", map[string]any{"content": "x", "meta": map[string]any{"bad key": "v"}}, "meta", "letters, digits")
}

// TestExpandAndContextRelated: search_graph's expand returns the memories
// linked to the results in a separate list with the relation and the result
// they came from; get_context attaches them within the budget, marked.
func TestExpandAndContextRelated(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	errID := store(t, cs, map[string]any{"content": "Error: quokka builds fail with undefined reference to rocksdb_options_set_blob_cache.", "type": "error"})
	fixID := store(t, cs, map[string]any{"content": "Fix: install librocksdb-dev 8 in the image.", "type": "pattern"})
	must(t, cs, "link_memories", map[string]any{"from": fixID, "to": errID, "type": "fixes"})

	res := must(t, cs, "search_graph", map[string]any{"query": "quokka builds fail", "top_k": 1, "expand": []string{"fixes"}})
	if got := ids(t, res["results"], ""); len(got) != 1 || got[0] != errID {
		t.Fatalf("results: %v", got)
	}
	ex, _ := res["expanded"].([]any)
	if len(ex) != 1 {
		t.Fatalf("expanded: %v", res["expanded"])
	}
	x := ex[0].(map[string]any)
	if x["relation"] != "fixes" || x["direction"] != "in" || x["from"] != errID || x["memory"].(map[string]any)["id"] != fixID {
		t.Fatalf("expansion: %v", x)
	}
	if res := must(t, cs, "search_graph", map[string]any{"query": "quokka builds fail", "top_k": 1, "expand": []string{"causes"}}); res["expanded"] != nil {
		t.Fatalf("expand causes found a fixes link: %v", res["expanded"])
	}

	cx := must(t, cs, "get_context", map[string]any{"query": "quokka builds fail", "candidates": 1, "budget": 400})
	items := cx["cites"].([]any)
	if len(items) != 2 || cx["tokens"].(float64) > 400 {
		t.Fatalf("context: %v", cx)
	}
	if att := items[1].(map[string]any); att["id"] != fixID || att["cite"] != "[2]" {
		t.Fatalf("attached item: %v", att)
	}
	if md := cx["markdown"].(string); !strings.Contains(md, fixID+" · fixes [1]\n") {
		t.Fatalf("markdown: %s", md)
	}
	if cx := must(t, cs, "get_context", map[string]any{"query": "quokka builds fail", "candidates": 1, "budget": 400, "expand": []string{"causes"}}); len(cx["cites"].([]any)) != 1 {
		t.Fatalf("context with expand causes attached a fix: %v", cx["cites"])
	}
	// The filter chooses the packed memories; what their relations bring
	// is bounded by its scope only (project, superseded), not its types.
	if cx := must(t, cs, "get_context", map[string]any{"query": "quokka builds fail", "candidates": 1, "budget": 400, "filter": map[string]any{"types": []string{"error"}}}); len(cx["cites"].([]any)) != 2 ||
		cx["cites"].([]any)[1].(map[string]any)["type"] != "pattern" {
		t.Fatalf("context with filter types error did not attach the fix (a pattern): %v", cx["cites"])
	}
	tight := must(t, cs, "get_context", map[string]any{"query": "quokka builds fail", "candidates": 1, "budget": 64})
	if tight["tokens"].(float64) > 64 {
		t.Fatalf("tight budget exceeded: %v", tight)
	}
}

// TestPinnedProject: a server pinned to a project stores there, searches
// there, and refuses another project or another project's memories, naming
// both; an HTTP session asking for ?project=P is pinned to P.
func TestPinnedProject(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{Project: "alpha"})
	ctx := context.Background()
	outside, err := e.Add(ctx, record.NewMemory{Content: "Note: the gamma service of another project uses port 7411.", Project: "beta"})
	if err != nil {
		t.Fatal(err)
	}
	st := must(t, cs, "store_memory", map[string]any{"content": "Note: the gamma service of alpha uses port 8080."})
	if st["project"] != "alpha" {
		t.Fatalf("store on a pinned server: %v", st)
	}
	if got := ids(t, must(t, cs, "search_by_keywords", map[string]any{"query": "gamma service port"})["results"], ""); len(got) != 1 || got[0] != st["id"] {
		t.Fatalf("search on a pinned server: %v", got)
	}
	must(t, cs, "search_by_keywords", map[string]any{"query": "gamma", "filter": map[string]any{"project": "alpha"}})
	refused(t, cs, "search_by_keywords", map[string]any{"query": "gamma", "filter": map[string]any{"project": "beta"}}, `"filter.project"`, `"alpha"`)
	refused(t, cs, "search_graph", map[string]any{"query": "gamma", "filter": map[string]any{"all_projects": true}}, `"filter.all_projects"`, `"alpha"`)
	refused(t, cs, "store_memory", map[string]any{"content": "x", "project": "beta"}, `"project"`, `"alpha"`)
	refused(t, cs, "get_memory", map[string]any{"id": outside.ID.String()}, `"id"`, `"beta"`, `"alpha"`)
	refused(t, cs, "link_memories", map[string]any{"from": st["id"], "to": outside.ID.String(), "type": "related_to"}, `"to"`, `"beta"`)
	refused(t, cs, "update_memory", map[string]any{"id": st["id"], "project": "beta"}, `"project"`, "pinned")

	// The HTTP handler pins a session to ?project=.
	hs := httptest.NewServer(mcpserver.New(e, mcpserver.Options{}).HTTPHandler())
	defer hs.Close()
	hc, err := mcp.NewClient(&mcp.Implementation{Name: "pinned-http"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp?project=beta", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if got := ids(t, must(t, hc, "search_by_keywords", map[string]any{"query": "gamma service port"})["results"], ""); len(got) != 1 || got[0] != outside.ID.String() {
		t.Fatalf("HTTP session pinned to beta: %v", got)
	}
	refused(t, hc, "get_memory", map[string]any{"id": st["id"]}, `"alpha"`, `"beta"`)
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "bad"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp?project=bad%0Aname", DisableStandaloneSSE: true}, nil); err == nil {
		t.Fatal("a project name with a control character was served")
	}
}

// TestSearchRecentAsOf: search_recent without a query, as of a time before
// an update, lists the memory with the content it had then; without
// as_of, with its content now.
func TestSearchRecentAsOf(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	id := must(t, cs, "store_memory", map[string]any{"content": "The build uses Go 1.25 on every runner."})["id"].(string)
	before := time.Now().UTC()
	time.Sleep(5 * time.Millisecond) // the update's time must come after before
	must(t, cs, "update_memory", map[string]any{"id": id, "content": "The build uses Go 1.26 on every runner."})
	snippet := func(args map[string]any) string {
		t.Helper()
		rs, _ := must(t, cs, "search_recent", args)["results"].([]any)
		if len(rs) != 1 {
			t.Fatalf("search_recent %v: %d results", args, len(rs))
		}
		return rs[0].(map[string]any)["snippet"].(string)
	}
	if got := snippet(map[string]any{"filter": map[string]any{"as_of": before.Format(time.RFC3339Nano)}}); !strings.Contains(got, "1.25") {
		t.Fatalf("as of before the update: %q", got)
	}
	if got := snippet(map[string]any{}); !strings.Contains(got, "1.26") {
		t.Fatalf("now: %q", got)
	}
}
