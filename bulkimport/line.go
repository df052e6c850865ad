package bulkimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/cgraph/cgraph/record"
)

// jsonlMemory is one line of add --jsonl. Fields not listed here are
// refused, so a misspelt field is not silently dropped.
type jsonlMemory struct {
	ID         string            `json:"id"`       // an export's id, kept on import
	Sequence   uint64            `json:"sequence"` // an export's position in its session
	Content    *string           `json:"content"`
	Type       string            `json:"type"`
	Tags       []string          `json:"tags"`
	Session    string            `json:"session"`
	Source     string            `json:"source"`
	CreatedAt  string            `json:"created_at"`
	Importance *float64          `json:"importance"`
	Project    string            `json:"project"`
	Meta       map[string]string `json:"meta"`
	// Relation makes the line a relation between two memories of the
	// file or the store (export writes them after every memory).
	Relation *RelationLine `json:"relation"`
}

// RelationLine is the "relation" object of a JSONL line (export writes
// it, Import reads it).
type RelationLine struct {
	From      string              `json:"from"`
	To        string              `json:"to"`
	Type      record.RelationType `json:"type"`
	Weight    float64             `json:"weight"`
	CreatedAt string              `json:"created_at"`
}

const jsonlFields = "content, type, tags, session, source, created_at, importance, project, meta (and id, sequence, relation as export writes them)"

// readLine reads one line without its ending ("\n" or "\r\n"). A line
// longer than max bytes (ending excluded) is consumed and reported as
// tooLong, holding at most max+2 bytes of it in memory. err is io.EOF after
// the last line.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) <= max+2 {
			line = append(line, chunk...)
		} else {
			tooLong, line = true, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > max {
			tooLong, line = true, nil
		}
		return line, tooLong, err
	}
}

// parseJSONLine decodes one JSONL memory line; errors name the field and
// say how to fix the line. A relation line is refused.
func parseJSONLine(line []byte) (record.NewMemory, error) {
	n, rel, err := parseLine(line)
	if err == nil && rel != nil {
		return n, errors.New("a relation line where a memory was expected")
	}
	return n, err
}

// parseLine decodes one JSONL line: a memory, or (with "relation") a
// relation between two memories.
func parseLine(line []byte) (record.NewMemory, *record.Relation, error) {
	if !utf8.Valid(line) {
		// encoding/json would silently turn bad bytes into U+FFFD.
		return record.NewMemory{}, nil, errors.New("the line is not valid UTF-8: convert the file to UTF-8 (e.g. iconv -t UTF-8)")
	}
	if err := record.CheckRawJSON(line); err != nil { // a lone surrogate escape: U+FFFD once decoded
		return record.NewMemory{}, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var j jsonlMemory
	if err := dec.Decode(&j); err != nil {
		return record.NewMemory{}, nil, jsonLineError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return record.NewMemory{}, nil, errors.New("text after the JSON object: put one object per line")
	}
	if j.Relation != nil {
		if j.Content != nil {
			return record.NewMemory{}, nil, errors.New(`a line is a memory ("content") or a relation ("relation"), not both`)
		}
		r, err := j.Relation.parse()
		return record.NewMemory{}, &r, err
	}
	n, err := j.memory()
	return n, nil, err
}

func (l RelationLine) parse() (record.Relation, error) {
	r := record.Relation{Type: l.Type, Weight: l.Weight}
	var err error
	if r.From, err = record.ParseID(l.From); err != nil {
		return r, fmt.Errorf("relation.from: %w", err)
	}
	if r.To, err = record.ParseID(l.To); err != nil {
		return r, fmt.Errorf("relation.to: %w", err)
	}
	for _, end := range []struct {
		field string
		id    record.ID
	}{{"relation.from", r.From}, {"relation.to", r.To}} {
		if end.id.IsZero() {
			return r, &record.ValidationError{Field: end.field, Problem: "is the nil id, which no memory has", Fix: "give the id of a memory of the file or the store"}
		}
	}
	if !r.Type.Known() {
		return r, &record.ValidationError{Field: "relation.type", Problem: "is missing", Fix: "use one of " + record.RelationTypeNames()}
	}
	if r.Weight == 0 {
		r.Weight = record.DefaultRelationWeight
	}
	if err := record.CheckWeight(r.Weight); err != nil {
		return r, err
	}
	if l.CreatedAt != "" {
		if r.CreatedAt, err = record.ParseCreatedAt(l.CreatedAt); err != nil {
			return r, fmt.Errorf("relation.created_at: %w", err)
		}
	}
	return r, nil
}

// memory is the memory a JSONL memory line describes.
func (j jsonlMemory) memory() (record.NewMemory, error) {
	if j.Content == nil {
		return record.NewMemory{}, &record.ValidationError{Field: "content", Problem: "is missing", Fix: `every line needs a "content" field`}
	}
	n := record.NewMemory{Content: *j.Content, Tags: j.Tags, Session: j.Session, Source: j.Source, Sequence: j.Sequence, Project: j.Project, Meta: j.Meta}
	if j.ID != "" {
		id, err := record.ParseID(j.ID)
		if err != nil {
			return n, err
		}
		n.ID = id
	}
	if j.Type != "" {
		t, err := record.ParseType(j.Type)
		if err != nil {
			return n, err
		}
		n.Type = t
	}
	t, err := record.ParseCreatedAt(j.CreatedAt)
	if err != nil {
		return n, err
	}
	n.CreatedAt = t
	if j.Importance != nil {
		if *j.Importance == 0 {
			return n, &record.ValidationError{Field: "importance", Problem: "0 cannot be stored (it means the default 0.5)", Fix: "give a small positive number such as 0.01, or leave it out"}
		}
		n.Importance = *j.Importance
	}
	return n, nil
}

// jsonLineError rewrites encoding/json's errors for a JSONL line.
func jsonLineError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON (%v at byte %d): write one JSON object per line", se, se.Offset)
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf("a JSON %s, not an object: write one object per line, like {\"content\": \"...\"}", te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("field %q is a JSON %s, want %s: fix its value", te.Field, te.Value, jsonKind(te.Type.Kind().String()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON object is cut off: finish it on the same line")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("%s: use only %s", strings.TrimPrefix(err.Error(), "json: "), jsonlFields)
	}
	return fmt.Errorf("not valid JSON (%v): write one JSON object per line", err)
}

func jsonKind(k string) string {
	switch k {
	case "slice":
		return "an array of strings"
	case "float64":
		return "a number"
	case "ptr":
		return "a string"
	}
	return "a " + k
}

// CountLines counts the lines of r as readLine splits them (a last line
// without a newline counts).
func CountLines(r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	last := byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last = buf[k-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
