package engine

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/hdc"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// The search benchmarks run on stores of 10k and 100k memories whose
// fingerprints come from real embeddings: benchReal Go standard-library
// comment blocks fingerprinted once by the installed models (neural.Registry:
// E1 e5-small-v2, E7 all-MiniLM-L6-v2, and the model-free slots), cached in
// $TMPDIR/cgraph-membench, then replicated with noise up to the store size
// (see replicate). Queries are the first sentences of held-out comment blocks.
//
//	CGRAPH_MEMORY_BENCH=1 go test ./engine -run XXX -bench Search -benchtime 200x -timeout 60m
//
// Every sub-benchmark runs each query twice — through the store's indexes and
// through an exact-scan baseline (dense brute force, exhaustive inverted
// scoring) — and reports p50/p95 of both and their ratio; ns/op is the sum and
// means nothing on its own. CGRAPH_MEMORY_BENCH=10k (or 100k) runs one size.
// top10-overlap is the share of the exact baseline's top 10 the indexes
// return; top10-source-overlap counts a replica of the same source text as a
// match (replicas are near-ties whose order is noise).
const benchReal = 3000

var benchSizes = []int{10_000, 100_000}

// goComments returns the comment blocks of the Go standard library (60–600
// bytes, deduplicated, sorted): documents and held-out query sentences.
func goComments(tb testing.TB, nDocs, nQueries int) (docs, queries []string) {
	tb.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	seen := map[string]bool{}
	var blocks []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "testdata") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close() // read-only
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24) // some generated sources have long lines
		var cur []string
		flush := func() {
			t := strings.Join(cur, " ")
			cur = nil
			if len(t) >= 60 && len(t) <= 600 && !seen[t] && !strings.Contains(t, "Copyright") {
				seen[t] = true
				blocks = append(blocks, t)
			}
		}
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "//go:") {
				cur = append(cur, strings.TrimSpace(strings.TrimPrefix(l, "//")))
			} else if len(cur) > 0 {
				flush()
			}
		}
		return sc.Err()
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(blocks)
	step := len(blocks) / (nDocs + nQueries)
	for i := 0; i < len(blocks) && len(docs)+len(queries) < nDocs+nQueries; i += max(step, 1) {
		if len(queries) < nQueries && (i/max(step, 1))%16 == 0 {
			q := blocks[i]
			if j := strings.Index(q, ". "); j > 20 {
				q = q[:j+1]
			}
			queries = append(queries, q)
		} else if len(docs) < nDocs {
			docs = append(docs, blocks[i])
		}
	}
	return docs, queries
}

// cachedFingerprints embeds docs once per set of producers and keeps the
// encoded fingerprints in $TMPDIR/cgraph-membench.
func cachedFingerprints(tb testing.TB, reg *embedders.Registry, docs []string) []fingerprint.Fingerprint {
	tb.Helper()
	h := sha256.New()
	for _, st := range reg.Statuses() {
		fmt.Fprintln(h, st.Producer)
	}
	for _, d := range docs {
		fmt.Fprintln(h, d)
	}
	path := filepath.Join(os.TempDir(), "cgraph-membench", fmt.Sprintf("fps-%d-%x.bin", len(docs), h.Sum(nil)[:8]))
	if b, err := os.ReadFile(path); err == nil {
		var out []fingerprint.Fingerprint
		for len(b) > 0 {
			n, w := binary.Uvarint(b)
			fp, err := fingerprint.Decode(b[w : w+int(n)])
			if err != nil {
				tb.Fatalf("%s: %v (delete it)", path, err)
			}
			out = append(out, *fp)
			b = b[w+int(n):]
		}
		return out
	}
	start := time.Now()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []fingerprint.Fingerprint
	for i := 0; i < len(docs); i += 64 {
		var in []embedders.Input
		for _, d := range docs[i:min(i+64, len(docs))] {
			in = append(in, embedders.Input{Text: d, Created: created})
		}
		fps, err := reg.EmbedDocuments(context.Background(), in)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, fps...)
	}
	tb.Logf("fingerprinted %d comment blocks in %v (%.1f/s)", len(docs), time.Since(start), float64(len(docs))/time.Since(start).Seconds())
	var buf []byte
	for i := range out {
		enc, err := fingerprint.Encode(&out[i])
		if err != nil {
			tb.Fatal(err)
		}
		buf = binary.AppendUvarint(buf, uint64(len(enc)))
		buf = append(buf, enc...)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		_ = os.WriteFile(path, buf, 0o644) // a cache: losing it costs time only
	}
	return out
}

