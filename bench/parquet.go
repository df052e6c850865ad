package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// This file reads dataset parts stored as parquet, the format of the
// Hugging Face hub's datasets (MTEB, CoIR). It uses parquet-go, a pure-Go
// reader, so no CGO or Arrow library is needed. Only flat columns are read,
// by name: "_id", "title", "text" for corpus and queries; "query-id",
// "corpus-id", "score" for qrels. Ids may be strings or integers (MTEB casts
// them to strings); scores may be integers or integral floats (MTEB casts
// them to float).

// parquetBatch is how many rows are decoded at a time.
const parquetBatch = 256

// parquetColumn names a column to read and whether a file must have it.
// parquetValue is one decoded cell.
type parquetValue = parquet.Value

type parquetColumn struct {
	name     string
	required bool
}

// readParquetRows calls row with the values of cols (in cols' order; a
// missing optional column gives null values) for every row of the parquet
// file at path, with the 1-based row number. A malformed file is an error
// naming it, never a panic.
func readParquetRows(path string, cols []parquetColumn, row func(vals []parquet.Value, n int) error) (err error) {
	f, err := openData(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	return readParquet(f, st.Size(), path, cols, row)
}

// readParquet is readParquetRows over any io.ReaderAt of size bytes.
func readParquet(r io.ReaderAt, size int64, name string, cols []parquetColumn, row func([]parquet.Value, int) error) (err error) {
	defer func() {
		if p := recover(); p != nil { // the library panics on some corrupt files
			err = fmt.Errorf("%s: malformed parquet file: %v", name, p)
		}
	}()
	pf, err := parquet.OpenFile(r, size)
	if err != nil {
		return fmt.Errorf("%s: not a readable parquet file: %w", name, err)
	}
	idx, err := parquetColumnIndexes(pf.Schema(), cols, name)
	if err != nil {
		return err
	}
	n := 0
	vals := make([]parquet.Value, len(cols))
	for _, rg := range pf.RowGroups() {
		if err := readRowGroup(rg, name, func(r parquet.Row) error {
			n++
			for i := range vals {
				vals[i] = parquet.NullValue()
			}
			for _, v := range r {
				if i, ok := idx[v.Column()]; ok {
					vals[i] = v
				}
			}
			return row(vals, n)
		}); err != nil {
			return err
		}
	}
	return nil
}

// parquetColumnIndexes maps the file's leaf column index of each wanted
// column to its position in cols, refusing missing required columns and
// nested (list or group) columns.
func parquetColumnIndexes(schema *parquet.Schema, cols []parquetColumn, name string) (map[int]int, error) {
	idx := map[int]int{}
	top := map[string]parquet.Field{}
	var names []string
	for _, f := range schema.Fields() {
		top[f.Name()] = f
		names = append(names, f.Name())
	}
	for i, c := range cols {
		f, ok := top[c.name]
		switch {
		case !ok && c.required:
			return nil, fmt.Errorf("%s: no column %q (the file has %v)", name, c.name, names)
		case !ok:
			continue
		case !f.Leaf() || f.Repeated():
			return nil, fmt.Errorf("%s: column %q is a list or a group; a flat column is needed", name, c.name)
		}
		leaf, ok := schema.Lookup(c.name)
		if !ok {
			return nil, fmt.Errorf("%s: column %q has no leaf", name, c.name)
		}
		idx[leaf.ColumnIndex] = i
	}
	return idx, nil
}

// readRowGroup calls fn for every row of one row group.
func readRowGroup(rg parquet.RowGroup, name string, fn func(parquet.Row) error) (err error) {
	rows := rg.Rows()
	defer func() {
		if cerr := rows.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("%s: %w", name, cerr)
		}
	}()
	buf := make([]parquet.Row, parquetBatch)
	for {
		k, rerr := rows.ReadRows(buf)
		for _, r := range buf[:k] {
			if err := fn(r); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("%s: read rows: %w", name, rerr)
		}
		if k == 0 {
			return fmt.Errorf("%s: the parquet reader made no progress", name)
		}
	}
}

// parquetText returns a string or integer value as text; null is ok=false.
func parquetText(v parquet.Value) (s string, ok bool, err error) {
	if v.IsNull() {
		return "", false, nil
	}
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray()), true, nil
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10), true, nil
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10), true, nil
	}
	return "", false, fmt.Errorf("a %s value, want a string or an integer", v.Kind())
}

