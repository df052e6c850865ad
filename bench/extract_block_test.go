package bench

import (
	"os"
	"strings"
	"testing"
)

// wantPair is what a fixture test expects of one pair: its function, query
// and the code's first and last bytes.
type wantPair struct{ fn, query, prefix, suffix string }

// collectFixture collects dir with x and checks the pairs against want, in
// order; it returns them and the walk's stats for the caller's own checks.
func collectFixture(t *testing.T, dir string, x Extractor, want []wantPair) ([]Pair, PrepareStats) {
	t.Helper()
	pairs, st, err := Collect(dir, x)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != len(want) {
		t.Fatalf("got %d pairs %+v, want %d", len(pairs), pairs, len(want))
	}
	for i, w := range want {
		p := pairs[i]
		if p.Func != w.fn || p.Query != w.query || !strings.HasPrefix(p.Code, w.prefix) || !strings.HasSuffix(p.Code, w.suffix) {
			t.Errorf("pair %d = %+v\nwant func %q query %q code %q … %q", i, p, w.fn, w.query, w.prefix, w.suffix)
		}
	}
	return pairs, st
}

func TestCollectJavaFixture(t *testing.T) {
	pairs, st := collectFixture(t, "testdata/src/java", javaExtractor, []wantPair{
		{"Ring", "Creates a ring that holds at most capacity values.", "public Ring(int capacity) {", "head = 0;\n    }"},
		{"push", "Adds a value at the head, overwriting the oldest one when the ring is full.", "@Override\n    public synchronized void push(int v) {", "head = (head + 1) % items.length;\n    }"},
	})
	if pairs[1].Line != 28 {
		t.Errorf("push starts on line %d, want 28 (its annotation)", pairs[1].Line)
	}
	// RingTest.java is a test file; size() has no body; tiny() is trivial.
	if st.Files != 1 || st.Trivial != 1 {
		t.Errorf("stats %+v: want 1 file read and 1 trivial method", st)
	}
}

func TestCollectJavaScriptFixture(t *testing.T) {
	_, st := collectFixture(t, "testdata/src/js", jsExtractor, []wantPair{
		{"splitPath", "Splits a path into its directory and base name parts.", "function splitPath(p) {", "}"},
		{"joinWords", "Joins the given words with single spaces between them.", "exports.joinWords = function (words) {", "}"},
		{"countLines", "Counts the lines of a text that are not blank.", "const countLines = (text) => {", "}"},
	})
	if st.Files != 1 {
		t.Errorf("stats %+v: want 1 file read (the minified bundle skipped)", st)
	}
}

