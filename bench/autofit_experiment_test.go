//go:build benchexp

// This file fits the auto profile's per-query weights (pipeline.AutoModel)
// on the per-slot TREC runs of several sets and scores it leave-one-set-out:
// for each set, the model is fitted on the others and scored on it, beside
// the built-in profiles and RRF(E1, E6) on the same queries, with paired
// bootstrap CIs. It then fits on every set and writes the model file.
//
//	AUTOFIT_SETS="go=SET:RUNS py=SET:RUNS causal=SET:RUNS" AUTOFIT_OUT=pipeline/auto_model.json \
//	  go test -tags benchexp -run TestAutoFit -timeout 60m -v ./bench
//
// Features and weighting are pipeline.QueryFeatures, pipeline.ListEvidence
// and pipeline.AutoModel.Weigh: the code the engine runs at query time.
//
// Make the runs with bench run --modes embedder_first --no-thresholds
// --run-out DIR, every query: fusion reads each slot's whole top 100, while
// embedder_first with thresholds drops the hits under a slot's Low
// threshold, which the fit would then never see.
package bench_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/embedders/codeview"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// afQuery is one query ready for fast re-fusion: its candidates with, per
// slot, the reciprocal-rank term 1/(K+rank), the relevance of each
// candidate, the raw feature vector per slot and each slot's confidence.
type afQuery struct {
	set    int
	test   bool                  // in the bench run's --max-queries 500 --seed 1 sample
	inv    [][]float64           // [cand][slot] 1/(K+rank), 0 when absent
	gain   []float64             // [cand] relevance grade
	lists  [][]int32             // [slot] candidate indexes, best first
	idcg   float64               //
	x      [][]float64           // [slot] raw features (query, then list evidence)
	conf   []float64             // [slot] confidence
	has    []bool                // [slot] returned hits
	text   string                //
	rl     []pipeline.RankedList // for the check against pipeline.AutoModel.Weigh
	docIDs []bench.DocID
	judged map[bench.DocID]int
	code   float64 // pipeline.CodeShare of rl
	// isCode says which candidates read as code, as the engine's code
	// bitmap does for stored memories (codeview.IsCode).
	isCode func(record.DocNum) bool
}

// afFusion is the fusion the model is fitted for (AUTOFIT_FUSION: rrf, the
// default, or minmax): what inv holds per candidate and slot.
var afFusion = func() pipeline.Fusion {
	f, err := pipeline.ParseFusion(os.Getenv("AUTOFIT_FUSION"))
	if err != nil {
		panic(err)
	}
	if f == pipeline.FusionDefault {
		return pipeline.FusionRRF
	}
	return f
}()

var afSlots = []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E6, fingerprint.E7,
	fingerprint.E8, fingerprint.E9, fingerprint.E10, fingerprint.E11}

func loadAutoSet(t *testing.T, set int, dir, runs string) []afQuery {
	ds, err := bench.Load(dir, bench.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fqs, _ := loadSetRuns(t, dir, runs, "")
	isCode := map[bench.DocID]bool{}
	for _, d := range ds.Corpus {
		content := d.Text // as benchstore stores it
		if d.Title != "" {
			content = d.Title + "\n\n" + d.Text
		}
		if codeview.IsCode(content) {
			isCode[d.ID] = true
		}
	}
	text := map[bench.QueryID]string{}
	for _, q := range ds.Queries {
		text[q.ID] = q.Text
	}
	test := map[bench.QueryID]bool{}
	for _, q := range bench.SampleQueries(ds.Queries, 500, 1) {
		test[q.ID] = true
	}
	out := make([]afQuery, 0, len(fqs))
	for _, fq := range fqs {
		q := afQuery{set: set, test: test[fq.id], text: text[fq.id], judged: fq.judged}
		num := map[bench.DocID]int32{}
		for _, s := range afSlots {
			rs := fq.lists[s]
			hs := make([]pipeline.Hit, len(rs))
			for i, r := range rs {
				n, ok := num[r.ID]
				if !ok {
					n = int32(len(q.docIDs))
					num[r.ID] = n
					q.docIDs = append(q.docIDs, r.ID)
				}
				hs[i] = pipeline.Hit{Doc: record.DocNum(n + 1), Score: r.Score}
			}
			q.rl = append(q.rl, pipeline.RankedList{Slot: s, Hits: hs})
		}
		ids := q.docIDs
		q.isCode = func(d record.DocNum) bool { return isCode[ids[d-1]] }
		q.code = pipeline.CodeShare(q.rl, q.isCode)
		q.inv = make([][]float64, len(q.docIDs))
		for i := range q.inv {
			q.inv[i] = make([]float64, len(afSlots))
		}
		q.lists = make([][]int32, len(afSlots))
		q.has = make([]bool, len(afSlots))
		for si, l := range q.rl {
			contrib := pipeline.Contributions(afFusion, l.Hits, 1)
			for pos, h := range l.Hits {
				c := int32(h.Doc - 1)
				if q.inv[c][si] == 0 {
					q.inv[c][si] = contrib[pos]
				}
				q.lists[si] = append(q.lists[si], c)
			}
			q.has[si] = len(l.Hits) > 0
		}
		q.gain = make([]float64, len(q.docIDs))
		var grades []float64
		for d, g := range fq.judged {
			if g > 0 {
				grades = append(grades, float64(g))
			}
			if c, ok := num[d]; ok {
				q.gain[c] = float64(g)
			}
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(grades)))
		for i, g := range grades[:min(10, len(grades))] {
			q.idcg += (math.Pow(2, g) - 1) / math.Log2(float64(i+2))
		}
		qf := pipeline.QueryFeatures(q.text)
		ev, conf := pipeline.ListEvidence(q.rl)
		q.conf = conf
		for si := range afSlots {
			q.x = append(q.x, append(slices.Clone(qf), ev[si]...))
		}
		out = append(out, q)
	}
	return out
}

