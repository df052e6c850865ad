package claudecode

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cgraph/cgraph/redact"
)

// FuzzReadFrom feeds arbitrary bytes to the reader: it must not panic or
// fail (r never fails here), Next must lie within the input on a line
// start, and reading on from Next with Final must take the rest.
func FuzzReadFrom(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.jsonl")
	fixtures, _ := filepath.Glob("../extract/testdata/transcripts/*.jsonl")
	for _, p := range append(seeds, fixtures[:min(3, len(fixtures))]...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":1}]}]}}`))
	f.Add([]byte("{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"input\":[1]}]}}\n\xff\xfe"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// No redaction rules: the redactor has its own tests, and its
		// regular expressions would cut the fuzzer's speed a hundredfold.
		none := &redact.Redactor{}
		res, err := ReadFrom(bytes.NewReader(data), Cursor{}, Options{MaxLineBytes: 4096, MaxToolOutput: 256, Redactor: none})
		if err != nil {
			t.Fatalf("ReadFrom failed on an in-memory reader: %v", err)
		}
		if res.Next.Offset < 0 || res.Next.Offset > int64(len(data)) {
			t.Fatalf("Next %+v outside the input of %d bytes", res.Next, len(data))
		}
		if res.Next.Offset > 0 && data[res.Next.Offset-1] != '\n' {
			t.Fatalf("Next %+v is not at a line start", res.Next)
		}
		for _, tr := range res.Turns {
			if tr.Tool != nil && len(tr.Tool.Output) > 256+64 {
				t.Fatalf("tool output of %d bytes over the limit", len(tr.Tool.Output))
			}
		}
		rest, err := ReadFrom(bytes.NewReader(data[res.Next.Offset:]), res.Next, Options{Final: true, MaxLineBytes: 4096, Redactor: none})
		if err != nil {
			t.Fatal(err)
		}
		if rest.Next.Offset != int64(len(data)) {
			t.Fatalf("final read stopped at %d of %d", rest.Next.Offset, len(data))
		}
	})
}
