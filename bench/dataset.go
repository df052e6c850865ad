package bench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// DocID identifies a corpus document (BEIR `_id` in corpus.jsonl).
type DocID string

// QueryID identifies a query (BEIR `_id` in queries.jsonl).
type QueryID string

// Doc is one corpus document.
type Doc struct {
	ID    DocID
	Title string
	Text  string
}

// Query is one query.
type Query struct {
	ID   QueryID
	Text string
}

// Judgement is one qrels line: the relevance of a document to a query.
// Relevance is graded; values ≤ 0 mean "judged not relevant".
type Judgement struct {
	Query QueryID
	Doc   DocID
	Rel   int
	Line  int // 1-based line in the qrels file, for error messages
}

// Qrels maps a query to the graded relevance of each judged document.
type Qrels map[QueryID]map[DocID]int

// Dataset is a loaded retrieval set (BEIR or MTEB layout, see Load). It is immutable after Load
// and safe for concurrent reads.
type Dataset struct {
	Name     string // base name of the directory
	Dir      string
	Split    string
	Corpus   []Doc   // file order
	Queries  []Query // only queries with at least one relevant (rel > 0) judgement, file order
	Qrels    Qrels
	Checksum string // "sha256:<hex>" over the files read, see Checksum
	// Checksums holds one checksum per part: "corpus", "queries", "qrels".
	// Runs over the same corpus and qrels with other queries (e.g. typo
	// queries) can still be compared query by query.
	Checksums map[string]string
	Files     []string
	// QueriesFiles are the files the queries came from (a subset of Files).
	QueriesFiles []string
	// Warnings say what the loader forgave, e.g. qrels lines naming
	// documents or queries the files do not hold; reports repeat them.
	Warnings []string
}

// LoadOptions selects the files of a dataset. Zero values mean the defaults
// of the directory's layout.
type LoadOptions struct {
	Split       string // qrels split; default "test"
	QueriesFile string // default <dir>/queries.jsonl[.gz]
	QrelsFile   string // default <dir>/qrels/<Split>.tsv[.gz]; BEIR TSV or TREC qrels
}

// maxLine bounds a single JSONL line (a whole source file can be one document).
const maxLine = 64 << 20

// layout lists the files of each part of a dataset, in reading order.
type layout struct {
	corpus, queries, qrels []string
}

func (l layout) files() []string {
	return append(append(append([]string(nil), l.corpus...), l.queries...), l.qrels...)
}

// Load reads a dataset directory in BEIR layout: corpus.jsonl, queries.jsonl
// and qrels/<split>.tsv, each possibly gzip-compressed (corpus.jsonl.gz …);
// the qrels file may be BEIR TSV or TREC qrels. It keeps only the queries
// that have a relevant judgement (as BEIR's evaluation does: unjudged
// queries cannot be scored).
//
// Qrels lines naming a query or document the files do not hold are not
// refused: published sets have them (ArguAna, NFCorpus). As in pytrec_eval,
// a judged document absent from the corpus stays in the qrels, counted as
// relevant and never retrieved; a judged query absent from the queries file
// is skipped. Both are counted in Dataset.Warnings. Cost: the whole corpus
// is held in memory.
func Load(dir string, o LoadOptions) (*Dataset, error) {
	if o.Split == "" {
		o.Split = "test"
	}
	lay, err := findLayout(dir, o)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Name: filepath.Base(filepath.Clean(dir)), Dir: dir, Split: o.Split, Files: lay.files(), QueriesFiles: lay.queries}
	if ds.Corpus, err = readParts(lay.corpus, readCorpusFile, func(d Doc) string { return string(d.ID) }); err != nil {
		return nil, err
	}
	queries, err := readParts(lay.queries, readQueriesFile, func(q Query) string { return string(q.ID) })
	if err != nil {
		return nil, err
	}
	judgements, err := readParts(lay.qrels, readQrelsFile, nil)
	if err != nil {
		return nil, err
	}
	ds.judge(judgements, queries, lay)
	if len(ds.Queries) == 0 {
		return nil, fmt.Errorf("%s: no query has a relevant judgement (score > 0): check the split (%q) and the qrels file", strings.Join(lay.qrels, ", "), o.Split)
	}
	if err := ds.checksum(lay); err != nil {
		return nil, err
	}
	return ds, nil
}

// readParts reads every file of one part and concatenates them; with id set,
// an id repeated across files is refused (within a file, the parser does).
func readParts[T any](files []string, read func(string) ([]T, error), id func(T) string) ([]T, error) {
	var out []T
	first := map[string]string{}
	for _, f := range files {
		xs, err := read(f)
		if err != nil {
			return nil, err
		}
		for _, x := range xs {
			if id == nil {
				break
			}
			if prev, ok := first[id(x)]; ok && prev != f {
				return nil, fmt.Errorf("%s: id %q is also in %s: ids must be unique across a part's files", f, id(x), prev)
			}
			first[id(x)] = f
		}
		out = append(out, xs...)
	}
	return out, nil
}

