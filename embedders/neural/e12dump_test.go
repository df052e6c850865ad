package neural

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders/codeview"
)

// TestE12Dump writes what scripts/e12tune needs to fit E12's projection on
// e5-small-v2's token states (the stage before e12pca.bin): for the mined
// doc-comment → code pairs of TestE7Dump (same trees, seed and split) under
// $CGRAPH_E12_DUMP/<lang>/<split>/, and for the bench sets $CGRAPH_E12_SETS
// names (500-query sample, seed 1) under $CGRAPH_E12_DUMP/set-<name>/, the
// token states exactly as E12 reads them: documents in the code view behind
// the passage prefix, queries as typed behind the query prefix, every token
// (special ones included). Per side: <side>.f16 (rows of 384 float16) and
// <side>.off (little-endian uint32 row offsets, one more than texts). It
// asserts nothing about quality.
func TestE12Dump(t *testing.T) {
	dir := os.Getenv("CGRAPH_E12_DUMP")
	if dir == "" {
		t.Skip("set CGRAPH_E12_DUMP=DIR (and CGRAPH_E12_SETS=SET[,SET…]) to dump e5 token states for scripts/e12tune")
	}
	lm := e1Model(t)
	dump := func(sub, side, prefix string, texts []string) {
		t.Helper()
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		var data, off []byte
		off = binary.LittleEndian.AppendUint32(off, 0)
		rows := uint32(0)
		for i := 0; i < len(texts); i += 64 {
			res, err := lm.EmbedWithTokens(context.Background(), prefix, texts[i:min(i+64, len(texts))])
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				for _, v := range r.Tokens.Data[:len(r.Tokens.IDs)*r.Tokens.Dim] {
					data = binary.LittleEndian.AppendUint16(data, floatToHalf(v))
				}
				rows += uint32(len(r.Tokens.IDs))
				off = binary.LittleEndian.AppendUint32(off, rows)
			}
		}
		for name, b := range map[string][]byte{side + ".f16": data, side + ".off": off} {
			if err := os.WriteFile(filepath.Join(sub, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s %s: %d texts, %d token rows", sub, side, len(texts), rows)
	}
	if os.Getenv("CGRAPH_E12_NO_PAIRS") == "" {
		for _, lg := range e7Mine(t) {
			for _, sp := range []struct {
				name  string
				pairs []bench.Pair
			}{{"train", lg.Train}, {"test", lg.Test}} {
				sub := filepath.Join(dir, lg.Lang, sp.name)
				qs, ds := make([]string, len(sp.pairs)), make([]string, len(sp.pairs))
				for i, p := range sp.pairs {
					qs[i], ds[i] = p.Query, codeview.View(e7CodeText(p.Code))
				}
				dump(sub, "q", lm.meta.QueryPrefix, qs)
				dump(sub, "d", lm.meta.PassagePrefix, ds)
			}
		}
	}
	for _, set := range strings.FieldsFunc(os.Getenv("CGRAPH_E12_SETS"), func(r rune) bool { return r == ',' }) {
		ds, err := bench.Load(set, bench.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, "set-"+filepath.Base(set))
		views, idx := setViews(ds)
		sample := bench.SampleQueries(ds.Queries, 500, 1)
		qs := make([]string, len(sample))
		var js []byte
		for i, q := range sample {
			qs[i] = q.Text
			b, err := json.Marshal(map[string]any{"id": q.ID, "rel": relevantRows(ds, q.ID, idx)})
			if err != nil {
				t.Fatal(err)
			}
			js = append(append(js, b...), '\n')
		}
		dump(sub, "q", lm.meta.QueryPrefix, qs)
		dump(sub, "d", lm.meta.PassagePrefix, views)
		if err := os.WriteFile(filepath.Join(sub, "queries.jsonl"), js, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
