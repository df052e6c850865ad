//go:build benchexp

// This file is an experiment, not part of the default test suite (build tag
// benchexp): given the per-slot TREC runs of a set (bench run --modes
// embedder_first --run-out DIR, all queries, --k 100), it measures fusion
// variants offline: each slot alone, static WRRF weights, per-query weights
// from each slot's confidence (how far its top score stands out of its own
// list), and the per-query oracle (the best slot for each query: headroom).
//
//	FUSION_SET=bench-out/sets/csn-go-2000 FUSION_RUNS=bench-out/exp/go/runs \
//	  go test -tags benchexp -run TestFusionExperiment -v ./bench
package bench_test

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders/keywords"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

type fxQuery struct {
	id     bench.QueryID
	lists  map[fingerprint.SlotID][]bench.Ranked
	judged map[bench.DocID]int
}

func loadFusionRuns(t *testing.T) ([]fxQuery, []fingerprint.SlotID) {
	set, dir := os.Getenv("FUSION_SET"), os.Getenv("FUSION_RUNS")
	if set == "" || dir == "" {
		t.Skip("set FUSION_SET and FUSION_RUNS")
	}
	return loadSetRuns(t, set, dir, os.Getenv("FUSION_QUERIES"))
}

func loadSetRuns(t *testing.T, set, dir, queries string) ([]fxQuery, []fingerprint.SlotID) {
	ds, err := bench.Load(set, bench.LoadOptions{QueriesFile: queries})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "embedder_first_E*.trec"))
	byQ := map[bench.QueryID]*fxQuery{}
	var slots []fingerprint.SlotID
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "embedder_first_"), ".trec")
		s, err := fingerprint.ParseSlot(name)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := bench.ReadTRECRun(f)
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, s)
		for _, run := range runs {
			for q, r := range run.Rankings {
				fq := byQ[q]
				if fq == nil {
					fq = &fxQuery{id: q, lists: map[fingerprint.SlotID][]bench.Ranked{}}
					byQ[q] = fq
				}
				fq.lists[s] = r
			}
		}
	}
	slices.Sort(slots)
	keep := ds.Queries
	// FUSION_SPLIT=test keeps the bench run's --max-queries 500 --seed 1
	// sample, =train the other queries: weights chosen on train are scored
	// held out on test.
	if split := os.Getenv("FUSION_SPLIT"); split != "" {
		test := map[bench.QueryID]bool{}
		for _, q := range bench.SampleQueries(ds.Queries, 500, 1) {
			test[q.ID] = true
		}
		keep = nil
		for _, q := range ds.Queries {
			if test[q.ID] == (split == "test") {
				keep = append(keep, q)
			}
		}
	}
	var out []fxQuery
	for _, q := range keep {
		fq := byQ[q.ID]
		if fq == nil || len(ds.Qrels[q.ID]) == 0 {
			continue
		}
		fq.judged = map[bench.DocID]int{}
		for d, g := range ds.Qrels[q.ID] {
			fq.judged[d] = g
		}
		out = append(out, *fq)
	}
	t.Logf("%d queries, slots %v", len(out), slots)
	return out, slots
}

// fuse is WRRF of q's lists with per-slot weights w (zero weight: left out).
func fuse(q fxQuery, w map[fingerprint.SlotID]float64) []bench.DocID {
	return fuseWith(q, w, pipeline.FusionRRF)
}

