package engine

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
)

// TestCorrectionKeepsWords (issue 26): on a store whose text lacks them,
// correctly spelled words and identifiers are searched as typed — the
// store's E6 vocabulary is stemmed and has no stop words, which once made
// "this" a typo of "thus" — while real typos of the store's words are still
// corrected.
func TestCorrectionKeepsWords(t *testing.T) {
	ctx := context.Background()
	raw, err := os.ReadFile("testdata/speller-store.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := openStore(t, dir, hashRegistry(t, ""))
	addAll(t, s, strings.Split(strings.TrimSpace(string(raw)), "\n"))
	// The surface vocabulary lives in RAM: reopened, it is rebuilt from the
	// stored records.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir, hashRegistry(t, ""))
	for _, c := range []struct {
		query string
		want  []Correction // nil: searched as typed
	}{
		{"this", nil},     // a stop word: not an E6 term, near "thus"
		{"Returns", nil},  // E6 keeps "return" (plural folded)
		{"glyphs", nil},   // E6 keeps "glyph"; not in the word list either
		{"came", nil},     // near "come"
		{"tests", nil},    // E6 keeps "test"
		{"outlives", nil}, // E6 keeps "outlive"
		{"RocksDB", nil},  // an identifier; its hump "Rocks" is near "rock"
		{"retrun", []Correction{{"retrun", "return"}}},
		{"fucntion", []Correction{{"fucntion", "function"}}},
		{"connetcion", []Correction{{"connetcion", "connection"}}},
		{"Open the connetcion this came", []Correction{{"connetcion", "connection"}}},
	} {
		t.Run(c.query, func(t *testing.T) {
			res, err := s.Search(ctx, SearchRequest{Query: c.query, Mode: pipeline.ModeMultiSpace, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Corrections) != len(c.want) {
				t.Fatalf("corrections %+v, want %+v", res.Corrections, c.want)
			}
			for i := range c.want {
				if res.Corrections[i] != c.want[i] {
					t.Errorf("corrections %+v, want %+v", res.Corrections, c.want)
				}
			}
		})
	}
}

// recordingEmbedder records the query texts of the embedder it wraps.
type recordingEmbedder struct {
	embedders.Embedder
	mu    *sync.Mutex
	texts *[]string
}

func (r recordingEmbedder) EmbedQuery(ctx context.Context, q embedders.Query) (embedders.QueryView, error) {
	r.mu.Lock()
	*r.texts = append(*r.texts, q.Text)
	r.mu.Unlock()
	return r.Embedder.EmbedQuery(ctx, q)
}

// TestCorrectionPerSpace: the corrected query reaches every space;
// CorrectKeywordsOnly sends it to the exact-string spaces (E6, E9) and the
// typed one to the dense encoders (E1, E7); NoCorrect sends it nowhere.
func TestCorrectionPerSpace(t *testing.T) {
	ctx := context.Background()
	base := hashRegistry(t, "")
	var mu sync.Mutex
	seen := map[fingerprint.SlotID]*[]string{}
	var es []embedders.Embedder
	for _, sl := range fingerprint.Slots() {
		e := base.Get(sl)
		switch sl {
		case fingerprint.E1, fingerprint.E6, fingerprint.E7, fingerprint.E9:
			seen[sl] = new([]string)
			e = recordingEmbedder{e, &mu, seen[sl]}
		}
		es = append(es, e)
	}
	reg, err := embedders.NewRegistry(es...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.TempDir(), Options{Create: true, Embedders: reg, ViewCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	addAll(t, s, texts)
	const typed, fixed = "authentcation failed for admin", "authentication failed for admin"
	for _, c := range []struct {
		name         string
		req          SearchRequest
		exact, dense string
	}{
		{"default", SearchRequest{}, fixed, fixed},
		{"CorrectKeywordsOnly", SearchRequest{CorrectKeywordsOnly: true}, fixed, typed},
		{"NoCorrect", SearchRequest{NoCorrect: true}, typed, typed},
	} {
		for _, p := range seen {
			*p = nil
		}
		req := c.req
		req.Query, req.Mode, req.Now = typed, pipeline.ModeMultiSpace, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		req.Profile, err = profiles.Lookup("typo_tolerant")
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Query != typed || res.Corrected != c.exact {
			t.Errorf("%s: query %q, corrected %q", c.name, res.Query, res.Corrected)
		}
		for sl, p := range seen {
			want := c.dense
			if sl == fingerprint.E6 || sl == fingerprint.E9 {
				want = c.exact
			}
			if len(*p) == 0 {
				t.Errorf("%s: %s not asked", c.name, sl)
			}
			for _, got := range *p {
				if got != want {
					t.Errorf("%s: %s encoded %q, want %q", c.name, sl, got, want)
				}
			}
		}
	}
}
