package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestStdioSurvivesMalformedLines: every line that is not a JSON-RPC message
// gets its JSON-RPC error, in order, and the session goes on to answer the
// valid request after them.
func TestStdioSurvivesMalformedLines(t *testing.T) {
	lines := []struct {
		in   string
		code int // 0: no answer expected for this line
	}{
		{`this is not json`, codeParseError},
		{`{"jsonrpc":"2.0","id":1,"method":`, codeParseError},
		{"", 0},
		{"   ", 0},
		{`{}`, codeInvalidRequest},
		{`[]`, codeInvalidRequest},
		{`[1, 2]`, codeInvalidRequest},
		{`"just a string"`, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, 0},
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- New(nil, Options{}).Serve(ctx, inR, outW) }()
	go func() {
		for _, l := range lines {
			io.WriteString(inW, l.in+"\n")
		}
	}()
	type answer struct {
		ID     any `json:"id"`
		Error  *struct{ Code int }
		Result json.RawMessage `json:"result"`
	}
	sc := bufio.NewScanner(outR)
	read := func() answer {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("server stopped answering: %v", sc.Err())
		}
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		return a
	}
	for _, l := range lines {
		if l.code == 0 {
			continue
		}
		a := read()
		if a.Error == nil || a.Error.Code != l.code || a.ID != nil {
			t.Errorf("line %q: answer %+v, want error %d with id null", l.in, a, l.code)
		}
	}
	a := read()
	if a.Error != nil || a.ID != float64(1) || !strings.Contains(string(a.Result), `"serverInfo"`) {
		t.Fatalf("initialize after the bad lines: %+v %s", a, a.Result)
	}
	inW.Close()
	if err := <-done; err != nil && ctx.Err() == nil && err != io.EOF {
		t.Logf("serve ended: %v", err)
	}
}

// TestCheckMessageKeepsValidLines: a valid message or batch is passed on.
func TestCheckMessageKeepsValidLines(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":"a","method":"ping"}]`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
	} {
		if code, why := checkMessage([]byte(in)); code != 0 {
			t.Errorf("%s: refused with %d %s", in, code, why)
		}
	}
}

func FuzzCheckMessage(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "\xff", `[{"jsonrpc":"2.0"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		line := []byte(strings.TrimSpace(string(b)))
		if len(line) == 0 {
			return
		}
		code, _ := checkMessage(line)
		if code == 0 && !json.Valid(line) {
			t.Fatalf("passed invalid JSON %q", line)
		}
	})
}

// FuzzCheckConstraints: any JSON arguments against a real tool schema are
// either refused with an argument error or passed on; never a panic.
func FuzzCheckConstraints(f *testing.F) {
	for _, s := range []string{`{"query":"q","top_k":5}`, `{"top_k":1e300}`, `{"profile":7}`, `[]`, `null`, `{"mode":"pipeline","importance":-0}`} {
		f.Add([]byte(s))
	}
	schema := inputSchema[searchGraphIn]("search_graph")
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		if err := checkConstraints(schema, v); err != nil && !IsBadInput(err) {
			t.Fatalf("%s: %v is not an argument error", b, err)
		}
	})
}
