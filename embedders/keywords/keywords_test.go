package keywords

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

func TestTokenize(t *testing.T) {
	cases := []struct {
		in   string
		want string // space-separated
	}{
		{"getUserByID", "getuserbyid get user id"},
		{"HTTPServer", "httpserver http server"},
		{"parse_http_request", "parse_http_request parse http request"},
		{"snake_case and kebab-case", "snake_case snake case kebab-case kebab case"},
		{"call net/http.Client.Do() now", "call net/http.client.do net http client do now"},
		{"see internal/engine/store.go:42.", "see internal/engine/store.go:42 internal engine store go 42"},
		{"The error is in the handler", "error handler"},
		{"utf8Decode x", "utf8decode utf8 decode"},
		{"ReadAll ReadAll", "readall read all readall read all"},
		{"Größe_ändern", "größe_ändern größe ändern"},
		{"", ""},
		{"-- ... //", ""},
	}
	for _, c := range cases {
		got := strings.Join(Tokenize(c.in), " ")
		if got != c.want {
			t.Errorf("Tokenize(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestTermFreqs(t *testing.T) {
	// "reads" folds into "read" (Stem).
	tf := TermFreqs("ReadAll reads all of it: ReadAll")
	want := fingerprint.TermFreqs{Terms: []string{"all", "read", "readall"}, Counts: []uint32{3, 3, 2}}
	if !reflect.DeepEqual(tf, want) {
		t.Fatalf("got %+v, want %+v", tf, want)
	}
	if tf.DocLen() != 8 {
		t.Errorf("doc length %d", tf.DocLen())
	}
	var f fingerprint.Fingerprint
	if err := f.Set(fingerprint.E6, fingerprint.Entry{Status: fingerprint.StatusPresent, Value: tf}); err != nil {
		t.Errorf("term frequencies do not validate: %v", err)
	}
}

// TestBM25HandComputed checks Score against values worked out by hand:
// N = 3, avgdl = (3+4+5)/3 = 4, df(apple) = df(cherry) = 2, so
// IDF = ln(1 + (3−2+0.5)/(2+0.5)) = ln 1.6 for both query terms.
func TestBM25HandComputed(t *testing.T) {
	docs := []fingerprint.TermFreqs{
		{Terms: []string{"apple", "banana"}, Counts: []uint32{2, 1}},              // |d| = 3
		{Terms: []string{"apple", "cherry", "date"}, Counts: []uint32{1, 1, 2}},   // |d| = 4
		{Terms: []string{"banana", "cherry", "elder"}, Counts: []uint32{1, 3, 1}}, // |d| = 5
	}
	st := NewMemStats()
	for _, d := range docs {
		st.Add(d)
	}
	if st.NumDocs() != 3 || st.AvgDocLen() != 4 || st.DocFreq("cherry") != 2 {
		t.Fatalf("stats N %d avgdl %v df %d", st.NumDocs(), st.AvgDocLen(), st.DocFreq("cherry"))
	}
	q := Count([]string{"apple", "cherry"})
	idf := math.Log(1.6)
	want := []float64{
		// d1: apple tf 2, K = 1.2·(0.25 + 0.75·3/4) = 0.975
		idf * 2 * 2.2 / (2 + 0.975), // 0.6951314
		// d2: K = 1.2·(0.25 + 0.75·4/4) = 1.2; apple tf 1, cherry tf 1
		idf*1*2.2/(1+1.2) + idf*1*2.2/(1+1.2), // 0.9400073
		// d3: K = 1.2·(0.25 + 0.75·5/4) = 1.425; cherry tf 3
		idf * 3 * 2.2 / (3 + 1.425), // 0.7010224
	}
	fixed := []float64{0.6951314, 0.9400073, 0.7010224}
	for i, d := range docs {
		got := DefaultBM25.Score(q, d, st)
		if math.Abs(got-want[i]) > 1e-9 || math.Abs(got-fixed[i]) > 1e-6 {
			t.Errorf("doc %d: score %.7f, want %.7f", i+1, got, want[i])
		}
	}
	// Term frequency saturates but still counts, and length normalisation
	// matters: the same tf in a longer document scores less.
	short := fingerprint.TermFreqs{Terms: []string{"cherry"}, Counts: []uint32{1}}
	long := fingerprint.TermFreqs{Terms: []string{"cherry", "zzz"}, Counts: []uint32{1, 9}}
	if DefaultBM25.Score(q, short, st) <= DefaultBM25.Score(q, long, st) {
		t.Error("length normalisation missing")
	}
	if err := st.Remove(docs[0]); err != nil || st.NumDocs() != 2 || st.DocFreq("apple") != 1 {
		t.Errorf("remove: %v, N %d, df %d", err, st.NumDocs(), st.DocFreq("apple"))
	}
	if err := st.Remove(fingerprint.TermFreqs{Terms: []string{"nope"}, Counts: []uint32{1}}); err == nil {
		t.Error("removing an unknown document succeeded")
	}
}

func TestEmbedderRanksIdentifierQuery(t *testing.T) {
	ctx := context.Background()
	texts := []string{
		"func getUserByID(id string) (*User, error) { return db.FindUser(id) }",
		"The user interface shows a list of items.",
		"parse the config file and return an error if the path is missing",
	}
	docs := make([]embedders.Input, len(texts))
	for i, s := range texts {
		docs[i].Text = s
	}
	var e Embedder
	es, err := e.EmbedDocuments(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	st := NewMemStats()
	for _, en := range es {
		st.Add(en.Value.(fingerprint.TermFreqs))
	}
	q, err := e.EmbedQuery(ctx, embedders.Query{Text: "get user by id"})
	if err != nil {
		t.Fatal(err)
	}
	var scores []float64
	for _, en := range es {
		scores = append(scores, DefaultBM25.Score(q.Value.(fingerprint.TermFreqs), en.Value.(fingerprint.TermFreqs), st))
	}
	t.Logf("BM25 for %q: %.3f", "get user by id", scores)
	if !(scores[0] > scores[1] && scores[1] > scores[2] && scores[2] == 0) {
		t.Errorf("scores %v: want the getUserByID code first, the prose about users second, the unrelated text 0", scores)
	}
	if _, err := e.EmbedQuery(ctx, embedders.Query{Text: "the of a"}); err == nil {
		t.Error("query of stop words accepted")
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"getUserByID", "net/http.Client.Do()", "ÄÖÜ_xY", "a-b-c", "\xff\xfe", "::..//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tf := TermFreqs(s)
		var fp fingerprint.Fingerprint
		if err := fp.Set(fingerprint.E6, fingerprint.Entry{Status: fingerprint.StatusPresent, Value: tf}); err != nil {
			t.Fatalf("term frequencies of %q do not validate: %v", s, err)
		}
		for _, tok := range Tokenize(s) {
			if tok == "" || IsStopWord(tok) || strings.ToLower(tok) != tok {
				t.Fatalf("bad token %q from %q", tok, s)
			}
		}
	})
}

func BenchmarkTermFreqs(b *testing.B) {
	text := strings.Repeat("func (s *Server) handleGetUserByID(w http.ResponseWriter, r *http.Request) { id := r.URL.Query().Get(\"id\") } ", 10)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = TermFreqs(text)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"queries": "query", "classes": "class", "boxes": "box", "matches": "match", "files": "file",
		"types": "type", "args": "arg", "bytes": "byte", "status": "status", "class": "class",
		"analysis": "analysis", "toes": "toe", "trees": "tree", "keys": "key", "its": "its", "v2s": "v2s", "Files": "Files",
		"net/http": "net/http",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDeclaredNamesWeighMore: the name after a declaration keyword counts
// NameWeight times, in Go, Python, JavaScript and Rust; a name in a call
// or in prose counts once.
func TestDeclaredNamesWeighMore(t *testing.T) {
	for _, c := range []struct{ text, term string }{
		{"func (r *Reader) ReadFrame(b []byte) error {", "readframe"},
		{"def parse_header(line):", "parse_header"},
		{"export async function fetchUser(id) {", "fetchuser"},
		{"pub fn split_words(s: &str) -> Vec<&str> {", "split_words"},
		{"class HTTPServer:", "httpserver"},
		// named by DefinedName: no declaration keyword before the name
		{"public static String toHexString(byte[] data) {", "tohexstring"},
		{"@Override\nprotected void onCreate(Bundle state) {", "oncreate"},
		{"public function getUserName($id) {", "getusername"},
		{"const parseQuery = (s) => {", "parsequery"},
		{"std::string Cache::evictOldest(int n) {", "evictoldest"},
	} {
		tf := TermFreqs(c.text)
		i := slices.Index(tf.Terms, c.term)
		if i < 0 || tf.Counts[i] != NameWeight {
			t.Errorf("%q: %s counted %v, want %d (terms %v)", c.text, c.term, tf.Counts, NameWeight, tf.Terms)
		}
	}
	// a definition both rules name counts NameWeight times, not more
	tf := TermFreqs("func parseHeader(line string) {")
	if i := slices.Index(tf.Terms, "parseheader"); i < 0 || tf.Counts[i] != NameWeight {
		t.Errorf("Go func named by both rules counted %v in %v, want %d", tf.Counts, tf.Terms, NameWeight)
	}
	tf = TermFreqs("we call ReadFrame here, then readFrame() again")
	if i := slices.Index(tf.Terms, "readframe"); i < 0 || tf.Counts[i] != 2 {
		t.Errorf("undeclared name counted %v in %v", tf.Counts, tf.Terms)
	}
}

// FuzzSplitIdentifiers checks the fast path (hasHumps) against splitting
// every identifier the long way: the same output for any text.
func FuzzSplitIdentifiers(f *testing.F) {
	for _, s := range []string{"call parseHTTPRequest on user_id", "__init__ and getX2", "HTTPServer x9Y", "数据库 ünïcode_ok", "ABC", "aB", "Ab", "A_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := SplitIdentifiers(text), splitIdentifiers(text, false); got != want {
			t.Fatalf("SplitIdentifiers(%q) = %q, the long way %q", text, got, want)
		}
	})
}

func TestSplitIdentifiers(t *testing.T) {
	for in, want := range map[string]string{
		"call parseHTTPRequest on user_id": "call parse HTTP Request on user id",
		"net/http.Client.Do()":             "net/http.Client.Do()",
		"__init__ and getX2":               "init and get X2",
		"plain words stay":                 "plain words stay",
		"数据库 ünïcode_ok":                   "数据库 ünïcode ok",
		"":                                 "",
	} {
		if got := SplitIdentifiers(in); got != want {
			t.Errorf("SplitIdentifiers(%q) = %q, want %q", in, got, want)
		}
	}
}
