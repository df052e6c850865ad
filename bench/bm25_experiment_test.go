//go:build benchexp

// This file is an experiment, not part of the default test suite (build tag
// benchexp): it measures a real BM25 baseline (indexes.BM25 over the E6
// code-aware tokenizer) through the whole harness on a set built by Prepare.
//
//	cgraph bench prepare csn-go --src "$(go env GOROOT)/src" --out /tmp/csn-go --typos
//	BENCH_SET=/tmp/csn-go BENCH_OUT=/tmp/csn-go-bm25 go test -tags benchexp -run TestBM25Experiment -v ./bench
package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders/keywords"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/record"
)

// bm25Retriever is E6 alone: BM25 over code-aware tokens of title + text.
type bm25Retriever struct {
	ix  *indexes.BM25
	ids []bench.DocID
}

func terms(text string) []string {
	tf := keywords.TermFreqs(text)
	var out []string
	for i, t := range tf.Terms {
		for range tf.Counts[i] {
			out = append(out, t)
		}
	}
	return out
}

func (r *bm25Retriever) Index(_ context.Context, docs []bench.Doc, progress func(int)) (bool, error) {
	ix, err := indexes.NewBM25("e6", indexes.DefaultBM25)
	if err != nil {
		return false, err
	}
	r.ix, r.ids = ix, make([]bench.DocID, len(docs))
	for i, d := range docs {
		r.ids[i] = d.ID
		if err := ix.Add(record.DocNum(i), keywords.TermFreqs(d.Title+"\n"+d.Text)); err != nil {
			return false, err
		}
		progress(i + 1)
	}
	return false, nil
}

func (r *bm25Retriever) Search(_ context.Context, req bench.SearchRequest) ([]bench.Ranked, []bench.StageTiming, error) {
	t0 := time.Now()
	q := terms(req.Query.Text)
	t1 := time.Now()
	hits, err := r.ix.Search(q, req.K, nil)
	if err != nil {
		return nil, nil, err
	}
	out := make([]bench.Ranked, len(hits))
	for i, h := range hits {
		out[i] = bench.Ranked{ID: r.ids[h.Doc], Score: float64(h.Score)}
	}
	return out, []bench.StageTiming{{Stage: "tokenize", Duration: t1.Sub(t0)}, {Stage: "bm25", Duration: time.Since(t1)}}, nil
}

func TestBM25Experiment(t *testing.T) {
	set, out := os.Getenv("BENCH_SET"), os.Getenv("BENCH_OUT")
	if set == "" || out == "" {
		t.Skip("set BENCH_SET and BENCH_OUT")
	}
	for _, qf := range []string{"queries.jsonl", "queries-typos.jsonl"} {
		ds, err := bench.Load(set, bench.LoadOptions{QueriesFile: filepath.Join(set, qf)})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := bench.Run(context.Background(), ds, &bm25Retriever{}, bench.RunOptions{
			Runs: []bench.RunSpec{{Name: bench.BaselineBM25, Mode: "embedder_first", Embedder: "E6"}}, Seed: 1,
			Repro: bench.Repro{CgraphVersion: "experiment", Seeds: map[string]uint64{"prepare": 1}},
		})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(out, qf[:len(qf)-len(".jsonl")])
		if err := rep.WriteAll(dir); err != nil {
			t.Fatal(err)
		}
		r := rep.Runs[0]
		t.Logf("%s: %d queries over %d docs: nDCG@10 %.4f [%.4f, %.4f] MRR@10 %.4f R@10 %.4f R@100 %.4f MAP %.4f; p50 %.3f ms p95 %.3f ms; ingest %.0f docs/s, peak RSS %d MiB",
			qf, len(r.Queries), rep.Ingest.Docs, r.Metrics["ndcg@10"], r.CI95["ndcg@10"].Lo, r.CI95["ndcg@10"].Hi, r.Metrics["mrr@10"],
			r.Metrics["recall@10"], r.Metrics["recall@100"], r.Metrics["map"], r.LatencyMS.P50, r.LatencyMS.P95, rep.Ingest.DocsPerS, rep.Ingest.PeakRSSBytes>>20)
	}
}
