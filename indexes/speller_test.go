package indexes

import (
	"slices"
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

func TestSpeller(t *testing.T) {
	df := map[string]int{"string": 40, "strong": 3, "request": 12, "parse": 30, "parsehttprequest": 2, "http": 50, "sting": 1}
	s := NewSpeller()
	for term := range df {
		s.Add(term)
	}
	s.Add("net/http", "x2", "ab") // not spellable: ignored
	dfOf := func(t string) int { return df[t] }
	for _, c := range []struct {
		word, want string
		ok         bool
	}{
		{"stirng", "string", true},  // swap
		{"strng", "string", true},   // missing letter (sting has df 1, string 40)
		{"sttring", "string", true}, // extra letter
		{"strimg", "string", true},  // QWERTY neighbour
		{"string", "", false},       // a live term
		{"xyzzy", "", false},        // nothing near
		{"abc", "", false},          // too short to correct
		{"reqeust", "request", true},
	} {
		got, ok := s.Suggest(c.word, dfOf)
		if got != c.want || ok != c.ok {
			t.Errorf("Suggest(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
	// A term that left the corpus is no candidate.
	df["string"] = 0
	if got, _ := s.Suggest("stirng", dfOf); got == "string" {
		t.Error("suggested a term with no document")
	}
	df["string"] = 40

	text, fixes := s.CorrectText(`Parse the Stirng and parseHTTPReqeust, not STIRNG (x2: net/http) parsehttpreqeust`, dfOf)
	if text != `Parse the String and parseHTTPRequest, not STRING (x2: net/http) parsehttprequest` {
		t.Errorf("CorrectText = %q", text)
	}
	want := []Correction{{"Stirng", "String"}, {"Reqeust", "Request"}, {"STIRNG", "STRING"}, {"parsehttpreqeust", "parsehttprequest"}}
	if !slices.Equal(fixes, want) {
		t.Errorf("corrections %v, want %v", fixes, want)
	}
	if got := camelHumps("parseHTTPRequest"); !slices.Equal(got, []string{"parse", "HTTP", "Request"}) {
		t.Errorf("camelHumps = %v", got)
	}
}

func FuzzCorrectText(f *testing.F) {
	s := NewSpeller()
	s.Add("string", "request", "parse")
	f.Add("Parse the Stirng, parseHTTPReqeust")
	f.Add("ünïcode 数据 stirng")
	f.Fuzz(func(t *testing.T, text string) {
		out, fixes := s.CorrectText(text, func(string) int { return 1 })
		if len(fixes) == 0 && out != text {
			t.Fatalf("text changed without a correction: %q → %q", text, out)
		}
	})
}
