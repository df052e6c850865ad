package neural

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/codeview"
	"github.com/cgraph/cgraph/fingerprint"
)

// TestViewOf checks the shared cache of code views: a hit is what codeview.View
// computes, and the cache empties itself before it holds more than its bound.
func TestViewOf(t *testing.T) {
	fn := "func (c *Cache) evictOldest() {\n\tdelete(c.items, c.order[0])\n}"
	if got, want := viewOf(fn), codeview.View(fn); got != want {
		t.Fatalf("viewOf = %q, codeview.View = %q", got, want)
	}
	if got := viewOf(fn); got != codeview.View(fn) {
		t.Fatalf("cached viewOf = %q", got)
	}
	big := strings.Repeat("parseHTTPRequest ", 64<<10/17)
	for i := range 2 * viewsMaxBytes / (2 * len(big)) {
		viewOf(big + strconv.Itoa(i))
	}
	views.Lock()
	n := views.bytes
	views.Unlock()
	if n > viewsMaxBytes {
		t.Errorf("the view cache holds %d bytes, bound %d", n, viewsMaxBytes)
	}
}

// TestSlotsReadCodeView checks that E1, E5 and E7 store their model's
// vector of the memory's code view — not of the text as written — for a
// function, and the text's own vector for prose, which the view leaves as
// it is.
func TestSlotsReadCodeView(t *testing.T) {
	r := testRegistry(t)
	ctx := context.Background()
	code := "func (c *Cache) evictOldest() {\n\tdelete(c.items, c.order[0])\n\tc.order = c.order[1:]\n}"
	prose := "The cache was stale because the writer never flushed."
	fps, err := r.EmbedDocuments(ctx, inputs(code, prose))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7} {
		var lm *loaded
		prefix, side := "", func(v []float32) []float32 { return v }
		stored := func(i int) []float32 { return fps[i].Get(s).Value.(fingerprint.Dense) }
		switch e := r.Get(s).(type) {
		case *e1Shared:
			lm, prefix = e.lm, e.docPrefix
		case *e7Shared:
			lm, prefix = e.lm, e.docPrefix
		case *denseEmbedder:
			lm, prefix = e.lm, e.docPrefix
		case *pairEmbedder:
			lm, side = e.lm, func(v []float32) []float32 { return e.apply(v, fingerprint.SideA) }
			stored = func(i int) []float32 { return fps[i].Get(s).Value.(fingerprint.Pair).A }
		default:
			t.Fatalf("%s: unexpected embedder %T", s, e)
		}
		if rep := r.Get(s).Status().Representation; !strings.Contains(rep, codeViewNote) {
			t.Errorf("%s: representation does not say it reads the code view: %s", s, rep)
		}
		// The same batch as the registry's (int8 weights quantise
		// activations per batch, so another batch moves the last digits).
		vs, err := lm.EmbedPrefixed(ctx, prefix, []string{codeview.View(code), prose})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := lm.EmbedPrefixed(ctx, prefix, []string{code, prose})
		if err != nil {
			t.Fatal(err)
		}
		if c := cosine(stored(0), side(vs[0].Vector)); c < 0.9999 {
			t.Errorf("%s: stored vector of the function is not its code view's (cosine %.5f)", s, c)
		}
		if c := cosine(stored(0), side(raw[0].Vector)); c > 0.99 {
			t.Errorf("%s: stored vector of the function is the raw text's (cosine %.5f): the view is not applied", s, c)
		}
		if c := cosine(stored(1), side(vs[1].Vector)); c < 0.9999 {
			t.Errorf("%s: prose is not stored as written (cosine %.5f)", s, c)
		}
	}
}

// TestQueriesReadSplit checks that E1, E5, E7 and E10 encode a query with
// its identifiers split (queryView), the way the code view stores memories:
// the query's vector is the model's vector of the split text, not of the
// text as typed.
func TestQueriesReadSplit(t *testing.T) {
	r := testRegistry(t)
	ctx := context.Background()
	q := "why does parseHTTPRequest reject the maxBodyBytes limit"
	if queryView(q) == q {
		t.Fatalf("queryView(%q) left the identifiers as they were", q)
	}
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E10} {
		query := embedders.Query{Text: q}
		if s == fingerprint.E5 || s == fingerprint.E10 {
			query.As = fingerprint.SideB
		}
		view, err := r.Get(s).EmbedQuery(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		var got []float32
		switch v := view.Value.(type) {
		case fingerprint.Dense:
			got = v
		default:
			t.Fatalf("%s: query value %T", s, v)
		}
		var lm *loaded
		prefix, mapQ := "", func(v []float32) []float32 { return v }
		switch e := r.Get(s).(type) {
		case *e1Shared:
			lm, prefix = e.lm, e.queryPrefix
		case *e7Shared:
			lm, prefix = e.lm, e.queryPrefix
			if e.queryLM != nil {
				lm = e.queryLM
			} else {
				mapQ = e.queryHead.apply
			}
		case *pairEmbedder:
			lm, mapQ = e.lm, func(v []float32) []float32 { return e.apply(v, fingerprint.SideB) }
		case *intentEmbedder:
			lm = e.lm
		default:
			t.Fatalf("%s: unexpected embedder %T", s, e)
		}
		want, err := embedOne(ctx, lm, prefix, queryView(q), s)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := embedOne(ctx, lm, prefix, q, s)
		if err != nil {
			t.Fatal(err)
		}
		if c := cosine(got, mapQ(want)); c < 0.9999 {
			t.Errorf("%s: the query's vector is not its split text's (cosine %.5f)", s, c)
		}
		if c := cosine(got, mapQ(raw)); c > 0.999 {
			t.Errorf("%s: the query's vector is the text as typed (cosine %.5f): queryView not applied", s, c)
		}
	}
}