// replicate makes n fingerprints from the real ones: copy j of real
// fingerprint i keeps its slots with noise, like a paraphrase — dense vectors
// v + N(0, σ²/d) renormalised (σ = 0.33: cosine ≈ 0.95 to the source, the
// setting of the indexes package's real-embedding runs), 3% of the E9 bits
// flipped (projection recomputed), each E6 term dropped with probability 0.1
// (counts kept), E11 sets kept. The originals come first, unchanged.
func replicate(real []fingerprint.Fingerprint, n int, rng *rand.Rand) []fingerprint.Fingerprint {
	out := make([]fingerprint.Fingerprint, n)
	for i := range out {
		src := real[i%len(real)]
		if i < len(real) {
			out[i] = src
			continue
		}
		var fp fingerprint.Fingerprint
		for _, s := range fingerprint.Slots() {
			e := src.Get(s)
			switch v := e.Value.(type) {
			case fingerprint.Dense:
				e.Value = noisy(v, rng)
			case fingerprint.Pair:
				e.Value = fingerprint.Pair{A: noisy(v.A, rng), B: noisy(v.B, rng)}
			case fingerprint.Hyper:
				bits := slices.Clone(v.Bits)
				for range fingerprint.HyperBits * 3 / 100 {
					b := rng.IntN(fingerprint.HyperBits)
					bits[b/64] ^= 1 << (b % 64)
				}
				e.Value = fingerprint.Hyper{Bits: bits, Projection: hdc.Project(bits)}
			case fingerprint.TermFreqs:
				var tf fingerprint.TermFreqs
				for j, t := range v.Terms {
					if rng.Float64() >= 0.1 || len(v.Terms) == 1 {
						tf.Terms, tf.Counts = append(tf.Terms, t), append(tf.Counts, v.Counts[j])
					}
				}
				e.Value = tf
			}
			_ = fp.Set(s, e)
		}
		out[i] = fp
	}
	return out
}

func noisy(v []float32, rng *rand.Rand) fingerprint.Dense {
	const sigma = 0.33
	sd := sigma / math.Sqrt(float64(len(v)))
	out := make(fingerprint.Dense, len(v))
	var n float64
	for i, x := range v {
		y := float64(x) + rng.NormFloat64()*sd
		out[i] = float32(y)
		n += y * y
	}
	for i := range out {
		out[i] = float32(float64(out[i]) / math.Sqrt(n))
	}
	return out
}

// benchStore builds (once per size and process) a store of n memories.
func benchStore(b *testing.B, reg *embedders.Registry, real []fingerprint.Fingerprint, docs []string, n int) *Engine {
	b.Helper()
	if s := benchStores[n]; s != nil {
		return s
	}
	dir, err := os.MkdirTemp("", "cgraph-membench-store-")
	if err != nil {
		b.Fatal(err)
	}
	s, err := Open(dir, Options{Create: true, Embedders: reg})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	fps := replicate(real, n, rand.New(rand.NewPCG(1, 2)))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const batch = 1000
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		ns := make([]record.NewMemory, 0, hi-lo)
		inputs := make([]embedders.Input, 0, hi-lo)
		for i := lo; i < hi; i++ {
			ns = append(ns, record.NewMemory{Content: docs[i%len(docs)], CreatedAt: base.Add(time.Duration(i) * time.Minute), AllowDuplicate: true}) // the replicas repeat their source text
			inputs = append(inputs, embedders.Input{Text: ns[len(ns)-1].Content, Created: ns[len(ns)-1].CreatedAt})
		}
		// The fingerprints' E2/E3 carry the cache's creation time; the
		// records carry their own. Temporal badges only.
		if _, err := s.write(context.Background(), ns, inputs, fps[lo:hi], nil); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("built a store of %d memories in %v (%s)", n, time.Since(start), dir)
	benchStores[n], benchFPs[n] = s, fps
	return s
}

var (
	benchStores = map[int]*Engine{}
	benchFPs    = map[int][]fingerprint.Fingerprint{}
)

// benchMode is one measured search shape.
type benchMode struct {
	name    string
	mode    pipeline.Mode
	profile string
	rerank  float64 // SearchRequest.RerankWeight (0: the engine's policy)
}

