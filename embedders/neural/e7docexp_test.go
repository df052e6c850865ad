package neural

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/runtime"
)

// TestE7DocViews measures E7 alone (the shipped query encoder, exact cosine
// over the whole corpus, the bench's --max-queries 500 --seed 1 sample) with
// its documents pooled in other ways, on bench sets:
// CGRAPH_E7_DOCSETS=DIR[,DIR…]. It logs nDCG@10 per view with a paired
// bootstrap CI against the pooled view; it asserts nothing
// about quality (docs/BENCHMARKS.md "E7 reads a function's head").
// CGRAPH_DOCVIEW_SLOT=E1 or E5 measures that slot's model the same way
// (docViewSlot); CGRAPH_E7_VIEWS=KxW[,KxW…] other heads. Views, all from
// one 256-token run over the code view:
//
//   - pooled: the model's own pooling (E7 v1: the mean of every token state)
//   - poolK: headPooled with the first K token states at weight 1
//   - pool32xW: the first 32 at weight W (pool32x2 is E7 v2's recipe)
func TestE7DocViews(t *testing.T) {
	sets := os.Getenv("CGRAPH_E7_DOCSETS")
	if sets == "" {
		t.Skip("set CGRAPH_E7_DOCSETS=DIR[,DIR…] (bench sets) to measure E7's document views")
	}
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.close() })
	slot := os.Getenv("CGRAPH_DOCVIEW_SLOT")
	docs, query := docViewSlot(t, l, slot)
	ctx := context.Background()
	for _, dir := range strings.Split(sets, ",") {
		ds, err := bench.Load(dir, bench.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The bench's sample (--max-queries 500 --seed 1), as the engine's runs.
		sample := bench.SampleQueries(ds.Queries, 500, 1)
		ids, texts := make([]bench.DocID, len(ds.Corpus)), make([]string, len(ds.Corpus))
		for i, d := range ds.Corpus {
			ids[i], texts[i] = d.ID, d.Text
			if d.Title != "" { // as benchstore stores a document
				texts[i] = d.Title + "\n\n" + d.Text
			}
		}
		rel := func(q bench.QueryID) map[bench.DocID]int { return ds.Qrels[q] }
		views := make([]string, len(texts))
		for i, x := range texts {
			views[i] = viewOf(x)
		}
		// One 256-token run with its token states; every view is headPooled
		// (the shipped function) at its own settings, or the mean alone.
		type view struct {
			name string
			k    int
			w    float32
			ds   [][]float32
		}
		views7 := []view{{name: "pooled"}, {"pool16", 16, 1, nil}, {"pool24", 24, 1, nil}, {"pool32", 32, 1, nil},
			{"pool48", 48, 1, nil}, {"pool32x0.5", 32, 0.5, nil}, {"pool32x2", 32, 2, nil}}
		// CGRAPH_E7_VIEWS=KxW[,KxW…] measures those heads instead (the
		// pooled view stays first, the baseline).
		if spec := os.Getenv("CGRAPH_E7_VIEWS"); spec != "" {
			views7 = views7[:1]
			for _, kw := range strings.Split(spec, ",") {
				var k int
				var w float32
				if _, err := fmt.Sscanf(kw, "%dx%g", &k, &w); err != nil || k <= 0 || w <= 0 {
					t.Fatalf("CGRAPH_E7_VIEWS: %q is not KxW (e.g. 32x2)", kw)
				}
				views7 = append(views7, view{"pool" + kw, k, w, nil})
			}
		}
		for i := 0; i < len(views); i += 128 {
			ps, err := docs(ctx, views[i:min(i+128, len(views))])
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				for j := range views7 {
					v := p.Vector
					if views7[j].k > 0 {
						v = headPooled(p, views7[j].k, views7[j].w)
					}
					views7[j].ds = append(views7[j].ds, v)
				}
			}
		}
		qs := make([][]float32, len(sample))
		for i, q := range sample {
			v, err := query(ctx, q.Text)
			if err != nil {
				t.Fatal(err)
			}
			qs[i] = v
		}
		var base []float64
		for _, view := range views7 {
			per := make([]float64, len(qs))
			var s float64
			for i, q := range qs {
				per[i] = ndcgAt10(q, view.ds, ids, rel(sample[i].ID))
				s += per[i]
			}
			if base == nil {
				base = per
			}
			lo, hi := pairedCI(per, base)
			t.Logf("%s %-9s %s nDCG@10 %.4f  − pooled [%+.4f, %+.4f]  (%d queries, %d docs)", filepath.Base(dir), view.name, cmp.Or(slot, "E7"), s/float64(len(qs)), lo, hi, len(qs), len(ids))
		}
	}
}