// fuseWith is fuse under fusion f (pipeline.Fuse, what S3 runs).
func fuseWith(q fxQuery, w map[fingerprint.SlotID]float64, f pipeline.Fusion) []bench.DocID {
	num := map[bench.DocID]record.DocNum{}
	var ids []bench.DocID
	var lists []pipeline.RankedList
	for s, ws := range w {
		if ws <= 0 || len(q.lists[s]) == 0 {
			continue
		}
		hs := make([]pipeline.Hit, len(q.lists[s]))
		for i, r := range q.lists[s] {
			n, ok := num[r.ID]
			if !ok {
				n = record.DocNum(len(ids) + 1)
				num[r.ID] = n
				ids = append(ids, r.ID)
			}
			hs[i] = pipeline.Hit{Doc: n, Score: r.Score}
		}
		lists = append(lists, pipeline.RankedList{Slot: s, Weight: ws, Hits: hs})
	}
	fused := pipeline.Fuse(lists, f)
	out := make([]bench.DocID, 0, 10)
	for _, f := range fused[:min(10, len(fused))] {
		out = append(out, ids[f.Doc-1])
	}
	return out
}

func ids(rs []bench.Ranked) []bench.DocID {
	out := make([]bench.DocID, 0, 10)
	for _, r := range rs[:min(10, len(rs))] {
		out = append(out, r.ID)
	}
	return out
}

// confidence is how far a list's top score stands out of its own top 50:
// (s1 − mean) / std, as the engine's auto gate computes it
// (pipeline.ListEvidence). A list with one clear winner scores high; a flat
// list (the slot cannot tell its candidates apart) scores low.
func confidence(rs []bench.Ranked) float64 {
	hs := make([]pipeline.Hit, len(rs))
	for i, r := range rs {
		hs[i] = pipeline.Hit{Doc: record.DocNum(i), Score: r.Score}
	}
	_, conf := pipeline.ListEvidence([]pipeline.RankedList{{Hits: hs}})
	return conf[0]
}

