package contextpack

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/models/tokenizer"
)

// e5 is the real e5-small-v2 tokenizer from the tokenizer package's fixtures.
func e5(t *testing.T) Counter {
	t.Helper()
	tok, err := tokenizer.LoadBytes(e5Bytes(t))
	if err != nil {
		t.Fatal(err)
	}
	return TokenizerCounter{T: tok, Label: "e5-small-v2"}
}

// e5Bytes is the e5-small-v2 tokenizer.json.
func e5Bytes(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open("../models/tokenizer/testdata/e5-small-v2.tokenizer.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cands(texts ...string) []Candidate {
	out := make([]Candidate, len(texts))
	for i, s := range texts {
		out[i] = Candidate{ID: fmt.Sprintf("id-%d", i+1), Type: "note", CreatedAt: time.Date(2026, 3, 1+i, 0, 0, 0, 0, time.UTC), Score: 1 / float64(i+1), Content: s}
	}
	return out
}

// TestBudgetNeverExceeded: for budgets from tiny to roomy, the rendered
// context, counted again with the tokenizer, fits the budget, and a larger
// budget never packs less.
func TestBudgetNeverExceeded(t *testing.T) {
	c := e5(t)
	cs := cands(
		"Decision: keep every memory's writes in one RocksDB WriteBatch across all column families; a crash between families left fingerprints without records.",
		"Error: context deadline exceeded from the embedding batch job after 30s, only on large files. Fix: split text into chunks of 2 KB before tokenizing.",
		"Pattern: put commands in a testable package and keep main.go to one line calling Execute(args, stdin, stdout, stderr).",
		strings.Repeat("A very long memory about compaction, write stalls and L0 files. ", 60),
		"Note: the nightly benchmark regressed 18% on add after enabling sync writes.",
	)
	prev := -1
	for _, budget := range []int{20, 40, 64, 100, 150, 250, 400, 1000, 5000} {
		p, err := Pack("why does the build stall", cs, c, Options{Budget: budget})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if got := c.Count(p.Markdown()); got > budget || got != p.Tokens {
			t.Fatalf("budget %d: markdown counts %d tokens (reported %d)", budget, got, p.Tokens)
		}
		if len(p.Items)+len(p.Dropped) != len(cs) {
			t.Fatalf("budget %d: %d packed + %d dropped of %d", budget, len(p.Items), len(p.Dropped), len(cs))
		}
		if p.Tokens < prev {
			t.Fatalf("budget %d packed %d tokens, fewer than a smaller budget (%d)", budget, p.Tokens, prev)
		}
		prev = p.Tokens
	}
	big, _ := Pack("q", cs, c, Options{Budget: 5000})
	if len(big.Items) != len(cs) || big.Items[3].Truncated {
		t.Fatalf("a roomy budget should pack all whole: %+v", big.Dropped)
	}
}

// TestTruncatesAtWordBoundary: the first candidate that does not fit is cut
// at a word boundary, marked, and packing stops there.
func TestTruncatesAtWordBoundary(t *testing.T) {
	c := e5(t)
	long := strings.Repeat("alpha beta gamma delta ", 100)
	p, err := Pack("q", cands("short first memory about alpha", long, "a third memory"), c, Options{Budget: 120})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 2 || !p.Items[1].Truncated || p.Items[0].Truncated {
		t.Fatalf("items %+v", p.Items)
	}
	if cut := p.Items[1].Content; !strings.HasPrefix(long, cut) || !strings.HasSuffix(cut, "alpha") && !strings.HasSuffix(cut, "beta") && !strings.HasSuffix(cut, "gamma") && !strings.HasSuffix(cut, "delta") {
		t.Fatalf("cut not at a word boundary: %q", cut[max(0, len(cut)-20):])
	}
	if !strings.Contains(p.Markdown(), " …\n") {
		t.Fatal("the cut is not marked in the markdown")
	}
	if len(p.Dropped) != 1 || p.Dropped[0].ID != "id-3" || p.Dropped[0].Reason != "over budget" {
		t.Fatalf("dropped %+v", p.Dropped)
	}
}

// TestNearDuplicatesDropped: a reworded copy is dropped naming the item it
// repeats; a different memory on the same topic is kept.
func TestNearDuplicatesDropped(t *testing.T) {
	c := e5(t)
	p, err := Pack("q", cands(
		"The build fails on CI because librocksdb-dev 7.8.3 is missing from the image.",
		"The build fails on CI because librocksdb-dev 7.8.3 is missing from the image!",
		"CI images are rebuilt every Monday from docker/ci.Dockerfile.",
	), c, Options{Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 2 || p.Items[1].ID != "id-3" || p.Items[1].Cite != "[2]" {
		t.Fatalf("items %+v", p.Items)
	}
	if len(p.Dropped) != 1 || p.Dropped[0].ID != "id-2" || p.Dropped[0].Reason != "near-duplicate of [1]" {
		t.Fatalf("dropped %+v", p.Dropped)
	}
}

// TestCitations: the markdown names each item's handle, type, date and id,
// in packing order.
func TestCitations(t *testing.T) {
	p, err := Pack("how do we store memories", cands("first", "second memory"), e5(t), Options{Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	want := "## Memories for: how do we store memories\n\n[1] note · 2026-03-01 · id-1\nfirst\n\n[2] note · 2026-03-02 · id-2\nsecond memory\n\n"
	if got := p.Markdown(); got != want {
		t.Fatalf("markdown:\n%q\nwant\n%q", got, want)
	}
}

func TestBadBudget(t *testing.T) {
	for _, b := range []int{0, -5, 3} {
		var be *BudgetError
		if _, err := Pack("a query of several words", cands("x"), e5(t), Options{Budget: b}); !errors.As(err, &be) {
			t.Errorf("budget %d: %v, want a *BudgetError", b, err)
		}
	}
}

func TestApproxCounter(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "abc": 1, "abcd": 2, strings.Repeat("x", 300): 100} {
		if got := (Approx{}).Count(in); got != want {
			t.Errorf("Approx(%d bytes) = %d, want %d", len(in), got, want)
		}
	}
}

// FuzzPack: whatever the candidates and the budget, the rendered context
// counted again fits the budget, and every candidate is packed or dropped.
func FuzzPack(f *testing.F) {
	f.Add("a query", "first memory", "second memory about the same thing", 64)
	f.Add("", strings.Repeat("word ", 300), "x", 40)
	f.Add("q", "dup dup dup", "dup dup dup", 1000)
	f.Fuzz(func(t *testing.T, q, a, b string, budget int) {
		c := Approx{}
		rel := related(map[string][]Link{"id-1": {link("fixes", "in", "r-1", b+" "+a)}, "id-2": {link("causes", "out", "r-2", b)}})
		p, err := Pack(q, cands(a, b, a+" "+b), c, Options{Budget: budget, Related: rel})
		if err != nil {
			return // a budget below the header, or not positive
		}
		if got := c.Count(p.Markdown()); got > budget || got != p.Tokens {
			t.Fatalf("budget %d: markdown counts %d (reported %d)", budget, got, p.Tokens)
		}
		attached := 0
		for _, it := range p.Items {
			if it.RelatedTo != nil {
				attached++
			}
		}
		if len(p.Items)-attached+len(p.Dropped) != 3 || attached > 2 {
			t.Fatalf("%d packed (%d attached) + %d dropped of 3", len(p.Items), attached, len(p.Dropped))
		}
	})
}

// related builds an Options.Related from a table: packed id → its links.
func related(links map[string][]Link) func(string) ([]Link, error) {
	return func(id string) ([]Link, error) { return links[id], nil }
}

func link(rel, dir, id, content string) Link {
	return Link{Relation: rel, Direction: dir, Memory: Candidate{ID: id, Type: "fact", CreatedAt: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Content: content}}
}

// TestRelatedAttached: memories related to the packed ones are attached
// after them, marked with the relation and the item they relate to, each
// once, never one that was a candidate or repeats a packed item.
func TestRelatedAttached(t *testing.T) {
	c := e5(t)
	cs := cands("Error: the store tests abort with SIGABRT when the process exits.", "CI images are rebuilt every Monday.")
	fix := link("fixes", "in", "fix-1", "Fix: close every RocksDB handle before the test binary exits.")
	p, err := Pack("why do the tests abort", cs, c, Options{Budget: 1000, Related: related(map[string][]Link{
		"id-1": {fix, link("related_to", "out", "id-2", "CI images are rebuilt every Monday."), // a candidate: packed already
			link("causes", "out", "dup-1", "Error: the store tests abort with SIGABRT when the process exits!")}, // a near-duplicate of [1]
		"id-2": {fix, link("led_to", "out", "new-2", "Decision: the CI image pins librocksdb-dev 7.8.3.")}, // fix-1 again: once
	})})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 4 || p.Items[2].ID != "fix-1" || p.Items[3].ID != "new-2" || p.RelatedLeftOut != 0 {
		t.Fatalf("items %+v", p.Items)
	}
	if r := p.Items[2].RelatedTo; r == nil || *r != (RelatedTo{Cite: "[1]", ID: "id-1", Relation: "fixes", Direction: "in"}) || p.Items[0].RelatedTo != nil {
		t.Fatalf("related_to of [3]: %+v", p.Items[2].RelatedTo)
	}
	md := p.Markdown()
	for _, want := range []string{"[3] fact · 2026-04-01 · fix-1 · fixes [1]\n", "[4] fact · 2026-04-01 · new-2 · [2] led_to this\n"} {
		if !strings.Contains(md, want) {
			t.Fatalf("markdown lacks %q:\n%s", want, md)
		}
	}
	if got := c.Count(md); got != p.Tokens || got > p.Budget {
		t.Fatalf("markdown counts %d tokens, reported %d, budget %d", got, p.Tokens, p.Budget)
	}
}

// TestRelatedNeverExceedsBudget: for every budget the related memories are
// attached only while they fit whole, the rest counted as left out, and the
// rendered context counted again with the tokenizer stays within budget.
func TestRelatedNeverExceedsBudget(t *testing.T) {
	c := e5(t)
	cs := cands(
		"Decision: keep every memory's writes in one RocksDB WriteBatch across all column families.",
		"Error: context deadline exceeded from the embedding batch job after 30s, only on large files.",
	)
	links := map[string][]Link{
		"id-1": {link("informs", "out", "r-1", "Note: a crash between families once left fingerprints without records."),
			link("example_of", "in", "r-2", strings.Repeat("A long example of a batch that spans many column families and keys. ", 20))},
		"id-2": {link("fixes", "in", "r-3", "Fix: split text into chunks of 2 KB before tokenizing.")},
	}
	attachedAt := map[int]int{}
	for _, budget := range []int{40, 64, 80, 100, 120, 160, 200, 400, 2000} {
		p, err := Pack("why does the batch job fail", cs, c, Options{Budget: budget, Related: related(links)})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if got := c.Count(p.Markdown()); got > budget || got != p.Tokens {
			t.Fatalf("budget %d: markdown counts %d tokens (reported %d)", budget, got, p.Tokens)
		}
		n := 0
		for _, it := range p.Items {
			if it.RelatedTo != nil {
				n++
				if it.Truncated {
					t.Fatalf("budget %d: related memory %s cut", budget, it.ID)
				}
			}
		}
		packed := len(p.Items) - n
		if offered := len(links["id-1"])*min(packed, 1) + len(links["id-2"])*max(packed-1, 0); n+p.RelatedLeftOut != offered {
			t.Fatalf("budget %d: %d attached + %d left out of %d offered", budget, n, p.RelatedLeftOut, offered)
		}
		attachedAt[budget] = n
	}
	if attachedAt[2000] != 3 || attachedAt[40] != 0 {
		t.Fatalf("attached per budget: %v", attachedAt)
	}
}

// TestRelatedError: an error of Options.Related ends Pack.
func TestRelatedError(t *testing.T) {
	_, err := Pack("q", cands("first"), e5(t), Options{Budget: 200, Related: func(string) ([]Link, error) { return nil, fmt.Errorf("store closed") }})
	if err == nil || !strings.Contains(err.Error(), "store closed") {
		t.Fatalf("err %v", err)
	}
}

// TestModelsCounter: the e5 tokenizer is found in the int8 build's
// directory, else the fp32 one's; one that does not load is said once and
// counted approximately; none at all is Approx.
func TestModelsCounter(t *testing.T) {
	good := e5Bytes(t)
	const text = "grocksdb link error: undefined reference to rocksdb_open"
	for _, tc := range []struct {
		name   string
		files  map[string][]byte // model directory → its tokenizer.json
		want   string            // the counter's name
		warned bool
	}{
		{"none", nil, Approx{}.Name(), false},
		{"int8 build", map[string][]byte{"e5-small-v2-q": good}, e5Label, false},
		{"fp32 build", map[string][]byte{"e5-small-v2": good}, e5Label, false},
		{"broken int8 beside fp32", map[string][]byte{"e5-small-v2-q": []byte("{not json"), "e5-small-v2": good}, Approx{}.Name(), true},
		{"another model only", map[string][]byte{"bge-small-en-v1.5": good}, Approx{}.Name(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for id, b := range tc.files {
				if err := os.MkdirAll(dir+"/"+id, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dir+"/"+id+"/tokenizer.json", b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var warnings []string
			c := ModelsCounter(dir, func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) })
			if n := c.Name(); n != tc.want {
				t.Errorf("name %q, want %q", n, tc.want)
			}
			want := Approx{}.Count(text)
			if tc.want == e5Label {
				want = e5(t).Count(text)
			}
			if got := c.Count(text); got != want {
				t.Errorf("count %d, want %d", got, want)
			}
			if tc.warned != (len(warnings) == 1) || len(warnings) > 1 {
				t.Errorf("warnings %q, want one: %v", warnings, tc.warned)
			}
		})
	}
}