// afParams is the model being fitted: log base weights, coefficients of the
// standardised features, gates (0: off).
type afParams struct {
	logBase []float64
	// logBaseCode, when set, is the base for code results: the weights
	// route between logBase and it on the query's code share.
	logBaseCode []float64
	theta       [][]float64
	gate        []float64
}

func (p afParams) clone() afParams {
	c := afParams{logBase: slices.Clone(p.logBase), logBaseCode: slices.Clone(p.logBaseCode), gate: slices.Clone(p.gate)}
	for _, th := range p.theta {
		c.theta = append(c.theta, slices.Clone(th))
	}
	return c
}

type afNorm struct{ mean, sd [][]float64 } // [slot][feature]

func normOf(qs []afQuery) afNorm {
	nf := len(pipeline.FeatureNames)
	n := afNorm{}
	for si := range afSlots {
		mean, sd := make([]float64, nf), make([]float64, nf)
		for j := range nf {
			var s, s2, c float64
			for _, q := range qs {
				if !q.has[si] {
					continue
				}
				v := q.x[si][j]
				s += v
				s2 += v * v
				c++
			}
			if c > 0 {
				mean[j] = s / c
				sd[j] = math.Sqrt(max(s2/c-mean[j]*mean[j], 0))
			}
			if sd[j] < 1e-6 {
				sd[j] = 1
			}
		}
		n.mean, n.sd = append(n.mean, mean), append(n.sd, sd)
	}
	return n
}

// weights returns the per-slot weights of q (nil: gated to slot *g).
func (p afParams) weights(q *afQuery, n afNorm, w []float64) (gated int) {
	gated, best := -1, 0.0
	for si := range afSlots {
		if !q.has[si] {
			w[si] = 0
			continue
		}
		lin := 0.0
		for j, th := range p.theta[si] {
			if th != 0 {
				lin += th * (q.x[si][j] - n.mean[si][j]) / n.sd[si][j]
			}
		}
		lb := p.logBase[si]
		if p.logBaseCode != nil {
			lb = (1-q.code)*lb + q.code*p.logBaseCode[si]
		}
		w[si] = math.Exp(lb + max(-4, min(4, lin)))
		if g := p.gate[si]; g > 0 && q.conf[si] >= g && q.conf[si]/g > best {
			best, gated = q.conf[si]/g, si
		}
	}
	return gated
}

