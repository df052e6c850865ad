package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/record"
)

// Goals of issue 30 for what an agent's context pays, in tokens counted as
// bytes/4 (the measure).
const (
	goalCoreList   = 3000  // tools/list of --tools core
	goalFullList   = 12000 // tools/list of the full set
	goalSearchTop  = 1500  // a top-10 search answer, text + structuredContent
	contextEnvelop = 120   // what get_context's whole answer may add to its budget, counted as the server counts (here bytes/3)
)

// tok4 is the token measure: bytes/4, rounded up.
func tok4(n int) int { return (n + 3) / 4 }

// loadSamples adds the 32 bundled samples (cli/samples) to e.
func loadSamples(t testing.TB, e *engine.Engine) {
	t.Helper()
	f, err := os.Open("../cli/samples/samples.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var s struct {
			Content   string   `json:"content"`
			Type      string   `json:"type"`
			Tags      []string `json:"tags"`
			Session   string   `json:"session"`
			CreatedAt string   `json:"created_at"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		n := record.NewMemory{Content: s.Content, Tags: s.Tags, Session: s.Session}
		if s.Type != "" {
			if n.Type, err = record.ParseType(s.Type); err != nil {
				t.Fatal(err)
			}
		}
		if s.CreatedAt != "" {
			if n.CreatedAt, err = time.Parse(time.RFC3339, s.CreatedAt); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Add(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// listBytes is the size of tools/list's answer as a client receives it.
func listBytes(t testing.TB, cs *mcp.ClientSession) int {
	t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(lt)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// answerBytes is what a tool's answer puts in an agent's context: its text
// content plus its structuredContent, as the wire carries them.
func answerBytes(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (int, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s(%v): %v %+v", name, args, err, res)
	}
	n := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			n += len(tc.Text)
		}
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		n += len(b)
	}
	return n, res
}

// TestAnswerSizes is issue 30's size benchmark (not timed): it prints what
// tools/list, a top-10 search, store_memory and get_context cost an agent
// on the bundled samples, and fails when a goal is missed.
//
//	go test -count=1 -run TestAnswerSizes -v ./mcpserver
func TestAnswerSizes(t *testing.T) {
	core, _ := connect(t, mcpserver.Options{Tools: mcpserver.ToolsCore})
	full, e := connect(t, mcpserver.Options{})
	loadSamples(t, e)
	cb, fb := listBytes(t, core), listBytes(t, full)
	t.Logf("tools/list core: %d bytes ≈ %d tokens (goal ≤ %d)", cb, tok4(cb), goalCoreList)
	t.Logf("tools/list full: %d bytes ≈ %d tokens (goal ≤ %d)", fb, tok4(fb), goalFullList)
	if tok4(cb) > goalCoreList || tok4(fb) > goalFullList {
		t.Errorf("tools/list over its goal: core %d, full %d tokens", tok4(cb), tok4(fb))
	}
	search := searchTool(full)
	for _, q := range []string{"why does the build fail", "RocksDB WriteBatch column families"} {
		n, _ := answerBytes(t, full, search, map[string]any{"query": q, "top_k": 10})
		t.Logf("%s top-10 %q: %d bytes ≈ %d tokens (goal ≤ %d)", search, q, n, tok4(n), goalSearchTop)
		if tok4(n) > goalSearchTop {
			t.Errorf("%s %q: %d tokens, over %d", search, q, tok4(n), goalSearchTop)
		}
	}
	n, _ := answerBytes(t, full, "store_memory", map[string]any{"content": "Decision: answers to agents stay compact; the fingerprint only on request."})
	t.Logf("store_memory: %d bytes ≈ %d tokens", n, tok4(n))
	worst := 0
	for _, budget := range []int{200, 300, 500, 800, 1000, 2000, 4000} {
		for _, q := range []string{"why does the build fail", "how are memories stored in RocksDB", "Go Python TypeScript code"} {
			n, _ := answerBytes(t, full, "get_context", map[string]any{"query": q, "budget": budget})
			// The server counts with contextpack.Approx here (bytes/3, more
			// than the bytes/4): the whole answer, text content and
			// structuredContent, counted that way stays within budget +
			// envelope.
			server := contextpack.Approx{}.Count(strings.Repeat("x", n))
			worst = max(worst, server-budget)
			t.Logf("get_context budget %4d %q: %d bytes ≈ %d tokens (bytes/4), %d (server's count)", budget, q, n, tok4(n), server)
			if server > budget+contextEnvelop {
				t.Errorf("get_context budget %d %q: %d tokens, over budget + %d", budget, q, server, contextEnvelop)
			}
		}
	}
	t.Logf("get_context: the whole answer exceeds its budget by at most %d tokens (server's count; envelope goal %d)", worst, contextEnvelop)
}

// searchTool is the main search's name on cs: search_memory where the
// server has it, else its older name.
func searchTool(cs *mcp.ClientSession) string {
	lt, err := cs.ListTools(context.Background(), nil)
	if err == nil {
		for _, tl := range lt.Tools {
			if tl.Name == "search_memory" {
				return tl.Name
			}
		}
	}
	return "search_graph"
}

// TestContextProfiles: get_context takes an agent's profile choice and a
// built-in name, and refuses an unknown one in words.
func TestContextProfiles(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{})
	loadSamples(t, e)
	for _, p := range []string{"causal", "code", "semantic_search"} {
		must(t, cs, "get_context", map[string]any{"query": "why does the build fail", "profile": p, "budget": 300})
	}
	refused(t, cs, "get_context", map[string]any{"query": "why does the build fail", "profile": "sideways"}, "sideways")
}