func TestJavadocQuery(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\n * Returns the {@link Map} of {@code key} values.\n * @return x\n", "Returns the Map of key values."},
		{" Single line. ", "Single line."},
		{"\n * First <i>part</i>\n * continues.\n *\n * Second paragraph.\n", "First part continues."},
		{"\n * @deprecated use other\n", ""},
		{"\n * Deprecated: gone.\n", ""},
		// nested inline tags, link labels and references, HTML entities
		{"\n * {@return {@code true} if this object has been {@link #init initialized}, {@code false} otherwise}\n",
			"true if this object has been initialized, false otherwise"},
		{" Calls {@link Map#get(Object)} or {@linkplain #put}. ", "Calls Map.get or put."},
		{" Splits on &#92; and &lt;tab&gt;. ", "Splits on \\ and <tab>."},
	} {
		if got := javadocQuery(c.in); got != c.want {
			t.Errorf("javadocQuery(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzBlockDocExtract(f *testing.F) {
	for _, p := range []string{"testdata/src/java/util/Ring.java", "testdata/src/js/lib.js", "testdata/src/php/src/Ring.php"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("/** a b c d */ f(x) { '")
	f.Add("/** a b c d */ f(x) {/*")
	f.Fuzz(func(t *testing.T, src string) {
		for _, x := range []blockDocExtractor{javaExtractor, jsExtractor, phpExtractor} {
			ps, err := x.Extract("f"+x.ext, []byte(src))
			if err != nil {
				return
			}
			for _, p := range ps {
				if p.Query == "" || p.Func == "" || p.Line < 1 || !strings.HasSuffix(p.Code, "}") || !strings.Contains(p.Code, "{") {
					t.Fatalf("bad pair %+v", p)
				}
			}
		}
	})
}

func TestCollectRustFixture(t *testing.T) {
	pairs, st := collectFixture(t, "testdata/src/rust", rustExtractor{}, []wantPair{
		{"split", "Splits a path into its directory and its base name, at the last /.",
			"pub fn split<'a>(path: &'a str) -> (&'a str, &'a str) {", "None => (\"\", path),\n    }\n}"},
		{"newest", "Returns the Ring's newest value, or None when the ring holds no values yet.",
			"pub(crate) fn newest(&self) -> Option<&T> {", "% self.items.len())\n    }"},
		{"owned_label", "Returns the label the value carries, as an owned string for callers.",
			"fn owned_label(&self) -> String\n    where", "s\n    }"},
	})
	if pairs[1].Line != 35 {
		t.Errorf("newest starts on line %d, want 35 (after its attributes)", pairs[1].Line)
	}
	// tests.rs and benches/ are skipped; label() has no body, hidden() no
	// doc (four slashes), tiny() is trivial.
	if st.Files != 1 || st.Trivial != 1 {
		t.Errorf("stats %+v: want 1 file read and 1 trivial function", st)
	}
}

// TestRustMatchBrace: literals, lifetimes and nested comments hide braces.
func TestRustMatchBrace(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`{ let c = '}'; }`, `{ let c = '}'; }`},
		{`{ x::<'a>(); '\u{7d}'; } tail`, `{ x::<'a>(); '\u{7d}'; }`},
		{`{ r##"}"#}"##; } tail`, `{ r##"}"#}"##; }`},
		{`{ br"}"; b'}'; } tail`, `{ br"}"; b'}'; }`},
		{`{ /* /* } */ } */ } tail`, `{ /* /* } */ } */ }`},
		{"{ // }\n } tail", "{ // }\n }"},
		{`{ for x in y { bar(x) } } tail`, `{ for x in y { bar(x) } }`},
		{`{ "unclosed }`, ``},
	} {
		got := ""
		if stop := rustMatchBrace(c.src, 0); stop >= 0 {
			got = c.src[:stop+1]
		}
		if got != c.want {
			t.Errorf("rustMatchBrace(%q) ends at %q, want %q", c.src, got, c.want)
		}
	}
}

// FuzzRustExtract: any text gives pairs whose code is a braced span of the
// source starting at a fn line, or none; never a panic.
func FuzzRustExtract(f *testing.F) {
	b, err := os.ReadFile("testdata/src/rust/src/lib.rs")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("/// a b c d\nfn f() { '")
	f.Add("/// a b c d\n#[x\nfn f() { r#\"")
	f.Add("/// a b c d\nfn f() { /* /*")
	f.Fuzz(func(t *testing.T, src string) {
		ps, err := rustExtractor{}.Extract("f.rs", []byte(src))
		if err != nil {
			return
		}
		for _, p := range ps {
			m := rustFnRE.FindStringSubmatch(p.Code)
			if p.Query == "" || m == nil || m[1] != p.Func || p.Line < 1 || !strings.HasSuffix(p.Code, "}") ||
				!strings.Contains(src, p.Code) {
				t.Fatalf("bad pair %+v", p)
			}
		}
	})
}

func TestCollectPHPFixture(t *testing.T) {
	_, st := collectFixture(t, "testdata/src/php", phpExtractor, []wantPair{
		{"__construct", "Creates a ring that holds at most the given number of values.",
			"public function __construct(private int $capacity)\n    {", "$this->head = 0;\n    }"},
		{"push", "Adds a value at the head, overwriting the Ring oldest one when full.",
			"public function push(mixed $value): static\n    {", "return $this;\n    }"},
	})
	// Tests/ is skipped; the class has no "(", size() no body, tiny() is
	// trivial, newest() has no doc, and the doc block inside it above an if
	// documents no method.
	if st.Files != 1 || st.Trivial != 1 {
		t.Errorf("stats %+v: want 1 file read and 1 trivial method", st)
	}
}
