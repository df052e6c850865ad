package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadTiny(t *testing.T) {
	ds, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Corpus) != 20 {
		t.Errorf("corpus: got %d docs, want 20", len(ds.Corpus))
	}
	// q9 has no judgement, so it is dropped; the other 8 stay in file order.
	if len(ds.Queries) != 8 || ds.Queries[0].ID != "q1" || ds.Queries[7].ID != "q8" {
		t.Errorf("queries: got %v", ds.Queries)
	}
	if got := ds.Qrels["q1"]["d02"]; got != 0 {
		t.Errorf("q1/d02 grade = %d, want 0", got)
	}
	if got := ds.Qrels["q4"]["d08"]; got != 2 {
		t.Errorf("q4/d08 grade = %d, want 2", got)
	}
	if got := ds.Qrels.RelevantDocs("q1"); len(got) != 1 || got[0] != "d01" {
		t.Errorf("RelevantDocs(q1) = %v, want [d01]", got)
	}
	if !strings.HasPrefix(ds.Checksum, "sha256:") || len(ds.Checksum) != 7+64 {
		t.Errorf("checksum %q", ds.Checksum)
	}
	if ds.Name != "tiny" || ds.Split != "test" {
		t.Errorf("name/split = %q/%q", ds.Name, ds.Split)
	}
}

