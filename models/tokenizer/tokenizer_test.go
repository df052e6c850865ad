package tokenizer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestEncodeBadInput(t *testing.T) {
	tok := loadE5(t)
	tests := []struct {
		name string
		text string
		max  int
		want error
		msg  string
	}{
		{"empty", "", 0, ErrEmptyText, "at least one word"},
		{"whitespace", " \t\n ", 0, ErrEmptyText, "no tokens"},
		{"control only", "\x01\x02", 0, ErrEmptyText, "no tokens"},
		{"invalid utf8", "ok \xff\xfe", 0, ErrInvalidUTF8, "offset 3"},
		{"max too small", "hello", 2, nil, "leaves no room"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tok.Encode(tc.text, tc.max)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v, want it to mention %q", err, tc.msg)
			}
		})
	}
}

func TestEncodeTruncation(t *testing.T) {
	tok := loadE5(t)
	text := strings.Repeat("hello world ", 50) // 100 word tokens
	full, err := tok.Encode(text, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.IDs) != 102 || full.Truncated {
		t.Fatalf("full: %d ids, truncated=%v", len(full.IDs), full.Truncated)
	}
	for _, max := range []int{3, 10, 101, 102, 103, 512} {
		enc, err := tok.Encode(text, max)
		if err != nil {
			t.Fatal(err)
		}
		wantLen := min(max, 102)
		if len(enc.IDs) != wantLen || enc.Truncated != (max < 102) {
			t.Errorf("max %d: %d ids, truncated=%v", max, len(enc.IDs), enc.Truncated)
		}
		if enc.IDs[0] != 101 || enc.IDs[len(enc.IDs)-1] != 102 {
			t.Errorf("max %d: not wrapped in [CLS] … [SEP]: %v", max, enc.IDs)
		}
		if !slices.Equal(enc.IDs[:wantLen-1], full.IDs[:wantLen-1]) {
			t.Errorf("max %d: prefix differs from the untruncated ids", max)
		}
		if !enc.Special[0] || !enc.Special[wantLen-1] || enc.Special[1] {
			t.Errorf("max %d: special mask %v", max, enc.Special)
		}
	}
}

// TestEncodeConcurrent runs Encode from many goroutines (go test -race checks it).
func TestEncodeConcurrent(t *testing.T) {
	tok := loadE5(t)
	texts := []string{"func main() {}", "Ünïcödé résumé", strings.Repeat("long text ", 400), "東京"}
	want := make([][]TokenID, len(texts))
	for i, s := range texts {
		enc, err := tok.Encode(s, 128)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = enc.IDs
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				i := (g + k) % len(texts)
				enc, err := tok.Encode(texts[i], 128)
				if err != nil || !slices.Equal(enc.IDs, want[i]) {
					errs <- texts[i]
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent encode of %.20q differs", s)
	}
}

func TestSpecials(t *testing.T) {
	tok := loadE5(t)
	if !slices.Equal(tok.prefix, []TokenID{101}) || !slices.Equal(tok.suffix, []TokenID{102}) || tok.PadID() != 0 {
		t.Fatalf("prefix %v suffix %v pad %d", tok.prefix, tok.suffix, tok.PadID())
	}
	if tok.VocabSize() != 30522 || tok.ModelType() != "WordPiece" || tok.FileMaxLength() != 0 {
		t.Fatalf("vocab %d type %s file max %d", tok.VocabSize(), tok.ModelType(), tok.FileMaxLength())
	}
	if m := loadGz(t, "all-minilm-l6-v2"); m.FileMaxLength() != 128 {
		t.Fatalf("all-minilm-l6-v2 file max length %d, want 128", m.FileMaxLength())
	}
}

func TestChunks(t *testing.T) {
	tests := []struct {
		name        string
		text        string
		target, max int
		want        []string
	}{
		{"short", "abc def", 8, 16, []string{"abc def"}},
		{"cut at target", "abc def", 4, 16, []string{"abc", " def"}},
		{"space", "aaaa bbbb cccc", 8, 8, []string{"aaaa", " bbbb", " cccc"}},
		{"target", "aa bb cc dd ee ff", 6, 11, []string{"aa bb", " cc", " dd", " ee ff"}},
		{"after target", "aaaaaa bb", 3, 8, []string{"aaaaaa", " bb"}},
		{"space run", "aaa   bbbbbb", 8, 8, []string{"aaa  ", " bbbbbb"}},
		{"punct", "aaaa.bbbb.cccc", 8, 8, []string{"aaaa.", "bbbb.", "cccc"}},
		{"runes", "ééééé", 5, 5, []string{"éé", "éé", "é"}},
		{"tiny max", "abcdefgh", 1, 1, []string{"abcd", "efgh"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Collect(Chunks(tc.text, tc.target, tc.max))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q want %q", got, tc.want)
			}
		})
	}
}