// ndcg is nDCG@10 of q fused with weights w (or of the gated slot's list).
func (q *afQuery) ndcg(w []float64, gated int, scratch []float64) float64 {
	if q.idcg == 0 {
		return 0
	}
	if gated >= 0 {
		dcg := 0.0
		for i, c := range q.lists[gated][:min(10, len(q.lists[gated]))] {
			if g := q.gain[c]; g > 0 {
				dcg += (math.Pow(2, g) - 1) / math.Log2(float64(i+2))
			}
		}
		return dcg / q.idcg
	}
	sc := scratch[:len(q.inv)]
	for c, row := range q.inv {
		s := 0.0
		for si, v := range row {
			s += w[si] * v
		}
		sc[c] = s
	}
	dcg := 0.0
	for c, g := range q.gain {
		if g <= 0 || sc[c] == 0 {
			continue
		}
		rank := 0 // documents strictly ahead (ties: lower candidate index first)
		for o, s := range sc {
			if s > sc[c] || s == sc[c] && o < c {
				rank++
				if rank >= 10 {
					break
				}
			}
		}
		if rank < 10 {
			dcg += (math.Pow(2, g) - 1) / math.Log2(float64(rank+2))
		}
	}
	return dcg / q.idcg
}

// perQuery returns the nDCG@10 of every query under p.
func (p afParams) perQuery(qs []afQuery, n afNorm) []float64 {
	out := make([]float64, len(qs))
	w := make([]float64, len(afSlots))
	scratch := make([]float64, 1000)
	for i := range qs {
		if len(qs[i].inv) > len(scratch) {
			scratch = make([]float64, len(qs[i].inv))
		}
		g := p.weights(&qs[i], n, w)
		out[i] = qs[i].ndcg(w, g, scratch)
	}
	return out
}

// objective is the mean over sets of each set's mean nDCG@10 (every set
// counts the same, whatever its size), minus an L2 penalty on theta.
func (p afParams) objective(qs []afQuery, n afNorm, lambda float64) float64 {
	return p.objectiveNear(qs, n, lambda, afParams{}, 0)
}

// objectiveNear adds a penalty mu·Σ(logBase − prior.logBase)² that keeps the
// base weights near a prior (a built-in profile).
func (p afParams) objectiveNear(qs []afQuery, n afNorm, lambda float64, prior afParams, mu float64) float64 {
	per := p.perQuery(qs, n)
	sum, cnt := map[int]float64{}, map[int]float64{}
	for i, q := range qs {
		sum[q.set] += per[i]
		cnt[q.set]++
	}
	v := 0.0
	for s := range sum {
		v += sum[s] / cnt[s]
	}
	v /= float64(len(sum))
	pen := 0.0
	for _, th := range p.theta {
		for _, x := range th {
			pen += x * x
		}
	}
	if mu > 0 {
		for si, b := range p.logBase {
			d := b - prior.logBase[si]
			pen2 := d * d
			v -= mu * pen2
		}
	}
	return v - lambda*pen
}

// perSet is the mean nDCG@10 of each set, in set order.
func (p afParams) perSet(qs []afQuery, n afNorm) []float64 {
	per := p.perQuery(qs, n)
	var sum, cnt []float64
	for i, q := range qs {
		for len(sum) <= q.set {
			sum, cnt = append(sum, 0), append(cnt, 0)
		}
		sum[q.set] += per[i]
		cnt[q.set]++
	}
	for i := range sum {
		if cnt[i] > 0 {
			sum[i] /= cnt[i]
		}
	}
	return sum
}

func staticParams(p profiles.Profile) afParams {
	nf := len(pipeline.FeatureNames)
	out := afParams{gate: make([]float64, len(afSlots))}
	for _, s := range afSlots {
		out.logBase = append(out.logBase, math.Log(max(p.Weights.Get(s), 1e-9)))
		out.theta = append(out.theta, make([]float64, nf))
	}
	return out
}

// fit runs coordinate ascent from start: base weights first, then the
// coefficients, then the gates, for a few sweeps.
// afVariant says what a fit may change: the base weights, the coefficients
// of the features named, the gates.
type afVariant struct {
	name  string
	base  bool
	feats []int // indexes into pipeline.FeatureNames
	gates bool
}

var evidenceFeats = []int{5, 6, 7, 8}

func allFeats() []int {
	var out []int
	for i := range pipeline.FeatureNames {
		out = append(out, i)
	}
	return out
}

var afVariants = []afVariant{
	{name: "static", base: true},
	{name: "gate", gates: true},
	{name: "evidence", feats: evidenceFeats},
	{name: "evidence+gate", feats: evidenceFeats, gates: true},
	{name: "base+evidence", base: true, feats: evidenceFeats},
	{name: "base+evidence+gate", base: true, feats: evidenceFeats, gates: true},
	{name: "all", base: true, feats: allFeats(), gates: true},
}

