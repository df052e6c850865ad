package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cgraph/cgraph/bulkimport"
	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/redact"
)

// BenchmarkWrite measures what a write costs once its fingerprints exist:
// the part of ingest that is not the models (issue 33: on a GPU the models
// fingerprint ~930 docs/s but engine.AddBatch stored 380). Each iteration
// stores writeBenchDocs real fingerprints (Go standard-library comment
// blocks, fingerprinted once by the installed models and cached; see
// cachedFingerprints) into a fresh store in batches of writeBenchBatch through
// Engine.write — the near-duplicate and contradiction search per memory, the
// RocksDB batch, then the in-memory indexes — and reports docs/s and the
// milliseconds per document of each step (stage: duplicate lookup, similar
// search and the records; commit: encoding and putting the values into the
// batch; write: RocksDB's write of the batch; index: the in-memory indexes).
//
//	CGRAPH_MEMORY_BENCH=1 go test ./engine -run XXX -bench Write -benchtime 3x
//
// "allowdup" stores the same with AllowDuplicate (no duplicate or similar
// search: what a corpus load does); "dedup" is a memory's default.
func BenchmarkWrite(b *testing.B) {
	if os.Getenv("CGRAPH_MEMORY_BENCH") == "" {
		b.Skip("set CGRAPH_MEMORY_BENCH=1: needs the models (fingerprints are cached under $TMPDIR/cgraph-membench)")
	}
	reg := neuralRegistry(b)
	docs, _ := goComments(b, writeBenchDocs, 0)
	fps := cachedFingerprints(b, reg, docs)
	for _, allowDup := range []bool{false, true} {
		name := "dedup"
		if allowDup {
			name = "allowdup"
		}
		b.Run(fmt.Sprintf("%s/procs=%d", name, runtime.GOMAXPROCS(0)), func(b *testing.B) {
			var st writeSteps
			for range b.N {
				st.add(benchWriteOnce(b, reg, docs, fps, allowDup))
			}
			n := float64(b.N * len(docs))
			b.ReportMetric(n/st.total.Seconds(), "docs/s")
			b.ReportMetric(ms(st.stage)/n, "stage-ms/doc")
			b.ReportMetric(ms(st.commit)/n, "commit-ms/doc")
			b.ReportMetric(ms(st.write)/n, "write-ms/doc")
			b.ReportMetric(ms(st.index)/n, "index-ms/doc")
		})
	}
}

const (
	writeBenchDocs  = 2000
	writeBenchBatch = 512
)

