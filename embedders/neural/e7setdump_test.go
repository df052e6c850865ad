package neural

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
)

// TestE7SetDump writes what scripts/e7tune/evalsets.py needs to measure an
// E7 fit on bench sets outside the engine: per set (CGRAPH_E7_DOCSETS=DIR[,DIR…])
// under $CGRAPH_E7_SETDUMP/<set>/, the documents' code views (views.jsonl, as
// benchstore stores a titled document), the bench's 500-query sample (seed 1)
// as the engine reads it with its relevant documents' positions
// (queries.jsonl), their ids (ids.json; alone with $CGRAPH_E7_SETDUMP_IDS set), and little-endian float32 matrices of E7 as shipped
// (e7q: the tuned query encoder; e7d: head-pooled documents) and E1 (e1q:
// its tuned queries; e1d: its stored documents). It asserts nothing about
// quality (docs/BENCHMARKS.md "E7's documents fine-tuned too").
func TestE7SetDump(t *testing.T) {
	out := os.Getenv("CGRAPH_E7_SETDUMP")
	sets := os.Getenv("CGRAPH_E7_DOCSETS")
	if out == "" || sets == "" {
		t.Skip("set CGRAPH_E7_SETDUMP=DIR and CGRAPH_E7_DOCSETS=SET[,SET…] to dump bench sets for scripts/e7tune/evalsets.py")
	}
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.close() })
	ctx := context.Background()
	for _, dir := range strings.Split(sets, ",") {
		ds, err := bench.Load(dir, bench.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(out, filepath.Base(dir))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		sample := bench.SampleQueries(ds.Queries, 500, 1)
		views, idx := setViews(ds)
		var js []byte
		for _, v := range views {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			js = append(append(js, b...), '\n')
		}
		if err := os.WriteFile(filepath.Join(sub, "views.jsonl"), js, 0o644); err != nil {
			t.Fatal(err)
		}
		js = nil
		for _, q := range sample {
			b, err := json.Marshal(map[string]any{"qv": queryView(q.Text), "rel": relevantRows(ds, q.ID, idx)})
			if err != nil {
				t.Fatal(err)
			}
			js = append(append(js, b...), '\n')
		}
		if err := os.WriteFile(filepath.Join(sub, "queries.jsonl"), js, 0o644); err != nil {
			t.Fatal(err)
		}
		ids := map[string][]string{}
		for _, d := range ds.Corpus {
			ids["docs"] = append(ids["docs"], string(d.ID))
		}
		for _, q := range sample {
			ids["queries"] = append(ids["queries"], string(q.ID))
		}
		b, err := json.Marshal(ids)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "ids.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if os.Getenv("CGRAPH_E7_SETDUMP_IDS") != "" { // the ids alone, for a dump written before ids.json
			continue
		}
		for _, slot := range []string{"E7", "E1"} {
			docs, query := docViewSlot(t, l, slot)
			var dv, qv [][]float32
			for i := 0; i < len(views); i += 128 {
				ps, err := docs(ctx, views[i:min(i+128, len(views))])
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range ps {
					v := p.Vector
					if slot == "E7" {
						v = headPooled(p, e7HeadTokens, e7HeadWeight)
					}
					dv = append(dv, v)
				}
			}
			for _, q := range sample {
				v, err := query(ctx, q.Text)
				if err != nil {
					t.Fatal(err)
				}
				qv = append(qv, v)
			}
			writeF32(t, filepath.Join(sub, strings.ToLower(slot)+"d.f32"), dv)
			writeF32(t, filepath.Join(sub, strings.ToLower(slot)+"q.f32"), qv)
		}
		t.Logf("%s: %d docs, %d queries", dir, len(views), len(sample))
	}
}

// setViews is a bench set's documents as the dense slots read them (the
// code view of a titled document, as benchstore stores it) and each
// document's row.
func setViews(ds *bench.Dataset) (views []string, row map[bench.DocID]int) {
	row = map[bench.DocID]int{}
	views = make([]string, len(ds.Corpus))
	for i, d := range ds.Corpus {
		x := d.Text
		if d.Title != "" {
			x = d.Title + "\n\n" + d.Text
		}
		views[i], row[d.ID] = viewOf(x), i
	}
	return views, row
}

// relevantRows lists the rows of query q's relevant documents.
func relevantRows(ds *bench.Dataset, q bench.QueryID, row map[bench.DocID]int) []int {
	var rel []int
	for id, g := range ds.Qrels[q] {
		if g > 0 {
			rel = append(rel, row[id])
		}
	}
	return rel
}
