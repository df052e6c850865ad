package neural

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
)

// benchMemories builds n memories of about words words each from Go
// standard-library doc comments (≈1.3 tokens per word for e5's WordPiece).
func benchMemories(b *testing.B, n, words int) []embedders.Input {
	b.Helper()
	docs := goDocComments(b)
	out := make([]embedders.Input, 0, n)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var cur []string
	for _, d := range docs {
		cur = append(cur, strings.Fields(d)...)
		if len(cur) >= words {
			out = append(out, embedders.Input{Text: strings.Join(cur[:words], " "), Created: now, Session: "bench", Seq: uint64(len(out))})
			cur = nil
			if len(out) == n {
				return out
			}
		}
	}
	b.Fatalf("not enough text for %d memories of %d words", n, words)
	return nil
}

// envList reads a comma-separated benchmark knob.
func envList(name, def string) []string {
	if v := os.Getenv(name); v != "" {
		return strings.Split(v, ",")
	}
	return strings.Split(def, ",")
}

// BenchmarkRegistryIngest measures full fingerprints (all 13 slots, as
// Registry.EmbedDocuments computes them for engine.Engine.AddBatch) per second
// for batches of 32 memories of ~100 and ~400 tokens, the default weights
// (int8 e5 and bge, fp32 MiniLM) against all-fp32 and all-int8 and ONNX Runtime intra-op threads 0 (one per core) against 1. It
// reports mem/s, the mean e5 token count, and the encoded bytes per memory
// of each slot (B/mem-E1 …; fingerprint.Encode of that slot alone, minus an
// empty fingerprint). Knobs: CGRAPH_BENCH_PRECISION=default,fp32,int8
// CGRAPH_BENCH_WORDS=60,240 CGRAPH_BENCH_THREADS=0,1.
//
//	go test -run '^$' -bench RegistryIngest -benchtime 3x -count 3 ./embedders/neural
func BenchmarkRegistryIngest(b *testing.B) {
	ctx := context.Background()
	const batch = 32
	for _, prec := range envList("CGRAPH_BENCH_PRECISION", "default,fp32,int8") {
		for _, th := range envList("CGRAPH_BENCH_THREADS", "0,1") {
			threads, err := strconv.Atoi(th)
			if err != nil {
				b.Fatal(err)
			}
			cfg := Config{Precision: Precision(strings.TrimPrefix(prec, "default")), IntraOpThreads: threads}
			requireModels(b, cfg)
			r, closeFn, err := Registry(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			for _, ws := range envList("CGRAPH_BENCH_WORDS", "60,240") {
				words, err := strconv.Atoi(ws)
				if err != nil {
					b.Fatal(err)
				}
				mems := benchMemories(b, batch, words)
				b.Run("precision="+prec+"/threads="+th+"/words="+ws, func(b *testing.B) {
					fps, err := r.EmbedDocuments(ctx, mems) // warm-up: first runs allocate
					if err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						if fps, err = r.EmbedDocuments(ctx, mems); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "mem/s")
					reportSizes(b, fps)
				})
			}
			if err := closeFn(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// reportSizes reports the mean encoded bytes per memory of each slot and the
// mean E12 token count.
func reportSizes(b *testing.B, fps []fingerprint.Fingerprint) {
	empty, err := fingerprint.Encode(&fingerprint.Fingerprint{})
	if err != nil {
		b.Fatal(err)
	}
	type size struct {
		s fingerprint.SlotID
		n float64
	}
	var sizes []size
	var rows float64
	for _, s := range fingerprint.Slots() {
		var total float64
		for i := range fps {
			var one fingerprint.Fingerprint
			en := fps[i].Get(s)
			if err := one.Set(s, en); err != nil {
				b.Fatal(err)
			}
			enc, err := fingerprint.Encode(&one)
			if err != nil {
				b.Fatal(err)
			}
			total += float64(len(enc) - len(empty))
			if t, ok := en.Value.(fingerprint.Tokens); ok && s == fingerprint.E12 {
				rows += float64(t.Rows())
			}
		}
		sizes = append(sizes, size{s, total / float64(len(fps))})
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i].s < sizes[j].s })
	for _, sz := range sizes {
		b.ReportMetric(sz.n, "B/mem-"+sz.s.String())
	}
	b.ReportMetric(rows/float64(len(fps)), "tokens/mem")
}

// BenchmarkSlots times each model-backed slot alone on a batch of 32 memories
// of ~100 tokens (CGRAPH_BENCH_PRECISION picks the weights, the first of
// CGRAPH_BENCH_WORDS the length). E1 and E12, E7 and E10 share a run when
// called together; alone, each pays the whole run.
func BenchmarkSlots(b *testing.B) {
	ctx := context.Background()
	prec := envList("CGRAPH_BENCH_PRECISION", "default")[0]
	cfg := Config{Precision: Precision(strings.TrimPrefix(prec, "default"))}
	requireModels(b, cfg)
	r, closeFn, err := Registry(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer closeFn()
	words, err := strconv.Atoi(envList("CGRAPH_BENCH_WORDS", "60")[0])
	if err != nil {
		b.Fatal(err)
	}
	mems := benchMemories(b, 32, words)
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E8, fingerprint.E10, fingerprint.E11, fingerprint.E12, fingerprint.E6, fingerprint.E9} {
		b.Run(s.String(), func(b *testing.B) {
			// A fresh copy per call: slots that share a run (E1/E12, E7/E10)
			// would otherwise find the previous call's run still pending.
			if _, err := r.Get(s).EmbedDocuments(ctx, slices.Clone(mems)); err != nil { // warm-up: first runs allocate
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := r.Get(s).EmbedDocuments(ctx, slices.Clone(mems)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*32)/b.Elapsed().Seconds(), "mem/s")
		})
	}
}

// BenchmarkQueryViews measures encoding every query view a pipeline_full
// search plans (E1, E5 both sides, E7, E8 both sides, E10, E11, E12),
// concurrently as the engine does, with a fresh query text each time:
// "shared" lets the slots that read the same run of one model share it
// (loaded.onePass), "separate" — the baseline, in the same run — runs the
// model once per slot.
//
//	go test -run '^$' -bench QueryViews -benchtime 40x -count 5 ./embedders/neural
func BenchmarkQueryViews(b *testing.B) {
	requireModels(b, Config{})
	r, closeFn, err := Registry(context.Background(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeFn()
	queries := goDocComments(b)
	type view struct {
		slot fingerprint.SlotID
		as   fingerprint.Side
	}
	var views []view
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E8, fingerprint.E10, fingerprint.E11, fingerprint.E12} {
		if s.Info().Sides[0] != "" && s != fingerprint.E10 { // E10: the query is embedded whole
			views = append(views, view{s, fingerprint.SideA}, view{s, fingerprint.SideB})
		} else {
			views = append(views, view{slot: s})
		}
	}
	for _, v := range views { // open every model before timing
		_, _ = r.Get(v.slot).EmbedQuery(context.Background(), embedders.Query{Text: "warm up the models", As: v.as})
	}
	for _, mode := range []string{"shared", "separate"} {
		b.Run(mode, func(b *testing.B) {
			sharePasses = mode == "shared"
			defer func() { sharePasses = true }()
			i := 0
			for b.Loop() {
				q := queries[(i*7919+len(mode))%len(queries)]
				i++
				var wg sync.WaitGroup
				for _, v := range views {
					wg.Go(func() {
						_, _ = r.Get(v.slot).EmbedQuery(context.Background(), embedders.Query{Text: q, As: v.as}) // E8/E11 may have nothing to embed
					})
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkE1Query measures what E1's code-tuned queries cost a search:
// "raw" is the query as before them (one pass of the installed int8 e5,
// embedders.Query.Raw), "tuned" the fp32 graph with e1tune.bin merged,
// and "tuned+raw" both side by side, as the engine encodes them when
// relevance reads the raw view. A fresh query text each time.
//
//	go test -run '^$' -bench E1Query -benchtime 100x -count 5 ./embedders/neural
func BenchmarkE1Query(b *testing.B) {
	requireModels(b, Config{})
	r, closeFn, err := Registry(context.Background(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeFn()
	e1 := r.Get(fingerprint.E1)
	queries := goDocComments(b)
	for _, raw := range []bool{false, true} { // open both sessions before timing
		if _, err := e1.EmbedQuery(context.Background(), embedders.Query{Text: "warm up", Raw: raw}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		views []bool // Raw of each view encoded
	}{{"raw", []bool{true}}, {"tuned", []bool{false}}, {"tuned+raw", []bool{false, true}}} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				q := queries[(i*7919+len(c.name))%len(queries)]
				i++
				var wg sync.WaitGroup
				for _, raw := range c.views {
					wg.Go(func() {
						if _, err := e1.EmbedQuery(context.Background(), embedders.Query{Text: q, Raw: raw}); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkE5Query times E5's query encoding as a search without a
// direction makes it — both sides (its forward and backward probes), side
// by side — through raw bge (the documents' int8 file) and through the
// fine-tuned fp32 encoder (e5tune.bin) that ranks. Each query text is new
// to the registry's cache.
func BenchmarkE5Query(b *testing.B) {
	requireModels(b, Config{})
	r, closeFn, err := Registry(context.Background(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeFn()
	e5 := r.Get(fingerprint.E5)
	queries := goDocComments(b)
	for _, raw := range []bool{false, true} { // open both sessions before timing
		if _, err := e5.EmbedQuery(context.Background(), embedders.Query{Text: "warm up", As: fingerprint.SideA, Raw: raw}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		raw  bool
	}{{"raw", true}, {"tuned", false}} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				q := fmt.Sprintf("%s (%d)", queries[(i*7919)%len(queries)], i)
				i++
				var wg sync.WaitGroup
				for _, as := range []fingerprint.Side{fingerprint.SideA, fingerprint.SideB} {
					wg.Go(func() {
						if _, err := e5.EmbedQuery(context.Background(), embedders.Query{Text: q, As: as, Raw: c.raw}); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkInt8Batching times E1 and E5, dynamic int8 on the CPU, and the
// whole fingerprint (all 13 slots, as Registry.EmbedDocuments computes them
// for an add batch) over the same 32 memories of ~100 and ~400 tokens, run
// one text at a time (the default since int8Dynamic) and in batches of eight
// (the baseline, in the same run): what a stored vector's independence from
// its batch-mates costs.
//
//	go test -run '^$' -bench Int8Batching -benchtime 3x -count 5 ./embedders/neural
func BenchmarkInt8Batching(b *testing.B) {
	ctx := context.Background()
	requireModels(b, Config{})
	short, long := benchMemories(b, 32, 60), benchMemories(b, 32, 240)
	for _, run := range []struct {
		name  string
		batch int
	}{{"alone", 0}, {"eights", 8}} {
		r, closeFn, err := Registry(ctx, Config{BatchSize: run.batch})
		if err != nil {
			b.Fatal(err)
		}
		timed := func(name string, mems []embedders.Input, embed func([]embedders.Input) error) {
			b.Run(name+"/"+run.name, func(b *testing.B) {
				// A fresh copy per call: slots that share a run (E1/E12)
				// would otherwise find the previous call's run pending.
				if err := embed(slices.Clone(mems)); err != nil { // warm-up
					b.Fatal(err)
				}
				for b.Loop() {
					if err := embed(slices.Clone(mems)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*len(mems))/b.Elapsed().Seconds(), "mem/s")
			})
		}
		for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5} {
			timed(s.String(), short, func(m []embedders.Input) error { _, err := r.Get(s).EmbedDocuments(ctx, m); return err })
		}
		timed("fingerprint/words=60", short, func(m []embedders.Input) error { _, err := r.EmbedDocuments(ctx, m); return err })
		timed("fingerprint/words=240", long, func(m []embedders.Input) error { _, err := r.EmbedDocuments(ctx, m); return err })
		if err := closeFn(); err != nil {
			b.Fatal(err)
		}
	}
}
