package engine

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
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
// search and the records; commit: the batch; index: the in-memory indexes).
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
	s.writeTimer = &writeSteps{}
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
		if _, err := s.write(ctx, ns, inputs, cp); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st := *s.writeTimer
	st.total = time.Since(start)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	return st
}