// maxAbsentExamples bounds the ids a warning quotes.
const maxAbsentExamples = 5

// judge builds ds.Qrels and ds.Queries from the judgements: judgements of
// absent documents stay (relevant, unretrievable), those of absent queries
// are dropped; both are counted in ds.Warnings.
func (ds *Dataset) judge(judgements []Judgement, queries []Query, lay layout) {
	docs := make(map[DocID]bool, len(ds.Corpus))
	for _, d := range ds.Corpus {
		docs[d.ID] = true
	}
	qs := make(map[QueryID]bool, len(queries))
	for _, q := range queries {
		qs[q.ID] = true
	}
	absentDocs, absentQueries := newIDCount(), newIDCount()
	ds.Qrels = make(Qrels)
	for _, j := range judgements {
		if !qs[j.Query] {
			absentQueries.add(string(j.Query))
			continue
		}
		if !docs[j.Doc] {
			absentDocs.add(string(j.Doc))
		}
		m := ds.Qrels[j.Query]
		if m == nil {
			m = make(map[DocID]int)
			ds.Qrels[j.Query] = m
		}
		m[j.Doc] = j.Rel
	}
	for _, q := range queries {
		if hasRelevant(ds.Qrels[q.ID]) {
			ds.Queries = append(ds.Queries, q)
		}
	}
	qrels, corpus, qfile := strings.Join(lay.qrels, ", "), strings.Join(lay.corpus, ", "), strings.Join(lay.queries, ", ")
	if absentDocs.lines > 0 {
		ds.Warnings = append(ds.Warnings, fmt.Sprintf("%s: %d judgements name %d documents absent from %s (e.g. %s): they count as relevant and never retrieved, as in pytrec_eval",
			qrels, absentDocs.lines, len(absentDocs.ids), corpus, absentDocs.examples()))
	}
	if absentQueries.lines > 0 {
		ds.Warnings = append(ds.Warnings, fmt.Sprintf("%s: %d judgements name %d queries absent from %s (e.g. %s): those queries are skipped, as in pytrec_eval",
			qrels, absentQueries.lines, len(absentQueries.ids), qfile, absentQueries.examples()))
	}
}

// idCount counts judgement lines and the distinct ids they name, keeping the
// first few ids in file order.
type idCount struct {
	lines int
	ids   map[string]bool
	first []string
}

func newIDCount() *idCount { return &idCount{ids: map[string]bool{}} }

func (c *idCount) add(id string) {
	c.lines++
	if !c.ids[id] {
		c.ids[id] = true
		if len(c.first) < maxAbsentExamples {
			c.first = append(c.first, id)
		}
	}
}

func (c *idCount) examples() string { return strings.Join(c.first, ", ") }

func (ds *Dataset) checksum(lay layout) error {
	var err error
	if ds.Checksum, err = Checksum(ds.Files...); err != nil {
		return err
	}
	ds.Checksums = map[string]string{}
	for part, files := range map[string][]string{"corpus": lay.corpus, "queries": lay.queries, "qrels": lay.qrels} {
		if ds.Checksums[part], err = Checksum(files...); err != nil {
			return err
		}
	}
	return nil
}

func hasRelevant(m map[DocID]int) bool {
	for _, r := range m {
		if r > 0 {
			return true
		}
	}
	return false
}

func readFile[T any](path string, parse func(io.Reader, string) ([]T, error)) (out []T, err error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	return parse(f, path)
}

