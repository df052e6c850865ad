package neural

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
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
			if got, _ := definedName(c.text); got != c.want {
				t.Errorf("definedName(%q) = %q, want %q", c.text, got, c.want)
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
		if got := codeView(c.text); got != c.want {
			t.Errorf("codeView(%q)\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// TestViewOf checks the shared cache of code views: a hit is what codeView
// computes, and the cache empties itself before it holds more than its bound.
func TestViewOf(t *testing.T) {
	fn := "func (c *Cache) evictOldest() {\n\tdelete(c.items, c.order[0])\n}"
	if got, want := viewOf(fn), codeView(fn); got != want {
		t.Fatalf("viewOf = %q, codeView = %q", got, want)
	}
	if got := viewOf(fn); got != codeView(fn) {
		t.Fatalf("cached viewOf = %q", got)
	}
	big := strings.Repeat("parseHTTPRequest ", 64<<10/17)
	for i := range 2 * viewsMaxBytes / (2 * len(big)) {
		viewOf(big + strconv.Itoa(i))
	}
	views.Lock()
	n := views.bytes
	views.Unlock()
	if n > viewsMaxBytes {
		t.Errorf("the view cache holds %d bytes, bound %d", n, viewsMaxBytes)
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
		got := codeView(text)
		if got != codeView(text) {
			t.Fatal("not deterministic")
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("codeView(%q) = %q: invalid UTF-8", text, got)
		}
		if strings.TrimSpace(text) != "" && strings.TrimSpace(got) == "" {
			t.Fatalf("codeView(%q) is blank", text)
		}
		if n, _ := definedName(text); n != "" && !strings.Contains(text, n) {
			t.Fatalf("definedName(%q) = %q, not in the text", text, n)
		}
	})
}

// TestSlotsReadCodeView checks that E1, E5 and E7 store their model's
// vector of the memory's code view — not of the text as written — for a
// function, and the text's own vector for prose, which the view leaves as
// it is.
func TestSlotsReadCodeView(t *testing.T) {
	r := testRegistry(t)
	ctx := context.Background()
	code := "func (c *Cache) evictOldest() {\n\tdelete(c.items, c.order[0])\n\tc.order = c.order[1:]\n}"
	prose := "The cache was stale because the writer never flushed."
	fps, err := r.EmbedDocuments(ctx, inputs(code, prose))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7} {
		var lm *loaded
		prefix, side := "", func(v []float32) []float32 { return v }
		stored := func(i int) []float32 { return fps[i].Get(s).Value.(fingerprint.Dense) }
		switch e := r.Get(s).(type) {
		case *e1Shared:
			lm, prefix = e.lm, e.docPrefix
		case *e7Shared:
			lm, prefix = e.lm, e.docPrefix
		case *denseEmbedder:
			lm, prefix = e.lm, e.docPrefix
		case *pairEmbedder:
			lm, side = e.lm, func(v []float32) []float32 { return e.apply(v, fingerprint.SideA) }
			stored = func(i int) []float32 { return fps[i].Get(s).Value.(fingerprint.Pair).A }
		default:
			t.Fatalf("%s: unexpected embedder %T", s, e)
		}
		if rep := r.Get(s).Status().Representation; !strings.Contains(rep, codeViewNote) {
			t.Errorf("%s: representation does not say it reads the code view: %s", s, rep)
		}
		// The same batch as the registry's (int8 weights quantise
		// activations per batch, so another batch moves the last digits).
		vs, err := lm.EmbedPrefixed(ctx, prefix, []string{codeView(code), prose})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := lm.EmbedPrefixed(ctx, prefix, []string{code, prose})
		if err != nil {
			t.Fatal(err)
		}
		if c := cosine(stored(0), side(vs[0].Vector)); c < 0.9999 {
			t.Errorf("%s: stored vector of the function is not its code view's (cosine %.5f)", s, c)
		}
		if c := cosine(stored(0), side(raw[0].Vector)); c > 0.99 {
			t.Errorf("%s: stored vector of the function is the raw text's (cosine %.5f): the view is not applied", s, c)
		}
		if c := cosine(stored(1), side(vs[1].Vector)); c < 0.9999 {
			t.Errorf("%s: prose is not stored as written (cosine %.5f)", s, c)
		}
	}
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
				codeView(tc.text)
			}
		})
	}
}

// TestQueriesReadSplit checks that E1, E5, E7 and E10 encode a query with
// its identifiers split (queryView), the way the code view stores memories:
// the query's vector is the model's vector of the split text, not of the
// text as typed.
func TestQueriesReadSplit(t *testing.T) {
	r := testRegistry(t)
	ctx := context.Background()
	q := "why does parseHTTPRequest reject the maxBodyBytes limit"
	if queryView(q) == q {
		t.Fatalf("queryView(%q) left the identifiers as they were", q)
	}
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E10} {
		query := embedders.Query{Text: q}
		if s == fingerprint.E5 || s == fingerprint.E10 {
			query.As = fingerprint.SideB
		}
		view, err := r.Get(s).EmbedQuery(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		var got []float32
		switch v := view.Value.(type) {
		case fingerprint.Dense:
			got = v
		default:
			t.Fatalf("%s: query value %T", s, v)
		}
		var lm *loaded
		prefix, mapQ := "", func(v []float32) []float32 { return v }
		switch e := r.Get(s).(type) {
		case *e1Shared:
			lm, prefix = e.lm, e.queryPrefix
		case *e7Shared:
			lm, prefix, mapQ = e.lm, e.queryPrefix, e.queryHead.apply
		case *pairEmbedder:
			lm, mapQ = e.lm, func(v []float32) []float32 { return e.apply(v, fingerprint.SideB) }
		case *intentEmbedder:
			lm = e.lm
		default:
			t.Fatalf("%s: unexpected embedder %T", s, e)
		}
		want, err := embedOne(ctx, lm, prefix, queryView(q), s)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := embedOne(ctx, lm, prefix, q, s)
		if err != nil {
			t.Fatal(err)
		}
		if c := cosine(got, mapQ(want)); c < 0.9999 {
			t.Errorf("%s: the query's vector is not its split text's (cosine %.5f)", s, c)
		}
		if c := cosine(got, mapQ(raw)); c > 0.999 {
			t.Errorf("%s: the query's vector is the text as typed (cosine %.5f): queryView not applied", s, c)
		}
	}
}