// docViewSlot gives the document run (pooled vector and token states) and
// the query vector of the slot TestE7DocViews measures: CGRAPH_DOCVIEW_SLOT
// E7 (the default; the shipped query encoder), E1 (e5-small-v2, mean
// pooled, its query prefix) or E5 (bge-small-en-v1.5, [CLS] pooled, without
// its direction head on either side: the pooling, not the head, is what is
// compared).
func docViewSlot(t *testing.T, l *loader, slot string) (docs func(context.Context, []string) ([]runtime.Pooled, error), query func(context.Context, string) ([]float32, error)) {
	t.Helper()
	dense := func(e embedders.Embedder, err error) (func(context.Context, []string) ([]runtime.Pooled, error), func(context.Context, string) ([]float32, error)) {
		if err != nil {
			t.Fatal(err)
		}
		d := e.(*denseEmbedder)
		return func(ctx context.Context, texts []string) ([]runtime.Pooled, error) {
				return d.lm.EmbedWithTokens(ctx, d.docPrefix, texts)
			}, func(ctx context.Context, text string) ([]float32, error) {
				v, err := d.EmbedQuery(ctx, embedders.Query{Text: text})
				if err != nil {
					return nil, err
				}
				return []float32(v.Value.(fingerprint.Dense)), nil
			}
	}
	switch slot {
	case "", "E7":
		return dense(buildE7(l))
	case "E1":
		return dense(buildE1(l))
	case "E5":
		e, err := buildE5(l)
		if err != nil {
			t.Fatal(err)
		}
		p := e.(*pairEmbedder)
		return func(ctx context.Context, texts []string) ([]runtime.Pooled, error) {
				return p.lm.EmbedWithTokens(ctx, "", texts)
			}, func(ctx context.Context, text string) ([]float32, error) {
				return embedOne(ctx, p.lm, "", queryView(text), fingerprint.E5)
			}
	}
	t.Fatalf("CGRAPH_DOCVIEW_SLOT %q: want E7, E1 or E5", slot)
	return nil, nil
}

func ndcgAt10(q []float32, ds [][]float32, ids []bench.DocID, rel map[bench.DocID]int) float64 {
	type hit struct {
		i int
		s float64
	}
	var top []hit
	for i, d := range ds {
		s := dot32(q, d)
		if len(top) < 10 || s > top[len(top)-1].s {
			top = append(top, hit{i, s})
			for k := len(top) - 1; k > 0 && top[k].s > top[k-1].s; k-- {
				top[k], top[k-1] = top[k-1], top[k]
			}
			if len(top) > 10 {
				top = top[:10]
			}
		}
	}
	var dcg, idcg float64
	for r, h := range top {
		if rel[ids[h.i]] > 0 {
			dcg += 1 / math.Log2(float64(r+2))
		}
	}
	for r := range min(relevant(rel), 10) {
		idcg += 1 / math.Log2(float64(r+2))
	}
	return dcg / idcg
}

func relevant(rel map[bench.DocID]int) int {
	n := 0
	for _, g := range rel {
		if g > 0 {
			n++
		}
	}
	return n
}