// Checksum returns "sha256:<hex>" over the given files, in the order given:
// for each file its base name, its length and its bytes. Two datasets with the
// same checksum have byte-identical files.
func Checksum(files ...string) (string, error) {
	h := sha256.New()
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("checksum dataset: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(p), len(b))
		h.Write(b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// jsonLines calls fn for every non-blank line of r with its 1-based number.
func jsonLines(r io.Reader, name string, fn func(line []byte, n int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(line, n); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d bytes: split the record", name, n+1, maxLine)
		}
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

// record is the union of corpus and query fields; pointers tell "missing" from "empty".
type record struct {
	ID    json.RawMessage `json:"_id"`
	Title *string         `json:"title"`
	Text  *string         `json:"text"`
}

// decodeRecord parses one JSONL object and its `_id`, which may be a JSON
// string or an integer (some MTEB exports use numbers).
func decodeRecord(line []byte, name string, n int) (string, record, error) {
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		return "", rec, fmt.Errorf("%s:%d: not a JSON object: %w", name, n, err)
	}
	if len(rec.ID) == 0 || string(rec.ID) == "null" {
		return "", rec, fmt.Errorf("%s:%d: missing field \"_id\": every line needs a unique \"_id\"", name, n)
	}
	var id string
	if err := json.Unmarshal(rec.ID, &id); err != nil {
		var num json.Number
		d := json.NewDecoder(bytes.NewReader(rec.ID))
		d.UseNumber()
		if err := d.Decode(&num); err != nil {
			return "", rec, fmt.Errorf("%s:%d: \"_id\" must be a string or an integer, got %s", name, n, rec.ID)
		}
		if _, err := strconv.ParseInt(num.String(), 10, 64); err != nil {
			return "", rec, fmt.Errorf("%s:%d: \"_id\" must be a string or an integer, got %s", name, n, rec.ID)
		}
		id = num.String()
	}
	if err := checkID(id, fmt.Sprintf("%s:%d", name, n)); err != nil {
		return "", rec, err
	}
	if rec.Text == nil {
		return "", rec, fmt.Errorf("%s:%d: missing field \"text\" (record %q)", name, n, id)
	}
	return id, rec, nil
}

// checkID refuses an empty id and one a qrels TSV could not name; where
// locates the record ("file:line").
func checkID(id, where string) error {
	if isBlank(id) {
		return fmt.Errorf("%s: \"_id\" is empty: give every record a unique id", where)
	}
	if strings.ContainsAny(id, "\t\n\r") {
		return fmt.Errorf("%s: \"_id\" %q contains a tab or newline, which the qrels TSV cannot name", where, id)
	}
	return nil
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// ParseCorpus parses a BEIR corpus.jsonl: one object per line with "_id",
// "text" and optional "title"; other fields are ignored. name is used in errors.
func ParseCorpus(r io.Reader, name string) ([]Doc, error) {
	var docs []Doc
	seen := map[DocID]int{}
	err := jsonLines(r, name, func(line []byte, n int) error {
		id, rec, err := decodeRecord(line, name, n)
		if err != nil {
			return err
		}
		if prev, ok := seen[DocID(id)]; ok {
			return fmt.Errorf("%s:%d: duplicate \"_id\" %q (first on line %d): ids must be unique", name, n, id, prev)
		}
		seen[DocID(id)] = n
		d := Doc{ID: DocID(id), Text: *rec.Text}
		if rec.Title != nil {
			d.Title = *rec.Title
		}
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// ParseQueries parses a BEIR queries.jsonl: one object per line with "_id"
// and "text"; other fields are ignored. An empty query text is an error.
func ParseQueries(r io.Reader, name string) ([]Query, error) {
	var qs []Query
	seen := map[QueryID]int{}
	err := jsonLines(r, name, func(line []byte, n int) error {
		id, rec, err := decodeRecord(line, name, n)
		if err != nil {
			return err
		}
		if strings.TrimSpace(*rec.Text) == "" {
			return fmt.Errorf("%s:%d: query %q has an empty \"text\"", name, n, id)
		}
		if prev, ok := seen[QueryID(id)]; ok {
			return fmt.Errorf("%s:%d: duplicate \"_id\" %q (first on line %d): ids must be unique", name, n, id, prev)
		}
		seen[QueryID(id)] = n
		qs = append(qs, Query{ID: QueryID(id), Text: *rec.Text})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return qs, nil
}

// ParseQrels parses a BEIR qrels TSV: an optional header line
// "query-id<TAB>corpus-id<TAB>score", then one judgement per line with an
// integer score. A (query, doc) pair may appear once. Blank lines are skipped.
func ParseQrels(r io.Reader, name string) ([]Judgement, error) {
	var out []Judgement
	seen := map[[2]string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want 3 tab-separated fields (query-id, corpus-id, score), got %d in %q", name, n, len(f), line)
		}
		if n == 1 && len(out) == 0 && f[2] == "score" {
			continue // header
		}
		q, d := strings.TrimSpace(f[0]), strings.TrimSpace(f[1])
		if q == "" || d == "" {
			return nil, fmt.Errorf("%s:%d: empty query-id or corpus-id in %q", name, n, line)
		}
		rel, err := strconv.Atoi(strings.TrimSpace(f[2]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: score %q is not an integer: graded relevance must be 0, 1, 2, …", name, n, f[2])
		}
		key := [2]string{q, d}
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s:%d: duplicate judgement for query %q and document %q (first on line %d)", name, n, q, d, prev)
		}
		seen[key] = n
		out = append(out, Judgement{Query: QueryID(q), Doc: DocID(d), Rel: rel, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return out, nil
}

// RelevantDocs returns the documents judged relevant (rel > 0) to q, sorted.
func (q Qrels) RelevantDocs(id QueryID) []DocID {
	var out []DocID
	for d, r := range q[id] {
		if r > 0 {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
