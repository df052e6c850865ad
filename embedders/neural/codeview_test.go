package neural

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/codeview"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/runtime"
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
		// The same batch as the registry's (int8 models quantise activations
		// per run, so with Config.BatchSize set another batch would move the
		// last digits; int8Dynamic).
		vs, err := lm.EmbedPrefixed(ctx, prefix, []string{codeview.View(code), prose})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := lm.EmbedPrefixed(ctx, prefix, []string{code, prose})
		if err != nil {
			t.Fatal(err)
		}
		want := side(vs[0].Vector)
		if e, ok := r.Get(s).(*e7Shared); ok && e.headTokens > 0 {
			want = e7DocVector(t, e.denseEmbedder, codeview.View(code))
			if c := cosine(want, vs[0].Vector); c > 0.9999 {
				t.Errorf("E7: the function's head-pooled vector is its pooled vector (cosine %.5f): the test's function is too short to tell", c)
			}
		}
		if c := cosine(stored(0), want); c < 0.9999 {
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
			if e.queryLM != nil {
				lm = e.queryLM
			}
		case *e7Shared:
			lm, prefix = e.lm, e.queryPrefix
			if e.queryLM != nil {
				lm = e.queryLM
			} else {
				mapQ = e.queryHead.apply
			}
		case *pairEmbedder:
			lm, mapQ = e.lm, func(v []float32) []float32 { return e.apply(v, fingerprint.SideB) }
			if e.queryLM != nil {
				lm = e.queryLM
			}
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

// TestHeadPooled: E7's document vector is the unit mean of the pooled
// vector and the unit mean of the first k token states; a text of at most
// k tokens keeps its pooled vector; the run's values are only read.
func TestHeadPooled(t *testing.T) {
	rows := [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 1}}
	pooled := func(n int) runtime.Pooled {
		var p runtime.Pooled
		p.Tokens.Dim = 3
		mean := make([]float32, 3)
		for _, r := range rows[:n] {
			p.Tokens.IDs = append(p.Tokens.IDs, 0)
			p.Tokens.Data = append(p.Tokens.Data, r...)
			for j, x := range r {
				mean[j] += x / float32(n)
			}
		}
		normalize(mean)
		p.Vector = mean
		return p
	}
	unit := func(v ...float32) []float32 { normalize(v); return v }
	for _, c := range []struct {
		name   string
		tokens int
		k      int
		want   []float32
	}{
		{"shorter than the head: the pooled vector", 2, 4, unit(1, 1, 0)},
		{"as long as the head: the pooled vector", 3, 3, unit(1, 1, 1)},
		// pooled (1,1,2)/√6, head (1,1,0)/√2, weighed 2.
		{"longer: the head counts beside the mean", 4, 2, unit(1/2.449490+2/1.414214, 1/2.449490+2/1.414214, 2/2.449490)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pooled(c.tokens)
			before := slices.Clone(p.Vector)
			got := headPooled(p, c.k, 2)
			if cosine(got, c.want) < 0.99999 {
				t.Errorf("headPooled = %v, want %v", got, c.want)
			}
			if !slices.Equal(p.Vector, before) {
				t.Errorf("headPooled changed the run's pooled vector to %v", p.Vector)
			}
		})
	}
}
