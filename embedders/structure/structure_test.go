package structure

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .structure golden files")

// TestParseGolden parses real-looking snippets; the expected structure texts
// in testdata/*.structure were checked by hand when written.
func TestParseGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) < 4 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := Parse(string(b)).Text()
		golden := strings.TrimSuffix(f, ".txt") + ".structure"
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", f, got, want)
		}
	}
}

func TestDetect(t *testing.T) {
	cases := []struct {
		src  string
		want Language
	}{
		{"package main\n\nfunc main() {}\n", Go},
		{"if err != nil {\n\treturn fmt.Errorf(\"x: %w\", err)\n}", Go},
		{"def f(x):\n    return x\n", Python},
		{"from a.b import c\n", Python},
		{"const f = (a) => a + 1;\n", JavaScript},
		{"interface A { x: number }\nconst f = (a: string): void => {}\n", TypeScript},
		{"The cache was cold after the restart.", Unknown},
	}
	for _, c := range cases {
		if got := Detect(c.src); got != c.want {
			t.Errorf("Detect(%q) = %s, want %s", c.src, got, c.want)
		}
	}
}

func TestParseRules(t *testing.T) {
	cases := []struct {
		name  string
		lang  Language
		src   string
		field func(Structure) []string
		want  []string
	}{
		{"go method is Type.Method, not a call", Go, "func (s *Server) Handle(w http.ResponseWriter) {\n\ts.log(\"x\")\n}\n",
			func(s Structure) []string { return s.Defines }, []string{"Server.Handle"}},
		{"go definition site is not a call", Go, "func (s *Server) Handle() {\n\ts.log(\"x\")\n}\n",
			func(s Structure) []string { return s.Calls }, []string{"s.log"}},
		{"go single and aliased imports", Go, "import f \"fmt\"\nimport \"os\"\n",
			func(s Structure) []string { return s.Imports }, []string{"fmt", "os"}},
		{"strings and comments hide parens", Go, "x := \"call(me)\" // not(this)\ny := real()\n/* nor(this) */",
			func(s Structure) []string { return s.Calls }, []string{"real"}},
		{"go builtins are not calls", Go, "b := make([]byte, len(x))\nappend(b, 1)\n",
			func(s Structure) []string { return s.Calls }, nil},
		{"python import list with alias", Python, "import os, numpy as np\nfrom x.y import z\n",
			func(s Structure) []string { return s.Imports }, []string{"numpy", "os", "x.y"}},
		{"python self. is dropped", Python, "def f(self):\n    self.save(x)\n",
			func(s Structure) []string { return s.Calls }, []string{"save"}},
		{"js require, dynamic import, re-export", JavaScript, "const a = require('a');\nimport('b');\nexport { c } from \"c\";\n",
			func(s Structure) []string { return s.Imports }, []string{"a", "b", "c"}},
		{"js arrow and function definitions", JavaScript, "function go() {}\nconst run = async (x) => x;\nclass Job {}\n",
			func(s Structure) []string { return s.Defines }, []string{"Job", "go", "run"}},
		{"chained call keeps the head", JavaScript, "res.status(401).send('x');",
			func(s Structure) []string { return s.Calls }, []string{"res.status"}},
	}
	for _, c := range cases {
		got := c.field(ParseAs(c.lang, c.src))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestSourceTargetText(t *testing.T) {
	s := Parse("package p\nimport \"os\"\nfunc Open() { os.Exit(1) }\n")
	src, tgt := s.SourceText(), s.TargetText()
	if !strings.Contains(src, "imports: os") || !strings.Contains(src, "calls: os.Exit") || strings.Contains(src, "defines") {
		t.Errorf("source text %q", src)
	}
	if !strings.Contains(tgt, "defines: Open") || strings.Contains(tgt, "imports") {
		t.Errorf("target text %q", tgt)
	}
	if !Parse("just prose here").Empty() {
		t.Error("prose has structure")
	}
}

func TestMaxItems(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		b.WriteString("f" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "()\n")
	}
	if n := len(Parse(b.String()).Calls); n != MaxItems {
		t.Errorf("%d calls kept, want the bound %d", n, MaxItems)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"func (a *B) C() { d.e() }", "def f(:\n '''x", "import('", "/* (", "\"\\", "`a(`b("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := Parse(s)
		for _, l := range [][]string{st.Imports, st.Defines, st.Calls, st.Paths} {
			if len(l) > MaxItems || !slices.IsSorted(l) {
				t.Fatalf("list %q not sorted or too long", l)
			}
		}
		if len(stripCode(s, Go)) != len(s) || len(stripCode(s, Python)) != len(s) {
			t.Fatal("stripCode changed the length")
		}
	})
}

func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "ts_fetch.ts.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		_ = Parse(string(src))
	}
}

// detectCounts is each detector's match count with and without its
// literal prefilter.
func detectCounts(text string) (with, without []int) {
	for _, d := range detectors {
		with = append(with, len(d.re.FindAllStringIndex(text, -1)))
		without = append(without, len(d.re.Regexp().FindAllStringIndex(text, -1)))
	}
	return with, without
}

// TestDetectNeedles: the detectors' literals never drop a match — the
// golden fixtures, each alternative's shape in each language, and prose.
func TestDetectNeedles(t *testing.T) {
	texts := []string{"package main\n", "func (s *S) Get() {}\n", "import (\n\t\"fmt\"\n)", "x := 1", "fmt.Println(x)", "if err != nil {",
		"def f(x) -> int:\n", "from a.b import c", "import os as o\n", "class A(B):\n", "self.x = 1", "  elif y:", "if __name__ == '__main__':",
		"export interface X {", "type T = string", "let a: number = 1", "import type { A } from 'b'", "const x = [1] as const",
		"function f() {}", "const a = 1", "let b = 2", "var c = 3", "x => x", "require('fs')", "import a from 'b'",
		"export default f", "console.log(1)", "The quick brown fox: a note about nothing in particular."}
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if with, without := detectCounts(s); !slices.Equal(with, without) {
			t.Errorf("%.40q: counts %v with the literals, %v without", s, with, without)
		}
	}
}

// FuzzDetectNeedles: on any text the detectors count what their
// expressions alone count.
func FuzzDetectNeedles(f *testing.F) {
	f.Add("func main() { x := 1 }")
	f.Add("def f():\n  self.x = 1")
	f.Add("const f = (a: string) => a")
	f.Fuzz(func(t *testing.T, s string) {
		if with, without := detectCounts(s); !slices.Equal(with, without) {
			t.Fatalf("%q: counts %v with the literals, %v without", s, with, without)
		}
	})
}