// agreement is the share of a list's top 10 found in the other lists' top 10.
func agreement(q fxQuery, s fingerprint.SlotID, slots []fingerprint.SlotID) float64 {
	top := map[bench.DocID]bool{}
	for _, r := range q.lists[s][:min(10, len(q.lists[s]))] {
		top[r.ID] = true
	}
	if len(top) == 0 {
		return 0
	}
	hit, n := 0, 0
	for _, o := range slots {
		if o == s {
			continue
		}
		n++
		for _, r := range q.lists[o][:min(10, len(q.lists[o]))] {
			if top[r.ID] {
				hit++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n*len(top))
}

func TestFusionExperiment(t *testing.T) {
	qs, slots := loadFusionRuns(t)
	mean := func(f func(q fxQuery) []bench.DocID) float64 {
		sum := 0.0
		for _, q := range qs {
			sum += bench.NDCG(f(q), q.judged, 10)
		}
		return sum / float64(len(qs))
	}
	for _, s := range slots {
		t.Logf("%-4s alone          %.4f", s, mean(func(q fxQuery) []bench.DocID { return ids(q.lists[s]) }))
	}
	oracle := mean(func(q fxQuery) []bench.DocID {
		best, bestV := []bench.DocID(nil), -1.0
		for _, s := range slots {
			if v := bench.NDCG(ids(q.lists[s]), q.judged, 10); v > bestV {
				best, bestV = ids(q.lists[s]), v
			}
		}
		return best
	})
	t.Logf("oracle best slot per query %.4f", oracle)

	// Per-slot medians of the confidence, so a slot's weight scales by its
	// confidence relative to its own typical confidence.
	med := map[fingerprint.SlotID]float64{}
	for _, s := range slots {
		var cs []float64
		for _, q := range qs {
			cs = append(cs, confidence(q.lists[s]))
		}
		sort.Float64s(cs)
		med[s] = cs[len(cs)/2]
	}
	t.Logf("median confidence %v", med)

	static := parseWeights(t, os.Getenv("FUSION_WEIGHTS"), slots)
	t.Logf("static weights %v", static)
	for _, sub := range [][]fingerprint.SlotID{{fingerprint.E1, fingerprint.E6}, slots} {
		uni := map[fingerprint.SlotID]float64{}
		for _, s := range sub {
			uni[s] = 1
		}
		t.Logf("uniform %v: %.4f", sub, mean(func(q fxQuery) []bench.DocID { return fuse(q, uni) }))
	}
	for _, alpha := range []float64{0, 0.5, 1, 2, 3, 4} {
		for _, beta := range []float64{0, 1, 2} {
			v := mean(func(q fxQuery) []bench.DocID {
				w := map[fingerprint.SlotID]float64{}
				for s, ws := range static {
					c := 1.0
					if med[s] > 0 {
						c = confidence(q.lists[s]) / med[s]
					}
					w[s] = ws * math.Pow(max(c, 0.01), alpha) * math.Pow(0.1+agreement(q, s, slots), beta)
				}
				return fuse(q, w)
			})
			t.Logf("%s alpha=%.1f beta=%.0f: %.4f", fmt.Sprint("adaptive"), alpha, beta, v)
		}
	}
}

func parseWeights(t *testing.T, s string, slots []fingerprint.SlotID) map[fingerprint.SlotID]float64 {
	out := map[fingerprint.SlotID]float64{}
	if s == "" {
		for _, sl := range slots {
			if sl != fingerprint.E12 {
				out[sl] = 1
			}
		}
		return out
	}
	for _, kv := range strings.Split(s, ",") {
		var name string
		var v float64
		if _, err := fmt.Sscanf(strings.Replace(kv, "=", " ", 1), "%s %g", &name, &v); err != nil {
			t.Fatalf("FUSION_WEIGHTS %q: %v", kv, err)
		}
		sl, err := fingerprint.ParseSlot(name)
		if err != nil {
			t.Fatal(err)
		}
		out[sl] = v
	}
	return out
}

// TestFusionLearnJoint fits one weight vector on several sets at once (each
// query counts once; the sets' query IDs are prefixed apart) with 5-fold CV,
// then scores it, and each set's own fit, on every set: the cost of one
// profile for all sets against a profile per set.
//
//	FUSION_JOINT="go=sets/csn-go-2000:exp/go/runs py=sets/csn-py-2000:exp/py/runs" \
//	  go test -tags benchexp -run TestFusionLearnJoint -v ./bench
func TestFusionLearnJoint(t *testing.T) {
	spec := os.Getenv("FUSION_JOINT")
	if spec == "" {
		t.Skip("set FUSION_JOINT")
	}
	type set struct {
		name string
		qs   []bench.LearnQuery
	}
	var sets []set
	qrels := bench.Qrels{}
	slotSet := map[fingerprint.SlotID]bool{}
	for _, part := range strings.Fields(spec) {
		name, paths, _ := strings.Cut(part, "=")
		dir, runs, _ := strings.Cut(paths, ":")
		fqs, slots := loadSetRuns(t, dir, runs, "")
		for _, s := range slots {
			slotSet[s] = true
		}
		st := set{name: name}
		for _, q := range fqs {
			id := bench.QueryID(name + "/" + string(q.id))
			st.qs = append(st.qs, bench.LearnQuery{ID: id, Lists: q.lists})
			qrels[id] = q.judged
		}
		sets = append(sets, st)
	}
	var slots []fingerprint.SlotID
	for s := range slotSet {
		slots = append(slots, s)
	}
	slices.Sort(slots)
	base := parseBase(t)
	learn := func(qs []bench.LearnQuery) bench.LearnResult {
		res, err := bench.LearnWeights(qs, qrels, bench.LearnConfig{Base: base, Slots: slots, Folds: 5, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	score := func(w map[fingerprint.SlotID]float64, qs []bench.LearnQuery) float64 {
		sum := 0.0
		for _, q := range qs {
			sum += bench.NDCG(fuse(fxQuery{lists: q.Lists}, w), qrels[q.ID], 10)
		}
		return sum / float64(len(qs))
	}
	asMap := func(p profiles.Profile) map[fingerprint.SlotID]float64 {
		m := map[fingerprint.SlotID]float64{}
		for _, s := range slots {
			m[s] = p.Weights.Get(s)
		}
		return m
	}
	var all []bench.LearnQuery
	for _, st := range sets {
		all = append(all, st.qs...)
	}
	joint := learn(all)
	t.Logf("joint: CV %.4f [%.4f, %.4f] (base %.4f), weights %v", joint.CV.Mean, joint.CV.Low, joint.CV.High, joint.Base.Mean, joint.Profile.Weights.Active())
	t.Logf("joint weights: %s", weightString(joint.Profile, slots))
	for _, st := range sets {
		own := learn(st.qs)
		t.Logf("%s: own CV %.4f (base %.4f) %s; joint weights in-sample %.4f; own in-sample %.4f",
			st.name, own.CV.Mean, own.Base.Mean, weightString(own.Profile, slots), score(asMap(joint.Profile), st.qs), score(asMap(own.Profile), st.qs))
		for _, other := range sets {
			if other.name != st.name {
				t.Logf("  %s's weights on %s: %.4f", st.name, other.name, score(asMap(own.Profile), other.qs))
			}
		}
	}
}

func weightString(p profiles.Profile, slots []fingerprint.SlotID) string {
	var b strings.Builder
	for _, s := range slots {
		fmt.Fprintf(&b, "%s=%.3f ", s, p.Weights.Get(s))
	}
	return b.String()
}

// parseBase is the profile FUSION_BASE names (default pipeline_full).
func parseBase(t *testing.T) profiles.Profile {
	name := os.Getenv("FUSION_BASE")
	if name == "" {
		name = "pipeline_full"
	}
	p, err := profiles.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFusionScore scores named weight sets on several sets' saved runs:
//
//	FUSION_JOINT="go=…:… py=…:…" FUSION_CANDIDATES="sem:E1=.33,E5=.15;code:E1=.4,E6=.2" \
//	  go test -tags benchexp -run TestFusionScore -v ./bench
func TestFusionScore(t *testing.T) {
	spec, cands := os.Getenv("FUSION_JOINT"), os.Getenv("FUSION_CANDIDATES")
	if spec == "" || cands == "" {
		t.Skip("set FUSION_JOINT and FUSION_CANDIDATES")
	}
	for _, part := range strings.Fields(spec) {
		name, paths, _ := strings.Cut(part, "=")
		dir, runs, _ := strings.Cut(paths, ":")
		qs, slots := loadSetRuns(t, dir, runs, "")
		for _, c := range strings.Split(cands, ";") {
			cname, ws, _ := strings.Cut(c, ":")
			w := parseWeights(t, ws, slots)
			sum := 0.0
			per := make([]float64, len(qs))
			for i, q := range qs {
				per[i] = bench.NDCG(fuse(q, w), q.judged, 10)
				sum += per[i]
			}
			t.Logf("%-8s %-16s %.4f", name, cname, sum/float64(len(qs)))
		}
	}
}

// TestFusionFunctions scores each fusion function (pipeline.Fuse) with the
// built-in profiles' weights and plain E1+E6 on every set of FUSION_JOINT,
// all queries, over the saved top-100 slot runs: nDCG@10 per fusion and the
// paired bootstrap 95% CI and randomisation p of minmax − rrf
// (docs/BENCHMARKS.md "Min-max fusion").
//
//	FUSION_JOINT="go=sets/csn-go-2000:slotruns/go/runs ..." \
//	  go test -tags benchexp -run TestFusionFunctions -v ./bench
func TestFusionFunctions(t *testing.T) {
	spec := os.Getenv("FUSION_JOINT")
	if spec == "" {
		t.Skip("set FUSION_JOINT")
	}
	for _, part := range strings.Fields(spec) {
		name, paths, _ := strings.Cut(part, "=")
		dir, runs, _ := strings.Cut(paths, ":")
		qs, slots := loadSetRuns(t, dir, runs, "")
		for _, pn := range []string{"semantic_search", "code_search", "causal_reasoning", "rrf_e1_e6"} {
			w := map[fingerprint.SlotID]float64{fingerprint.E1: .5, fingerprint.E6: .5}
			if pn != "rrf_e1_e6" {
				p, err := profiles.Lookup(pn)
				if err != nil {
					t.Fatal(err)
				}
				w = map[fingerprint.SlotID]float64{}
				for _, s := range slots {
					w[s] = p.Weights.Get(s)
				}
			}
			var rrf, mm, d []float64
			for _, q := range qs {
				a := bench.NDCG(fuseWith(q, w, pipeline.FusionRRF), q.judged, 10)
				b := bench.NDCG(fuseWith(q, w, pipeline.FusionMinMax), q.judged, 10)
				rrf, mm, d = append(rrf, a), append(mm, b), append(d, b-a)
			}
			ci := bench.BootstrapCI(d, 1)
			t.Logf("%s %-16s rrf %.4f minmax %.4f  Δ %+.4f [%+.4f, %+.4f] p %.4g (%d queries)",
				name, pn, meanOf(rrf), meanOf(mm), meanOf(d), ci.Lo, ci.Hi, bench.RandomizationTest(d, 1), len(qs))
		}
	}
}

// TestBM25Params rebuilds E6 (indexes.BM25 over the code-aware terms of each
// document, as bench_experiment's bm25Retriever does) for a grid of k1 and b
// on every set of FUSION_JOINT, and scores E6 alone and semantic_search fused
// with that E6 in place of the saved one (WRRF and min-max), all queries:
// whether another k1, b than the default (1.2, 0.75) earns anything.
//
//	FUSION_JOINT="go=sets/csn-go-2000:RUNS …" go test -tags benchexp -run TestBM25Params -v ./bench
func TestBM25Params(t *testing.T) {
	spec := os.Getenv("FUSION_JOINT")
	if spec == "" {
		t.Skip("set FUSION_JOINT")
	}
	p, err := profiles.Lookup("semantic_search")
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Fields(spec) {
		name, paths, _ := strings.Cut(part, "=")
		dir, runs, _ := strings.Cut(paths, ":")
		ds, err := bench.Load(dir, bench.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		qs, slots := loadSetRuns(t, dir, runs, "")
		text := map[bench.QueryID]string{}
		for _, q := range ds.Queries {
			text[q.ID] = q.Text
		}
		w := map[fingerprint.SlotID]float64{}
		for _, s := range slots {
			w[s] = p.Weights.Get(s)
		}
		for _, k1 := range []float64{0.9, 1.2, 1.6, 2.0} {
			for _, b := range []float64{0.4, 0.6, 0.75, 0.9} {
				ix, err := indexes.NewBM25("e6", indexes.BM25Params{K1: k1, B: b})
				if err != nil {
					t.Fatal(err)
				}
				for i, d := range ds.Corpus {
					if err := ix.Add(record.DocNum(i), keywords.TermFreqs(d.Title+"\n"+d.Text)); err != nil {
						t.Fatal(err)
					}
				}
				var alone, rrf, mm float64
				for _, q := range qs {
					hits, err := ix.Search(terms(text[q.id]), 100, nil)
					if err != nil {
						t.Fatal(err)
					}
					e6 := make([]bench.Ranked, len(hits))
					for i, h := range hits {
						e6[i] = bench.Ranked{ID: ds.Corpus[h.Doc].ID, Score: float64(h.Score)}
					}
					x := fxQuery{id: q.id, judged: q.judged, lists: maps.Clone(q.lists)}
					x.lists[fingerprint.E6] = e6
					alone += bench.NDCG(ids(e6), q.judged, 10)
					rrf += bench.NDCG(fuseWith(x, w, pipeline.FusionRRF), q.judged, 10)
					mm += bench.NDCG(fuseWith(x, w, pipeline.FusionMinMax), q.judged, 10)
				}
				n := float64(len(qs))
				t.Logf("%s k1 %.1f b %.2f: E6 %.4f  semantic_search rrf %.4f minmax %.4f", name, k1, b, alone/n, rrf/n, mm/n)
			}
		}
	}
}
