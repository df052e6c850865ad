package tokenizer

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// idsFixture is what models/testdata/gen/parity.py and tiny_models.py write: the
// reference ids from Hugging Face's Rust tokenizers for every corpus text.
type idsFixture struct {
	Model     string `json:"model"`
	MaxLength int    `json:"max_length"`
	Cases     []struct {
		Kind    string `json:"kind"`
		Text    string `json:"text"`
		IDs     []int  `json:"ids"`
		FullLen int    `json:"full_len"`
		FullIDs []int  `json:"full_ids"`
	} `json:"cases"`
}

func readGz(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

func loadFixture(t testing.TB, name string) idsFixture {
	t.Helper()
	var fx idsFixture
	if err := json.Unmarshal(readGz(t, filepath.Join("testdata", name)), &fx); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fx
}

func loadE5(t testing.TB) *Tokenizer { return loadGz(t, "e5-small-v2") }

func loadGz(t testing.TB, id string) *Tokenizer {
	t.Helper()
	tok, err := LoadBytes(readGz(t, "testdata/"+id+".tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// parityModels have a tokenizer and reference ids in testdata (bge-small-en-v1.5 uses
// e5-small-v2's tokenizer.json byte for byte).
var parityModels = []string{"e5-small-v2", "all-minilm-l6-v2"}

func asInts(ids []TokenID) []int {
	out := make([]int, len(ids))
	for i, v := range ids {
		out[i] = int(v)
	}
	return out
}

func firstDiff(a, b []int) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at %d: got %d want %d", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths differ: got %d want %d", len(a), len(b))
}

// TestParity compares every corpus text (code in several languages, prose, unicode,
// long inputs) against the reference ids, truncated at the fixture's max length.
func TestParity(t *testing.T) {
	for _, id := range parityModels {
		t.Run(id, func(t *testing.T) { testParity(t, id) })
	}
}

func testParity(t *testing.T, id string) {
	tok := loadGz(t, id)
	fx := loadFixture(t, "parity_"+id+"_ids.json.gz")
	if len(fx.Cases) < 500 {
		t.Fatalf("fixture has %d cases, want >= 500", len(fx.Cases))
	}
	kinds := map[string]int{}
	mismatches := 0
	for i, c := range fx.Cases {
		kinds[c.Kind]++
		enc, err := tok.Encode(c.Text, fx.MaxLength)
		if err != nil {
			t.Errorf("case %d (%s): %v", i, c.Kind, err)
			continue
		}
		if got := asInts(enc.IDs); !slices.Equal(got, c.IDs) {
			mismatches++
			t.Errorf("case %d (%s) %.60q: %s", i, c.Kind, c.Text, firstDiff(got, c.IDs))
		}
		if want := c.FullLen > fx.MaxLength; enc.Truncated != want {
			t.Errorf("case %d: Truncated=%v, reference has %d tokens (max %d)", i, enc.Truncated, c.FullLen, fx.MaxLength)
		}
	}
	if kinds["long"] == 0 || kinds["unicode"] == 0 || kinds["go"] == 0 {
		t.Errorf("fixture lacks variety: %v", kinds)
	}
	t.Logf("%d cases by kind %v, %d mismatches", len(fx.Cases), kinds, mismatches)
}

// TestParityUntruncated checks long inputs whole: many chunks must join seamlessly.
func TestParityUntruncated(t *testing.T) {
	for _, id := range parityModels {
		t.Run(id, func(t *testing.T) { testParityUntruncated(t, id) })
	}
}

func testParityUntruncated(t *testing.T, id string) {
	tok := loadGz(t, id)
	fx := loadFixture(t, "parity_"+id+"_ids.json.gz")
	n := 0
	for i, c := range fx.Cases {
		if c.FullIDs == nil {
			continue
		}
		n++
		if len(c.Text) <= 2*ChunkBytes {
			t.Errorf("case %d: long case has only %d bytes; it does not exercise chunking", i, len(c.Text))
		}
		enc, err := tok.Encode(c.Text, 0)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if enc.Truncated {
			t.Errorf("case %d: Truncated without a max length", i)
		}
		if got := asInts(enc.IDs); !slices.Equal(got, c.FullIDs) {
			t.Errorf("case %d (%d bytes): %s", i, len(c.Text), firstDiff(got, c.FullIDs))
		}
	}
	if n < 5 {
		t.Fatalf("fixture has %d untruncated long cases, want >= 5", n)
	}
}

func TestParityTiny(t *testing.T) {
	tok, err := Load("testdata/tiny.tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	fx := loadFixture(t, "parity_tiny_ids.json.gz")
	if len(fx.Cases) < 400 {
		t.Fatalf("fixture has %d cases", len(fx.Cases))
	}
	for i, c := range fx.Cases {
		enc, err := tok.Encode(c.Text, 0)
		if len(c.IDs) == 2 { // reference yields only [CLS] [SEP]: no token
			if err == nil {
				t.Errorf("case %d %q: want ErrEmptyText, got ids %v", i, c.Text, enc.IDs)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		if got := asInts(enc.IDs); !slices.Equal(got, c.IDs) {
			t.Errorf("case %d %.60q: %s", i, c.Text, firstDiff(got, c.IDs))
		}
	}
}

// TestMissingModelType: without the fix hftokenizer maps every subword to [UNK].
func TestMissingModelType(t *testing.T) {
	withType, err := Load("testdata/tiny.tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	noType, err := Load("testdata/tiny_no_type.tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if withType.TypeInferred() || !noType.TypeInferred() || noType.ModelType() != "WordPiece" {
		t.Fatalf("inferred: with=%v without=%v type=%q", withType.TypeInferred(), noType.TypeInferred(), noType.ModelType())
	}
	text := "the quick brown foxes jumped"
	a, err := withType.Encode(text, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := noType.Encode(text, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.IDs, b.IDs) {
		t.Fatalf("ids differ: %v vs %v", a.IDs, b.IDs)
	}
	if slices.Contains(a.IDs, 1) { // [UNK] is 1 in the tiny vocabulary
		t.Fatalf("ids contain [UNK]: %v", a.IDs)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not json", `{"model":`, "parse tokenizer.json"},
		{"no model", `{"version":"1.0"}`, `no "model" object`},
		{"unknown type", `{"model":{"type":"CharLevel","vocab":{"a":0}}}`, `"CharLevel" is not supported`},
		{"uninferable", `{"model":{"vocab":{"a":0}}}`, `add "type"`},
		{"empty vocab", `{"model":{"type":"WordPiece","vocab":{},"unk_token":"[UNK]"}}`, "empty model.vocab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadBytes([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if _, err := Load("testdata/does-not-exist.json"); err == nil || !strings.Contains(err.Error(), "does-not-exist.json") {
		t.Fatalf("missing file: err = %v", err)
	}
}
