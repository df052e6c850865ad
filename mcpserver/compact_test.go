package mcpserver_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cgraph/cgraph/mcpserver"
)

// TestCompactAnswers: every hit says why in words (no slot numbers), a
// snippet is whole or ends at a boundary with " …" and the answer then
// carries the "more" note; store_memory answers without the fingerprint
// unless asked; the text content is a short summary, not the JSON again.
func TestCompactAnswers(t *testing.T) {
	cs, e := connect(t, mcpserver.Options{})
	loadSamples(t, e)
	slot := regexp.MustCompile(`\bE(1[0-3]|[1-9])\b`)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_memory", Arguments: map[string]any{"query": "RocksDB WriteBatch column families"}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, `"results"`) || len(text) > 400 {
		t.Fatalf("text content is not a short summary: %s", text)
	}
	d := must(t, cs, "search_memory", map[string]any{"query": "RocksDB WriteBatch column families"})
	hs := results(t, d)
	if len(hs) < 3 {
		t.Fatalf("%d results", len(hs))
	}
	cut := false
	for _, h := range hs {
		why, _ := h["why"].(string)
		if why == "" || slot.MatchString(why) || !strings.Contains(why, "spaces: ") {
			t.Errorf("hit %v: why %q", h["id"], why)
		}
		if sn := h["snippet"].(string); strings.HasSuffix(sn, " …") {
			cut = true
			body := strings.TrimSuffix(sn, " …")
			if len([]rune(body)) > 240 {
				t.Errorf("snippet over 240 runes: %q", sn)
			}
		}
	}
	if why := hs[0]["why"].(string); !strings.Contains(why, "rocksdb") || !strings.Contains(why, "writebatch") {
		t.Errorf("top hit's why does not name the matched words: %q", why)
	}
	notes, _ := d["notes"].([]any)
	hasMore := false
	for _, n := range notes {
		hasMore = hasMore || strings.Contains(n.(string), "get_memory ID")
	}
	if cut != hasMore {
		t.Errorf("cut snippets %v, more note %v: %v", cut, hasMore, notes)
	}
	st := must(t, cs, "store_memory", map[string]any{"content": "Note: compact answers by default."})
	if _, ok := st["fingerprint"]; ok || st["id"] == nil {
		t.Fatalf("store_memory: %v", st)
	}
	st = must(t, cs, "store_memory", map[string]any{"content": "Note: fingerprint on request.", "fingerprint": true})
	if fp, _ := st["fingerprint"].([]any); len(fp) != 13 {
		t.Fatalf("store_memory fingerprint: true: %v", st["fingerprint"])
	}
}

// TestCoreInstructions: the core set's instructions name only tools it
// offers, and the full set's name the research searches too.
func TestCoreInstructions(t *testing.T) {
	name := regexp.MustCompile(`\b(store|update|link|search|get|delete)_[a-z_]+\b`)
	for _, set := range []string{mcpserver.ToolsCore, mcpserver.ToolsFull} {
		cs, _ := connect(t, mcpserver.Options{Tools: set})
		lt, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		offered := map[string]bool{}
		for _, tl := range lt.Tools {
			offered[tl.Name] = true
		}
		ins := cs.InitializeResult().Instructions
		named := name.FindAllString(ins, -1)
		for _, n := range named {
			if !offered[n] {
				t.Errorf("%s: the instructions name %s, which is not offered: %s", set, n, ins)
			}
		}
		if !strings.Contains(ins, "link_memories") || (set == mcpserver.ToolsFull) != strings.Contains(ins, "search_by_keywords") {
			t.Errorf("%s instructions: %s", set, ins)
		}
	}
}