func fit(t *testing.T, qs []afQuery, n afNorm, start afParams, lambda, mu float64, v afVariant) afParams {
	p := start.clone()
	best := p.objectiveNear(qs, n, lambda, start, mu)
	// AUTOFIT_EVERY=1 accepts a step only when it hurts no training set:
	// a change that helps one set at another's expense is what fails to
	// transfer to a set left out.
	every := os.Getenv("AUTOFIT_EVERY") != ""
	bestSets := p.perSet(qs, n)
	try := func(set func(afParams) afParams) bool {
		c := set(p.clone())
		v := c.objectiveNear(qs, n, lambda, start, mu)
		if v <= best+1e-6 {
			return false
		}
		cs := c.perSet(qs, n)
		if every {
			for i := range cs {
				if cs[i] < bestSets[i] {
					return false
				}
			}
		}
		p, best, bestSets = c, v, cs
		return true
	}
	// gate candidates: per-slot quantiles of the confidence
	gates := make([][]float64, len(afSlots))
	for si := range afSlots {
		var cs []float64
		for _, q := range qs {
			cs = append(cs, q.conf[si])
		}
		sort.Float64s(cs)
		for _, f := range []float64{0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995} {
			gates[si] = append(gates[si], cs[int(f*float64(len(cs)-1))])
		}
	}
	for sweep := range 4 {
		improved := false
		for _, d := range []float64{0.5, 0.2} {
			if !v.base {
				break
			}
			for si := range afSlots {
				for _, sign := range []float64{1, -1} {
					for try(func(c afParams) afParams { c.logBase[si] += sign * d; return c }) {
						improved = true
					}
					for p.logBaseCode != nil && try(func(c afParams) afParams { c.logBaseCode[si] += sign * d; return c }) {
						improved = true
					}
				}
			}
		}
		if len(v.feats) > 0 {
			for _, d := range []float64{0.3, 0.1} {
				for si := range afSlots {
					for _, j := range v.feats {
						for _, sign := range []float64{1, -1} {
							for k := 0; k < 4 && try(func(c afParams) afParams { c.theta[si][j] += sign * d; return c }); k++ {
								improved = true
							}
						}
					}
				}
			}
		}
		if v.gates {
			for si := range afSlots {
				for _, g := range gates[si] {
					if try(func(c afParams) afParams { c.gate[si] = g; return c }) {
						improved = true
					}
				}
				if try(func(c afParams) afParams { c.gate[si] = 0; return c }) {
					improved = true
				}
			}
		}
		t.Logf("  sweep %d: objective %.4f", sweep, best)
		if !improved {
			break
		}
	}
	return p
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func TestAutoFit(t *testing.T) {
	spec := os.Getenv("AUTOFIT_SETS")
	if spec == "" {
		t.Skip("set AUTOFIT_SETS")
	}
	lambda, mu := 1e-4, 0.0
	if v := os.Getenv("AUTOFIT_LAMBDA"); v != "" {
		fmt.Sscan(v, &lambda)
	}
	// AUTOFIT_MU keeps the base weights near AUTOFIT_START's (default
	// semantic_search): mu·Σ(log w − log w0)².
	if v := os.Getenv("AUTOFIT_MU"); v != "" {
		fmt.Sscan(v, &mu)
	}
	var names, setNames []string
	var all []afQuery
	for i, part := range strings.Fields(spec) {
		name, paths, _ := strings.Cut(part, "=")
		dir, runs, _ := strings.Cut(paths, ":")
		names = append(names, name)
		base := filepath.Base(dir)
		if base == "set" { // bench prepare's layout: name/set
			base = filepath.Base(filepath.Dir(dir))
		}
		setNames = append(setNames, base)
		all = append(all, loadAutoSet(t, i, dir, runs)...)
	}
	subset := func(keep func(q afQuery) bool) []afQuery {
		var out []afQuery
		for _, q := range all {
			if keep(q) {
				out = append(out, q)
			}
		}
		return out
	}
	static := map[string]afParams{}
	var staticNames []string
	for _, name := range []string{"semantic_search", "code_search", "causal_reasoning"} {
		p, err := profiles.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		static[name], staticNames = staticParams(p), append(staticNames, name)
	}
	var rrf profiles.Profile
	rrf.Weights.Set(fingerprint.E1, 1)
	rrf.Weights.Set(fingerprint.E6, 1)
	static["rrf_e1_e6"], staticNames = staticParams(rrf), append(staticNames, "rrf_e1_e6")
	startName := cmp.Or(os.Getenv("AUTOFIT_START"), "semantic_search")
	start, ok := static[startName]
	if !ok {
		t.Fatalf("AUTOFIT_START %q: want one of %v", startName, staticNames)
	}
	// AUTOFIT_START_CODE routes: results that are code start from this
	// profile's weights, prose from AUTOFIT_START's (a version 2 model).
	codeName := os.Getenv("AUTOFIT_START_CODE")
	if codeName != "" {
		c, ok := static[codeName]
		if !ok {
			t.Fatalf("AUTOFIT_START_CODE %q: want one of %v", codeName, staticNames)
		}
		start = start.clone()
		start.logBaseCode = slices.Clone(c.logBase)
		startName += ", code results from " + codeName
	}
	for i, name := range names {
		var sum, n, hi float64
		for _, q := range all {
			if q.set == i {
				sum += q.code
				n++
				if q.code >= 0.5 {
					hi++
				}
			}
		}
		t.Logf("%s: mean code share %.3f, %.1f%% of queries ≥ 0.5", name, sum/n, 100*hi/n)
	}

	report := func(set string, qs []afQuery, n afNorm, auto afParams, label string) {
		a := auto.perQuery(qs, n)
		bestName, bestV := "", -1.0
		per := map[string][]float64{}
		for _, name := range staticNames {
			per[name] = static[name].perQuery(qs, n)
			if v := meanOf(per[name]); name != "rrf_e1_e6" && v > bestV {
				bestName, bestV = name, v
			}
		}
		line := fmt.Sprintf("%-7s %-22s n=%4d auto %.4f", set, label, len(qs), meanOf(a))
		for _, name := range staticNames {
			line += fmt.Sprintf(" | %s %.4f", name, meanOf(per[name]))
		}
		t.Log(line)
		for _, base := range []string{bestName, "rrf_e1_e6"} {
			d := make([]float64, len(a))
			for i := range a {
				d[i] = a[i] - per[base][i]
			}
			ci := bench.BootstrapCI(d, 1)
			t.Logf("          auto − %-16s %+.4f [%+.4f, %+.4f]", base, meanOf(d), ci.Lo, ci.Hi)
		}
	}
	gated := func(qs []afQuery, n afNorm, p afParams) string {
		w := make([]float64, len(afSlots))
		cnt := map[string]int{}
		for i := range qs {
			if g := p.weights(&qs[i], n, w); g >= 0 {
				cnt[afSlots[g].String()]++
			}
		}
		return fmt.Sprint(cnt)
	}
	// AUTOFIT_SCORE=FILE[,FILE…] scores model files (the shipped one, a
	// candidate) on every set's queries as the engine fuses them
	// (pipeline.AutoModel.Weigh, then WRRF), beside the built-in profiles.
	for _, file := range strings.Split(os.Getenv("AUTOFIT_SCORE"), ",") {
		if file == "" {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		model, err := pipeline.LoadAutoModel(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		n := normOf(all)
		for hi, name := range names {
			qs := subset(func(q afQuery) bool { return q.set == hi })
			a := make([]float64, len(qs))
			for i, q := range qs {
				a[i] = modelNDCG(q, model)
			}
			line := fmt.Sprintf("%-7s %s: n=%4d model %.4f", name, filepath.Base(file), len(qs), meanOf(a))
			for _, st := range staticNames {
				per := static[st].perQuery(qs, n)
				d := make([]float64, len(a))
				for i := range a {
					d[i] = a[i] - per[i]
				}
				ci := bench.BootstrapCI(d, 1)
				line += fmt.Sprintf(" | − %s %+.4f [%+.4f, %+.4f]", st, meanOf(d), ci.Lo, ci.Hi)
			}
			t.Log(line)
		}
	}
	variants := afVariants
	if names := os.Getenv("AUTOFIT_VARIANTS"); names != "" {
		variants = nil
		for _, name := range strings.Split(names, ",") {
			i := slices.IndexFunc(afVariants, func(v afVariant) bool { return v.name == name })
			if i < 0 {
				t.Fatalf("AUTOFIT_VARIANTS: unknown %q", name)
			}
			variants = append(variants, afVariants[i])
		}
	}
	heldOut := map[string]float64{}
	for _, v := range variants {
		t.Logf("== variant %s (lambda %g, mu %g, start %s)", v.name, lambda, mu, startName)
		for hi, held := range names {
			train := subset(func(q afQuery) bool { return q.set != hi })
			if len(names) == 1 { // one set: fit outside the 500 sample, score it
				train = subset(func(q afQuery) bool { return !q.test })
			}
			n := normOf(train)
			t0 := time.Now()
			p := fit(t, train, n, start, lambda, mu, v)
			t.Logf("  fold %s: fitted on %d queries in %s; gated on held-out %s", held, len(train), time.Since(t0).Round(time.Second),
				gated(subset(func(q afQuery) bool { return q.set == hi }), n, p))
			report(held, subset(func(q afQuery) bool { return q.set == hi }), n, p, "held out (all)")
			report(held, subset(func(q afQuery) bool { return q.set == hi && q.test }), n, p, "held out (500 sample)")
			if v.name == variants[len(variants)-1].name {
				heldOut[setNames[hi]] = meanOf(p.perQuery(subset(func(q afQuery) bool { return q.set == hi }), n))
			}
		}
	}
	every := os.Getenv("AUTOFIT_EVERY") != ""
	out := os.Getenv("AUTOFIT_OUT")
	if out == "" {
		return
	}
	// The shipped model: fitted on every set, the last variant.
	v := variants[len(variants)-1]
	n := normOf(all)
	p := fit(t, all, n, start, lambda, mu, v)
	for hi, name := range names {
		report(name, subset(func(q afQuery) bool { return q.set == hi }), n, p, "in-sample (all sets)")
	}
	version := 1
	if p.logBaseCode != nil {
		version = 2
	}
	m := map[string]any{"version": version, "method": fmt.Sprintf("coordinate ascent on mean-over-sets nDCG@10 of %s fusion over saved top-100 slot runs from %s, L2 %g on theta, %g on log base − log start, every-set acceptance %v; variant %s", afFusion, startName, lambda, mu, every, v.name),
		"date": time.Now().UTC().Format("2006-01-02"), "features": pipeline.FeatureNames, "held_out": heldOut}
	var fitted []map[string]any
	for hi := range names {
		fitted = append(fitted, map[string]any{"set": setNames[hi], "queries": len(subset(func(q afQuery) bool { return q.set == hi }))})
	}
	m["fitted_on"] = fitted
	slots := map[string]any{}
	sum, sumCode := 0.0, 0.0
	for si := range afSlots {
		sum += math.Exp(p.logBase[si])
		if p.logBaseCode != nil {
			sumCode += math.Exp(p.logBaseCode[si])
		}
	}
	for si, s := range afSlots {
		slot := map[string]any{"base": round(math.Exp(p.logBase[si])/sum, 6), "theta": roundAll(p.theta[si]),
			"mean": roundAll(n.mean[si]), "sd": roundAll(n.sd[si]), "gate": round(p.gate[si], 6)}
		if p.logBaseCode != nil {
			slot["base_code"] = round(math.Exp(p.logBaseCode[si])/sumCode, 6)
		}
		slots[s.String()] = slot
	}
	m["slots"] = slots
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	// Check: the written model, through pipeline.AutoModel.Weigh and WRRF,
	// scores what the fitter scored.
	model, err := pipeline.LoadAutoModel(append(b, '\n'))
	if err != nil {
		t.Fatal(err)
	}
	fast := meanOf(p.perQuery(all, n))
	var slow []float64
	for _, q := range all {
		slow = append(slow, modelNDCG(q, model))
	}
	t.Logf("written %s: fitter %.4f, pipeline.AutoModel+%s %.4f", out, fast, afFusion, meanOf(slow))
}

// modelNDCG is q's nDCG@10 with its lists weighed by model and fused as
// the engine fuses them.
func modelNDCG(q afQuery, model *pipeline.AutoModel) float64 {
	lists := slices.Clone(q.rl)
	model.Weigh(q.text, lists, q.isCode)
	fused := pipeline.Fuse(lists, afFusion)
	var ids []bench.DocID
	for _, f := range fused[:min(10, len(fused))] {
		if f.Score > 0 {
			ids = append(ids, q.docIDs[f.Doc-1])
		}
	}
	return bench.NDCG(ids, q.judged, 10)
}

func round(v float64, d int) float64 {
	f := math.Pow(10, float64(d))
	return math.Round(v*f) / f
}

func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = round(x, 6)
	}
	return out
}
