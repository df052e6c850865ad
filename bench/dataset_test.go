package bench

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
		{"only absent queries", "query-id\tcorpus-id\tscore\nqx\td01\t1\n", "no query has a relevant judgement"},
		{"neither format", "q1 d01\n", "neither a BEIR qrels line"},
		{"bad gzip", "\x1f\x8b\x08garbage", "not a valid gzip file"},
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
	dir := t.TempDir()
	copyTiny(t, dir)
	b, _ := os.ReadFile("testdata/beir-gz/corpus.jsonl.gz")
	if err := os.WriteFile(filepath.Join(dir, "corpus.jsonl.gz"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "has both corpus.jsonl and corpus.jsonl.gz") {
		t.Errorf("plain and gzip corpus side by side: %v", err)
	}
	if _, err := Load(t.TempDir(), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "no corpus file in") {
		t.Errorf("empty directory: %v", err)
	}
}

// TestLoadGzipWithAbsentQrelsIDs reads a BEIR set shipped gzip-compressed
// (corpus.jsonl.gz, queries.jsonl.gz, qrels/test.tsv.gz) whose qrels name a
// document and a query the files lack, as ArguAna's and NFCorpus's do: the
// absent document stays relevant and unretrievable, the absent query is
// skipped, and both are counted in the warnings.
func TestLoadGzipWithAbsentQrelsIDs(t *testing.T) {
	ds, err := Load("testdata/beir-gz", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Corpus) != 20 || len(ds.Queries) != 8 {
		t.Fatalf("%d docs, %d queries", len(ds.Corpus), len(ds.Queries))
	}
	if ds.Qrels["q1"]["d99"] != 1 || ds.Qrels["q99"] != nil {
		t.Errorf("qrels q1 %v, q99 %v: want d99 kept for q1 and q99 dropped", ds.Qrels["q1"], ds.Qrels["q99"])
	}
	want := []string{
		"2 judgements name 2 documents absent from testdata/beir-gz/corpus.jsonl.gz (e.g. d99, d98)",
		"2 judgements name 1 queries absent from testdata/beir-gz/queries.jsonl.gz (e.g. q99): those queries are skipped",
	}
	if len(ds.Warnings) != 2 || !strings.Contains(ds.Warnings[0], want[0]) || !strings.Contains(ds.Warnings[1], want[1]) {
		t.Errorf("warnings %q, want %q", ds.Warnings, want)
	}
	// pytrec_eval's semantics: q1 has two relevant documents, one of which
	// no ranking can hold, so a perfect ranking recalls half.
	if r := Recall([]DocID{"d01"}, ds.Qrels["q1"], 10); r != 0.5 {
		t.Errorf("recall of q1 = %v, want 0.5", r)
	}
	if !strings.HasSuffix(ds.Files[0], "corpus.jsonl.gz") || !strings.HasSuffix(ds.Files[2], "test.tsv.gz") {
		t.Errorf("files %v", ds.Files)
	}
}

// TestLoadTRECQrels: the same judgements as TREC qrels (qid 0 docid rel,
// tabs and a Q0 iteration in places) load to the same Qrels as the BEIR TSV.
func TestLoadTRECQrels(t *testing.T) {
	beir, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	trec, err := Load("testdata/tiny", LoadOptions{QrelsFile: "testdata/qrels-trec/tiny.qrels"})
	if err != nil {
		t.Fatal(err)
	}
	if len(trec.Qrels) != len(beir.Qrels) || len(trec.Queries) != len(beir.Queries) {
		t.Fatalf("TREC qrels: %d queries judged, BEIR %d", len(trec.Qrels), len(beir.Qrels))
	}
	for q, m := range beir.Qrels {
		if !maps.Equal(m, trec.Qrels[q]) {
			t.Errorf("query %s: TREC %v, BEIR %v", q, trec.Qrels[q], m)
		}
	}
	if trec.Checksums["corpus"] != beir.Checksums["corpus"] || trec.Checksums["qrels"] == beir.Checksums["qrels"] {
		t.Errorf("checksums %v vs %v", trec.Checksums, beir.Checksums)
	}
}

