package neural

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// TestE7DocViews measures E7 alone (the shipped query encoder, exact cosine
// over the whole corpus, the bench's --max-queries 500 --seed 1 sample) with
// its documents pooled in other ways, on bench sets:
// CGRAPH_E7_DOCSETS=DIR[,DIR…]. It logs nDCG@10 per view with a paired
// bootstrap CI against E7 v1's mean-pooled vectors; it asserts nothing
// about quality (docs/BENCHMARKS.md "E7 reads a function's head"). Views,
// all from one 256-token MiniLM run over the code view:
//
//   - pooled: the mean of every token state (E7 v1)
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
	emb, err := buildE7(l)
	if err != nil {
		t.Fatal(err)
	}
	e7 := emb.(*denseEmbedder)
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
		// The shipped run, with its token states: the mean of the first k
		// states of the same run costs no second pass.
		var d256 [][]float32
		pool := map[int][][]float32{}
		for i := 0; i < len(views); i += 128 {
			ps, err := e7.lm.EmbedWithTokens(ctx, e7.docPrefix, views[i:min(i+128, len(views))])
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				d256 = append(d256, p.Vector)
				for _, k := range []int{16, 24, 32, 48} {
					v := make([]float32, p.Tokens.Dim)
					n := min(k, len(p.Tokens.IDs))
					for r := range n {
						for j := range v {
							v[j] += p.Tokens.Data[r*p.Tokens.Dim+j]
						}
					}
					pool[k] = append(pool[k], unit32(v))
				}
			}
		}
		sum := func(ws []float32, vs ...[][]float32) [][]float32 {
			out := make([][]float32, len(vs[0]))
			for i := range out {
				v := make([]float32, len(vs[0][i]))
				for k, x := range vs {
					for j := range v {
						v[j] += ws[k] * x[i][j]
					}
				}
				out[i] = unit32(v)
			}
			return out
		}
		qs := make([][]float32, len(sample))
		for i, q := range sample {
			v, err := e7.EmbedQuery(ctx, embedders.Query{Text: q.Text})
			if err != nil {
				t.Fatal(err)
			}
			qs[i] = []float32(v.Value.(fingerprint.Dense))
		}
		one := []float32{1, 1, 1}
		var base []float64
		for _, view := range []struct {
			name string
			ds   [][]float32
		}{
			{"pooled", d256},
			{"pool16", sum(one, d256, pool[16])}, {"pool24", sum(one, d256, pool[24])}, {"pool32", sum(one, d256, pool[32])}, {"pool48", sum(one, d256, pool[48])},
			{"pool32x0.5", sum([]float32{1, 0.5}, d256, pool[32])}, {"pool32x2", sum([]float32{1, 2}, d256, pool[32])},
		} {
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
			t.Logf("%s %-9s E7 nDCG@10 %.4f  − pooled [%+.4f, %+.4f]  (%d queries, %d docs)", filepath.Base(dir), view.name, s/float64(len(qs)), lo, hi, len(qs), len(ids))
		}
	}
}

func unit32(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for j := range v {
		v[j] = float32(float64(v[j]) / math.Sqrt(n))
	}
	return v
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
