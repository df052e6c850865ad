package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/internal/testdir"
)

func TestCollectGoFixture(t *testing.T) {
	dir := t.TempDir()
	testdir.Copy(t, "testdata/src/go", dir)
	// A file that does not parse is counted and skipped, not fatal.
	if err := os.WriteFile(filepath.Join(dir, "pkg/sub/broken.go"), []byte("package sub\n\n// Broken does not parse at all here.\nfunc Broken( {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs, st, err := Collect(dir, goExtractor{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Pair{}
	var order []string
	for _, p := range pairs {
		got[p.Func] = p
		order = append(order, p.Path+":"+p.Func)
	}
	want := []string{"pkg/a.go:Reverse", "pkg/a.go:(*T).Add", "pkg/sub/g.go:Map", "pkg/sub/g.go:List.Len"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("pairs %v, want %v", order, want)
	}
	r := got["Reverse"]
	if r.Query != "Returns its argument string reversed rune-wise left to right." {
		t.Errorf("query %q", r.Query)
	}
	if !strings.HasPrefix(r.Code, "func Reverse(s string) string {") || strings.Contains(r.Code, "//") || !strings.HasSuffix(r.Code, "}") {
		t.Errorf("code %q", r.Code)
	}
	if r.Line != 9 {
		t.Errorf("line %d, want 9", r.Line)
	}
	// Files: a.go, g.go, broken.go (a_test.go and testdata/ are never read).
	wantSt := PrepareStats{Files: 3, Candidates: 6, Trivial: 1, Duplicates: 1, ParseErrors: 1, Pairs: 4}
	if st != wantSt {
		t.Errorf("stats %+v, want %+v", st, wantSt)
	}
}

func TestCollectPythonFixture(t *testing.T) {
	pairs, st, err := Collect("testdata/src/python", pyExtractor{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 {
		t.Fatalf("got %d pairs %+v, want 2", len(pairs), pairs)
	}
	j := pairs[0]
	if j.Func != "join_paths" || j.Line != 5 || j.Query != "Join two or three path parts with the platform separator." {
		t.Errorf("first pair %+v", j)
	}
	wantCode := "def join_paths(a, b,\n               c=None):\n    parts = [a, b]\n    if c is not None:\n        parts.append(c)\n\n    return os.path.join(*parts)"
	if j.Code != wantCode {
		t.Errorf("code\n%s\nwant\n%s", j.Code, wantCode)
	}
	f := pairs[1]
	if f.Func != "fetch" || f.Query != "Fetch a value from the cache, loading it on a miss." || !strings.HasPrefix(f.Code, "async def fetch(self, key):\n    if key") {
		t.Errorf("second pair %+v", f)
	}
	if st.Files != 1 || st.Trivial != 1 {
		t.Errorf("stats %+v: want 1 file read (tests skipped) and 1 trivial def", st)
	}
}

func TestStripLeadingNameAndFirstParagraph(t *testing.T) {
	for _, tc := range []struct{ in, name, want string }{
		{"Split slices s into substrings.", "Split", "Slices s into substrings."},
		{"Splitter is not the name.", "Split", "Splitter is not the name."},
		{"Split", "Split", "Split"},
	} {
		if got := StripLeadingName(tc.in, tc.name); got != tc.want {
			t.Errorf("StripLeadingName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"\n\nFirst  line\n  continues.\n\nSecond.", "First line continues."},
		{"Deprecated: gone.", ""},
		{"TODO(x): later", ""},
		{"", ""},
	} {
		if got := FirstParagraph(tc.in); got != tc.want {
			t.Errorf("FirstParagraph(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// hashDir returns one sha256 over every file's relative path and bytes.
func hashDir(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00"))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func goroot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return runtime.GOROOT()
	}
	return strings.TrimSpace(string(out))
}

// TestPrepareGoDeterministic builds a set from real standard-library packages
// twice and checks the outputs are byte-identical, load as a BEIR set and
// carry one positive per query.
func TestPrepareGoDeterministic(t *testing.T) {
	src := filepath.Join(goroot(), "src", "strings")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no Go source tree: %v", err)
	}
	a, b := t.TempDir(), t.TempDir()
	o := PrepareOptions{Src: src, Out: a, Lang: "go", Typos: true, Max: 40, Seed: 7}
	st, err := Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	o.Out = b
	if _, err := Prepare(o); err != nil {
		t.Fatal(err)
	}
	if ha, hb := hashDir(t, a), hashDir(t, b); ha != hb {
		t.Fatalf("same input, different output: %s vs %s", ha, hb)
	}
	if st.Pairs != 40 {
		t.Fatalf("pairs %d, want 40 (Max)", st.Pairs)
	}
	ds, err := Load(a, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Queries) != 40 || len(ds.Corpus) != 40 {
		t.Fatalf("loaded %d queries / %d docs", len(ds.Queries), len(ds.Corpus))
	}
	for _, q := range ds.Queries {
		if n := len(ds.Qrels.RelevantDocs(q.ID)); n != 1 {
			t.Fatalf("query %s has %d positives, want 1", q.ID, n)
		}
	}
	typos, err := Load(a, LoadOptions{QueriesFile: filepath.Join(a, "queries-typos.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i := range typos.Queries {
		if typos.Queries[i].ID != ds.Queries[i].ID {
			t.Fatalf("typo query ids differ at %d", i)
		}
		if typos.Queries[i].Text != ds.Queries[i].Text {
			changed++
		}
	}
	if changed < 20 {
		t.Errorf("only %d of 40 queries got a typo", changed)
	}
	// A different seed samples a different subset.
	o.Out, o.Seed = t.TempDir(), 8
	if _, err := Prepare(o); err != nil {
		t.Fatal(err)
	}
	if hashDir(t, o.Out) == hashDir(t, a) {
		t.Error("seed did not change the sample")
	}
}

// TestPreparePythonStdlib runs the Python extractor on a real standard library package.
func TestPreparePythonStdlib(t *testing.T) {
	var src string
	for _, c := range []string{"/usr/lib/python3.11/json", "/root/.pyenv/versions/3.11.7/lib/python3.11/json"} {
		if _, err := os.Stat(c); err == nil {
			src = c
			break
		}
	}
	if src == "" {
		t.Skip("no Python standard library on this machine")
	}
	out := t.TempDir()
	st, err := Prepare(PrepareOptions{Src: src, Out: out, Lang: "python"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Pairs < 5 {
		t.Fatalf("only %d pairs from %s", st.Pairs, src)
	}
	ds, err := Load(out, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds.Corpus {
		if !strings.HasPrefix(d.Text, "def ") && !strings.HasPrefix(d.Text, "async def ") {
			t.Errorf("doc %s does not start with def: %.60q", d.ID, d.Text)
		}
		if strings.Contains(d.Text, `"""`) && strings.Count(d.Text, `"""`)%2 != 0 {
			t.Errorf("doc %s has an unbalanced docstring left: %.200q", d.ID, d.Text)
		}
	}
}

func TestPrepareErrors(t *testing.T) {
	if _, err := Prepare(PrepareOptions{Src: "testdata/src/go", Out: t.TempDir(), Lang: "ruby"}); err == nil || !strings.Contains(err.Error(), `unknown --lang "ruby"`) {
		t.Errorf("bad lang: %v", err)
	}
	if _, err := Prepare(PrepareOptions{Src: "testdata/nope", Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "source root") {
		t.Errorf("missing src: %v", err)
	}
	out := filepath.Join(t.TempDir(), "o")
	if _, err := Prepare(PrepareOptions{Src: "testdata/src/python", Out: out, Lang: "go"}); err == nil || !strings.Contains(err.Error(), "no documented functions") {
		t.Errorf("empty: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed prepare left %s behind", out)
	}
}

func TestAddTypos(t *testing.T) {
	q := "Returns the number of elements stored in the list, counting duplicates."
	a, b := AddTypos(q, 1, "q1"), AddTypos(q, 1, "q1")
	if a != b {
		t.Fatalf("not deterministic: %q vs %q", a, b)
	}
	if len([]rune(a)) != len([]rune(q)) {
		t.Fatalf("length changed: %q", a)
	}
	wa, wq := strings.Fields(a), strings.Fields(q)
	for i := range wq {
		diff := 0
		for j := range []rune(wq[i]) {
			if []rune(wa[i])[j] != []rune(wq[i])[j] {
				diff++
				if j == 0 {
					t.Errorf("first letter changed in %q → %q", wq[i], wa[i])
				}
				x, y := []rune(wq[i])[j], []rune(wa[i])[j]
				if !strings.ContainsRune(qwerty[x|0x20], y|0x20) {
					t.Errorf("%q → %q: %c is not a neighbour of %c", wq[i], wa[i], y, x)
				}
			}
		}
		if diff > 1 || (diff == 1 && len(wq[i]) < 4) {
			t.Errorf("word %q → %q: %d changes", wq[i], wa[i], diff)
		}
	}
	// Over many words the rate is near TypoRate.
	long := strings.Repeat("alpha ", 2000)
	changed := 0
	for _, w := range strings.Fields(AddTypos(long, 3, "k")) {
		if w != "alpha" {
			changed++
		}
	}
	if rate := float64(changed) / 2000; rate < 0.25 || rate > 0.35 {
		t.Errorf("typo rate %.3f, want ≈ %.2f", rate, TypoRate)
	}
	if AddTypos(q, 2, "q1") == a && AddTypos(q, 3, "q1") == a {
		t.Error("seed does not change the typos")
	}
}

func FuzzPythonExtract(f *testing.F) {
	b, err := os.ReadFile("testdata/src/python/lib/m.py")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("def f(:\n  '''x")
	f.Fuzz(func(t *testing.T, src string) {
		ps, err := pyExtractor{}.Extract("f.py", []byte(src))
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.Query == "" || p.Line < 1 || !strings.Contains(p.Code, "def") {
				t.Fatalf("bad pair %+v", p)
			}
		}
	})
}

func FuzzGoExtract(f *testing.F) {
	b, err := os.ReadFile("testdata/src/go/pkg/a.go")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, src string) {
		ps, err := goExtractor{}.Extract("f.go", []byte(src))
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.Query == "" || !strings.HasPrefix(p.Code, "func") {
				t.Fatalf("bad pair %+v", p)
			}
		}
	})
}

func BenchmarkGoExtract(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(goroot(), "src", "strings", "strings.go"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := (goExtractor{}).Extract("strings.go", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAddTypos(b *testing.B) {
	q := "Returns the number of elements stored in the list, counting duplicates."
	for b.Loop() {
		AddTypos(q, 1, "q1")
	}
}
