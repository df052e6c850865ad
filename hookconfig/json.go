package hookconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The hosts' configuration files belong to their users: cgraph rewrites
// them keeping what encoding/json's maps would lose. A file is decoded
// into ordered values (jsonObject keeps its members in the file's order,
// numbers stay json.Number text) and encoded again with the file's own
// indentation, so a file written the way the hosts write theirs (one
// member a line, a fixed indent) comes back byte for byte; a hand-packed
// one (an array on one line) comes back re-indented. Uninstall restores the
// backup's exact bytes when nothing but cgraph's entries changed since
// (file.go).

// jsonObject is a JSON object that keeps its members in order.
type jsonObject struct{ members []jsonMember }

type jsonMember struct {
	key string
	val any // *jsonObject, []any, string, json.Number, bool or nil
}

// get returns the value of key.
func (o *jsonObject) get(key string) (any, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// set replaces the value of key in place, or appends the member.
func (o *jsonObject) set(key string, val any) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].val = val
			return
		}
	}
	o.members = append(o.members, jsonMember{key, val})
}

// del removes key and reports whether it was there.
func (o *jsonObject) del(key string) bool {
	for i, m := range o.members {
		if m.key == key {
			o.members = append(o.members[:i], o.members[i+1:]...)
			return true
		}
	}
	return false
}

// parseOrderedJSON decodes one JSON value. A syntax error names its line
// and column.
func parseOrderedJSON(b []byte) (any, error) {
	var probe any
	if err := json.Unmarshal(b, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(b, se.Offset)
			return nil, fmt.Errorf("line %d, column %d: %v", line, col, se)
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return decodeOrdered(dec)
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &jsonObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				o.set(kt.(string), v) // a repeated key keeps its first place and its last value, as JSON.parse does
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(b []byte, off int64) (line, col int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, col
}

// encodeCompact writes v without white space, keeping member order and
// leaving <, > and & as they are (encoding/json would escape them).
func encodeCompact(w *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case *jsonObject:
		w.WriteByte('{')
		for i, m := range t.members {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := encodeString(w, m.key); err != nil {
				return err
			}
			w.WriteByte(':')
			if err := encodeCompact(w, m.val); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	case []any:
		w.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := encodeCompact(w, e); err != nil {
				return err
			}
		}
		w.WriteByte(']')
	case string:
		return encodeString(w, t)
	case json.Number:
		w.WriteString(t.String())
	case bool, nil, int:
		b, _ := json.Marshal(t) // cannot fail for these types
		w.Write(b)
	default:
		return fmt.Errorf("cannot encode %T in a settings file", v)
	}
	return nil
}

func encodeString(w *bytes.Buffer, s string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return err
	}
	w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return nil
}

// jsonStyle is how a file is laid out: its indent and whether it ends in
// a newline.
type jsonStyle struct {
	indent  string
	newline bool
}

// defaultJSONStyle is how the hosts write their files: two spaces.
var defaultJSONStyle = jsonStyle{indent: "  ", newline: true}

// styleOf reads a file's indentation from its first indented line.
func styleOf(b []byte) jsonStyle {
	s := defaultJSONStyle
	if len(bytes.TrimSpace(b)) == 0 {
		return s
	}
	s.newline = bytes.HasSuffix(b, []byte("\n"))
	for _, line := range strings.Split(string(b), "\n")[1:] {
		ws := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if ws != "" && strings.TrimSpace(line) != "" {
			s.indent = ws
			break
		}
	}
	return s
}

// encodeStyled encodes v indented in style s.
func encodeStyled(v any, s jsonStyle) ([]byte, error) {
	var compact, out bytes.Buffer
	if err := encodeCompact(&compact, v); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", s.indent); err != nil {
		return nil, err
	}
	if s.newline {
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// sameJSON reports whether a and b encode to the same compact text
// (member order counts).
func sameJSON(a, b any) bool {
	var x, y bytes.Buffer
	return encodeCompact(&x, a) == nil && encodeCompact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// SameJSON reports whether the documents got and want hold the same JSON,
// members in the same order, whatever their layout; an error says got is
// not JSON (want must be).
func SameJSON(got, want []byte) (bool, error) {
	w, err := parseOrderedJSON(want)
	if err != nil {
		return false, fmt.Errorf("want: %w", err)
	}
	g, err := parseOrderedJSON(got)
	if err != nil {
		return false, err
	}
	return sameJSON(g, w), nil
}

// cloneJSON deep-copies an ordered value.
func cloneJSON(v any) any {
	switch t := v.(type) {
	case *jsonObject:
		c := &jsonObject{members: make([]jsonMember, len(t.members))}
		for i, m := range t.members {
			c.members[i] = jsonMember{m.key, cloneJSON(m.val)}
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = cloneJSON(e)
		}
		return c
	}
	return v
}

// orderedKind names a value's JSON type for error messages.
func orderedKind(v any) string {
	switch v.(type) {
	case *jsonObject:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