var benchModes = []benchMode{
	{"e1_only", pipeline.ModeE1Only, "semantic_search", 0},
	{"multi_space", pipeline.ModeMultiSpace, "semantic_search", 0},
	{"pipeline", pipeline.ModePipeline, "pipeline_full", 0},
	// pipeline_s4 reranks with the fallback E12, which Search skips by
	// default: what S4 costs.
	{"pipeline_s4", pipeline.ModePipeline, "pipeline_full", pipeline.DefaultRerankWeight},
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func BenchmarkSearch(b *testing.B) {
	if os.Getenv("CGRAPH_MEMORY_BENCH") == "" {
		b.Skip("set CGRAPH_MEMORY_BENCH=1: needs the models and builds stores of 10k and 100k memories (~2 GB under $TMPDIR)")
	}
	reg := neuralRegistry(b)
	docs, queries := goComments(b, benchReal, 200)
	real := cachedFingerprints(b, reg, docs)
	b.Cleanup(func() {
		for n, s := range benchStores {
			dir := s.Dir()
			_ = s.Close()
			_ = os.RemoveAll(dir)
			delete(benchStores, n)
		}
	})
	ctx := context.Background()
	sizes := benchSizes
	switch os.Getenv("CGRAPH_MEMORY_BENCH") {
	case "10k":
		sizes = sizes[:1]
	case "100k":
		sizes = sizes[1:]
	}
	for _, n := range sizes {
		s := benchStore(b, reg, real, docs, n)
		b.Run(fmt.Sprintf("%dk/ram", n/1000), func(b *testing.B) {
			for range b.N {
				_ = s.RAMBytes()
			}
			b.ReportMetric(float64(s.RAMBytes())/float64(n), "B/memory")
			for _, si := range s.Slots() {
				if si.RAMBytes > 1024 {
					b.Logf("%s %s: %.0f B/memory", si.Slot, si.Index, float64(si.RAMBytes)/float64(n))
				}
			}
		})
		for _, m := range benchModes {
			p, err := profiles.Lookup(m.profile)
			if err != nil {
				b.Fatal(err)
			}
			// Query views are encoded before the clock starts.
			reqs := make([]SearchRequest, len(queries))
			views := make([]*queryViews, len(queries))
			for i, q := range queries {
				reqs[i] = SearchRequest{Query: q, Profile: p, Mode: m.mode, RerankWeight: m.rerank, Now: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
				keys, err := planViews(s.rerankPolicy(pipeline.Request{Profile: p, Mode: m.mode, RerankWeight: m.rerank}))
				if err != nil {
					b.Fatal(err)
				}
				if views[i], err = s.encode(ctx, reqs[i], keys); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("%dk/%s", n/1000, m.name), func(b *testing.B) {
				var ours, exact []time.Duration
				stages := map[pipeline.Stage][]time.Duration{}
				agree, agreeSrc, total := 0, 0, 0
				for i := range b.N {
					j := i % len(queries)
					preq := s.rerankPolicy(pipeline.Request{Query: reqs[j].Query, Profile: p, Mode: m.mode, RerankWeight: m.rerank})
					s.mu.RLock()
					t0 := time.Now()
					res, err := pipeline.Run(ctx, &spaces{s: s, ix: s.ix, q: views[j]}, preq)
					t1 := time.Now()
					ex, err2 := pipeline.Run(ctx, &spaces{s: s, ix: s.ix, q: views[j], exact: true}, preq)
					t2 := time.Now()
					s.mu.RUnlock()
					if err != nil || err2 != nil {
						b.Fatal(err, err2)
					}
					ours, exact = append(ours, t1.Sub(t0)), append(exact, t2.Sub(t1))
					for _, st := range res.Trace {
						stages[st.Stage] = append(stages[st.Stage], st.Duration)
					}
					// agreement of the top 10 with the exact baseline
					// and of their source texts: replicas of one source are
					// near-ties, so which replica ranks first is noise.
					want, wantSrc := map[record.DocNum]bool{}, map[int]int{}
					for _, h := range ex.Hits {
						want[h.Doc] = true
						wantSrc[int(h.Doc)%len(real)]++
					}
					for _, h := range res.Hits {
						if want[h.Doc] {
							agree++
						}
						if src := int(h.Doc) % len(real); wantSrc[src] > 0 {
							wantSrc[src]--
							agreeSrc++
						}
					}
					total += len(ex.Hits)
				}
				b.ReportMetric(ms(percentile(ours, 0.5)), "p50-ms")
				b.ReportMetric(ms(percentile(ours, 0.95)), "p95-ms")
				b.ReportMetric(ms(percentile(exact, 0.5)), "exact-p50-ms")
				b.ReportMetric(ms(percentile(exact, 0.95)), "exact-p95-ms")
				b.ReportMetric(float64(percentile(ours, 0.5))/float64(percentile(exact, 0.5)), "p50-ratio")
				if total > 0 {
					b.ReportMetric(float64(agree)/float64(total), "top10-overlap")
					b.ReportMetric(float64(agreeSrc)/float64(total), "top10-source-overlap")
				}
				var names []string
				for st, ds := range stages {
					names = append(names, fmt.Sprintf("%s p50 %.2f ms", st, ms(percentile(ds, 0.5))))
				}
				sort.Strings(names)
				b.Logf("stages: %s", strings.Join(names, "; "))
			})
		}
		// E1 recall@10 of the dense index against exact float32 cosine, by
		// precision and rerank depth, on this corpus (e5-small-v2 vectors).
		b.Run(fmt.Sprintf("%dk/e1_recall", n/1000), func(b *testing.B) {
			var docsN []record.DocNum
			var vecs [][]float32
			for i, fp := range benchFPs[n] {
				if v := denseOf(fp.Get(fingerprint.E1).Value); len(v) > 0 {
					docsN, vecs = append(docsN, record.DocNum(i)), append(vecs, v)
				}
			}
			var qs [][]float32
			for _, q := range queries {
				qv, err := reg.Get(fingerprint.E1).EmbedQuery(ctx, embedders.Query{Text: q})
				if err != nil {
					b.Fatal(err)
				}
				qs = append(qs, denseOf(qv.Value))
			}
			exact, _ := indexes.NewDense(indexes.DenseConfig{Name: "exact", Dim: len(vecs[0])})
			if err := exact.Build(docsN, vecs); err != nil {
				b.Fatal(err)
			}
			for range b.N {
				for _, prec := range []indexes.Precision{indexes.Int8, indexes.Float32} {
					d, _ := indexes.NewDense(indexes.DenseConfig{Name: "E1", Dim: len(vecs[0]), Precision: prec})
					if err := d.Build(docsN, vecs); err != nil {
						b.Fatal(err)
					}
					for _, rr := range []int{512, 1024, 2048, 4096} {
						_ = d.SetRerank(rr)
						hit, tot := 0, 0
						var lat []time.Duration
						for _, q := range qs {
							want, _ := exact.BruteForce(q, 10, nil)
							t0 := time.Now()
							got, _ := d.Search(q, 10, nil)
							lat = append(lat, time.Since(t0))
							in := map[record.DocNum]bool{}
							for _, h := range want {
								in[h.Doc] = true
							}
							for _, h := range got {
								if in[h.Doc] {
									hit++
								}
							}
							tot += len(want)
						}
						b.Logf("E1 %s rerank %d: recall@10 %.3f, p50 %.2f ms, %d B/doc", prec, rr, float64(hit)/float64(tot), ms(percentile(lat, 0.5)), d.Bytes()/len(docsN))
					}
				}
			}
		})
		// One probe at a time over 1,000 random candidates (the S3 shape).
		b.Run(fmt.Sprintf("%dk/probes", n/1000), func(b *testing.B) {
			p, _ := profiles.Lookup("pipeline_full")
			req := SearchRequest{Query: queries[0], Profile: p, Mode: pipeline.ModePipeline, Now: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
			keys, err := planViews(pipeline.Request{Profile: p, Mode: pipeline.ModePipeline})
			if err != nil {
				b.Fatal(err)
			}
			q, err := s.encode(ctx, req, keys)
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			within := roaring.New()
			for within.GetCardinality() < 1000 {
				within.Add(uint32(rng.IntN(n)))
			}
			sp := &spaces{s: s, ix: s.ix, q: q}
			times := map[string][]time.Duration{}
			for range b.N {
				for _, pr := range contractProbes {
					if pr.Slot == fingerprint.E10 && pr.View == pipeline.ViewBackward {
						continue // the pipeline searches E10 forward only
					}
					t0 := time.Now()
					_, err := sp.Search(ctx, pr, 1000, within)
					if err != nil && !errors.Is(err, pipeline.ErrUnavailable) {
						b.Fatal(pr, err)
					}
					times[pr.String()] = append(times[pr.String()], time.Since(t0))
				}
			}
			var lines []string
			for _, pr := range contractProbes {
				if len(times[pr.String()]) == 0 {
					continue
				}
				lines = append(lines, fmt.Sprintf("%s %.2f ms", pr, ms(percentile(times[pr.String()], 0.5))))
			}
			b.Logf("p50 per probe, k=1000 within 1000: %s", strings.Join(lines, "; "))
		})
		// End to end: Engine.Search with the real query encoders. The
		// query view cache is emptied first: the sub-benchmarks above
		// encoded these queries, and a mode must not time another's views.
		for _, m := range benchModes {
			p, _ := profiles.Lookup(m.profile)
			b.Run(fmt.Sprintf("%dk/%s/end_to_end", n/1000, m.name), func(b *testing.B) {
				s.views.clear()
				var totals, encodes []time.Duration
				for i := range b.N {
					res, err := s.Search(ctx, SearchRequest{Query: queries[i%len(queries)], Profile: p, Mode: m.mode})
					if err != nil {
						b.Fatal(err)
					}
					totals, encodes = append(totals, res.Total), append(encodes, res.Encode)
				}
				b.ReportMetric(ms(percentile(totals, 0.5)), "p50-ms")
				b.ReportMetric(ms(percentile(totals, 0.95)), "p95-ms")
				b.ReportMetric(ms(percentile(encodes, 0.5)), "encode-p50-ms")
			})
		}
	}
}
