package indexes

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestOSADistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"string", "string", 0}, {"stirng", "string", 1}, {"strng", "string", 1}, {"sstring", "string", 1},
		{"strong", "string", 1}, {"abcd", "acbd", 1}, {"", "abc", 3}, {"ca", "abc", 3},
	} {
		if got := osaDistance(c.a, c.b); got != c.d {
			t.Errorf("osaDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

// spellerOf is a speller over the text of testdata/speller-store.txt.
func spellerOf(t testing.TB) *Speller {
	raw, err := os.ReadFile("testdata/speller-store.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSpeller()
	for _, line := range strings.Split(string(raw), "\n") {
		s.AddText(line)
	}
	return s
}

// TestSpellerWords (issue 26): words a store lacks but spells correctly —
// stop words, inflections the E6 vocabulary folds, identifiers — stay as
// typed; typos one edit from a store word are corrected, with its case.
func TestSpellerWords(t *testing.T) {
	s := spellerOf(t)
	for _, c := range []struct {
		typed, want string // want "": left as typed
	}{
		// Correct words near a store word: in the English word list.
		{"this", ""},     // store: "thus"
		{"Returns", ""},  // store: "Return", "return"
		{"came", ""},     // store: "come"
		{"tests", ""},    // store: "test"
		{"outlives", ""}, // store: "outlive"
		// Not in the word list ("glyph" is, "glyphs" not): a trailing s is
		// number, not a typo.
		{"glyphs", ""},
		// Identifiers: never into a hump or a dictionary word.
		{"RocksDB", ""},                    // store: "rocks"
		{"rocks_db", ""},                   // underscore
		{"utf8", ""},                       // digit
		{"Stirng2", "String2"},             // a letter run of an identifier, by a swap
		{"parse_stirng2", "parse_string2"}, // a swap in one run
		{"retur_uint8", ""},                // an identifier's runs lose no letter
		{"rehurnMax_len", ""},              // a camelCase run is left whole
		{"PARSEHTTP", ""},                  // all caps, nothing near as a whole run
		{"naïveté", ""},                    // non-ASCII letters: not looked at
		{"stri", ""},                       // 4 letters: "string" is two edits away, and the English list is for 5+ ("stir")
		{"xyzzy", ""},                      // nothing near
		{"abc", ""},                        // too short
		{"connection", ""},                 // a store word
		{"rehurn", "return"},               // a QWERTY neighbour
		// Typos: one substitution, swap, insertion or deletion.
		{"retrun", "return"},
		{"fucntion", "function"},
		{"connetcion", "connection"},
		{"Stirng", "String"},
		{"STIRNG", "STRING"},
		{"stting", "string"},
		{"strinng", "string"},
		{"parseHTTPReqeust", "parseHTTPRequest"}, // an identifier the store has whole
		{"parsehttpreqeust", "parsehttprequest"},
		{"Reqeust", "Request"}, // a hump of the store's identifier is a form too
		{"RETRUN", "RETURN"},   // ALL CAPS: a swap
		{"RETUR", ""},          // ALL CAPS: no insertion ("RISC" is no typo of "RISCV")
		{"onnection", ""},      // the first letter is never the typo
		{"outliver", ""},       // an ending s, d or r is an inflection
		{"connectiom", "connection"},
		// No store form near: the one English word a neighbouring key or a
		// swap away, case kept; never from elsewhere on the keyboard.
		{"bicyvle", "bicycle"},
		{"Lantrern", ""}, // an extra letter: only the store's forms take those
		{"Lanrern", "Lantern"},
		{"bicyzle", ""}, // z is no neighbour of c
		// Ambiguous: "strang" is one edit from "string" (x4) and "strong"
		// (x3): string (x4) is not twice as frequent, so no correction.
		{"strang", ""},
	} {
		got, fixes := s.CorrectText(c.typed, nil)
		want := c.want
		if want == "" {
			want = c.typed
		}
		if got != want {
			t.Errorf("CorrectText(%q) = %q, want %q", c.typed, got, want)
		}
		if (len(fixes) == 1) != (c.want != "") {
			t.Errorf("CorrectText(%q): corrections %v", c.typed, fixes)
		}
	}
}

// TestEditWeight: the channel reads the slip that turns the form into the
// typed word.
func TestEditWeight(t *testing.T) {
	for _, c := range []struct {
		typed, form string
		want        float64
	}{
		{"regurn", "return", weightNearKey}, // t → g: neighbours
		{"rehurn", "return", weightFarKey},  // t → h: not
		{"rexurn", "return", weightFarKey},
		{"returs", "return", weightFarKey}, // the last letter: n → s
		{"returm", "return", weightNearKey},
		{"retrun", "return", weightSwap},
		{"retun", "return", weightMissed},
		{"returnn", "return", weightNearKeys}, // doubled
		{"retyurn", "return", weightNearKeys}, // y beside t and u
		{"retqurn", "return", weightExtra},
		{"bytew", "bytes", weightNearKey},
		{"bytew", "byte", weightNearKeys}, // w beside e
	} {
		if got := editWeight(c.typed, c.form); got != c.want {
			t.Errorf("editWeight(%q, %q) = %v, want %v", c.typed, c.form, got, c.want)
		}
	}
	for a := byte('a'); a <= 'z'; a++ {
		for b := byte('a'); b <= 'z'; b++ {
			if keysAdjacent(a, b) != keysAdjacent(b, a) {
				t.Errorf("keysAdjacent(%c, %c) is not symmetric", a, b)
			}
		}
	}
}

// TestSpellerChannel: two forms as frequent as each other are told apart by
// the slip each needs; counts still outweigh a likelier slip.
func TestSpellerChannel(t *testing.T) {
	for _, c := range []struct {
		store, typed, want string
	}{
		{"byte byte bytes bytes", "bytew", "bytes"},           // w beside s, and an extra w beside e: 1 against 0.5 a form
		{"byte byte byte byte byte bytes bytes", "bytew", ""}, // 2 against 2.5: neither doubles the other
		{"byte byte byte byte bytes", "bytew", "byte"},        // 1 against 2
		{"list list list", "lost", ""},                        // an English word: never a typo
	} {
		s := NewSpeller()
		s.AddText(c.store)
		got, ok := s.Suggest(c.typed, nil, false)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("store %q: Suggest(%q) = %q, %v; want %q", c.store, c.typed, got, ok, c.want)
		}
	}
}

// TestSpellerLive: a form whose memories are gone (live false) is no
// correction; the next best form is, if it has the evidence.
func TestSpellerLive(t *testing.T) {
	s := spellerOf(t)
	if got, ok := s.Suggest("retrun", func(f string) bool { return f != "return" }, false); ok {
		t.Errorf("Suggest(retrun) = %q with return gone", got)
	}
	if got, ok := s.Suggest("strang", func(f string) bool { return f != "strong" }, false); !ok || got != "string" {
		t.Errorf("Suggest(strang) = %q, %v with strong gone; want string", got, ok)
	}
}

func TestSpellerText(t *testing.T) {
	s := spellerOf(t)
	text, fixes := s.CorrectText(`Parse the Stirng and parseHTTPReqeust, not STIRNG (x2: net/http) RocksDB, this came`, nil)
	if text != `Parse the String and parseHTTPRequest, not STRING (x2: net/http) RocksDB, this came` {
		t.Errorf("CorrectText = %q", text)
	}
	want := []Correction{{"Stirng", "String"}, {"parseHTTPReqeust", "parseHTTPRequest"}, {"STIRNG", "STRING"}}
	if !slices.Equal(fixes, want) {
		t.Errorf("corrections %v, want %v", fixes, want)
	}
	if got := camelHumps("parseHTTPRequest"); !slices.Equal(got, []string{"parse", "HTTP", "Request"}) {
		t.Errorf("camelHumps = %v", got)
	}
}

// TestWordList: the embedded list is the one wordlist/README.md names,
// sorted, and knows the everyday words the speller must leave alone.
func TestWordList(t *testing.T) {
	raw, err := os.ReadFile("wordlist/README.md")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(wordsGz)
	if !strings.Contains(string(raw), hex.EncodeToString(sum[:])) {
		t.Errorf("wordlist/README.md does not name the sha256 of words.txt.gz (%x)", sum)
	}
	if n := len(dictionary()); n != 72097 {
		t.Errorf("%d words, README says 72,097", n)
	}
	for _, w := range []string{"this", "returns", "came", "tests", "outlives", "glyph", "function"} {
		if !inDictionary(w) {
			t.Errorf("%q not in the word list", w)
		}
	}
	for _, w := range []string{"retrun", "fucntion", "connetcion", "the", "zzzzzz"} {
		if inDictionary(w) {
			t.Errorf("%q in the word list", w)
		}
	}
}

func FuzzCorrectText(f *testing.F) {
	s := NewSpeller()
	s.AddText("string request parse parseHTTPRequest")
	f.Add("Parse the Stirng, parseHTTPReqeust")
	f.Add("ünïcode 数据 stirng")
	f.Fuzz(func(t *testing.T, text string) {
		out, fixes := s.CorrectText(text, nil)
		if len(fixes) == 0 && out != text {
			t.Fatalf("text changed without a correction: %q → %q", text, out)
		}
		if len(out) != len(text)+lenDelta(fixes) {
			t.Fatalf("%q → %q: length does not follow the corrections %v", text, out, fixes)
		}
	})
}

func lenDelta(fs []Correction) int {
	n := 0
	for _, f := range fs {
		n += len(f.To) - len(f.From)
	}
	return n
}

// BenchmarkCorrectText: a typical typo query against the test store, and a
// 64 KiB query of unknown words (the search limit), each needing the
// English list's look-up.
func BenchmarkCorrectText(b *testing.B) {
	s := spellerOf(b)
	long := strings.Repeat("qwertyuiopasdfghjk zxcvbnmlkjhgf ", 64<<10/33)
	for _, c := range []struct{ name, q string }{
		{"query", "Parse the Stirng and parseHTTPReqeust, then retrun the connetcion to the pool"},
		{"64KiB-unknown", long},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.q)))
			for b.Loop() {
				s.CorrectText(c.q, nil)
			}
		})
	}
}
