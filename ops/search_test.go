package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// TestSearchWireRoundTrip: a search request and its answer decode from
// their JSON into values that encode to the same bytes, so a client of
// /v1/search/explain prints what a local run prints.
func TestSearchWireRoundTrip(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	a, err := e.Add(ctx, record.NewMemory{Content: "grocksdb v1.7.16 fails to link against librocksdb 7.8.3", Type: record.TypeError, Tags: []string{"ci"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Add(ctx, record.NewMemory{Content: "pin grocksdb v1.7.15 for Debian's librocksdb 7.8.3", Type: record.TypeDecision})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Link(ctx, record.Relation{From: b.ID, To: a.ID, Type: record.RelFixes}); err != nil {
		t.Fatal(err)
	}
	p, err := engine.LookupProfile("causal_reasoning")
	if err != nil {
		t.Fatal(err)
	}
	req := engine.SearchRequest{Query: "grocksdb link failure", Profile: p, Mode: engine.ModeMultiSpace, Direction: engine.DirectionCauses,
		TopK: 5, Filter: record.Filter{TagsAny: []string{"ci"}}, Expand: []record.RelationType{record.RelFixes}}
	wire, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var back engine.SearchRequest
	if err := json.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); !bytes.Equal(again, wire) {
		t.Fatalf("request round trip:\n%s\n%s", wire, again)
	}
	res, err := e.Search(ctx, back)
	if err != nil {
		t.Fatal(err)
	}
	ans := SearchAnswerOf(res, back)
	if len(ans.Results) != 1 || ans.Results[0].ID != a.ID || len(ans.Expanded) != 1 || ans.Expanded[0].ID != b.ID || ans.Direction != "causes" {
		t.Fatalf("answer: %+v", ans)
	}
	out, err := json.Marshal(ans)
	if err != nil {
		t.Fatal(err)
	}
	var dec SearchAnswer
	if err := json.Unmarshal(out, &dec); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(dec); !bytes.Equal(again, out) {
		t.Fatalf("answer round trip:\n%s\n%s", out, again)
	}
}

// TestSearchAnswerCarriesRelevance: each result carries its relevance and
// level, and an answer whose hits were all below the floor says "nothing
// relevant" with the floor and the best relevance seen.
func TestSearchAnswerCarriesRelevance(t *testing.T) {
	res := engine.SearchResult{Memories: []record.Memory{{ID: record.NewID(), Content: "c"}},
		Relevance: []engine.HitRelevance{{P: 0.42, Level: engine.LevelWeak}}}
	res.Hits = []engine.Hit{{Doc: 1, Score: 0.03}}
	ans := SearchAnswerOf(res, engine.SearchRequest{})
	if ans.Results[0].Relevance != 0.42 || ans.Results[0].Level != engine.LevelWeak || ans.NothingRelevant || ans.Note != "" {
		t.Fatalf("answer: %+v", ans)
	}
	ans = SearchAnswerOf(engine.SearchResult{NothingRelevant: true, Best: 0.05}, engine.SearchRequest{MinRelevance: 0.13})
	if !ans.NothingRelevant || ans.MinRelevance != 0.13 || len(ans.Results) != 0 || !strings.Contains(ans.Note, "nothing relevant") || !strings.Contains(ans.Note, "0.05") {
		t.Fatalf("nothing relevant answer: %+v", ans)
	}
}
