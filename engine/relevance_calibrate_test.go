package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/profiles"
)

// offTopic are queries no code-search corpus of a language's library
// answers: cooking, travel, sports, history, medicine, finance, pop
// culture, and programming questions about other tools than the corpus'
// (CSS, SQL, spreadsheets, git, Kubernetes…). Even indices (set A) go with
// the fitting set, odd ones (set B) with the held-out set.
var offTopic = []string{
	"how do I bake sourdough bread with a rye starter",
	"best way to caramelize onions without burning them",
	"what temperature should a medium rare steak reach",
	"vegetarian lasagna recipe with spinach and ricotta",
	"how long to boil an egg for a runny yolk",
	"substitute for buttermilk in pancakes",
	"cheap flights from London to Tokyo in April",
	"what to pack for a two week trip to Iceland",
	"do I need a visa to visit Brazil as a Canadian",
	"best beaches on the Amalfi coast",
	"train from Paris to Barcelona travel time",
	"which neighbourhood to stay in when visiting Lisbon",
	"who won the 2018 FIFA World Cup final",
	"offside rule in football explained",
	"how many players are on a basketball team",
	"Tour de France yellow jersey meaning",
	"best stretching routine before running a marathon",
	"tennis grand slam tournaments list",
	"causes of the fall of the Roman Empire",
	"when did the Berlin Wall come down",
	"who was the first emperor of China",
	"what started the First World War",
	"the signing of the Magna Carta in 1215",
	"history of the Ottoman Empire in the 16th century",
	"symptoms of vitamin D deficiency",
	"how much ibuprofen can an adult take per day",
	"difference between a cold and the flu",
	"what is a normal resting heart rate",
	"how to treat a sprained ankle at home",
	"is it safe to take antibiotics with alcohol",
	"how does compound interest work on a savings account",
	"should I pay off my mortgage early or invest",
	"what is an index fund and how do ETFs differ",
	"how to file taxes as a freelancer",
	"difference between a Roth IRA and a traditional IRA",
	"how do credit scores get calculated",
	"who plays the lead in the new Dune movie",
	"Taylor Swift Eras tour setlist",
	"best anime series of the last decade",
	"ending of Breaking Bad explained",
	"how many Oscars did Titanic win",
	"Beatles albums in chronological order",
	"how do I center a div in CSS",
	"flexbox vs grid layout for a responsive navbar",
	"SQL left join versus inner join with an example",
	"how to write a VLOOKUP formula in Excel",
	"git rebase interactive squash the last three commits",
	"kubectl get pods stuck in CrashLoopBackOff",
	"React useEffect runs twice in strict mode",
	"how to configure nginx as a reverse proxy with TLS",
	"Docker compose volume permissions on macOS",
	"set up a Terraform backend in an S3 bucket",
	"change the default shell to zsh with oh my zsh themes",
	"Photoshop remove background from a portrait",
	"how do I water a fiddle leaf fig",
	"best time of year to plant tulip bulbs",
	"how to train a puppy to stop biting",
	"what do cats dream about",
	"how to remove red wine stains from a carpet",
	"how to change a flat tire on a bicycle",
	"tips for a job interview at a bank",
	"how to write a wedding toast",
	"meaning of the poem The Road Not Taken",
	"how far is the moon from the earth",
	"why is the sky blue during the day",
	"how do vaccines train the immune system",
	"rules of chess castling",
	"what is the capital of Australia",
	"how to knit a scarf for beginners",
	"learn to play the guitar chords for Wonderwall",
	"how many calories in a banana",
	"best hiking trails in the Swiss Alps",
	"Wordpress plugin for a contact form",
	"how to use pivot tables in Google Sheets",
	"Unity game engine rigidbody jump physics",
	"LaTeX table with merged cells",
	"Android app crashes on rotation losing state",
	"Swift UI navigation stack back button title",
	"how to cite a website in APA style",
	"what is the plot of Pride and Prejudice",
}

// calSample is one hit's evidence with its label.
type calSample struct {
	ev       RelevanceEvidence
	p        float64 // relevance under the shipped model, or a fitted one
	relevant bool
	query    int  // index of its query in the run
	rank     int  // 0-based rank in the result
	offTopic bool // a hit of an off-topic query
}

// calRun is one store's samples: dev queries then off-topic ones.
type calRun struct {
	set     string
	samples []calSample
	queries int // dev queries searched
	offs    int // off-topic queries searched
}

