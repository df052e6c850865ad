package tokenizer

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// nativeCorpus is real text for comparing the native BERT pipeline with
// hftokenizer's: every parity fixture text and the Go standard library's
// strings, bytes and unicode sources cut into ~500-byte pieces (the size of
// a code memory).
func nativeCorpus(t testing.TB) []string {
	var texts []string
	for _, id := range parityModels {
		for _, c := range loadFixture(t, "parity_"+id+"_ids.json.gz").Cases {
			texts = append(texts, c.Text)
		}
	}
	for _, f := range []string{"strings/strings.go", "bytes/bytes.go", "unicode/tables.go", "fmt/print.go"} {
		src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", f))
		if err != nil {
			t.Logf("no %s: %v", f, err)
			continue
		}
		for s := string(src); len(s) > 0; {
			n := min(len(s), 500)
			for n < len(s) && !utf8.RuneStart(s[n]) {
				n++
			}
			texts = append(texts, s[:n])
			s = s[n:]
		}
	}
	return texts
}

// TestNativeMatchesHF: on real text the native pipeline gives hftokenizer's
// ids, whole and truncated (TestParity holds both to the Rust ids).
func TestNativeMatchesHF(t *testing.T) {
	texts := nativeCorpus(t)
	for _, id := range append(slices.Clone(parityModels), "tiny") {
		var tok *Tokenizer
		if id == "tiny" {
			var err error
			if tok, err = Load("testdata/tiny.tokenizer.json"); err != nil {
				t.Fatal(err)
			}
		} else {
			tok = loadGz(t, id)
		}
		if tok.native == nil {
			t.Fatalf("%s: a BERT WordPiece file without the native pipeline", id)
		}
		diff := 0
		for _, text := range texts {
			for _, budget := range []int{-1, 510, 7} {
				got, gotCut := tok.encodeBody(text, budget)
				want, wantCut := tok.encodeHF(text, budget)
				if !slices.Equal(got, want) || gotCut != wantCut {
					if diff++; diff <= 5 {
						t.Errorf("%s budget %d %.60q: native %d ids (cut %v), hftokenizer %d (cut %v); %s", id, budget, text,
							len(got), gotCut, len(want), wantCut, firstDiff(asInts(got), asInts(want)))
					}
				}
			}
		}
		t.Logf("%s: %d texts, %d differ", id, len(texts), diff)
	}
}

// TestNativeRustRules pins the cases where the native pipeline follows the
// Rust library and hftokenizer does not.
func TestNativeRustRules(t *testing.T) {
	tok := loadE5(t)
	long := strings.Repeat("é", 60) // 60 characters, 120 bytes: WordPiece counts characters
	if got, _ := tok.encodeBody(long, -1); slices.Contains(got, tok.native.unk) {
		t.Errorf("a 60-character word became [UNK]: %v", got)
	}
	if got, _ := tok.encodeBody(strings.Repeat("a", 101), -1); !slices.Equal(got, []TokenID{tok.native.unk}) {
		t.Errorf("a 101-character word: %v, want [UNK]", got)
	}
	a, _ := tok.encodeBody("alpha\u2028beta", -1) // LINE SEPARATOR is White_Space
	b, _ := tok.encodeBody("alpha beta", -1)
	if !slices.Equal(a, b) {
		t.Errorf("U+2028 does not split words: %v vs %v", a, b)
	}
	if got, _ := tok.encodeBody("x [MASK] y", -1); !slices.Contains(got, 103) {
		t.Errorf("[MASK] in the text is not the added token: %v", got)
	}
	// An added token is matched on the raw text: with a control character
	// inside it is punctuation and a word (tokenizers 0.23.3: [ sep ]).
	if got, _ := tok.encodeBody("[SE\bP]", -1); !slices.Equal(got, []TokenID{1031, 19802, 1033}) {
		t.Errorf("[SE\\bP]: %v, want [ sep ] (1031 19802 1033)", got)
	}
}

// FuzzNative: the native pipeline never panics, gives ids of the
// vocabulary, respects the budget, and agrees with hftokenizer on
// printable ASCII text up to ChunkBytes, where the two libraries' rules
// coincide (past it hftokenizer's pieces can split one over-long word into
// two [UNK]s; a control character inside an added token is removed before
// hftokenizer matches it, after the Rust library does — see
// TestNativeRustRules).
func FuzzNative(f *testing.F) {
	for _, s := range []string{"func (s *Store) Get(id ID) error", "naïve café", "[CLS] x [SEP]", "日本語のテキスト", "a\u0301b", "x\u200by"} {
		f.Add(s, 5)
	}
	tok := loadE5(f)
	f.Fuzz(func(t *testing.T, text string, budget int) {
		if !utf8.ValidString(text) || budget > 600 {
			return
		}
		got, cut := tok.encodeBody(text, budget)
		if budget >= 0 && len(got) > budget {
			t.Fatalf("%d ids past budget %d", len(got), budget)
		}
		for _, id := range got {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("id %d outside the vocabulary", id)
			}
		}
		ascii := true // printable ASCII, tab, newline, carriage return
		for i := 0; i < len(text); i++ {
			c := text[i]
			ascii = ascii && (c >= 0x20 && c < 0x7F || c == '\t' || c == '\n' || c == '\r')
		}
		if ascii && len(text) <= ChunkBytes { // hftokenizer's Chunks cut a longer word and give an [UNK] per piece
			want, wantCut := tok.encodeHF(text, budget)
			if !slices.Equal(got, want) || cut != wantCut {
				t.Fatalf("%q budget %d: native %v (cut %v), hftokenizer %v (cut %v)", text, budget, got, cut, want, wantCut)
			}
		}
	})
}

// TestRemovedByBertCleanASCII checks the ASCII shortcut against the
// category rule it shortcuts.
func TestRemovedByBertCleanASCII(t *testing.T) {
	for r := rune(0); r < 0x80; r++ {
		want := r != '\t' && r != '\n' && r != '\r' && (r == 0 || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) ||
			!unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z))
		if got := removedByBertClean(r); got != want {
			t.Errorf("%U: %v, want %v", r, got, want)
		}
	}
}

// TestParityUnicodeRandom holds the native pipeline to the Rust library's
// ids on 1,500 short random texts across Unicode blocks and the characters
// clean_text treats specially (models/testdata/gen/unicode_parity.py). It
// found that clean_text keeps unassigned code points (as [UNK]): the
// hftokenizer path's bertClean had dropped them too.
func TestParityUnicodeRandom(t *testing.T) {
	tok := loadE5(t)
	fx := loadFixture(t, "parity_e5-small-v2_unicode_ids.json.gz")
	if len(fx.Cases) < 1000 {
		t.Fatalf("fixture has %d cases", len(fx.Cases))
	}
	bad := 0
	for i, c := range fx.Cases {
		enc, err := tok.Encode(c.Text, 0)
		if len(c.IDs) == 2 { // the reference yields only [CLS] [SEP]: no token
			if !errors.Is(err, ErrEmptyText) {
				t.Errorf("case %d %+q: want ErrEmptyText, got %v %v", i, c.Text, enc.IDs, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d %+q: %v", i, c.Text, err)
			continue
		}
		if got := asInts(enc.IDs); !slices.Equal(got, c.IDs) {
			if bad++; bad <= 10 {
				t.Errorf("case %d %+q: %s", i, c.Text, firstDiff(got, c.IDs))
			}
		}
	}
}
