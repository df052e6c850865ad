package bench

import (
	"os"
	"strings"
	"testing"
)

func TestCollectJavaFixture(t *testing.T) {
	pairs, st, err := Collect("testdata/src/java", javaExtractor)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ fn, query, prefix, suffix string }{
		{"Ring", "Creates a ring that holds at most capacity values.", "public Ring(int capacity) {", "head = 0;\n    }"},
		{"push", "Adds a value at the head, overwriting the oldest one when the ring is full.", "@Override\n    public synchronized void push(int v) {", "head = (head + 1) % items.length;\n    }"},
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
	if pairs[1].Line != 28 {
		t.Errorf("push starts on line %d, want 28 (its annotation)", pairs[1].Line)
	}
	// RingTest.java is a test file; size() has no body; tiny() is trivial.
	if st.Files != 1 || st.Trivial != 1 {
		t.Errorf("stats %+v: want 1 file read and 1 trivial method", st)
	}
}

func TestCollectJavaScriptFixture(t *testing.T) {
	pairs, st, err := Collect("testdata/src/js", jsExtractor)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ fn, query, prefix string }{
		{"splitPath", "Splits a path into its directory and base name parts.", "function splitPath(p) {"},
		{"joinWords", "Joins the given words with single spaces between them.", "exports.joinWords = function (words) {"},
		{"countLines", "Counts the lines of a text that are not blank.", "const countLines = (text) => {"},
	}
	if len(pairs) != len(want) {
		t.Fatalf("got %d pairs %+v, want %d", len(pairs), pairs, len(want))
	}
	for i, w := range want {
		p := pairs[i]
		if p.Func != w.fn || p.Query != w.query || !strings.HasPrefix(p.Code, w.prefix) || !strings.HasSuffix(p.Code, "}") {
			t.Errorf("pair %d = %+v\nwant func %q query %q code %q…}", i, p, w.fn, w.query, w.prefix)
		}
	}
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
	for _, p := range []string{"testdata/src/java/util/Ring.java", "testdata/src/js/lib.js"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("/** a b c d */ f(x) { '")
	f.Add("/** a b c d */ f(x) {/*")
	f.Fuzz(func(t *testing.T, src string) {
		for _, x := range []blockDocExtractor{javaExtractor, jsExtractor} {
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
