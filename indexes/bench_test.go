package indexes

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/viterin/vek/vek32"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// benchSizes are the corpus sizes benchmarks run at: 10k always, 100k only when
// -benchtime is given explicitly (building 100k × 384 takes seconds).
func benchSizes() []int {
	if f := flag.Lookup("test.benchtime"); f != nil && f.Value.String() != f.DefValue {
		return []int{10000, 100000}
	}
	return []int{10000}
}

var denseCache sync.Map // denseKey → *denseFixture

type denseKey struct {
	n int
	p Precision
}

type denseFixture struct {
	x       *Dense
	queries [][]float32
}

// denseFor builds (once per process) an n × 384 mixture index at precision p
// with 1/10 of its docs deleted, and the matching queries.
func denseFor(b *testing.B, n int, p Precision) *denseFixture {
	if f, ok := denseCache.Load(denseKey{n, p}); ok {
		return f.(*denseFixture)
	}
	x, m := buildDenseP(b, n, 384, 7, p)
	for d := 0; d < n; d += 10 {
		x.Delete(record.DocNum(d))
	}
	f := &denseFixture{x: x, queries: m.many(256)}
	denseCache.Store(denseKey{n, p}, f)
	return f
}

func BenchmarkDenseSearch(b *testing.B) {
	for _, n := range benchSizes() {
		for _, p := range []Precision{Float32, Int8} {
			b.Run(fmt.Sprintf("n=%d/ann-%s", n, p), func(b *testing.B) {
				f, exact := denseFor(b, n, p), denseFor(b, n, Float32)
				var rsum float64
				for i := range 64 { // recall against the exact float32 cosine
					got, _ := f.x.Search(f.queries[i], 10, nil)
					want, _ := exact.x.BruteForce(f.queries[i], 10, nil)
					rsum += recall(got, want)
				}
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					if _, err := f.x.Search(f.queries[i%len(f.queries)], 10, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(rsum/64, "recall@10")
				b.ReportMetric(float64(f.x.Bytes())/float64(f.x.Len()), "B/doc")
			})
		}
		b.Run(fmt.Sprintf("n=%d/brute-float32", n), func(b *testing.B) {
			f := denseFor(b, n, Float32)
			for i := 0; b.Loop(); i++ {
				if _, err := f.x.BruteForce(f.queries[i%len(f.queries)], 10, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDenseSearchAfterDelete is a search right after a Delete: it pays
// the one refresh that keeps the index ranking as one built from its vectors
// would — rows (and sketches) back in doc order, and, when the doc was one
// the centre is the mean of (early), the centre and every sketch recomputed.
// BenchmarkDenseSearch is the same search without it.
func BenchmarkDenseSearchAfterDelete(b *testing.B) {
	for _, n := range benchSizes() {
		for _, early := range []bool{true, false} {
			b.Run(fmt.Sprintf("n=%d/int8/early=%v", n, early), func(b *testing.B) {
				benchSearchAfterDelete(b, n, early)
			})
		}
	}
}

func benchSearchAfterDelete(b *testing.B, n int, early bool) {
	x, m := buildDenseP(b, n, 384, 11, Int8)
	qs := m.many(64)
	for i := 0; b.Loop(); i++ {
		d := record.DocNum(i % 100) // among the centre's docs
		if !early {
			d = record.DocNum(n - 100 + i%100) // past them
		}
		x.Delete(d)
		if _, err := x.Search(qs[i%len(qs)], 10, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		must(b, x.Add(d, m.next())) // back, for the next delete
		_, _ = x.Search(qs[0], 10, nil)
		b.StartTimer()
	}
}

// BenchmarkDenseRerank shows recall@10 and latency against the rerank depth.
func BenchmarkDenseRerank(b *testing.B) {
	for _, n := range benchSizes() {
		for _, r := range []int{128, 256, 512, 1024, 2048} {
			b.Run(fmt.Sprintf("n=%d/rerank=%d", n, r), func(b *testing.B) {
				f := denseFor(b, n, Float32)
				var rsum float64
				for i := range 64 {
					got, _ := f.x.search(f.queries[i], 10, nil, r)
					want, _ := f.x.BruteForce(f.queries[i], 10, nil)
					rsum += recall(got, want)
				}
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					if _, err := f.x.search(f.queries[i%len(f.queries)], 10, nil, r); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(rsum/64, "recall@10")
			})
		}
	}
}

func BenchmarkDenseBuild(b *testing.B) {
	m := newMixture(9, 384, 64)
	vecs := m.many(10000)
	docs := make([]record.DocNum, len(vecs))
	for i := range docs {
		docs[i] = record.DocNum(i)
	}
	x, _ := NewDense(DenseConfig{Name: "bench", Dim: 384})
	for b.Loop() {
		if err := x.Build(docs, vecs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e4, "ns/vector")
}

// flatFor builds an n-doc Matryoshka-128 flat index from 384-d mixture vectors.
func flatFor(b *testing.B, n int) (*Flat, [][]float32) {
	m := newMixture(13, 384, 64)
	x, _ := NewFlat("bench", 128)
	docs := make([]record.DocNum, n)
	vecs := make([][]float32, n)
	for i := range docs {
		docs[i], vecs[i] = record.DocNum(i), m.next()
	}
	must(b, x.Build(docs, vecs))
	return x, m.many(64)
}

func BenchmarkFlatSearch(b *testing.B) {
	for _, n := range benchSizes() {
		x, qs := flatFor(b, n)
		cands := roaring.New()
		for d := 0; d < n; d += 10 { // a 1/10 candidate set, like S1's output
			cands.Add(uint32(d))
		}
		b.Run(fmt.Sprintf("n=%d/all", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := x.Search(qs[i%len(qs)], 1000, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(x.Bytes())/float64(x.Len()), "B/doc")
		})
		b.Run(fmt.Sprintf("n=%d/candidates=%d", n, n/10), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := x.Search(qs[i%len(qs)], 1000, cands); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The int8 alternative: same rows quantized per row, scored by a scalar
		// int8 kernel (Go has no int8 SIMD without assembly).
		q8, _ := quantizeRow(qs[0][:128])
		rows := make([]int8, n*128)
		scales := make([]float32, n)
		for r := range n {
			row, s := quantizeRow(x.vecs[r*128 : (r+1)*128])
			copy(rows[r*128:], row)
			scales[r] = s
		}
		b.Run(fmt.Sprintf("n=%d/int8-scan", n), func(b *testing.B) {
			var sink float32
			for b.Loop() {
				for r := range n {
					sink += float32(dotInt8(q8, rows[r*128:(r+1)*128])) * scales[r]
				}
			}
			_ = sink
		})
		b.Run(fmt.Sprintf("n=%d/float32-scan", n), func(b *testing.B) {
			var sink float32
			q := qs[0][:128]
			for b.Loop() {
				for r := range n {
					sink += vek32.Dot(q, x.vecs[r*128:(r+1)*128])
				}
			}
			_ = sink
		})
	}
}

// dotInt8 is a 4-way unrolled scalar int8 dot product.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

type invFixture struct {
	bm      *BM25
	sp      *Splade
	words   [][]string
	sparse  []fingerprint.Sparse
	bmBytes int
}

var invCache sync.Map

// invFor builds BM25 and SPLADE indexes over an n-doc Zipfian corpus
// (vocabulary 30k, 5–64 tokens per doc) with 1/10 deleted, and 64 queries of
// 2–8 terms drawn from the same distribution (SPLADE queries are expanded to
// 10–30 terms, like real SPLADE query vectors).
func invFor(b *testing.B, n int) *invFixture {
	if f, ok := invCache.Load(n); ok {
		return f.(*invFixture)
	}
	tfs, sps, rng := zipfCorpus(21, n, 30000)
	docs := make([]record.DocNum, n)
	for i := range docs {
		docs[i] = record.DocNum(i)
	}
	f := &invFixture{}
	f.bm, _ = NewBM25("E6", DefaultBM25)
	f.sp = NewSplade("E13")
	must(b, f.bm.Build(docs, tfs))
	must(b, f.sp.Build(docs, sps))
	for d := 0; d < n; d += 10 {
		f.bm.Delete(record.DocNum(d))
		f.sp.Delete(record.DocNum(d))
	}
	qtfs, qsps, _ := zipfCorpus(uint64(rng.IntN(1000)+100), 64, 30000)
	for i := range 64 {
		terms := qtfs[i].Terms[:min(len(qtfs[i].Terms), 2+i%7)]
		f.words = append(f.words, terms)
		s := qsps[i]
		m := min(len(s.Indices), 10+i%21)
		f.sparse = append(f.sparse, fingerprint.Sparse{Indices: s.Indices[:m], Weights: s.Weights[:m]})
	}
	invCache.Store(n, f)
	return f
}

func BenchmarkInverted(b *testing.B) {
	for _, n := range benchSizes() {
		for _, k := range []int{10, 1000} {
			for _, alg := range []string{"auto", "maxscore", "exhaustive"} {
				b.Run(fmt.Sprintf("n=%d/BM25/k=%d/%s", n, k, alg), func(b *testing.B) {
					f := invFor(b, n)
					a := map[string]algo{"auto": algoAuto, "maxscore": algoMaxScore, "exhaustive": algoExhaustive}[alg]
					for i := 0; b.Loop(); i++ {
						if _, err := f.bm.search(f.words[i%64], nil, k, nil, a); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(f.bm.Bytes())/float64(f.bm.Stats().Docs), "B/doc")
				})
				b.Run(fmt.Sprintf("n=%d/SPLADE/k=%d/%s", n, k, alg), func(b *testing.B) {
					f := invFor(b, n)
					a := map[string]algo{"auto": algoAuto, "maxscore": algoMaxScore, "exhaustive": algoExhaustive}[alg]
					for i := 0; b.Loop(); i++ {
						if _, err := f.sp.search(f.sparse[i%64], k, nil, a); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(f.sp.Bytes())/float64(f.sp.Len()), "B/doc")
				})
			}
		}
	}
}

func BenchmarkMaxSim(b *testing.B) {
	// Rerank 100 candidates of 64 tokens × 128 dims with a 32-token query.
	rng := rand.New(rand.NewPCG(1, 1))
	x, _ := NewLate("E12", 128)
	var cands []record.DocNum
	for d := range record.DocNum(100) {
		must(b, x.Add(d, randMatrix(rng, 64, 128)))
		cands = append(cands, d)
	}
	q := randMatrix(rng, 32, 128)
	b.Run("int8", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := x.MaxSim(q, cands); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(x.Bytes())/100, "B/doc")
	})
	docs := make([][]float32, 100)
	for i := range docs {
		docs[i] = randMatrix(rng, 64, 128)
	}
	b.Run("float32-baseline", func(b *testing.B) {
		for b.Loop() {
			for _, d := range docs {
				var sum float32
				for i := 0; i < len(q); i += 128 {
					best := float32(-1e30)
					for j := 0; j < len(d); j += 128 {
						best = max(best, vek32.Dot(q[i:i+128], d[j:j+128]))
					}
					sum += best
				}
				_ = sum
			}
		}
		b.ReportMetric(64*128*4, "B/doc")
	})
}

// BenchmarkDenseRerankIsotropic is the worst case for sign sketches: isotropic
// Gaussian vectors, where the true top 10 are barely closer than the rest
// (cosine ≈ 0.2). Real embeddings are far from this; it bounds recall from below.
func BenchmarkDenseRerankIsotropic(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	gen := func() []float32 {
		v := make([]float32, 384)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	x, _ := NewDense(DenseConfig{Name: "iso", Dim: 384})
	for i := range 10000 {
		must(b, x.Add(record.DocNum(i), gen()))
	}
	qs := make([][]float32, 64)
	for i := range qs {
		qs[i] = gen()
	}
	for _, r := range []int{512, 1024, 2048, 4096} {
		b.Run(fmt.Sprintf("n=10000/rerank=%d", r), func(b *testing.B) {
			var rsum float64
			for _, q := range qs {
				got, _ := x.search(q, 10, nil, r)
				want, _ := x.BruteForce(q, 10, nil)
				rsum += recall(got, want)
			}
			for i := 0; b.Loop(); i++ {
				if _, err := x.search(qs[i%len(qs)], 10, nil, r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(rsum/float64(len(qs)), "recall@10")
		})
	}
}

// quantizeRow is one row quantised into a new slice (quantizeInto).
func quantizeRow(v []float32) ([]int8, float32) {
	q := make([]int8, len(v))
	mx, _ := maxAbs(v)
	return q, quantizeInto(q, v, mx)
}