func TestParseTRECQrels(t *testing.T) {
	js, err := ParseTRECQrels(strings.NewReader("q1 0 d1 2\n\nq1\tQ0\td2\t-1\r\n"), "r.qrels")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Judgement{{"q1", "d1", 2, 1}, {"q1", "d2", -1, 3}}; !slices.Equal(js, want) {
		t.Fatalf("got %+v, want %+v", js, want)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"three fields", "q 0 d", "r.qrels:1: want 4 whitespace-separated fields"},
		{"five fields", "q 0 d 1 x", "got 5"},
		{"float", "q 0 d 0.5", `r.qrels:1: relevance "0.5" is not an integer`},
		{"duplicate", "q 0 d 1\nq 1 d 2", `r.qrels:2: duplicate judgement for query "q" and document "d" (first on line 1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTRECQrels(strings.NewReader(tc.in), "r.qrels")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseQrelsJSONL(t *testing.T) {
	js, err := ParseQrelsJSONL(strings.NewReader(`{"query-id": "q1", "corpus-id": 7, "score": 2.0}`+"\n"+`{"query-id": 3, "corpus-id": "d", "score": 0}`), "q.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Judgement{{"q1", "7", 2, 1}, {"3", "d", 0, 2}}; !slices.Equal(js, want) {
		t.Fatalf("got %+v, want %+v", js, want)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"query-id": "q", "corpus-id": "d", "score": 0.5}`, "q.jsonl:1: score 0.5 is not an integer"},
		{`{"query-id": "q", "corpus-id": "d"}`, "score (missing) is not an integer"},
		{`{"query-id": "", "corpus-id": "d", "score": 1}`, "must be non-empty strings or integers"},
		{`{"query-id": 1.5, "corpus-id": "d", "score": 1}`, "must be non-empty strings or integers"},
		{`[1]`, "not a JSON object"},
		{`{"query-id": "q", "corpus-id": "d", "score": 1}` + "\n" + `{"query-id": "q", "corpus-id": "d", "score": 2}`, "q.jsonl:2: duplicate judgement"},
	} {
		if _, err := ParseQrelsJSONL(strings.NewReader(tc.in), "q.jsonl"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDetectQrelsFormat(t *testing.T) {
	for _, tc := range []struct {
		line string
		want QrelsFormat
	}{
		{"query-id\tcorpus-id\tscore", QrelsBEIR}, {"q1\td 1\t1", QrelsBEIR}, {"q1 0 d1 1", QrelsTREC},
		{"q1\t0\td1\t1\r", QrelsTREC}, {"  q1  Q0 d1   1", QrelsTREC}, {` {"query-id": "q"}`, QrelsJSONL},
	} {
		if got, err := DetectQrelsFormat(tc.line, "f"); err != nil || got != tc.want {
			t.Errorf("%q: %v %v, want %v", tc.line, got, err, tc.want)
		}
	}
	if _, err := DetectQrelsFormat("q1 d1 1", "f"); err == nil {
		t.Error("three space-separated fields accepted")
	}
}

func FuzzParseTRECQrels(f *testing.F) {
	b, err := os.ReadFile("testdata/qrels-trec/tiny.qrels")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("q 0 d 1\nq 0 d 2")
	f.Add("q 0 d x")
	f.Fuzz(func(t *testing.T, in string) {
		js, err := ParseTRECQrels(strings.NewReader(in), "f")
		if err != nil {
			if js != nil {
				t.Fatalf("error %v came with partial judgements", err)
			}
			return
		}
		seen := map[[2]string]bool{}
		for _, j := range js {
			k := [2]string{string(j.Query), string(j.Doc)}
			if j.Query == "" || j.Doc == "" || seen[k] || j.Line < 1 || strings.ContainsAny(k[0]+k[1], " \t\n") {
				t.Fatalf("accepted bad judgement %+v", j)
			}
			seen[k] = true
		}
	})
}

// FuzzParseQrelsAuto feeds plain and gzip-compressed qrels of either format:
// detection and decompression never panic, and what parses is well formed.
func FuzzParseQrelsAuto(f *testing.F) {
	for _, p := range []string{"testdata/tiny/qrels/test.tsv", "testdata/qrels-trec/tiny.qrels", "testdata/beir-gz/qrels/test.tsv.gz", "testdata/mteb/jsonl/qrels/test.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\n\n  \nq 0 d 1"))
	f.Fuzz(func(t *testing.T, in []byte) {
		js, err := ParseQrelsAuto(bytes.NewReader(in), "f")
		if err != nil {
			if js != nil {
				t.Fatalf("error %v came with partial judgements", err)
			}
			return
		}
		for _, j := range js {
			if j.Query == "" || j.Doc == "" || j.Line < 1 {
				t.Fatalf("accepted bad judgement %+v", j)
			}
		}
	})
}

// FuzzParseJSONLGz feeds arbitrary bytes, plain or gzip, to the corpus
// reader: a corrupt or truncated stream is an error, never a panic or a
// half-loaded corpus.
func FuzzParseJSONLGz(f *testing.F) {
	for _, p := range []string{"testdata/tiny/corpus.jsonl", "testdata/beir-gz/corpus.jsonl.gz"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	gz, _ := os.ReadFile("testdata/beir-gz/corpus.jsonl.gz")
	f.Add(gz[:len(gz)/2]) // truncated
	f.Fuzz(func(t *testing.T, in []byte) {
		docs, err := ParseJSONLGz(bytes.NewReader(in), "f", ParseCorpus)
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
