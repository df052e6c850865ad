package bulkimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("y", 100)
	in := "a\r\nbb\n\n" + long + "\nlast"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	type line struct {
		s       string
		tooLong bool
	}
	var got []line
	for {
		l, tooLong, err := readLine(br, 50)
		got = append(got, line{string(l), tooLong})
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []line{{"a", false}, {"bb", false}, {"", false}, {"", true}, {"last", false}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i+1, got[i], want[i])
		}
	}
}

// FuzzReadLine: for lines that fit, readLine returns exactly the lines of
// the input split at "\n" (with a trailing "\r" dropped).
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("a\nb\r\n\nc"), 8)
	f.Add([]byte(strings.Repeat("z", 40)+"\nq\n"), 10)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		br := bufio.NewReaderSize(bytes.NewReader(in), 16)
		want := bytes.Split(in, []byte("\n"))
		for i := 0; ; i++ {
			l, tooLong, err := readLine(br, max)
			if i >= len(want) {
				t.Fatalf("more lines than %d", len(want))
			}
			w := bytes.TrimSuffix(want[i], []byte("\r"))
			switch {
			case len(w) > max && !tooLong:
				t.Fatalf("line %d of %d bytes not reported too long (max %d)", i+1, len(w), max)
			case len(w) <= max && tooLong:
				t.Fatalf("line %d of %d bytes reported too long (max %d)", i+1, len(w), max)
			case !tooLong && !bytes.Equal(l, w):
				t.Fatalf("line %d = %q, want %q", i+1, l, w)
			}
			if errors.Is(err, io.EOF) {
				if i != len(want)-1 {
					t.Fatalf("EOF after %d lines, want %d", i+1, len(want))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzParseJSONLine: the parser never panics, and a line it accepts
// describes a memory that survives a JSON round trip unchanged.
func FuzzParseJSONLine(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "bulk_mixed.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"content":"x","importance":0}`))
	f.Add([]byte(`{"content":"x","tags":null,"importance":1e400}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		n, err := parseJSONLine(line)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		j := map[string]any{"content": n.Content, "tags": n.Tags, "session": n.Session, "source": n.Source, "type": string(n.Type)}
		if n.Importance != 0 {
			j["importance"] = n.Importance
		}
		if !n.CreatedAt.IsZero() {
			j["created_at"] = n.CreatedAt.Format("2006-01-02T15:04:05.999999999Z07:00")
		}
		again, _ := json.Marshal(j)
		m, err := parseJSONLine(again)
		if err != nil {
			t.Fatalf("re-encoded line %s refused: %v", again, err)
		}
		if m.Content != n.Content || m.Type != n.Type || m.Session != n.Session || m.Source != n.Source ||
			m.Importance != n.Importance || !m.CreatedAt.Equal(n.CreatedAt) || strings.Join(m.Tags, "\x00") != strings.Join(n.Tags, "\x00") {
			t.Fatalf("round trip changed the memory: %+v -> %+v", n, m)
		}
		_ = n.Validate(record.DefaultMaxContentBytes) // must not panic on anything the parser accepts
	})
}

func TestCountLines(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\n\nb\n": 3, strings.Repeat("x\n", 300000): 300000} {
		if got, err := CountLines(strings.NewReader(in)); err != nil || got != want {
			t.Errorf("CountLines(%d bytes) = %d, %v; want %d", len(in), got, err, want)
		}
	}
}

// FuzzParseRelationLine: a relation line never panics the parser, and one
// it accepts names two ids, a known type and a weight in (0, 1], and
// survives an export round trip.
func FuzzParseRelationLine(f *testing.F) {
	f.Add([]byte(`{"relation":{"from":"01a2024b-c401-71ad-89d6-508a47ba0ed4","to":"01a2024b-c401-7624-979a-8fa45fc6ff23","type":"fixes","weight":0.5,"created_at":"2026-01-02T03:04:05Z"}}`))
	f.Add([]byte(`{"relation":{"from":"x","to":"y","type":"nope"}}`))
	f.Add([]byte(`{"relation":{},"content":"both"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		_, rel, err := parseLine(line)
		if err != nil || rel == nil {
			return
		}
		if !rel.Type.Known() || rel.Weight <= 0 || rel.Weight > 1 || rel.From.IsZero() && rel.To.IsZero() {
			t.Fatalf("accepted relation %+v from %s", rel, line)
		}
		l := RelationLine{From: rel.From.String(), To: rel.To.String(), Type: rel.Type, Weight: rel.Weight}
		if !rel.CreatedAt.IsZero() {
			l.CreatedAt = rel.CreatedAt.Format("2006-01-02T15:04:05.999999999Z07:00")
		}
		again, _ := json.Marshal(struct {
			Relation RelationLine `json:"relation"`
		}{l})
		_, back, err := parseLine(again)
		if err != nil || back == nil || *back != *rel {
			t.Fatalf("export round trip of %+v: %+v, %v", rel, back, err)
		}
	})
}

// BenchmarkParseJSONLine measures decoding and checking one typical JSONL
// line (one sample memory).
func BenchmarkParseJSONLine(b *testing.B) {
	sample, err := os.ReadFile(filepath.Join("..", "cli", "samples", "samples.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	line := bytes.SplitN(sample, []byte("\n"), 2)[0]
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := parseJSONLine(line); err != nil {
			b.Fatal(err)
		}
	}
}
