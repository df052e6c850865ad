package neural

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders/codeview"
	"github.com/cgraph/cgraph/embedders/keywords"
)

var identRE = regexp.MustCompile(`[\pL\pN_]+`)

// e7DocView is one way of writing a function's code as the text a dense
// encoder reads.
type e7DocView struct {
	Name     string
	Text     func(p bench.Pair) string
	Everyone bool // run for every model, not only the first
}

func e7DocViews() []e7DocView {
	cut := func(s string, n int) string {
		if len(s) <= n {
			return s
		}
		s = s[:n]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
			s = s[:len(s)-1]
		}
		return s
	}
	name := func(p bench.Pair) string {
		f := p.Func
		if i := strings.LastIndexAny(f, ".)"); i >= 0 {
			f = f[i+1:]
		}
		return strings.ToLower(keywords.SplitIdentifiers(f))
	}
	return []e7DocView{
		{"raw", func(p bench.Pair) string { return e7CodeText(p.Code) }, true},
		{"split", func(p bench.Pair) string { return keywords.SplitIdentifiers(e7CodeText(p.Code)) }, false},
		{"cut600", func(p bench.Pair) string { return cut(e7CodeText(p.Code), 600) }, false},
		{"split cut600", func(p bench.Pair) string { return cut(keywords.SplitIdentifiers(e7CodeText(p.Code)), 600) }, false},
		{"name+split", func(p bench.Pair) string { return name(p) + ": " + keywords.SplitIdentifiers(e7CodeText(p.Code)) }, false},
		{"codeView", func(p bench.Pair) string { return codeview.View(e7CodeText(p.Code)) }, true},
		{"name+raw", func(p bench.Pair) string {
			c := e7CodeText(p.Code)
			if n, _ := keywords.DefinedName(c); n != "" {
				return strings.ToLower(keywords.SplitIdentifiers(n)) + ": " + c
			}
			return c
		}, true},
		{"name+humps", func(p bench.Pair) string {
			c := e7CodeText(p.Code)
			c = identRE.ReplaceAllStringFunc(c, func(id string) string {
				if strings.Contains(id, "_") {
					return id // snake_case: the word pieces split at "_" already
				}
				return keywords.SplitIdentifiers(id)
			})
			if n, _ := keywords.DefinedName(e7CodeText(p.Code)); n != "" {
				return strings.ToLower(keywords.SplitIdentifiers(n)) + ": " + c
			}
			return c
		}, true},
	}
}

// TestE7DocViewExperiment compares ways of writing a function for a dense
// encoder (e7DocViews) on each language's held-out mined pairs of E7's head
// program, without a head: the experiment that chose codeView
// (docs/BENCHMARKS.md "The code view"). The first model runs every view, the
// others the deciding ones. CGRAPH_E7_MODELS lists the manifest ids
// (default E7's MiniLM; CGRAPH_E7_WITH_E1 adds E1's model);
// CGRAPH_E7_NAMES_ONLY stops after counting how often keywords.DefinedName finds
// the extractor's function name.
//
//	CGRAPH_E7_EXPERIMENT=1 CGRAPH_E7_MODELS=all-minilm-l6-v2,e5-small-v2-q,bge-small-en-v1.5-q \
//	  go test ./embedders/neural -run E7DocViewExperiment -v -timeout 0
func TestE7DocViewExperiment(t *testing.T) {
	if os.Getenv("CGRAPH_E7_EXPERIMENT") == "" {
		t.Skip("set CGRAPH_E7_EXPERIMENT=1")
	}
	requireModels(t, Config{})
	l, err := newLoader(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.close() })
	langs := e7Mine(t)
	for _, lg := range langs {
		var hit, miss, wrong int
		for _, p := range lg.Test {
			f := p.Func
			if i := strings.LastIndexAny(f, ".)"); i >= 0 {
				f = f[i+1:]
			}
			switch n, _ := keywords.DefinedName(p.Code); {
			case n == f:
				hit++
			case n == "":
				miss++
				if miss <= 3 {
					t.Logf("miss %s: %q", lg.Lang, firstLine(p.Code))
				}
			default:
				wrong++
				if wrong <= 8 {
					t.Logf("wrong %s: %q → %q", lg.Lang, firstLine(p.Code), n)
				}
			}
		}
		t.Logf("definedName %s: %d right, %d none, %d wrong of %d", lg.Lang, hit, miss, wrong, len(lg.Test))
	}
	if os.Getenv("CGRAPH_E7_NAMES_ONLY") != "" {
		return
	}
	ids := []string{string(l.cfg.variant(l.mf, modelMiniLM))}
	if os.Getenv("CGRAPH_E7_WITH_E1") != "" {
		ids = append(ids, string(l.cfg.variant(l.mf, modelE1)))
	}
	if m := os.Getenv("CGRAPH_E7_MODELS"); m != "" {
		ids = strings.Split(m, ",")
	}
	for _, id := range ids {
		e := newE7Embedder(t, l, id)
		for _, lg := range langs {
			qs := make([]string, len(lg.Test))
			for i, p := range lg.Test {
				qs[i] = p.Query
			}
			q := e.cache.embed(t, e.lm, e.qp, qs)
			var base []float64
			for _, v := range e7DocViews() {
				if id != ids[0] && !v.Everyone {
					continue // other models: the views that decide the shipped one
				}
				ds := make([]string, len(lg.Test))
				for i, p := range lg.Test {
					ds[i] = v.Text(p)
				}
				s, per := e7Retrieval(q, e.cache.embed(t, e.lm, e.dp, ds))
				if base == nil {
					base = per
					t.Logf("%s %-10s %-14s %s", id, lg.Lang, v.Name, s)
					continue
				}
				lo, hi := pairedCI(per, base)
				t.Logf("%s %-10s %-14s %s  Δ vs raw [%+.3f, %+.3f]", id, lg.Lang, v.Name, s, lo, hi)
			}
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
