package runtime

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchWords are common English words; benchText uses those that are one token.
var benchWords = strings.Fields(`the memory store keeps every piece of text with its
metadata and a fingerprint that search uses to find related code decisions errors and
fixes from earlier sessions when an agent asks about them later today`)

// benchText returns a text of exactly tokens tokens (special tokens and prefix included)
// for model m, varied by seed so batches are not identical.
func benchText(b *testing.B, m *Model, view View, tokens, seed int) string {
	b.Helper()
	prefix := m.cfg.PassagePrefix
	if view == ViewQuery {
		prefix = m.cfg.QueryPrefix
	}
	var single []string // words that are one token for this tokenizer
	for _, w := range benchWords {
		if enc, err := m.tok.Encode(w, 0); err == nil && len(enc.IDs) == m.tok.SpecialCount()+1 {
			single = append(single, w)
		}
	}
	if len(single) == 0 {
		b.Fatal("no single-token bench word")
	}
	var words []string
	for i := 0; ; i++ {
		text := strings.Join(words, " ")
		if len(words) > 0 {
			enc, err := m.tok.Encode(prefix+text, 0)
			if err != nil {
				b.Fatal(err)
			}
			if len(enc.IDs) == tokens {
				return text
			}
			if len(enc.IDs) > tokens {
				b.Fatalf("cannot build a %d-token text", tokens)
			}
		}
		words = append(words, single[(seed*7+i)%len(single)])
	}
}

// peakRSSMB is the process's peak resident set size (VmHWM) in MiB.
func peakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return -1
}

func openBenchE5(b *testing.B) *Model {
	id := cmp.Or(os.Getenv("CGRAPH_BENCH_MODEL"), "e5-small-v2") // or e5-small-v2-q
	onnxPath, tokPath := installedModel(b, id)
	threads, _ := strconv.Atoi(os.Getenv("CGRAPH_BENCH_THREADS"))
	batchSize, _ := strconv.Atoi(os.Getenv("CGRAPH_BENCH_BATCHSIZE")) // 0: default 32
	m, err := Open(Config{
		ID: id, ONNXPath: onnxPath, TokenizerPath: tokPath,
		Normalize: true, Dims: 384, QueryPrefix: "query: ", BatchSize: batchSize,
		IntraOpThreads: threads, Spin: os.Getenv("CGRAPH_BENCH_SPIN") == "1",
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := m.Close(); err != nil {
			b.Error(err)
		}
	})
	return m
}

// BenchmarkE5Docs measures e5-small-v2 ($CGRAPH_BENCH_MODEL selects another e5 build) passage throughput (docs/s) at 32/128/256 tokens,
// one text per call and 32 per call.
func BenchmarkE5Docs(b *testing.B) {
	m := openBenchE5(b)
	ctx := context.Background()
	for _, tokens := range []int{32, 128, 256} {
		for _, batch := range []int{1, 32} {
			b.Run(fmt.Sprintf("tokens=%d/batch=%d", tokens, batch), func(b *testing.B) {
				texts := make([]string, batch)
				for i := range texts {
					texts[i] = benchText(b, m, ViewPassage, tokens, i)
				}
				if _, err := m.Embed(ctx, ViewPassage, texts); err != nil { // warm-up
					b.Fatal(err)
				}
				b.ResetTimer()
				start := time.Now()
				for b.Loop() {
					if _, err := m.Embed(ctx, ViewPassage, texts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*batch)/time.Since(start).Seconds(), "docs/s")
				b.ReportMetric(peakRSSMB(), "peakRSS-MB")
			})
		}
	}
}

// BenchmarkE5Query16 measures the latency of one 16-token query ("query: " prefix and
// special tokens included), reporting the median and 95th percentile.
func BenchmarkE5Query16(b *testing.B) {
	m := openBenchE5(b)
	ctx := context.Background()
	q := []string{benchText(b, m, ViewQuery, 16, 3)}
	if _, err := m.Embed(ctx, ViewQuery, q); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := m.Embed(ctx, ViewQuery, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(peakRSSMB(), "peakRSS-MB")
}
