package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestCheckRawJSON(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     string // "" when accepted
	}{
		{"plain", `{"content":"hello","tags":["a","b"]}`, ""},
		{"utf8 text", `{"content":"héllo 日本 🚀"}`, ""},
		{"escaped pair", `{"content":"\ud83d\ude80"}`, ""},
		{"escapes", `{"content":"a\"b\\c\n\u0041"}`, ""},
		{"escaped backslash before u", `{"content":"\\ud800"}`, ""},
		{"not json is the decoder's", `{"content":`, ""},
		{"bad byte", "{\"content\":\"bad \xff\"}", "content: is not valid UTF-8: send UTF-8 text (convert the file's encoding first)"},
		{"bad byte in tag", "{\"content\":\"ok\",\"tags\":[\"x\xc3\"]}", "tags: is not valid UTF-8: send UTF-8 text (convert the file's encoding first)"},
		{"lone high", `{"content":"bad \ud800"}`, `content: is not valid UTF-8 (a lone UTF-16 high surrogate \ud800): send UTF-8 text (convert the file's encoding first)`},
		{"high then text", `{"content":"\uD800x"}`, `content: is not valid UTF-8 (a lone UTF-16 high surrogate \uD800): send UTF-8 text (convert the file's encoding first)`},
		{"high then high", `{"content":"\ud800\ud800"}`, `content: is not valid UTF-8 (a lone UTF-16 high surrogate \ud800): send UTF-8 text (convert the file's encoding first)`},
		{"lone low", `{"query":"\udc00"}`, `query: is not valid UTF-8 (a lone UTF-16 low surrogate \udc00): send UTF-8 text (convert the file's encoding first)`},
		{"in a key", `{"b\ud800d":1}`, `a key: is not valid UTF-8 (a lone UTF-16 high surrogate \ud800): send UTF-8 text (convert the file's encoding first)`},
		{"nested", `{"params":{"arguments":{"content":"x\udfff"}}}`, `content: is not valid UTF-8 (a lone UTF-16 low surrogate \udfff): send UTF-8 text (convert the file's encoding first)`},
		{"top-level string", "\"\xff\"", "body: is not valid UTF-8: send UTF-8 text (convert the file's encoding first)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckRawJSON([]byte(c.in))
			var ve *ValidationError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || err.Error() != c.want || !errors.As(err, &ve)):
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// FuzzCheckRawJSON: whatever CheckRawJSON accepts, encoding/json decodes
// without putting a U+FFFD in place of anything.
func FuzzCheckRawJSON(f *testing.F) {
	for _, s := range []string{`{"a":"\ud800"}`, "\"\xff\"", `["\ud83d\ude80"]`, `{"k":"\\u"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if CheckRawJSON(b) != nil {
			return
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if json.Valid(b) && containsFFFD(out) && !containsFFFD(b) && !containsEscapedFFFD(b) {
			t.Fatalf("%q accepted but decodes with U+FFFD: %s", b, out)
		}
	})
}

func containsFFFD(b []byte) bool        { return bytes.Contains(b, []byte("\uFFFD")) }
func containsEscapedFFFD(b []byte) bool { return bytes.Contains(bytes.ToLower(b), []byte(`\ufffd`)) }
