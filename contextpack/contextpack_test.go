package contextpack

import (
	"compress/gzip"
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
	tok, err := tokenizer.LoadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return TokenizerCounter{T: tok, Label: "e5-small-v2"}
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
		if _, err := Pack("a query of several words", cands("x"), e5(t), Options{Budget: b}); err == nil {
			t.Errorf("budget %d accepted", b)
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
		p, err := Pack(q, cands(a, b, a+" "+b), c, Options{Budget: budget})
		if err != nil {
			return // a budget below the header, or not positive
		}
		if got := c.Count(p.Markdown()); got > budget || got != p.Tokens {
			t.Fatalf("budget %d: markdown counts %d (reported %d)", budget, got, p.Tokens)
		}
		if len(p.Items)+len(p.Dropped) != 3 {
			t.Fatalf("%d packed + %d dropped of 3", len(p.Items), len(p.Dropped))
		}
	})
}
