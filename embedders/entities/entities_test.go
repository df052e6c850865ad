package entities

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/internal/needle"
)

// TestExtractGolden runs Extract on real snippets in testdata; each file is
// the snippet, a line "=== expected", and the expected entity set.
func TestExtractGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text, exp, ok := strings.Cut(string(b), "=== expected\n")
			if !ok {
				t.Fatalf("%s has no === expected section", f)
			}
			want := map[string]bool{}
			for _, l := range strings.Fields(exp) {
				want[l] = true
			}
			got := Extract(text)
			t.Logf("%s: %d entities: %v", filepath.Base(f), len(got), got)
			for _, g := range got {
				if !want[g] {
					t.Errorf("unexpected entity %q", g)
				}
				delete(want, g)
			}
			for w := range want {
				t.Errorf("missing entity %q", w)
			}
		})
	}
}

func TestKnownNames(t *testing.T) {
	if n := Names(); n < 300 {
		t.Errorf("entities.txt has %d names, want about 300", n)
	}
	cases := []struct {
		tok, want string
		ok        bool
	}{
		{"RocksDB", "rocksdb", true}, {"ROCKSDB", "rocksdb", true}, {"Go", "go", true}, {"golang", "go", true},
		{"go", "", false}, {"k8s", "kubernetes", true}, {"PostgreSQL", "postgres", true}, {"Node.js", "node.js", true},
		{"express", "", false}, {"Express", "express", true}, {"react", "react", true}, {"nonsense", "", false},
	}
	for _, c := range cases {
		got, ok := known.lookup(c.tok)
		if got != c.want || ok != c.ok {
			t.Errorf("lookup(%q) = %q, %v; want %q, %v", c.tok, got, ok, c.want, c.ok)
		}
	}
}

func TestParseListRejects(t *testing.T) {
	for _, bad := range []string{"RocksDB\n", "go Go\ngolang Go\n", "redis\nredis\n"} {
		if _, err := parseList(bad); err == nil {
			t.Errorf("parseList(%q) accepted", bad)
		}
	}
}

func TestJaccard(t *testing.T) {
	cases := []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 0},
		{[]string{"a"}, nil, 0},
		{[]string{"a", "b"}, []string{"a", "b"}, 1},
		{[]string{"a", "b", "c"}, []string{"b", "c", "d"}, 0.5},
		{[]string{"a", "c", "e"}, []string{"b", "d"}, 0},
	}
	for _, c := range cases {
		if got := Jaccard(c.a, c.b); got != c.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	x := Extract("grocksdb v1.7.15 crashes with SIGSEGV in db.Put()")
	y := Extract("SIGSEGV from grocksdb after upgrading to v1.7.15")
	z := Extract("React useEffect runs twice in development")
	if j := Jaccard(x, y); j < 0.5 || Jaccard(x, z) != 0 {
		t.Errorf("related memories overlap %v, unrelated %v (sets %v / %v / %v)", j, Jaccard(x, z), x, y, z)
	}
}

func TestEmbedder(t *testing.T) {
	ctx := context.Background()
	es, err := Embedder{}.EmbedDocuments(ctx, []embedders.Input{{Text: "ENOENT opening config.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	var f fingerprint.Fingerprint
	if err := f.Set(fingerprint.E11, es[0]); err != nil {
		t.Fatalf("entry does not validate: %v", err)
	}
	if es[0].Status != fingerprint.StatusFallback || len(es[0].Value.(fingerprint.Entities).Names) != 2 {
		t.Errorf("entry %+v", es[0])
	}
	if _, err := (Embedder{}).EmbedQuery(ctx, embedders.Query{Text: "why is it slow"}); err == nil {
		t.Error("query without entities accepted")
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{"http.ListenAndServe(\":80\")", "v1.2.3", "/a/b.go:3:4", "HTTP 404", "exit status 2", "ÄÖ_ü.x("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Extract(s)
		var fp fingerprint.Fingerprint
		if err := fp.Set(fingerprint.E11, fingerprint.Entry{Status: fingerprint.StatusPresent, Value: fingerprint.Entities{Names: got}}); err != nil {
			t.Fatalf("Extract(%q) = %v does not validate: %v", s, got, err)
		}
		for _, e := range got {
			if k, n, ok := strings.Cut(e, ":"); !ok || k == "" || n == "" {
				t.Fatalf("entity %q has no kind", e)
			}
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "go_server.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		_ = Extract(string(src))
	}
}

// FuzzParseList: the list parser never panics, and every accepted list maps
// each surface form to a lower-case canonical name it declared.
func FuzzParseList(f *testing.F) {
	f.Add(entitiesTxt)
	f.Add("go Go golang\nredis\n# c\n")
	f.Add("A\n")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parseList(s)
		if err != nil {
			return
		}
		for sf, c := range l.exact {
			if c != strings.ToLower(c) || sf == "" {
				t.Fatalf("surface %q → %q", sf, c)
			}
		}
		for k, c := range l.fold {
			if k != c {
				t.Fatalf("fold key %q → %q", k, c)
			}
		}
	})
}

// TestNeedles: reHTTP's and reExit's literal prefilters never skip a
// match — every status phrase and form in several cases, the Unicode
// letters (?i) folds into ASCII, and the Go server fixture.
func TestNeedles(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "go_server.txt"))
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{string(src), "HTTP/1.1 404", "http 500", "Status: 503", "status code 429", "STATUS 200",
		"got 404 Not Found", "502 BAD GATEWAY", "409 conflict", "exit status 2", "exited with code 137", "EXIT CODE 1",
		"ſtatus 404", "exit \u212A", "plain code: x := y + 1"}
	for _, p := range []string{"Not Found", "Bad Request", "Unauthorized", "Forbidden", "Internal Server Error", "Bad Gateway",
		"Service Unavailable", "Gateway Timeout", "Too Many Requests", "Conflict", "Method Not Allowed", "Moved Permanently", "Not Modified"} {
		texts = append(texts, "503 "+p, "x 418 "+strings.ToUpper(p)+".")
	}
	for _, s := range texts {
		for _, re := range []needle.Regexp{reHTTP, reExit} {
			if got, want := re.FindAllStringSubmatch(s, -1), re.Regexp().FindAllStringSubmatch(s, -1); !reflect.DeepEqual(got, want) {
				t.Errorf("%s on %.40q: %q, the regexp finds %q", re.Regexp(), s, got, want)
			}
		}
	}
}

// FuzzNeedles: the prefilters never change what the expressions find.
func FuzzNeedles(f *testing.F) {
	for _, s := range []string{"HTTP/2 503", "exit status 1", "404 Not Found", "ſtatus: 500"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, re := range []needle.Regexp{reHTTP, reExit} {
			if got, want := re.FindAllStringSubmatch(s, -1), re.Regexp().FindAllStringSubmatch(s, -1); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on %q: %q, the regexp finds %q", re.Regexp(), s, got, want)
			}
		}
	})
}