// benchWriteOnce stores docs with their fingerprints into a fresh store and
// returns the time of each step. The store is opened and closed outside the
// timer.
func benchWriteOnce(b *testing.B, reg *embedders.Registry, docs []string, fps []fingerprint.Fingerprint, allowDup bool) writeSteps {
	b.StopTimer()
	s, err := Open(b.TempDir(), Options{Create: true, Embedders: reg})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.StartTimer()
	start := time.Now()
	for lo := 0; lo < len(docs); lo += writeBenchBatch {
		hi := min(lo+writeBenchBatch, len(docs))
		ns := make([]record.NewMemory, 0, hi-lo)
		inputs := make([]embedders.Input, 0, hi-lo)
		for i := lo; i < hi; i++ {
			ns = append(ns, record.NewMemory{Content: docs[i], Type: record.TypeCode, CreatedAt: base.Add(time.Duration(i) * time.Minute), AllowDuplicate: allowDup})
			inputs = append(inputs, embedders.Input{Text: docs[i], Created: ns[len(ns)-1].CreatedAt})
		}
		cp := make([]fingerprint.Fingerprint, hi-lo)
		copy(cp, fps[lo:hi]) // write sets E4 in place
		if _, err := s.write(ctx, ns, inputs, cp, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st := s.writeSteps
	st.total = time.Since(start)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	return st
}

// BenchmarkAddBatch measures engine.AddBatch with the models taken out: a
// replay registry returns each text's cached real fingerprint (one map
// look-up per slot), so what is timed is everything AddBatch does besides
// the models — redaction, validation, the duplicate and similar search, the
// batch, the indexes. On a GPU this is what separates "registry" from
// "engine" in scripts/gpucheck. CGRAPH_WRITE_CORPUS (one JSON string a line,
// e.g. `gpucheck -write-corpus`) replaces the Go comment blocks:
//
//	CGRAPH_MEMORY_BENCH=1 CGRAPH_WRITE_CORPUS=/tmp/corpus.jsonl go test ./engine -run XXX -bench AddBatch -benchtime 3x
func BenchmarkAddBatch(b *testing.B) {
	reg, docs, fps := writeCorpusFingerprints(b)
	replay := replayRegistry(b, reg, docs, fps)
	b.Run(fmt.Sprintf("docs=%d/procs=%d", len(docs), runtime.GOMAXPROCS(0)), func(b *testing.B) {
		var total time.Duration
		var st writeSteps
		for range b.N {
			b.StopTimer()
			s, err := Open(b.TempDir(), Options{Create: true, Embedders: replay})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			start := time.Now()
			addCode(b, s, docs, writeBenchBatch)
			total += time.Since(start)
			b.StopTimer()
			st.add(s.writeSteps)
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		n := float64(b.N * len(docs))
		b.ReportMetric(n/total.Seconds(), "docs/s")
		b.ReportMetric(ms(total-st.total)/n, "before-write-ms/doc") // redaction, validation, the replayed fingerprint
		b.ReportMetric(ms(st.stage)/n, "stage-ms/doc")
		b.ReportMetric(ms(st.commit)/n, "commit-ms/doc")
		b.ReportMetric(ms(st.write)/n, "write-ms/doc")
		b.ReportMetric(ms(st.index)/n, "index-ms/doc")
	})
}

// addCode adds docs to s as code memories of one session, batch at a time,
// through AddBatch.
func addCode(b *testing.B, s *Engine, docs []string, batch int) {
	for lo := 0; lo < len(docs); lo += batch {
		var ns []record.NewMemory
		for _, d := range docs[lo:min(lo+batch, len(docs))] {
			ns = append(ns, record.NewMemory{Content: d, Type: record.TypeCode, Session: "bench"})
		}
		if _, err := s.AddBatch(context.Background(), ns); err != nil {
			b.Fatal(err)
		}
	}
}

// writeCorpusFingerprints skips unless CGRAPH_MEMORY_BENCH is set, and
// returns the installed models' registry, writeBenchCorpus and the texts'
// real fingerprints (cachedFingerprints).
func writeCorpusFingerprints(tb testing.TB) (*embedders.Registry, []string, []fingerprint.Fingerprint) {
	if os.Getenv("CGRAPH_MEMORY_BENCH") == "" {
		tb.Skip("set CGRAPH_MEMORY_BENCH=1: needs the models (fingerprints are cached under $TMPDIR/cgraph-membench)")
	}
	reg := neuralRegistry(tb)
	docs := writeBenchCorpus(tb)
	return reg, docs, cachedFingerprints(tb, reg, docs)
}

// writeBenchCorpus returns $CGRAPH_WRITE_CORPUS's texts (one JSON string a
// line, the first writeBenchDocs), or writeBenchDocs Go comment blocks.
func writeBenchCorpus(tb testing.TB) []string {
	path := os.Getenv("CGRAPH_WRITE_CORPUS")
	if path == "" {
		docs, _ := goComments(tb, writeBenchDocs, 0)
		return docs
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close() // read-only
	var docs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() && len(docs) < writeBenchDocs {
		var d string
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return docs
}

// replayEmbedder returns, for a text it was given, that text's cached entry
// of its slot (E4, which depends on the store's sequence numbers, is
// computed by the real embedder).
type replayEmbedder struct {
	embedders.Embedder // the real one: Slot, Status, EmbedQuery
	entries            map[string]fingerprint.Entry
}

func (r replayEmbedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	out := make([]fingerprint.Entry, len(docs))
	for i, d := range docs {
		e, ok := r.entries[d.Text]
		if !ok {
			return nil, fmt.Errorf("replay %s: no cached entry for %.40q", r.Slot(), d.Text)
		}
		out[i] = e
	}
	return out, nil
}

// replayRegistry is reg with every slot but E4 answering from fps.
func replayRegistry(tb testing.TB, reg *embedders.Registry, docs []string, fps []fingerprint.Fingerprint) *embedders.Registry {
	red := redact.Default()
	redacted := make([]string, len(docs))
	for i, d := range docs {
		redacted[i], _ = red.Redact(d) // what AddBatch embeds: secrets replaced
	}
	return remade(tb, reg, func(slot fingerprint.SlotID, e embedders.Embedder) embedders.Embedder {
		if slot == fingerprint.E4 {
			return e
		}
		m := make(map[string]fingerprint.Entry, len(docs))
		for i, d := range docs {
			m[d] = fps[i].Get(slot)
			m[redacted[i]] = fps[i].Get(slot)
		}
		return replayEmbedder{Embedder: e, entries: m}
	})
}

// remade is reg with each slot's embedder e replaced by swap(slot, e).
func remade(tb testing.TB, reg *embedders.Registry, swap func(fingerprint.SlotID, embedders.Embedder) embedders.Embedder) *embedders.Registry {
	var es []embedders.Embedder
	for _, slot := range fingerprint.Slots() {
		es = append(es, swap(slot, reg.Get(slot)))
	}
	r, err := embedders.NewRegistry(es...)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkImportOverlap asks whether a bulk import's two halves overlap:
// add --jsonl (bulkimport with PrepareBatch) fingerprints batch N+1 while
// batch N is written, so on a GPU its rate should approach the slower half,
// not their sum. The models are replayed (replayRegistry) and the device's
// time is a wait of CGRAPH_REPLAY_DEVICE_US microseconds per document
// (default 600: the H100's packed fp16 registry, 1,672 docs/s) in E1's
// replay — a wait that uses no CPU, as a GPU's run does not. The
// model-free slots (E6, E9, the temporal ones) are computed for real; the
// host's work for the model-backed ones (tokenizers, E12's projection,
// pooling, E8's parse) is not modelled. It
// reports docs/s for the device alone ("device"), AddBatch one batch at a
// time ("addbatch": the halves' sum) and the import with 1–3 batches in
// flight, and ideal-docs/s, 1/max(device, store) from the same run.
//
//	CGRAPH_MEMORY_BENCH=1 CGRAPH_WRITE_CORPUS=/tmp/corpus.jsonl go test ./engine -run XXX -bench ImportOverlap -benchtime 3x
func BenchmarkImportOverlap(b *testing.B) {
	perDoc := 600 * time.Microsecond
	if v := os.Getenv("CGRAPH_REPLAY_DEVICE_US"); v != "" {
		us, err := strconv.Atoi(v)
		if err != nil || us < 0 {
			b.Fatalf("CGRAPH_REPLAY_DEVICE_US=%q: want microseconds per document, e.g. 600", v)
		}
		perDoc = time.Duration(us) * time.Microsecond
	}
	reg, docs, fps := writeCorpusFingerprints(b)
	replay := deviceRegistry(b, reg, replayRegistry(b, reg, docs, fps), perDoc)
	var lines bytes.Buffer
	for _, d := range docs {
		j, _ := json.Marshal(map[string]string{"content": d, "type": string(record.TypeCode), "session": "bench"})
		lines.Write(append(j, '\n'))
	}
	ctx := context.Background()
	open := func(b *testing.B) *Engine {
		b.StopTimer()
		defer b.StartTimer()
		s, err := Open(b.TempDir(), Options{Create: true, Embedders: replay})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	closeStore := func(b *testing.B, s *Engine) {
		b.StopTimer()
		defer b.StartTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	report := func(b *testing.B, total time.Duration) {
		b.ReportMetric(float64(b.N*len(docs))/total.Seconds(), "docs/s")
	}
	batch := bulkimport.GPUBatchSize
	var store time.Duration // the write half, per pass, from "addbatch"
	b.Run("device", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			start := time.Now()
			for lo := 0; lo < len(docs); lo += batch {
				hi := min(lo+batch, len(docs))
				in := make([]embedders.Input, hi-lo)
				for i := range in {
					in[i] = embedders.Input{Text: docs[lo+i]}
				}
				if err := replay.EmbedSlots(ctx, in, beforeLock, make([]fingerprint.Fingerprint, hi-lo)); err != nil {
					b.Fatal(err)
				}
			}
			total += time.Since(start)
		}
		report(b, total)
	})
	b.Run("addbatch", func(b *testing.B) {
		var total time.Duration
		var st writeSteps
		for range b.N {
			s := open(b)
			start := time.Now()
			addCode(b, s, docs, batch)
			total += time.Since(start)
			st.add(s.writeSteps)
			closeStore(b, s)
		}
		report(b, total)
		store = st.total / time.Duration(b.N)
		b.ReportMetric(ms(st.total)/float64(b.N*len(docs)), "store-ms/doc")
	})
	for _, inFlight := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("import/inflight=%d", inFlight), func(b *testing.B) {
			var total time.Duration
			for range b.N {
				s := open(b)
				start := time.Now()
				res, err := bulkimport.Import(ctx, s, bytes.NewReader(lines.Bytes()), bulkimport.Options{BatchSize: batch, InFlight: inFlight})
				if err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				if res.Added+len(res.Duplicates) != len(docs) {
					b.Fatalf("import: %d added, %d duplicates, %d failed of %d lines", res.Added, len(res.Duplicates), res.Failed, len(docs))
				}
				closeStore(b, s)
			}
			report(b, total)
			if store > 0 {
				slower := max(store, time.Duration(len(docs))*perDoc)
				b.ReportMetric(float64(len(docs))/slower.Seconds(), "ideal-docs/s")
			}
		})
	}
}

// deviceEmbedder is a replayed slot whose every call first waits perDoc a
// document: a model run on a device, which takes time but no host CPU.
type deviceEmbedder struct {
	embedders.Embedder
	perDoc time.Duration
}

func (d deviceEmbedder) EmbedDocuments(ctx context.Context, docs []embedders.Input) ([]fingerprint.Entry, error) {
	time.Sleep(time.Duration(len(docs)) * d.perDoc)
	return d.Embedder.EmbedDocuments(ctx, docs)
}

// deviceRegistry is a registry whose model-backed slots (modelfree.ModelSlots
// and E11) answer from replay, E1's behind a device wait of perDoc a document (one
// wait stands for the device's whole fingerprint: the real registry runs
// its models side by side), and whose model-free slots (E2-E4, E6, E9) are
// reg's, computed for real as a bulk import computes them.
func deviceRegistry(tb testing.TB, reg, replay *embedders.Registry, perDoc time.Duration) *embedders.Registry {
	return remade(tb, reg, func(slot fingerprint.SlotID, e embedders.Embedder) embedders.Embedder {
		switch {
		case slot == fingerprint.E1:
			return deviceEmbedder{Embedder: replay.Get(slot), perDoc: perDoc}
		case slices.Contains(modelfree.ModelSlots, slot), slot == fingerprint.E11: // E11's vector is a model's
			return replay.Get(slot)
		}
		return e
	})
}
