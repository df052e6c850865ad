package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestMCPStdioOddLines drives the real `cgraph mcp` over pipes with the
// lines that used to end it or be rewritten (issue 27 items 5 and 6): a
// JSON-RPC batch, a line over 16 MiB, content with a byte that is not
// UTF-8 and content with a lone surrogate escape. Each gets an error
// answer (with the request's id where it has one) and the next request is
// answered.
func TestMCPStdioOddLines(t *testing.T) {
	e := newE2E(t)
	cmd := e.command("mcp")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
		}
	})
	store := func(id int, content string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"store_memory","arguments":{"content":"%s"}}}`, id, content)
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		store(3, strings.Repeat("x", 17<<20)),
		store(4, "bad \xff"),
		store(5, `bad \ud800`),
		store(6, "a good note after the bad lines"),
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
	}
	go func() {
		for _, l := range lines {
			if _, err := io.WriteString(in, l+"\n"); err != nil {
				return
			}
		}
	}()
	type answer struct {
		ID    any `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	got := map[string]answer{} // by id; "null" for id null
	var batch []answer
	for len(got) < 6 || batch == nil { // ids 1, 4, 5, 6, 7 and null
		if !sc.Scan() {
			t.Fatalf("cgraph mcp stopped answering after %d answers: %v", len(got), sc.Err())
		}
		if strings.HasPrefix(sc.Text(), "[") {
			if err := json.Unmarshal(sc.Bytes(), &batch); err != nil {
				t.Fatalf("batch answer %q: %v", sc.Text(), err)
			}
			continue
		}
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		if a.Result == nil && a.Error == nil {
			continue // a notification
		}
		got[fmt.Sprint(a.ID)] = a
	}
	if len(batch) != 1 || batch[0].ID != float64(2) || batch[0].Error == nil || batch[0].Error.Code != -32600 || !strings.Contains(batch[0].Error.Message, "batching is not supported") {
		t.Errorf("batch answer: %+v", batch)
	}
	for _, c := range []struct {
		id   string
		code int
		says string
	}{
		{"<nil>", -32600, "over 16777216 bytes"},
		{"4", -32602, "content: is not valid UTF-8: send UTF-8 text"},
		{"5", -32602, `content: is not valid UTF-8 (a lone UTF-16 high surrogate \ud800)`},
	} {
		a, ok := got[c.id]
		if !ok || a.Error == nil || a.Error.Code != c.code || !strings.Contains(a.Error.Message, c.says) {
			t.Errorf("answer to id %s: %+v, want error %d saying %q", c.id, a.Error, c.code, c.says)
		}
	}
	if a := got["6"]; a.Error != nil || !strings.Contains(string(a.Result), `"id"`) || strings.Contains(string(a.Result), `"isError":true`) {
		t.Errorf("store after the bad lines: %+v %s", a.Error, a.Result)
	}
	if a := got["7"]; a.Error != nil || !strings.Contains(string(a.Result), "store_memory") {
		t.Errorf("tools/list after the bad lines: %+v %s", a.Error, a.Result)
	}
}
