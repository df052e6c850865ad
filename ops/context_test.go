package ops

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

func TestEchoQuery(t *testing.T) {
	long := strings.Repeat("é", 300) // 600 bytes, 2 per rune
	for _, c := range []struct {
		in, want string
	}{
		{"short query", "short query"},
		{strings.Repeat("a", MaxQueryEcho), strings.Repeat("a", MaxQueryEcho)},
		{strings.Repeat("a", MaxQueryEcho+1), strings.Repeat("a", MaxQueryEcho) + "… (257 bytes)"},
		{long, strings.Repeat("é", MaxQueryEcho/2) + "… (600 bytes)"},
		{"x" + long, "x" + strings.Repeat("é", MaxQueryEcho/2-1) + "… (601 bytes)"},
	} {
		if got := EchoQuery(c.in); got != c.want || !utf8.ValidString(got) {
			t.Errorf("EchoQuery(%d bytes) = %q, want %q", len(c.in), got, c.want)
		}
	}
}

func openStore(t *testing.T) *engine.Engine {
	t.Helper()
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(filepath.Join(t.TempDir(), "store"), engine.Options{Create: true, Embedders: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// TestContextPacksWithinBudget: Context packs the matching memories into
// the budget as counted, best first, attaches a memory linked by fixes, and
// refuses bad requests naming the argument.
func TestContextPacksWithinBudget(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	add := func(content string, typ record.Type) record.ID {
		m, err := e.Add(ctx, record.NewMemory{Content: content, Type: typ})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	failure := add("The librocksdb build fails on CI: undefined reference to rocksdb_options_set_track_and_verify_wals", record.TypeError)
	fix := add("Pin grocksdb v1.7.15, the last release that links against Debian's RocksDB 7.8.3", record.TypeDecision)
	add("Tabs in Makefiles, spaces elsewhere", record.TypePreference)
	if _, err := e.Link(ctx, record.Relation{From: fix, To: failure, Type: record.RelFixes}); err != nil {
		t.Fatal(err)
	}
	out, err := Context(ctx, e, ContextRequest{Query: "librocksdb build fails on CI", Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	if out.Tokens <= 0 || out.Tokens > 200 || out.Budget != 200 || len(out.Items) == 0 || out.Items[0].ID != failure.String() {
		t.Fatalf("packing: %d of %d tokens, items %+v", out.Tokens, out.Budget, out.Items)
	}
	if !strings.Contains(out.Markdown, "Pin grocksdb v1.7.15") {
		t.Fatalf("the fix linked to the packed error is missing:\n%s", out.Markdown)
	}
	for _, bad := range []struct {
		req   ContextRequest
		field string
	}{
		{ContextRequest{Query: "  "}, "query"},
		{ContextRequest{Query: "q", Budget: 10}, "budget"},
		{ContextRequest{Query: "q", Budget: MaxBudget + 1}, "budget"},
		{ContextRequest{Query: "q", Candidates: -1}, "candidates"},
		{ContextRequest{Query: "q", Candidates: MaxCandidates + 1}, "candidates"},
		{ContextRequest{Query: "q", Profile: "nope"}, "profile"},
	} {
		_, err := Context(ctx, e, bad.req)
		var ve *record.ValidationError
		if !errors.As(err, &ve) || ve.Field != bad.field || ve.Fix == "" {
			t.Errorf("%+v: %v, want a ValidationError of %q with a fix", bad.req, err, bad.field)
		}
	}
}

// floorStore answers every search with the same hits and relevances,
// whatever floor it is asked for (as a store that does not apply
// MinRelevance would), and records the request.
type floorStore struct {
	res engine.SearchResult
	req engine.SearchRequest
}

func (f *floorStore) Search(_ context.Context, req engine.SearchRequest) (engine.SearchResult, error) {
	f.req = req
	return f.res, nil
}

func (f *floorStore) Related(context.Context, record.ID, engine.RelatedOptions) ([]engine.RelatedMemory, error) {
	return nil, nil
}

// TestContextPacksNothingBelowTheFloor: Context asks for the calibrated
// floor by default and packs no memory below it even when the store hands
// one back; a search that found nothing relevant packs nothing and says
// so; a negative MinRelevance packs what the search ranks.
func TestContextPacksNothingBelowTheFloor(t *testing.T) {
	ctx := context.Background()
	var res engine.SearchResult
	for i, p := range []float64{0.6, engine.RelevanceFloor / 2, 0.3, 0.01} {
		m := record.Memory{ID: record.NewID(), Type: record.TypeNote, Content: fmt.Sprintf("memory %d at relevance %g", i, p)}
		res.Hits = append(res.Hits, engine.Hit{Doc: record.DocNum(i), Score: 1 / float64(i+1)})
		res.Memories = append(res.Memories, m)
		res.Relevance = append(res.Relevance, engine.HitRelevance{P: p, Level: engine.RelevanceLevel(p)})
	}
	s := &floorStore{res: res}
	out, err := Context(ctx, s, ContextRequest{Query: "anything"})
	if err != nil {
		t.Fatal(err)
	}
	if s.req.MinRelevance != engine.RelevanceFloor {
		t.Errorf("Context searched with MinRelevance %g, want the floor %g", s.req.MinRelevance, engine.RelevanceFloor)
	}
	if len(out.Items) != 2 || strings.Contains(out.Markdown, "memory 1") || strings.Contains(out.Markdown, "memory 3") || !strings.Contains(out.Markdown, "memory 2") {
		t.Fatalf("packed below the floor: %+v\n%s", out.Items, out.Markdown)
	}
	if out, err = Context(ctx, s, ContextRequest{Query: "anything", MinRelevance: -1}); err != nil || len(out.Items) != 4 || s.req.MinRelevance != 0 {
		t.Fatalf("MinRelevance -1: %v, %d items, searched with %g", err, len(out.Items), s.req.MinRelevance)
	}
	s.res = engine.SearchResult{NothingRelevant: true, Best: 0.04}
	if out, err = Context(ctx, s, ContextRequest{Query: "anything"}); err != nil || len(out.Items) != 0 || len(out.Notes) == 0 || !strings.Contains(out.Notes[0], "nothing relevant") {
		t.Fatalf("nothing relevant: %v, items %+v, notes %q", err, out.Items, out.Notes)
	}
	if _, err = Context(ctx, s, ContextRequest{Query: "anything", MinRelevance: 2}); err == nil {
		t.Error("MinRelevance 2 was accepted")
	}
}

// judgingStore is a floorStore whose near-duplicate rule names the third
// hit a repeat of the first.
type judgingStore struct{ floorStore }

func (j *judgingStore) NearDuplicateOf(_ context.Context, ids []record.ID) ([]int, bool, error) {
	of := make([]int, len(ids))
	for i := range of {
		of[i] = -1
	}
	of[2] = 0
	return of, true, nil
}

// TestContextUsesTheStoresNearDuplicateRule: a store that judges
// near-duplicates decides what context drops as one (contextpack's word
// overlap is off then: two texts it would call copies both pack), and the
// drop is counted with its reason.
func TestContextUsesTheStoresNearDuplicateRule(t *testing.T) {
	ctx := context.Background()
	var res engine.SearchResult
	for i, text := range []string{"the build fails on CI without librocksdb", "tabs in Makefiles", "CI builds fail: librocksdb is missing", "tabs in Makefiles!"} {
		res.Hits = append(res.Hits, engine.Hit{Doc: record.DocNum(i), Score: 1 / float64(i+1)})
		res.Memories = append(res.Memories, record.Memory{ID: record.NewID(), Type: record.TypeNote, Content: text})
	}
	s := &judgingStore{floorStore{res: res}}
	out, err := Context(ctx, s, ContextRequest{Query: "ci build", MinRelevance: -1})
	if err != nil {
		t.Fatal(err)
	}
	md := out.Markdown
	if strings.Contains(md, "CI builds fail") || !strings.Contains(md, "tabs in Makefiles!") || len(out.Items) != 3 {
		t.Fatalf("packed %d items:\n%s", len(out.Items), md)
	}
	if c := out.Compact(); c.Left.Count != 1 || !strings.Contains(c.Left.Reason, "near-duplicate") {
		t.Fatalf("left out %+v", c.Left)
	}
}