func FuzzChunks(f *testing.F) {
	f.Add("hello world foo bar", 3, 8)
	f.Add("ééé ééé", 2, 4)
	f.Add(strings.Repeat("x", 100), 3, 7)
	f.Fuzz(func(t *testing.T, text string, target, max int) {
		max = max%64 + 64
		if max < 0 {
			max = -max
		}
		var b strings.Builder
		for c := range Chunks(text, target, max) {
			if c == "" {
				t.Fatal("empty chunk")
			}
			if len(c) > max && max >= utf8.UTFMax {
				t.Fatalf("chunk of %d bytes > max %d", len(c), max)
			}
			if utf8.ValidString(text) && !utf8.ValidString(c) {
				t.Fatalf("chunk %q splits a rune", c)
			}
			b.WriteString(c)
		}
		if b.String() != text {
			t.Fatal("chunks do not join to the text")
		}
	})
}

// FuzzEncode: any input gives an error or a well-formed encoding, never a panic.
func FuzzEncode(f *testing.F) {
	tok, err := Load("testdata/tiny.tokenizer.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("the quick brown fox", 16)
	f.Add("[CLS] [SEP] [MASK]", 4)
	f.Add("\xff", 8)
	f.Add("", 0)
	f.Add("東京 😀 e\u0301", 5)
	f.Fuzz(func(t *testing.T, text string, max int) {
		max %= 40
		enc, err := tok.Encode(text, max)
		if err != nil {
			return
		}
		if !utf8.ValidString(text) {
			t.Fatal("invalid UTF-8 accepted")
		}
		if max > 0 && len(enc.IDs) > max {
			t.Fatalf("%d ids > max %d", len(enc.IDs), max)
		}
		if len(enc.IDs) < 3 || enc.IDs[0] != 2 || enc.IDs[len(enc.IDs)-1] != 3 {
			t.Fatalf("ids %v not [CLS] … [SEP]", enc.IDs)
		}
		for _, id := range enc.IDs {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("id %d outside vocabulary", id)
			}
		}
	})
}

func FuzzLoadBytes(f *testing.F) {
	f.Add([]byte(`{"model":{"vocab":{"a":0,"[UNK]":1},"unk_token":"[UNK]","continuing_subword_prefix":"##"}}`))
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`))
	f.Add([]byte(`{"model":{"vocab":[["a",0.0]]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := LoadBytes(data)
		if err != nil {
			return
		}
		if _, err := tok.Encode("a b c", 8); err != nil && !errors.Is(err, ErrEmptyText) {
			t.Fatalf("loaded tokenizer fails to encode: %v", err)
		}
	})
}

// BenchmarkEncode: Encode ("encode": the native BERT pipeline for this
// file), hftokenizer in Chunks ("hf-chunked": what Encode ran before, and
// runs for other files) and hftokenizer whole ("whole": why it is chunked).
func BenchmarkEncode(b *testing.B) {
	tok := loadE5(b)
	for _, n := range []int{1 << 10, 8 << 10, 64 << 10} {
		text := strings.Repeat("func (s *Store) Get(id MemoryID) error { return nil } // lookup ", n/64+1)[:n]
		text = strings.ToValidUTF8(text, "")
		b.Run("encode/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := tok.Encode(text, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("hf-chunked/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tok.encodeHF(text, -1)
			}
		})
		if n > 8<<10 {
			continue // whole 64 KB takes over 10 s per call: the quadratic case Chunks avoids
		}
		b.Run("whole/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tok.hf.Encode(text)
			}
		})
	}
	text := strings.Repeat("hello world ", 2000)
	b.Run("truncated512/24KB", func(b *testing.B) {
		for b.Loop() {
			if _, err := tok.Encode(text, 512); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func itoa(n int) string { return fmt.Sprintf("%dKB", n>>10) }
