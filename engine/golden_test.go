package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// goldenTop is how deep the expected memories must rank.
const goldenTop = 3

type corpusLine struct {
	Key       string    `json:"key"`
	Type      string    `json:"type"`
	Content   string    `json:"content"`
	Tags      []string  `json:"tags"`
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"created_at"`
}

type goldenQuery struct {
	Query    string   `json:"query"`
	Want     []string `json:"want"`     // every one of them in the top goldenTop
	WantAny  []string `json:"want_any"` // at least one of them (memories answering the same question)
	Profiles []string `json:"profiles"` // default semantic_search (multi_space) and pipeline_full (pipeline)
	Modes    []string `json:"modes"`    // default e1_only, multi_space, pipeline
}

func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// neuralRegistry opens the real models, or skips when E1's is not installed.
func neuralRegistry(t testing.TB) *embedders.Registry {
	t.Helper()
	reg, closeFn, err := neural.Registry(context.Background(), neural.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeFn() })
	if st := reg.Get(fingerprint.E1).Status(); st.State == fingerprint.StatusUnavailable {
		t.Skipf("E1 has no model here (%s): run `make setup`", st.Reason)
	}
	return reg
}

// TestGoldenSearch adds a small real corpus (the bundled samples and 30 more
// memories) with the real models and checks, per query, mode and profile,
// that the memories a person would expect rank in the top goldenTop.
func TestGoldenSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds 62 memories with real models")
	}
	ctx := context.Background()
	reg := neuralRegistry(t)
	s := openStore(t, t.TempDir(), reg)
	corpus := readJSONL[corpusLine](t, "testdata/golden_corpus.jsonl")
	var ns []record.NewMemory
	for _, c := range corpus {
		ns = append(ns, record.NewMemory{Content: c.Content, Type: record.Type(c.Type), Tags: c.Tags, Source: c.Source, CreatedAt: c.CreatedAt})
	}
	ms, err := s.AddBatch(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	keyOf := map[record.ID]string{}
	for i, m := range ms {
		keyOf[m.ID] = corpus[i].Key
	}
	var queries []goldenQuery
	b, err := os.ReadFile("testdata/golden_queries.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &queries); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	passed, total := 0, 0
	for _, q := range queries {
		modes := q.Modes
		if modes == nil {
			modes = []string{"e1_only", "multi_space", "pipeline"}
		}
		for _, mname := range modes {
			mode, err := pipeline.ParseMode(mname)
			if err != nil {
				t.Fatal(err)
			}
			pnames := q.Profiles
			switch {
			case mode == pipeline.ModeE1Only:
				pnames = []string{"semantic_search"} // not weighed in single-slot modes
			case pnames == nil && mode == pipeline.ModePipeline:
				pnames = []string{"pipeline_full"}
			case pnames == nil:
				pnames = []string{"semantic_search"}
			}
			for _, pname := range pnames {
				p, err := profiles.Lookup(pname)
				if err != nil {
					t.Fatal(err)
				}
				res, err := s.Search(ctx, SearchRequest{Query: q.Query, Profile: p, Mode: mode, TopK: goldenTop, Now: now, NoThresholds: true})
				if err != nil {
					t.Fatalf("%q %s/%s: %v", q.Query, mname, pname, err)
				}
				var got []string
				for _, m := range res.Memories {
					got = append(got, keyOf[m.ID])
				}
				total++
				ok := true
				for _, w := range q.Want {
					ok = ok && slices.Contains(got, w)
				}
				if len(q.WantAny) > 0 {
					ok = ok && slices.ContainsFunc(q.WantAny, func(w string) bool { return slices.Contains(got, w) })
				}
				if ok {
					passed++
					continue
				}
				t.Errorf("%q %s/%s: top %d %v, want all of %v / any of %v", q.Query, mname, pname, goldenTop, got, q.Want, q.WantAny)
			}
		}
	}
	t.Logf("%d of %d query×mode×profile cases rank the expected memories in the top %d (%s)", passed, total, goldenTop, strings.Join([]string{reg.Get(fingerprint.E1).Status().Producer.Model, reg.Get(fingerprint.E7).Status().Producer.Model}, ", "))
}
