package claudecode

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/redact"
)

func readString(t *testing.T, s string, from Cursor, opt Options) Result {
	t.Helper()
	res, err := ReadFrom(strings.NewReader(s[from.Offset:]), from, opt)
	if err != nil {
		t.Fatalf("ReadFrom: %v", err)
	}
	return res
}

func TestReadMixed(t *testing.T) {
	res, err := ReadFile("testdata/mixed.jsonl", Cursor{}, Options{Session: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/mixed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		kind  capture.TurnKind
		key   string
		text  string
		tool  string
		files []string
	}
	wants := []want{
		{capture.KindSummary, "s-1/summary-leaf-1", "Fix flaky upload test", "", nil},
		{capture.KindUser, "s-1/u1", "Why does upload_test fail?", "", nil},
		{capture.KindTool, "s-1/a1#2", "", "Bash", []string{"upload/upload.go"}},
		{capture.KindAssistant, "s-1/a1#1", "Let me run it.", "", nil},
		{capture.KindTool, "s-1/a2", "", "Edit", []string{"upload/upload.go"}},
		{capture.KindAssistant, "s-1/a3", "sub-agent says hi", "", nil},
	}
	if len(res.Turns) != len(wants) {
		for _, tr := range res.Turns {
			t.Logf("%v %s %q", tr.Kind, tr.Key(), tr.Text)
		}
		t.Fatalf("got %d turns, want %d", len(res.Turns), len(wants))
	}
	for i, w := range wants {
		tr := res.Turns[i]
		if tr.Kind != w.kind || tr.Key() != w.key || strings.TrimSpace(tr.Text) != w.text {
			t.Errorf("turn %d = %v %s %q, want %v %s %q", i, tr.Kind, tr.Key(), tr.Text, w.kind, w.key, w.text)
		}
		if w.tool != "" && (tr.Tool == nil || tr.Tool.Name != w.tool) {
			t.Errorf("turn %d tool = %+v, want %s", i, tr.Tool, w.tool)
		}
		if !slices.Equal(tr.Files, w.files) {
			t.Errorf("turn %d files = %q, want %q", i, tr.Files, w.files)
		}
	}
	bash := res.Turns[2].Tool
	if !bash.IsError || !bash.HasResult || !strings.Contains(bash.Output, "--- FAIL: TestUpload") {
		t.Errorf("bash result = %+v", bash)
	}
	if got := res.Turns[2].UUIDs; !slices.Equal(got, []string{"a1", "r1"}) {
		t.Errorf("bash uuids = %q", got)
	}
	if out := res.Turns[4].Tool.Output; out != "updated\n[image omitted]" {
		t.Errorf("edit output = %q", out)
	}
	if !res.Turns[5].Sidechain {
		t.Error("sub-agent turn not marked Sidechain")
	}
	if res.Turns[0].Session != "s-1" {
		t.Errorf("summary session = %q, want s-1 (filled from later lines)", res.Turns[0].Session)
	}
	if res.Turns[1].Seq != 2 || res.Turns[1].Source != "testdata/mixed.jsonl#u1" || res.Turns[1].Branch != "main" || res.Turns[1].CWD != "/repo" {
		t.Errorf("user turn provenance = %+v", res.Turns[1])
	}
	var lines []int
	for _, p := range res.Problems {
		lines = append(lines, p.Line)
	}
	if !slices.Equal(lines, []int{4, 11}) {
		t.Errorf("problem lines = %v, want [4 11] (%v)", lines, res.Problems)
	}
	if res.Problems[0].Offset <= 0 || data[res.Problems[0].Offset-1] != '\n' {
		t.Errorf("problem offset %d is not a line start", res.Problems[0].Offset)
	}
	if res.Next.Offset != int64(len(data)) || res.Next.Line != 13 {
		t.Errorf("Next = %+v, want end (%d bytes, 13 lines)", res.Next, len(data))
	}
	for _, tr := range res.Turns {
		if strings.Contains(tr.Text, "secret plan") || strings.Contains(tr.Text, "do not show") {
			t.Errorf("thinking or reminder text leaked: %q", tr.Text)
		}
	}
}

// TestResume reads a transcript in every possible split and checks that
// the two reads together give exactly the turns of one read.
func TestResume(t *testing.T) {
	data, err := os.ReadFile("testdata/mixed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Session: "s-1", Redactor: redact.Default()}
	fin := opt
	fin.Final = true
	whole := readString(t, string(data), Cursor{}, fin)
	keys := func(ts []capture.Turn) []string {
		var out []string
		for _, tr := range ts {
			out = append(out, tr.Key())
		}
		return out
	}
	for cut := 0; cut <= len(data); cut++ {
		first := readString(t, string(data[:cut]), Cursor{}, opt)
		second := readString(t, string(data), first.Next, fin)
		got := append(keys(first.Turns), keys(second.Turns)...)
		if !slices.Equal(got, keys(whole.Turns)) {
			t.Fatalf("split at %d: got %q, want %q", cut, got, keys(whole.Turns))
		}
		for _, tr := range append(first.Turns, second.Turns...) {
			if tr.Tool != nil && !tr.Tool.HasResult {
				t.Fatalf("split at %d: call %s returned without its result", cut, tr.Key())
			}
		}
	}
}

func TestPendingCall(t *testing.T) {
	s := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"go"}}
{"type":"assistant","uuid":"a1","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"sleep 100"}}]}}
{"type":"assistant","uuid":"a2","sessionId":"s","message":{"role":"assistant","content":"still waiting"}}
`
	tests := []struct {
		name     string
		final    bool
		turns    int
		nextLine int
	}{
		{"open session waits at the call", false, 1, 1},
		{"ended session returns the call", true, 3, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := readString(t, s, Cursor{}, Options{Final: tc.final})
			if len(res.Turns) != tc.turns || res.Next.Line != tc.nextLine {
				t.Fatalf("turns %d next %+v, want %d turns, next line %d", len(res.Turns), res.Next, tc.turns, tc.nextLine)
			}
			if tc.final && res.Turns[1].Tool.HasResult {
				t.Error("call without result has HasResult")
			}
		})
	}
}

func TestPartialLastLine(t *testing.T) {
	full := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"one"}}` + "\n"
	partial := `{"type":"user","uuid":"u2","sessionId":"s","message":{"role":"user","content":"tw`
	res := readString(t, full+partial, Cursor{}, Options{})
	if len(res.Turns) != 1 || res.Next.Offset != int64(len(full)) || len(res.Problems) != 0 {
		t.Fatalf("got %d turns, next %+v, problems %v", len(res.Turns), res.Next, res.Problems)
	}
	res = readString(t, full+partial+`o"}}`, Cursor{}, Options{Final: true})
	if len(res.Turns) != 2 || res.Turns[1].Text != "two" {
		t.Fatalf("final read: %+v", res.Turns)
	}
}

func TestLongLineSkipped(t *testing.T) {
	long := `{"type":"user","uuid":"big","sessionId":"s","message":{"role":"user","content":"` + strings.Repeat("x", 5000) + `"}}`
	ok := `{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"after"}}`
	res := readString(t, long+"\n"+ok+"\n", Cursor{}, Options{MaxLineBytes: 1000})
	if len(res.Turns) != 1 || res.Turns[0].Text != "after" || len(res.Problems) != 1 || res.Problems[0].Line != 1 {
		t.Fatalf("turns %+v problems %v", res.Turns, res.Problems)
	}
	if res.Turns[0].Seq != 2 {
		t.Errorf("seq after a skipped line = %d, want 2", res.Turns[0].Seq)
	}
}

func TestToolOutput(t *testing.T) {
	raw := make([]byte, 900)
	for i := range raw {
		raw[i] = byte(i*131 + i/7)
	}
	blob := base64.StdEncoding.EncodeToString(raw)
	tests := []struct {
		name      string
		out       string
		limit     int
		want      []string
		notWant   []string
		truncated bool
	}{
		{"short kept", "ok\tpkg 0.1s", 2048, []string{"ok\tpkg 0.1s"}, nil, false},
		{"head and tail kept", "HEAD" + strings.Repeat("m", 10000) + "TAIL", 100, []string{"HEAD", "TAIL", "bytes cut"}, nil, true},
		{"base64 dropped", "image: " + blob + " done", 2048, []string{"[base64 omitted: 1200 bytes]", "done"}, []string{blob[:40]}, false},
		{"binary dropped", "ELF\x00\x01\x02", 2048, []string{"[binary output omitted: 6 bytes]"}, nil, false},
		{"secret redacted", "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345", 2048, []string{"[REDACTED"}, []string{"ghp_0123456789abcdef"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			b.WriteString(`{"type":"assistant","uuid":"a","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"x"}}]}}` + "\n")
			b.WriteString(`{"type":"user","uuid":"r","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":` + jsonString(tc.out) + `}]}}` + "\n")
			res := readString(t, b.String(), Cursor{}, Options{MaxToolOutput: tc.limit})
			if len(res.Turns) != 1 {
				t.Fatalf("turns = %d (%v)", len(res.Turns), res.Problems)
			}
			c := res.Turns[0].Tool
			for _, w := range tc.want {
				if !strings.Contains(c.Output, w) {
					t.Errorf("output %q lacks %q", c.Output, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(c.Output, w) {
					t.Errorf("output %q holds %q", c.Output, w)
				}
			}
			if c.Truncated != tc.truncated || c.OutputBytes != len(tc.out) {
				t.Errorf("truncated %v bytes %d, want %v %d", c.Truncated, c.OutputBytes, tc.truncated, len(tc.out))
			}
			if tc.limit < 1000 && len(c.Output) > tc.limit+40 {
				t.Errorf("output of %d bytes over the limit %d", len(c.Output), tc.limit)
			}
		})
	}
}

func TestSecretsInInputAndText(t *testing.T) {
	s := `{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"use key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"}}
{"type":"assistant","uuid":"a","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"psql postgres://app:hunter2hunter2@db/app"}}]}}
{"type":"user","uuid":"r","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}
`
	res := readString(t, s, Cursor{}, Options{})
	if len(res.Turns) != 2 {
		t.Fatalf("turns = %d", len(res.Turns))
	}
	if strings.Contains(res.Turns[0].Text, "abcdefghijklmnop") {
		t.Errorf("prompt not redacted: %q", res.Turns[0].Text)
	}
	if cmd := res.Turns[1].Tool.Str("command"); strings.Contains(cmd, "hunter2") {
		t.Errorf("command not redacted: %q", cmd)
	}
}

func TestCommandFiles(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"go test ./internal/...", nil},
		{"cat README.md | head -5", []string{"README.md"}},
		{"sed -i 's/a/b/' src/app.ts && git add src/app.ts Makefile", []string{"src/app.ts", "src/app.ts", "Makefile"}},
		{"pytest tests/test_x.py::test_y -q", []string{"tests/test_x.py"}},
		{"FOO=1 python3 scripts/gen.py --out x", []string{"scripts/gen.py"}},
		{"curl https://example.com/a.json", nil},
		{"npm install react@18.2.0", nil},
		{"rm -rf build", nil},
		{`echo "a; cat b.txt"`, nil},
	}
	for _, tc := range tests {
		if got := commandFiles(tc.cmd); !slices.Equal(got, tc.want) {
			t.Errorf("commandFiles(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestFixtureTranscripts reads every transcript of the extraction fixture:
// no problems, every call paired, and every turn keyed uniquely.
func TestFixtureTranscripts(t *testing.T) {
	paths, _ := filepath.Glob("../extract/testdata/transcripts/*.jsonl")
	if len(paths) < 12 {
		t.Fatalf("found %d fixture transcripts, want ≥ 12", len(paths))
	}
	for _, p := range paths {
		res, err := ReadFile(p, Cursor{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Problems) > 0 || len(res.Turns) == 0 {
			t.Errorf("%s: %d turns, problems %v", p, len(res.Turns), res.Problems)
		}
		seen := map[string]bool{}
		for _, tr := range res.Turns {
			if seen[tr.Key()] {
				t.Errorf("%s: key %s twice", p, tr.Key())
			}
			seen[tr.Key()] = true
			if tr.Tool != nil && !tr.Tool.HasResult {
				t.Errorf("%s: call %s without result", p, tr.Key())
			}
		}
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range []byte(s) {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteByte(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
