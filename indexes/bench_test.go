package indexes

import (
	"flag"
	"fmt"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/viterin/vek/vek32"
)

// benchSizes are the corpus sizes benchmarks run at: 10k always, 100k only when
// -benchtime is given explicitly (building 100k × 384 takes seconds).
func benchSizes() []int {
	if f := flag.Lookup("test.benchtime"); f != nil && f.Value.String() != f.DefValue {
		return []int{10000, 100000}
	}
	return []int{10000}
}

var denseCache sync.Map // n → *denseFixture

type denseFixture struct {
	x       *Dense
	queries [][]float32
}

// denseFor builds (once per process) an n × 384 mixture index with 1/10 of its
// docs deleted and the matching queries.
func denseFor(b *testing.B, n int) *denseFixture {
	if f, ok := denseCache.Load(n); ok {
		return f.(*denseFixture)
	}
	x, m := buildDense(b, n, 384, 7)
	for d := 0; d < n; d += 10 {
		x.Delete(DocNum(d))
	}
	f := &denseFixture{x: x, queries: m.many(256)}
	denseCache.Store(n, f)
	return f
}

func BenchmarkDenseSearch(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("n=%d/ann", n), func(b *testing.B) {
			f := denseFor(b, n)
			var rsum float64
			for i := range 64 {
				got, _ := f.x.Search(f.queries[i], 10, nil)
				want, _ := f.x.BruteForce(f.queries[i], 10, nil)
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
		b.Run(fmt.Sprintf("n=%d/brute", n), func(b *testing.B) {
			f := denseFor(b, n)
			for i := 0; b.Loop(); i++ {
				if _, err := f.x.BruteForce(f.queries[i%len(f.queries)], 10, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDenseRerank shows recall@10 and latency against the rerank depth.
func BenchmarkDenseRerank(b *testing.B) {
	for _, n := range benchSizes() {
		for _, r := range []int{128, 256, 512, 1024, 2048} {
			b.Run(fmt.Sprintf("n=%d/rerank=%d", n, r), func(b *testing.B) {
				f := denseFor(b, n)
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
	docs := make([]DocNum, len(vecs))
	for i := range docs {
		docs[i] = DocNum(i)
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
	docs := make([]DocNum, n)
	vecs := make([][]float32, n)
	for i := range docs {
		docs[i], vecs[i] = DocNum(i), m.next()
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
