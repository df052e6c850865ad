package codeview

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cgraph/cgraph/embedders/keywords"
)

func TestCodeView(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"func (h *Header) FileInfo() fs.FileInfo {\n\treturn headerFileInfo{h}\n}",
			"file info: func (h *Header) File Info() fs.File Info {\n\treturn header File Info{h}\n}"},
		{"def guess_type(self, url):\n    return None", "guess type: def guess type(self, url):\n    return None"},
		// A doc comment first: it is the summary; no name goes before it.
		{"// Len is the length.\nfunc (l *List) Len() int { return l.n }", "// Len is the length.\nfunc (l *List) Len() int { return l.n }"},
		{"@Override\npublic String toString() {", "to string: @Override\npublic String to String() {"},
		// Prose keeps its words; only identifiers split.
		{"The cache was stale because the writer never flushed.", "The cache was stale because the writer never flushed."},
		{"Set maxRetries to 3 after the outage.", "Set max Retries to 3 after the outage."},
	} {
		if got := View(c.text); got != c.want {
			t.Errorf("View(%q)\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// FuzzCodeView checks codeView on any text: no panic, valid UTF-8 in gives
// valid UTF-8 out, a non-blank text stays non-blank (an embedder reads it),
// the result is deterministic, and the name it puts first is one the text
// defines.
func FuzzCodeView(f *testing.F) {
	for _, s := range []string{"func (h *Header) FileInfo() fs.FileInfo {", "@x\n\ndef f():", "const a = () => 1",
		"public final X\n(", "Foo.prototype.bar = function(", "plain words", "((((", "\xff\xfe(", "a\nb\nc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := View(text)
		if got != View(text) {
			t.Fatal("not deterministic")
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("View(%q) = %q: invalid UTF-8", text, got)
		}
		if strings.TrimSpace(text) != "" && strings.TrimSpace(got) == "" {
			t.Fatalf("View(%q) is blank", text)
		}
		if n, _ := keywords.DefinedName(text); n != "" && !strings.Contains(text, n) {
			t.Fatalf("keywords.DefinedName(%q) = %q, not in the text", text, n)
		}
	})
}

// BenchmarkCodeView times the view of one function of about 1 KB and of a
// 64 KiB memory (the largest a store takes by default), the cost each
// model-backed slot adds per stored memory before its model runs.
func BenchmarkCodeView(b *testing.B) {
	fn := "// evictOldest drops the least recently used entry.\nfunc (c *Cache) evictOldest() {\n" +
		strings.Repeat("\tdelete(c.items, c.order[0])\n\tc.order = c.order[1:]\n\tc.bytesUsed -= entrySize(c.items)\n", 10) + "}\n"
	for _, tc := range []struct {
		name, text string
	}{{"1KB", fn}, {"64KiB", strings.Repeat(fn, 64<<10/len(fn))}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			for b.Loop() {
				View(tc.text)
			}
		})
	}
}
