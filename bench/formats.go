package bench

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// This file holds the text formats a dataset part may come in besides BEIR's
// plain JSONL and TSV: gzip-compressed files (any part, detected by the gzip
// magic bytes, whatever the file is called) and TREC qrels
// ("qid iter docid rel", whitespace-separated, as trec_eval reads them).

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// decompressed returns r, or a gzip reader over it when r starts with the
// gzip magic bytes. close releases the gzip reader (not r).
func decompressed(r io.Reader, name string) (io.Reader, func() error, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(len(gzipMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !bytes.Equal(head, gzipMagic) {
		return br, func() error { return nil }, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a valid gzip file: %w", name, err)
	}
	return zr, zr.Close, nil
}

// ParseJSONLGz parses a corpus or queries part that may be gzip-compressed
// (corpus.jsonl.gz, as BEIR and MTEB ship them) with parse; a truncated or
// corrupt gzip stream is an error naming the file.
func ParseJSONLGz[T any](r io.Reader, name string, parse func(io.Reader, string) ([]T, error)) ([]T, error) {
	dr, closeZ, err := decompressed(r, name)
	if err != nil {
		return nil, err
	}
	out, err := parse(dr, name)
	if cerr := closeZ(); err == nil && cerr != nil {
		return nil, fmt.Errorf("%s: %w", name, cerr)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// QrelsFormat names a qrels text format.
type QrelsFormat string

// The qrels text formats ParseQrelsAuto tells apart.
const (
	QrelsBEIR QrelsFormat = "beir" // query-id<TAB>corpus-id<TAB>score, optional header
	QrelsTREC QrelsFormat = "trec" // qid iter docid rel, whitespace-separated
	// QrelsJSONL is the JSON Lines form of the Hugging Face hub:
	// {"query-id": …, "corpus-id": …, "score": …} per line.
	QrelsJSONL QrelsFormat = "jsonl"
)

// DetectQrelsFormat looks at the first non-blank line of a qrels file: three
// tab-separated fields are BEIR's TSV, four whitespace-separated fields are
// TREC's. Anything else is an error saying what both look like.
func DetectQrelsFormat(firstLine, name string) (QrelsFormat, error) {
	line := strings.TrimRight(firstLine, "\r")
	switch {
	case strings.HasPrefix(strings.TrimSpace(line), "{"):
		return QrelsJSONL, nil
	case len(strings.Split(line, "\t")) == 3:
		return QrelsBEIR, nil
	case len(strings.Fields(line)) == 4:
		return QrelsTREC, nil
	}
	return "", fmt.Errorf("%s:1: %q is neither a BEIR qrels line (query-id<TAB>corpus-id<TAB>score), a TREC qrels line (qid 0 docid rel) nor a JSON object", name, line)
}

// ParseQrelsAuto parses a qrels file in BEIR TSV, TREC or JSON Lines format
// (see DetectQrelsFormat), gzip-compressed or not.
func ParseQrelsAuto(r io.Reader, name string) (_ []Judgement, err error) {
	dr, closeZ, err := decompressed(r, name)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := closeZ(); err == nil && cerr != nil {
			err = fmt.Errorf("%s: %w", name, cerr)
		}
	}()
	first, all, err := firstNonBlankLine(dr, name)
	if err != nil || first == "" {
		return nil, err // an empty file has no judgements: Load says so
	}
	format, err := DetectQrelsFormat(first, name)
	if err != nil {
		return nil, err
	}
	switch format {
	case QrelsTREC:
		return ParseTRECQrels(all, name)
	case QrelsJSONL:
		return ParseQrelsJSONL(all, name)
	}
	return ParseQrels(all, name)
}

// maxFirstLine bounds the line DetectQrelsFormat looks at.
const maxFirstLine = 1 << 16

// firstNonBlankLine reads up to the first line with content and returns it
// with a reader that yields r from its start again (so line numbers hold);
// first is "" when r has no such line.
func firstNonBlankLine(r io.Reader, name string) (first string, all io.Reader, err error) {
	br := bufio.NewReaderSize(r, maxFirstLine)
	var head bytes.Buffer
	for {
		line, err := br.ReadSlice('\n')
		head.Write(line)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return "", nil, fmt.Errorf("%s: a line before the first judgement is longer than %d bytes", name, maxFirstLine)
		case err != nil && !errors.Is(err, io.EOF):
			return "", nil, fmt.Errorf("read %s: %w", name, err)
		}
		if t := strings.TrimRight(string(line), "\r\n"); strings.TrimSpace(t) != "" {
			return t, io.MultiReader(&head, br), nil
		}
		if err != nil { // EOF with nothing but blank lines
			return "", nil, nil
		}
	}
}

// ParseTRECQrels parses TREC qrels: one judgement per line, four
// whitespace-separated fields "qid iter docid rel", the iteration field
// ignored (it is 0 or Q0 in practice), rel an integer. A (query, doc) pair
// may appear once. Blank lines are skipped; nothing is half loaded.
func ParseTRECQrels(r io.Reader, name string) ([]Judgement, error) {
	var out []Judgement
	seen := map[[2]string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 whitespace-separated fields (qid iter docid rel), got %d in %q", name, n, len(f), sc.Text())
		}
		rel, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: relevance %q is not an integer: graded relevance must be 0, 1, 2, …", name, n, f[3])
		}
		key := [2]string{f[0], f[2]}
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s:%d: duplicate judgement for query %q and document %q (first on line %d)", name, n, f[0], f[2], prev)
		}
		seen[key] = n
		out = append(out, Judgement{Query: QueryID(f[0]), Doc: DocID(f[2]), Rel: rel, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return out, nil
}

// jsonQrel is one line of JSON Lines qrels; ids and score stay raw so
// strings, integers and integral floats are all accepted.
type jsonQrel struct {
	Query json.RawMessage `json:"query-id"`
	Doc   json.RawMessage `json:"corpus-id"`
	Score json.RawMessage `json:"score"`
}

// ParseQrelsJSONL parses qrels as JSON Lines, the hub's JSON form:
// {"query-id": "q1", "corpus-id": "d1", "score": 1} per line. Ids may be
// strings or integers; the score an integer or an integral float (MTEB
// stores scores as floats). A (query, doc) pair may appear once.
func ParseQrelsJSONL(r io.Reader, name string) ([]Judgement, error) {
	var out []Judgement
	seen := map[[2]string]int{}
	err := jsonLines(r, name, func(line []byte, n int) error {
		var jq jsonQrel
		if err := json.Unmarshal(line, &jq); err != nil {
			return fmt.Errorf("%s:%d: not a JSON object: %w", name, n, err)
		}
		q, qerr := jsonID(jq.Query)
		d, derr := jsonID(jq.Doc)
		if qerr != nil || derr != nil || isBlank(q) || isBlank(d) {
			return fmt.Errorf("%s:%d: \"query-id\" and \"corpus-id\" must be non-empty strings or integers", name, n)
		}
		rel, err := jsonGrade(jq.Score)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		key := [2]string{q, d}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%s:%d: duplicate judgement for query %q and document %q (first on line %d)", name, n, q, d, prev)
		}
		seen[key] = n
		out = append(out, Judgement{Query: QueryID(q), Doc: DocID(d), Rel: rel, Line: n})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// jsonID decodes a JSON string or integer id.
func jsonID(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("id %s is not a string or an integer", raw)
	}
	return strconv.FormatInt(n, 10), nil
}

// jsonGrade decodes an integer or integral-float relevance.
func jsonGrade(raw json.RawMessage) (int, error) {
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil || x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
		return 0, fmt.Errorf("score %s is not an integer: graded relevance must be 0, 1, 2, …", orMissing(raw))
	}
	return int(x), nil
}

func orMissing(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(missing)"
	}
	return string(raw)
}

// openData opens a dataset file for reading.
func openData(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open dataset file: %w", err)
	}
	return f, nil
}