// parquetGrade returns an integer relevance from an integer, an integral
// float or a decimal string.
func parquetGrade(v parquet.Value) (int, error) {
	switch v.Kind() {
	case parquet.Int32:
		return int(v.Int32()), nil
	case parquet.Int64:
		if x := v.Int64(); x >= math.MinInt32 && x <= math.MaxInt32 {
			return int(x), nil
		}
	case parquet.Float, parquet.Double:
		x := v.Double()
		if v.Kind() == parquet.Float {
			x = float64(v.Float())
		}
		if x == math.Trunc(x) && math.Abs(x) <= math.MaxInt32 {
			return int(x), nil
		}
	case parquet.ByteArray:
		return strconv.Atoi(string(v.ByteArray()))
	}
	if v.IsNull() {
		return 0, errors.New("score is null")
	}
	return 0, fmt.Errorf("score %v is not an integer: graded relevance must be 0, 1, 2, …", v)
}

// readParquetRecords reads corpus or queries rows ("_id", "title", "text")
// through the same checks as the JSONL readers, calling add per record.
func readParquetRecords(path string, add func(id string, title, text *string, n int) error) error {
	cols := []parquetColumn{{"_id", true}, {"title", false}, {"text", true}}
	return readParquetRows(path, cols, func(vals []parquet.Value, n int) error {
		id, ok, err := parquetText(vals[0])
		if err != nil || !ok {
			return fmt.Errorf("%s: row %d: \"_id\" must be a string or an integer (%v)", path, n, orNull(err))
		}
		if err := checkID(id, fmt.Sprintf("%s: row %d", path, n)); err != nil {
			return err
		}
		var title, text *string
		for i, p := range []**string{&title, &text} {
			s, ok, err := parquetText(vals[i+1])
			if err != nil {
				return fmt.Errorf("%s: row %d (record %q): %s is %w", path, n, id, cols[i+1].name, err)
			}
			if ok {
				*p = &s
			}
		}
		if text == nil {
			return fmt.Errorf("%s: row %d: \"text\" is null (record %q)", path, n, id)
		}
		return add(id, title, text, n)
	})
}

func orNull(err error) error {
	if err == nil {
		return errors.New("it is null")
	}
	return err
}

// ParseCorpusParquet reads a corpus parquet file: columns "_id", "text" and
// optional "title"; other columns are ignored. Ids must be unique.
func ParseCorpusParquet(path string) ([]Doc, error) {
	var docs []Doc
	seen := map[DocID]int{}
	err := readParquetRecords(path, func(id string, title, text *string, n int) error {
		if prev, ok := seen[DocID(id)]; ok {
			return fmt.Errorf("%s: row %d: duplicate \"_id\" %q (first in row %d): ids must be unique", path, n, id, prev)
		}
		seen[DocID(id)] = n
		d := Doc{ID: DocID(id), Text: *text}
		if title != nil {
			d.Title = *title
		}
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// ParseQueriesParquet reads a queries parquet file: columns "_id" and
// "text"; an empty text or a repeated id is an error.
func ParseQueriesParquet(path string) ([]Query, error) {
	var qs []Query
	seen := map[QueryID]int{}
	err := readParquetRecords(path, func(id string, _, text *string, n int) error {
		if isBlank(*text) {
			return fmt.Errorf("%s: row %d: query %q has an empty \"text\"", path, n, id)
		}
		if prev, ok := seen[QueryID(id)]; ok {
			return fmt.Errorf("%s: row %d: duplicate \"_id\" %q (first in row %d): ids must be unique", path, n, id, prev)
		}
		seen[QueryID(id)] = n
		qs = append(qs, Query{ID: QueryID(id), Text: *text})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return qs, nil
}

// ParseQrelsParquet reads a qrels parquet file: columns "query-id",
// "corpus-id" and "score". A (query, doc) pair may appear once; Line holds
// the row number.
func ParseQrelsParquet(path string) ([]Judgement, error) {
	var out []Judgement
	seen := map[[2]string]int{}
	cols := []parquetColumn{{"query-id", true}, {"corpus-id", true}, {"score", true}}
	err := readParquetRows(path, cols, func(vals []parquet.Value, n int) error {
		q, qok, qerr := parquetText(vals[0])
		d, dok, derr := parquetText(vals[1])
		if qerr != nil || derr != nil || !qok || !dok || isBlank(q) || isBlank(d) {
			return fmt.Errorf("%s: row %d: query-id and corpus-id must be non-empty strings or integers", path, n)
		}
		rel, err := parquetGrade(vals[2])
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", path, n, err)
		}
		key := [2]string{q, d}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%s: row %d: duplicate judgement for query %q and document %q (first in row %d)", path, n, q, d, prev)
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
