package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
)

// BenchmarkBulkAdd measures add --jsonl end to end minus process start:
// parsing, validation and AddBatch of the 32 sample memories into a real
// store. Reported per memory.
func BenchmarkBulkAdd(b *testing.B) {
	e, err := engine.Open(filepath.Join(b.TempDir(), "s"), engine.Options{Create: true, Embedders: modelFreeEmbedders(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			b.Error(err)
		}
	}()
	a := &app.App{Stdout: io.Discard, Stderr: io.Discard, Ctx: context.Background()}
	n := bytes.Count(sampleJSONL, []byte("\n"))
	b.SetBytes(int64(len(sampleJSONL)))
	for b.Loop() {
		res, err := addJSONL(a, e, bytes.NewReader(sampleJSONL), -1)
		if err != nil || res.Added != n {
			b.Fatalf("%+v %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/memory")
}
