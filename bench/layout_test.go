package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sameSet checks that ds holds exactly the documents, evaluated queries and
// judgements of the tiny set; extra lists judgements ds may add.
func sameSet(t *testing.T, ds *Dataset, extra map[QueryID]map[DocID]int) {
	t.Helper()
	tiny, err := Load("testdata/tiny", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Corpus, tiny.Corpus) {
		t.Errorf("corpus differs from the tiny set's:\n%v\n%v", ds.Corpus, tiny.Corpus)
	}
	if !slices.Equal(ds.Queries, tiny.Queries) {
		t.Errorf("queries %v, want %v", ds.Queries, tiny.Queries)
	}
	for q, m := range tiny.Qrels {
		for d, rel := range m {
			if got, ok := ds.Qrels[q][d]; !ok || got != rel {
				t.Errorf("qrels %s/%s = %d (%v), want %d", q, d, got, ok, rel)
			}
		}
		if len(ds.Qrels[q]) != len(m)+len(extra[q]) {
			t.Errorf("qrels of %s: %v", q, ds.Qrels[q])
		}
	}
}

// TestLoadMTEBParquet reads the hub's MTEB layout written by pyarrow:
// corpus/, queries/ (two shards, one with integer ids) and data/ (qrels with
// a test and a dev split, naming one absent document).
func TestLoadMTEBParquet(t *testing.T) {
	ds, err := Load("testdata/mteb/parquet", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, ds, map[QueryID]map[DocID]int{"q2": {"d404": 1}})
	if len(ds.Warnings) != 1 || !strings.Contains(ds.Warnings[0], "1 judgements name 1 documents absent") {
		t.Errorf("warnings %q", ds.Warnings)
	}
	want := []string{"corpus/test-00000-of-00001.parquet", "queries/test-00000-of-00002.parquet", "queries/test-00001-of-00002.parquet", "data/test-00000-of-00001.parquet"}
	if len(ds.Files) != len(want) {
		t.Fatalf("files %v", ds.Files)
	}
	for i, w := range want {
		if ds.Files[i] != filepath.Join("testdata/mteb/parquet", w) {
			t.Errorf("file %d = %s, want %s", i, ds.Files[i], w)
		}
	}
	if ds.Checksums["queries"] == "" || ds.Name != "parquet" {
		t.Errorf("checksums %v, name %q", ds.Checksums, ds.Name)
	}
	dev, err := Load("testdata/mteb/parquet", LoadOptions{Split: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if len(dev.Queries) != 1 || dev.Qrels["q1"]["d02"] != 1 || len(dev.Corpus) != 20 {
		t.Errorf("dev split: %d queries, qrels %v", len(dev.Queries), dev.Qrels)
	}
	if _, err := Load("testdata/mteb/parquet", LoadOptions{Split: "train"}); err == nil || !strings.Contains(err.Error(), `no split "train" (it has dev, test)`) {
		t.Errorf("missing split: %v", err)
	}
}

// TestLoadMTEBJSONL reads the same layout as JSON Lines: a gzip corpus
// whose only split is named "corpus", and qrels with float scores.
func TestLoadMTEBJSONL(t *testing.T) {
	ds, err := Load("testdata/mteb/jsonl", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, ds, nil)
	if len(ds.Warnings) != 0 {
		t.Errorf("warnings %q", ds.Warnings)
	}
}

func TestSplitOf(t *testing.T) {
	for in, want := range map[string]string{
		"test-00000-of-00001.parquet": "test", "test.jsonl": "test", "dev.tsv.gz": "dev",
		"test/0000.parquet": "test", "corpus-00000-of-00001-6ab5c5.parquet": "corpus", "queries.jsonl": "queries",
	} {
		if got := splitOf(in); got != want {
			t.Errorf("splitOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParquetErrors(t *testing.T) {
	for _, tc := range []struct {
		file string
		read func(string) error
		want string
	}{
		{"no-text.parquet", corpusErr, `no column "text" (the file has [_id title])`},
		{"null-id.parquet", corpusErr, `row 1: "_id" must be a string or an integer (it is null)`},
		{"float-score.parquet", qrelsErr, "row 1: score 1.5 is not an integer"},
		{"list-id.parquet", corpusErr, `column "_id" is a list`},
		{"float-score.parquet", corpusErr, `no column "_id"`},
	} {
		err := tc.read(filepath.Join("testdata/mteb/bad", tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.want)
		}
	}
	b, err := os.ReadFile("testdata/mteb/parquet/corpus/test-00000-of-00001.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{0, 4, len(b) / 2, len(b) - 1} {
		err := readParquet(bytes.NewReader(b[:cut]), int64(cut), "cut.parquet", []parquetColumn{{"_id", true}}, func([]parquetValue, int) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "cut.parquet") {
			t.Errorf("file cut at %d bytes: %v", cut, err)
		}
	}
}

func corpusErr(p string) error { _, err := ParseCorpusParquet(p); return err }
func qrelsErr(p string) error  { _, err := ParseQrelsParquet(p); return err }

// FuzzReadParquet feeds mutated parquet files to the reader: a malformed
// file is an error naming it, never a panic.
func FuzzReadParquet(f *testing.F) {
	for _, p := range []string{"testdata/mteb/parquet/corpus/test-00000-of-00001.parquet", "testdata/mteb/parquet/data/dev-00000-of-00001.parquet"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	cols := []parquetColumn{{"_id", false}, {"text", false}, {"query-id", false}, {"score", false}}
	f.Fuzz(func(t *testing.T, in []byte) {
		rows := 0
		err := readParquet(bytes.NewReader(in), int64(len(in)), "f.parquet", cols, func(vals []parquetValue, n int) error {
			if len(vals) != len(cols) || n != rows+1 {
				t.Fatalf("row %d with %d values", n, len(vals))
			}
			rows = n
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), "f.parquet") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