// TestCalibrateRelevance fits the relevance model (relevanceModel) and
// chooses its floor. It runs only when CGRAPH_RELEVANCE_SETS names a bench
// output folder with stores/csn-go-2000, stores/csn-py-2000 and their sets
// in sets/ (BEIR layout) — a copy: an older store is upgraded on open —
// embedded with the installed models
// ($CGRAPH_MODELS or ~/.cache/cgraph/models); CGRAPH_RELEVANCE_QUERIES
// bounds the dev queries per set (default 400). It prints, for each
// direction (fit on one set, test on the other), the coefficients, the
// held-out figures at the shipped floor and the trade-off curve, then the
// coefficients fitted on both sets (the ones shipped). It fails when the
// shipped model misses the goals on either held-out set.
//
//	CGRAPH_RELEVANCE_SETS=/path/bench-out go test ./engine -run TestCalibrateRelevance -v -timeout 60m
func TestCalibrateRelevance(t *testing.T) {
	root := os.Getenv("CGRAPH_RELEVANCE_SETS")
	if root == "" {
		t.Skip("set CGRAPH_RELEVANCE_SETS to a bench output folder with the csn-go-2000 and csn-py-2000 stores and sets")
	}
	n := 400
	if v := os.Getenv("CGRAPH_RELEVANCE_QUERIES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	dir := os.Getenv("CGRAPH_MODELS")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "cgraph", "models")
	}
	ctx := context.Background()
	reg, closeReg, err := neural.Registry(ctx, ModelsConfig{ModelsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer closeReg()
	var offA, offB []string
	for i, q := range offTopic {
		if i%2 == 0 {
			offA = append(offA, q)
		} else {
			offB = append(offB, q)
		}
	}
	sets := []string{"csn-go-2000", "csn-py-2000"}
	runs := map[string][2]calRun{} // set → [with off-topic A, with B]
	for _, set := range sets {
		// Opened for writing: an older bench store is upgraded on open
		// (hence "a copy" above); nothing else is written.
		e, err := Open(filepath.Join(root, "stores", set), Options{Embedders: reg, ManualFill: true})
		if err != nil {
			t.Fatal(err)
		}
		dev := calQueries(t, filepath.Join(root, "sets", set), n)
		a := calSearch(t, ctx, e, set, dev, offA)
		b := calRun{set: set, samples: slices.Clone(a.samples[:devSamples(a)]), queries: a.queries}
		b = appendOff(t, ctx, e, b, offB)
		runs[set] = [2]calRun{a, b}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if out := os.Getenv("CGRAPH_RELEVANCE_OUT"); out != "" {
		for _, set := range sets {
			writeSamples(t, filepath.Join(out, set+".tsv"), runs[set][0], runs[set][1])
		}
	}
	for _, dir := range [][2]string{{"csn-go-2000", "csn-py-2000"}, {"csn-py-2000", "csn-go-2000"}} {
		fit, test := runs[dir[0]][0], runs[dir[1]][1]
		w := fitLogistic(fit.samples, true)
		floor := chooseFloor(score(fit, w))
		t.Logf("fit on %s (+ off-topic A): %s, floor %.2f; test on %s (+ off-topic B)", dir[0], fmtModel(w), floor, dir[1])
		reportCurve(t, "held-out "+dir[1]+" (fitted on "+dir[0]+")", score(test, w), floor)
	}
	var both calRun
	for _, set := range sets {
		off := both.queries + both.offs // query numbers stay apart
		for _, smp := range runs[set][0].samples {
			smp.query += off
			both.samples = append(both.samples, smp)
		}
		both.queries += runs[set][0].queries + runs[set][0].offs
	}
	w := fitLogistic(both.samples, true)
	t.Logf("fit on both sets (+ off-topic A): relevanceModel = %s, floor %.2f; without E7: relevanceNoE7 = %s",
		fmtModel(w), chooseFloor(score(both, w)), fmtModel(fitLogistic(both.samples, false)))
	for _, set := range sets {
		shipped := score(runs[set][1], nil)
		reportCurve(t, set+" (+ off-topic B, not fitted), shipped model", shipped, RelevanceFloor)
		off, keep := goals(shipped, RelevanceFloor)
		if off < 0.90 || keep < 0.98 {
			t.Errorf("%s with off-topic B, shipped model at floor %g: off-topic answered nothing %.3f (goal ≥ 0.90), relevant top-1 kept %.3f (goal ≥ 0.98)",
				set, RelevanceFloor, off, keep)
		}
	}
}

// calQueries reads up to n queries of a BEIR set with their one relevant
// document (the first in qrels/test.tsv).
func calQueries(t *testing.T, dir string, n int) [][2]string {
	t.Helper()
	rel := map[string]string{}
	f, err := os.Open(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) >= 3 && fs[2] != "0" && fs[0] != "query-id" {
			if _, ok := rel[fs[0]]; !ok {
				rel[fs[0]] = fs[1]
			}
		}
	}
	q, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var out [][2]string
	sc = bufio.NewScanner(q)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(out) < n {
		var v struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		if d, ok := rel[v.ID]; ok {
			out = append(out, [2]string{v.Text, d})
		}
	}
	return out
}

// calRequest is the search the model is calibrated for: what ops.Context
// and the prompt hook ask (multi_space, the default profile).
func calRequest(q string) SearchRequest {
	p, err := profiles.Lookup(DefaultProfile)
	if err != nil {
		panic(err)
	}
	f, err := ParseFusion(os.Getenv("CGRAPH_RELEVANCE_FUSION"))
	if err != nil {
		panic(err)
	}
	return SearchRequest{Query: q, Profile: p, Mode: ModeMultiSpace, TopK: 10, Fusion: f}
}

func calSearch(t *testing.T, ctx context.Context, e *Engine, set string, dev [][2]string, off []string) calRun {
	t.Helper()
	r := calRun{set: set}
	for qi, q := range dev {
		res, err := e.Search(ctx, calRequest(q[0]))
		if err != nil {
			t.Fatal(err)
		}
		for i, ev := range searchEvidence(res) {
			doc, _ := strings.CutPrefix(res.Memories[i].Source, "bench:")
			r.samples = append(r.samples, calSample{ev: ev, relevant: doc == q[1], query: qi, rank: i})
		}
	}
	r.queries = len(dev)
	return appendOff(t, ctx, e, r, off)
}

func appendOff(t *testing.T, ctx context.Context, e *Engine, r calRun, off []string) calRun {
	t.Helper()
	for qi, q := range off {
		res, err := e.Search(ctx, calRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		for i, ev := range searchEvidence(res) {
			r.samples = append(r.samples, calSample{ev: ev, query: r.queries + qi, rank: i, offTopic: true})
		}
	}
	r.offs = len(off)
	return r
}

// searchEvidence is the evidence Search scored its hits' relevance on
// (E1's raw cosines where E1's queries are tuned).
func searchEvidence(res SearchResult) []RelevanceEvidence {
	if res.Relevance == nil {
		return EvidenceOf(res.Result)
	}
	out := make([]RelevanceEvidence, len(res.Relevance))
	for i, r := range res.Relevance {
		out[i] = r.Evidence
	}
	return out
}

func devSamples(r calRun) int {
	return slices.IndexFunc(r.samples, func(s calSample) bool { return s.offTopic })
}

func writeSamples(t *testing.T, path string, runs ...calRun) {
	t.Helper()
	var b strings.Builder
	b.WriteString("run\tquery\trank\toff_topic\trelevant\te1\te7\tfused\n")
	for ri, r := range runs {
		for _, s := range r.samples {
			fmt.Fprintf(&b, "%d\t%d\t%d\t%t\t%t", ri, s.query, s.rank, s.offTopic, s.relevant)
			for _, x := range calFeatures(s.ev, true)[1:] {
				fmt.Fprintf(&b, "\t%.5f", x)
			}
			b.WriteByte('\n')
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// calFeatures are the model's features in order, with or without E7.
func calFeatures(ev RelevanceEvidence, withE7 bool) []float64 {
	if withE7 {
		return []float64{1, ev.E1, ev.E7, ev.Fused}
	}
	return []float64{1, ev.E1, ev.Fused}
}

// offTopicWeight weighs an off-topic hit in the fit: 40 off-topic queries
// against 1,000 dev queries would otherwise teach the model to rank
// within a query rather than to tell a query with an answer from one
// without.
const offTopicWeight = 12

// fitLogistic fits an L2-regularised (λ = 1e-3, intercept free) logistic
// regression by Newton's method: w[0] the intercept, then one coefficient
// per feature.
func fitLogistic(samples []calSample, withE7 bool) []float64 {
	d := len(calFeatures(RelevanceEvidence{}, withE7))
	w := make([]float64, d)
	const lambda = 1e-3
	for iter := 0; iter < 50; iter++ {
		g := mat.NewVecDense(d, nil)
		h := mat.NewSymDense(d, nil)
		for _, s := range samples {
			x := calFeatures(s.ev, withE7)
			p := sigmoid(dot(w, x))
			y, c := 0.0, 1.0
			if s.relevant {
				y = 1
			}
			if s.offTopic {
				c = offTopicWeight
			}
			for i := range d {
				g.SetVec(i, g.AtVec(i)+c*(p-y)*x[i])
				for j := i; j < d; j++ {
					h.SetSym(i, j, h.At(i, j)+c*p*(1-p)*x[i]*x[j])
				}
			}
		}
		for i := 1; i < d; i++ {
			g.SetVec(i, g.AtVec(i)+lambda*w[i])
			h.SetSym(i, i, h.At(i, i)+lambda)
		}
		var step mat.VecDense
		if err := step.SolveVec(h, g); err != nil {
			panic(err)
		}
		var moved float64
		for i := range d {
			w[i] -= step.AtVec(i)
			moved = max(moved, math.Abs(step.AtVec(i)))
		}
		if moved < 1e-8 {
			break
		}
	}
	return w
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func fmtModel(w []float64) string {
	names := []string{"Intercept", "E1", "E7", "Fused"}
	if len(w) == 3 {
		names = []string{"Intercept", "E1", "Fused"}
	}
	parts := make([]string, len(w))
	for i := range w {
		parts[i] = fmt.Sprintf("%s: %.4f", names[i], w[i])
	}
	return "logistic{" + strings.Join(parts, ", ") + "}"
}

// chooseFloor is the highest floor (0.01 steps) that keeps the relevant
// top-1 hit of ≥ 99% of r's dev queries: a point of margin over the goal
// of 98%, because the cross-set runs showed a floor kept at 98% on one set
// losing several points on the other.
func chooseFloor(r calRun) float64 {
	best := 0.0
	for f := 0.01; f < 1; f += 0.01 {
		if _, keep := goals(r, f); keep >= 0.99 {
			best = math.Round(f*100) / 100
		}
	}
	return best
}

// score returns r's samples with p computed by w (nil: the shipped model).
func score(r calRun, w []float64) calRun {
	out := r
	out.samples = slices.Clone(r.samples)
	for i := range out.samples {
		s := &out.samples[i]
		if w == nil {
			s.p = s.ev.Relevance()
		} else {
			s.p = sigmoid(dot(w, calFeatures(s.ev, len(w) == 4)))
		}
	}
	return out
}

// goals are the two figures at floor: the share of off-topic
// queries with no hit at or above it, and the share of dev queries whose
// top-1 hit is the relevant one that keep it.
func goals(r calRun, floor float64) (offNothing, keepTop1 float64) {
	best := map[int]float64{}
	var tops, kept, offs, nothing int
	for _, s := range r.samples {
		best[s.query] = max(best[s.query], s.p)
		if s.rank == 0 && s.relevant {
			tops++
			if s.p >= floor {
				kept++
			}
		}
	}
	for q := r.queries; q < r.queries+r.offs; q++ {
		offs++
		if best[q] < floor {
			nothing++
		}
	}
	return float64(nothing) / float64(max(offs, 1)), float64(kept) / float64(max(tops, 1))
}

// reportCurve logs the goals over a range of floors, with the Brier score
// and the calibration by decile of p over every hit.
func reportCurve(t *testing.T, name string, r calRun, floor float64) {
	t.Helper()
	var brier float64
	var bins [10][2]int
	for _, s := range r.samples {
		y := 0.0
		if s.relevant {
			y = 1
		}
		brier += (s.p - y) * (s.p - y)
		b := min(int(s.p*10), 9)
		bins[b][0]++
		if s.relevant {
			bins[b][1]++
		}
	}
	lines := []string{}
	if off, keep := goals(r, floor); true {
		lines = append(lines, fmt.Sprintf("  at the floor %.2f: off-topic answered nothing %.3f, relevant top-1 kept %.3f", floor, off, keep))
	}
	for _, f := range []float64{0.06, 0.08, 0.1, 0.12, 0.13, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5} {
		off, keep := goals(r, f)
		mark := ""
		if math.Abs(f-floor) < 1e-9 {
			mark = "  ← floor"
		}
		lines = append(lines, fmt.Sprintf("  floor %.2f: off-topic answered nothing %.3f, relevant top-1 kept %.3f%s", f, off, keep, mark))
	}
	var cal []string
	for i, b := range bins {
		if b[0] > 0 {
			cal = append(cal, fmt.Sprintf("[%.1f,%.1f) %d hits %.3f relevant", float64(i)/10, float64(i+1)/10, b[0], float64(b[1])/float64(b[0])))
		}
	}
	t.Logf("%s: %d dev queries, %d off-topic, %d hits, Brier %.4f\n%s\n  calibration: %s", name, r.queries, r.offs, len(r.samples),
		brier/float64(len(r.samples)), strings.Join(lines, "\n"), strings.Join(cal, "; "))
}
