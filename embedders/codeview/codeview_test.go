package codeview

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDefinedName(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"go func", "func NewReader(r io.Reader) *Reader {\n\treturn nil\n}", "NewReader"},
		{"go method", "func (h *Header) FileInfo() fs.FileInfo {\n\treturn headerFileInfo{h}\n}", "FileInfo"},
		{"go generic", "func Min[S ~[]E, E cmp.Ordered](x S) E {", "Min"},
		{"python", "def guess_type(self, url, strict=True):\n    url = os.fspath(url)", "guess_type"},
		{"python decorated", "@property\ndef name(self):\n    return self._name", "name"},
		{"python async", "async def fetch(url):\n    pass", "fetch"},
		{"java", "public static Error NoValueForOption(String arg0) {", "NoValueForOption"},
		{"java annotated", "@Override\n    public void checkCreate(String className) {", "checkCreate"},
		{"java wrapped signature", "public final Collection<? extends Certificate> generateCertificates\n        (InputStream in) {", "generateCertificates"},
		{"java generic return", "public static <T> List<T> copyOf(Collection<? extends T> coll) {", "copyOf"},
		{"java constructor", "public ModelMBeanInfoSupport(String className,\n            String description) {", "ModelMBeanInfoSupport"},
		{"js function", "function parseQuery(s) {", "parseQuery"},
		{"js arrow", "const detectFromQuery = (c, options) => {", "detectFromQuery"},
		{"js prototype", "Container.prototype.atPosition = function(line, col) {", "atPosition"},
		{"js export", "export async function loadConfig(path) {", "loadConfig"},
		{"rust", "pub fn parse_line(s: &str) -> Option<Line> {", "parse_line"},
		{"ruby", "def to_s\n  \"#{name} (#{id})\"\nend", "to_s"},
		{"ruby class method", "def self.parse text\n  new(text)\nend", "parse"},
		{"ruby predicate", "def empty?\n  size.zero?\nend", "empty"},
		{"ruby with parentheses", "def initialize(name)\n  @name = name\nend", "initialize"},
		{"php", "public static function getName($id) {", "getName"},
		{"kotlin", "fun main(args: Array<String>) {", "main"},
		{"c", "static int read_header(FILE *f) {", "read_header"},
		{"c pointer return", "char *strdup_safe(const char *s) {", "strdup_safe"},
		{"c++ member", "std::vector<int> Cache::evictOldest(int n) {", "evictOldest"},
		{"comment first", "// Len is the length.\nfunc (l *List) Len() int { return l.n }", "Len"},
		{"prose", "The cache was stale because the writer never flushed.", ""},
		{"prose with an aside", "Zero PEBS status (CVE-2021-28971)", ""},
		{"prose naming a call", "It implies Chdir(attr.Dir) before executing argv0", ""},
		{"prose with a tag", "TODO(rsc): We don't add standard library imports for gccgo", ""},
		{"java package-private", "void scanCond(JCTree tree) {", "scanCond"},
		{"java wrapped parameters", "Collection<Certificate> generate(InputStream in,\n    int n) {", "generate"},
		{"js class method", "atPosition(line, col) {", "atPosition"},
		{"js spaced method", "get size () {", "size"},
		{"trailing comment", "void setDomainName(String name) { // called by the factory", "setDomainName"},
		{"prose with call", "Fixed the retry loop: it slept 10 s between tries (see the log).", ""},
		{"control flow", "if (x > 0) {\n  return x;\n}", ""},
		{"return call", "return parse(text)", ""},
		{"empty", "", ""},
		{"blank lines only", "\n\n  \n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, _ := DefinedName(c.text); got != c.want {
				t.Errorf("DefinedName(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

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
		if n, _ := DefinedName(text); n != "" && !strings.Contains(text, n) {
			t.Fatalf("DefinedName(%q) = %q, not in the text", text, n)
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