func TestChecksumChangesWithContent(t *testing.T) {
	dir := t.TempDir()
	copyTiny(t, dir)
	a, err := Load(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Checksum != b.Checksum {
		t.Fatalf("same bytes, different checksums: %s vs %s", a.Checksum, b.Checksum)
	}
	f, err := os.OpenFile(filepath.Join(dir, "queries.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{\"_id\": \"q10\", \"text\": \"x\"}\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Checksum == a.Checksum || c.Checksums["queries"] == a.Checksums["queries"] {
		t.Fatal("checksum did not change after the queries file changed")
	}
	if c.Checksums["corpus"] != a.Checksums["corpus"] || c.Checksums["qrels"] != a.Checksums["qrels"] {
		t.Fatal("corpus or qrels checksum changed with the queries file")
	}
}

func copyTiny(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		b, err := os.ReadFile(filepath.Join("testdata/tiny", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseCorpusErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"bad json", `{"_id": "a", "text": }`, "c.jsonl:1: not a JSON object"},
		{"not object", `["a"]`, "c.jsonl:1: not a JSON object"},
		{"missing id", `{"text": "x"}`, `c.jsonl:1: missing field "_id"`},
		{"null id", `{"_id": null, "text": "x"}`, `c.jsonl:1: missing field "_id"`},
		{"empty id", `{"_id": " ", "text": "x"}`, `"_id" is empty`},
		{"float id", `{"_id": 1.5, "text": "x"}`, `"_id" must be a string or an integer`},
		{"tab in id", `{"_id": "a\tb", "text": "x"}`, `contains a tab`},
		{"missing text", `{"_id": "a", "title": "t"}`, `c.jsonl:1: missing field "text" (record "a")`},
		{"duplicate", "{\"_id\": \"a\", \"text\": \"x\"}\n\n{\"_id\": \"a\", \"text\": \"y\"}", `c.jsonl:3: duplicate "_id" "a" (first on line 1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCorpus(strings.NewReader(tc.in), "c.jsonl")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseCorpusAccepts(t *testing.T) {
	in := "{\"_id\": 7, \"text\": \"\", \"metadata\": {\"k\": 1}}\n{\"_id\": \"b\", \"title\": \"T\", \"text\": \"body\"}\r\n"
	docs, err := ParseCorpus(strings.NewReader(in), "c")
	if err != nil {
		t.Fatal(err)
	}
	want := []Doc{{ID: "7"}, {ID: "b", Title: "T", Text: "body"}}
	if len(docs) != 2 || docs[0] != want[0] || docs[1] != want[1] {
		t.Fatalf("got %+v, want %+v", docs, want)
	}
}

func TestParseQueriesErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty text", `{"_id": "q", "text": "  "}`, `q.jsonl:1: query "q" has an empty "text"`},
		{"missing text", `{"_id": "q"}`, `missing field "text"`},
		{"duplicate", "{\"_id\": \"q\", \"text\": \"x\"}\n{\"_id\": \"q\", \"text\": \"y\"}", `q.jsonl:2: duplicate "_id" "q"`},
		{"bad json", `{"_id": "q", "text": "x"`, `q.jsonl:1: not a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseQueries(strings.NewReader(tc.in), "q.jsonl")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseQrels(t *testing.T) {
	js, err := ParseQrels(strings.NewReader("query-id\tcorpus-id\tscore\nq1\td1\t2\r\n\nq1\td2\t-1\n"), "r.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Judgement{{"q1", "d1", 2, 2}, {"q1", "d2", -1, 4}}
	if len(js) != 2 || js[0] != want[0] || js[1] != want[1] {
		t.Fatalf("got %+v, want %+v", js, want)
	}
	// Without a header the first line is data.
	js, err = ParseQrels(strings.NewReader("q1\td1\t1\n"), "r.tsv")
	if err != nil || len(js) != 1 {
		t.Fatalf("headerless: %v %v", js, err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"non-integer", "q\td\t1.5", `r.tsv:1: score "1.5" is not an integer`},
		{"word score", "query-id\tcorpus-id\tscore\nq\td\thigh", `r.tsv:2: score "high" is not an integer`},
		{"two fields", "q\td", "r.tsv:1: want 3 tab-separated fields"},
		{"spaces not tabs", "q d 1", "r.tsv:1: want 3 tab-separated fields"},
		{"empty id", "\td\t1", "empty query-id or corpus-id"},
		{"duplicate", "q\td\t1\nq\td\t2", `r.tsv:2: duplicate judgement for query "q" and document "d" (first on line 1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseQrels(strings.NewReader(tc.in), "r.tsv")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, qrels, want string }{
		{"unknown query", "query-id\tcorpus-id\tscore\nq1\td01\t1\nqx\td01\t1\n", `test.tsv:3: query-id "qx" is not in`},
		{"unknown doc", "query-id\tcorpus-id\tscore\nq1\tdx\t1\n", `test.tsv:2: corpus-id "dx" is not in`},
		{"nothing relevant", "query-id\tcorpus-id\tscore\nq1\td01\t0\n", "no query has a relevant judgement"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTiny(t, dir)
			if err := os.WriteFile(filepath.Join(dir, "qrels/test.tsv"), []byte(tc.qrels), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir, LoadOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want error containing %q", err, tc.want)
			}
		})
	}
	_, err := Load("testdata/tiny", LoadOptions{Split: "dev"})
	if err == nil || !strings.Contains(err.Error(), "dev.tsv") {
		t.Fatalf("missing split: got %v", err)
	}
}

func FuzzParseCorpus(f *testing.F) {
	b, err := os.ReadFile("testdata/tiny/corpus.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{"_id": 1, "text": ""}`)
	f.Add(`{"_id": "a"}`)
	f.Fuzz(func(t *testing.T, in string) {
		docs, err := ParseCorpus(strings.NewReader(in), "f")
		if err != nil {
			if docs != nil {
				t.Fatalf("error %v came with %d partial documents", err, len(docs))
			}
			return
		}
		seen := map[DocID]bool{}
		for _, d := range docs {
			if d.ID == "" || seen[d.ID] {
				t.Fatalf("accepted empty or duplicate id %q", d.ID)
			}
			seen[d.ID] = true
		}
	})
}

func FuzzParseQueries(f *testing.F) {
	b, err := os.ReadFile("testdata/tiny/queries.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{"_id": "q", "text": " "}`)
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := ParseQueries(strings.NewReader(in), "f")
		if err != nil {
			if qs != nil {
				t.Fatalf("error %v came with partial queries", err)
			}
			return
		}
		seen := map[QueryID]bool{}
		for _, q := range qs {
			if q.ID == "" || seen[q.ID] || strings.TrimSpace(q.Text) == "" {
				t.Fatalf("accepted bad query %+v", q)
			}
			seen[q.ID] = true
		}
	})
}

func FuzzParseQrels(f *testing.F) {
	b, err := os.ReadFile("testdata/tiny/qrels/test.tsv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("q\td\t1\nq\td\t2")
	f.Add("q\td\tx")
	f.Fuzz(func(t *testing.T, in string) {
		js, err := ParseQrels(strings.NewReader(in), "f")
		if err != nil {
			if js != nil {
				t.Fatalf("error %v came with partial judgements", err)
			}
			return
		}
		seen := map[[2]string]bool{}
		for _, j := range js {
			k := [2]string{string(j.Query), string(j.Doc)}
			if j.Query == "" || j.Doc == "" || seen[k] || j.Line < 1 {
				t.Fatalf("accepted bad judgement %+v", j)
			}
			seen[k] = true
		}
	})
}

func BenchmarkParseCorpus(b *testing.B) {
	data, err := os.ReadFile("testdata/tiny/corpus.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseCorpus(strings.NewReader(string(data)), "c"); err != nil {
			b.Fatal(err)
		}
	}
}
