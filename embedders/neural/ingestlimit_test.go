package neural

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/entities"
	"github.com/cgraph/cgraph/embedders/keywords"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/runtime"
)

// BenchmarkIngestLimit answers "how close is a full fingerprint to the rate
// the models allow". For one batch of 32 memories it times, in the same
// iteration, (a) each model run the registry makes for that batch, alone and
// one after another — e5 once over the "passage: " texts (E1+E12), bge once
// over the distinct E5 side texts, MiniLM once per call the registry makes
// (the E7+E10 run over the texts, E8's distinct structure texts, E11's entity
// texts, and E10's separate span texts for the memories whose sentences do not
// align with the run's tokens) — through the registry's own model handles
// (loaded) and with its inputs; (b) the registry's full EmbedDocuments; and,
// to say where (b) loses time against (a), the registry slot by slot
// (EmbedSlots one slot at a time: every model run and all the non-model work
// of (b), nothing concurrent) and the model-free slots alone. Each run of (a)
// uses both cores (one intra-op thread per core), so the sum of (a) is the
// limit for these models here. The warm-up checks that every run of (a)
// gives the vectors the registry stored (cosine ≥ 0.99999; the same run
// gives 1 to nine decimals), so (a) is the registry's work and not an
// approximation of it.
//
// Metrics, medians over b.N iterations: mem/s-full, mem/s-serial and
// mem/s-sum (the rate the sum allows); full/sum and serial/sum (medians of
// each iteration's ratio: 1.00 is the limit); ms/mem-<model> for each model
// (all its runs), and ms/mem-<model>-<slots> for each run of a model that
// runs more than once; ms/mem-modelfree (E2, E3, E4, E6, E9); tokens/mem (e5
// tokens, prefix and specials included). cores-sum and cores-full are the CPU
// the process used during (a) and (b) over their wall time; cores-others is
// what every other process used while the benchmark ran (from /proc/stat):
// figures with cores-others well above 0 were taken on a shared machine, where
// (b), with more threads, takes a bigger share of the CPU and can even beat
// the sum. ns/op is suppressed: an iteration is all of the measurements.
// Batches: words=60 and words=240 (benchMemories: ≈100 and ≈400 e5 tokens,
// Go doc comments) and code (32 Go standard-library functions of 300–700
// bytes, one per package directory). Default weights (int8 e5 and bge, fp32
// MiniLM). It skips when those models are not installed.
//
//	go test ./embedders/neural -run '^$' -bench IngestLimit -benchtime 3x -count 3
//
// On the 2-core machine (AMD EPYC), cores-others ≤ 0.02 in every run, load
// average 3.63 before and 3.05 after (the benchmark's own threads; the run
// before it had just ended); medians of the 3 runs:
//
//	           mem/s                 ratio to the sum     ms/mem per model
//	batch      full   sum    serial  full/sum serial/sum  e5    bge   MiniLM (E7+E10, E11, E8, E10sep)
//	words=60   36.4   38.6   36.9    1.07     1.05         6.9   6.9  11.7 (7.5, 2.7, 1.3, –)
//	words=240   9.6   10.2    9.9    1.07     1.02        36.6  35.5  25.6 (19.0, 4.3, 1.3, 1.1)
//	code       18.3   20.2   19.5    1.12     1.04        14.6  14.1  21.2 (13.7, 3.8, 3.6, –)
//
// So the full fingerprint runs at 89–94% of the rate the sum allows. The
// registry's non-model work (E12's projection, E10's span pooling, E5's head,
// the structure and entity texts, the model-free slots at 0.2–0.5 ms/mem)
// costs 2–5% (serial/sum), and running the slots concurrently costs another
// 1–6% (mem/s-serial over mem/s-full) instead of saving time: alone a model
// keeps 1.82–1.91 of the 2 cores busy (cores-sum), concurrently the process
// keeps 1.97 busy (cores-full), but three ONNX sessions of two threads each
// on two cores do more work for the same result. MiniLM is the biggest model
// cost for short memories and code: in fp32 its E7+E10 run costs about what
// int8 e5's does up to its 256-token limit, and it runs three or four times
// per batch (E11's entity texts alone 2.7–4.3 ms/mem).
func BenchmarkIngestLimit(b *testing.B) {
	ctx := context.Background()
	cfg := Config{}
	skipWithoutModels(b, cfg)
	r, closeFn, err := Registry(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := closeFn(); err != nil {
			b.Error(err)
		}
	})
	const batch = 32
	for _, set := range []struct {
		name string
		docs func() []embedders.Input
	}{
		{"words=60", func() []embedders.Input { return benchMemories(b, batch, 60) }},
		{"words=240", func() []embedders.Input { return benchMemories(b, batch, 240) }},
		{"code", func() []embedders.Input { return goFunctions(b, batch, 300, 700) }},
	} {
		docs := set.docs()
		b.Run(set.name, func(b *testing.B) {
			calls, err := ingestCalls(ctx, r, docs)
			if err != nil {
				b.Fatal(err)
			}
			// Warm-up: every session opens and allocates; then the check
			// that each run reproduces what the registry stored.
			fps, err := r.EmbedDocuments(ctx, docs)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range calls {
				out, err := c.run(ctx)
				if err != nil {
					b.Fatalf("%s %s: %v", c.lm.id, c.slots, err)
				}
				if err := c.check(out, fps); err != nil {
					b.Fatalf("%s %s does not reproduce the registry's run: %v", c.lm.id, c.slots, err)
				}
			}
			t := limitTimes{each: make([][]float64, len(calls))}
			free := modelFreeSlots(r)
			start := time.Now()
			for b.Loop() {
				t.iteration(ctx, b, r, docs, calls, free)
			}
			t.report(b, calls, len(docs), time.Since(start).Seconds())
			b.ReportMetric(meanTokens(fps), "tokens/mem")
		})
	}
}

// limitTimes are one sub-benchmark's timings, in seconds, one per iteration
// (each: per model call), and the CPU seconds the process and the others used
// over them.
type limitTimes struct {
	each                               [][]float64
	sum, free, serial, full            []float64
	sumCPU, sumWall, fullCPU, fullWall float64
	otherCPU                           float64
}

// iteration times the model calls one after another, then the model-free
// slots, then the registry slot by slot (serial), then the full
// EmbedDocuments.
func (t *limitTimes) iteration(ctx context.Context, b *testing.B, r *embedders.Registry, docs []embedders.Input, calls []modelCall, free []fingerprint.SlotID) {
	busy0, own0 := machineBusy(), cpuSeconds(b)
	var sum float64
	for i, c := range calls {
		start := time.Now()
		if _, err := c.run(ctx); err != nil {
			b.Fatalf("%s %s: %v", c.lm.id, c.slots, err)
		}
		d := time.Since(start).Seconds()
		t.each[i] = append(t.each[i], d)
		sum += d
	}
	t.sum, t.sumCPU, t.sumWall = append(t.sum, sum), t.sumCPU+cpuSeconds(b)-own0, t.sumWall+sum
	out := make([]fingerprint.Fingerprint, len(docs))
	start := time.Now()
	if err := r.EmbedSlots(ctx, docs, free, out); err != nil {
		b.Fatal(err)
	}
	t.free = append(t.free, time.Since(start).Seconds())
	start = time.Now()
	for _, s := range fingerprint.Slots() { // E1 before E12, E7 before E10: the shared runs stay shared
		if err := r.EmbedSlots(ctx, docs, []fingerprint.SlotID{s}, out); err != nil {
			b.Fatal(err)
		}
	}
	t.serial = append(t.serial, time.Since(start).Seconds())
	cpu0 := cpuSeconds(b)
	start = time.Now()
	if _, err := r.EmbedDocuments(ctx, docs); err != nil {
		b.Fatal(err)
	}
	full := time.Since(start).Seconds()
	t.full, t.fullCPU, t.fullWall = append(t.full, full), t.fullCPU+cpuSeconds(b)-cpu0, t.fullWall+full
	t.otherCPU += (machineBusy() - busy0) - (cpuSeconds(b) - own0)
}

// report reports the medians of t (see BenchmarkIngestLimit) for batches
// of n memories; wall is the seconds all iterations took.
func (t *limitTimes) report(b *testing.B, calls []modelCall, n int, wall float64) {
	perMem := func(xs []float64) float64 { return median(xs) * 1000 / float64(n) }
	ratio := func(xs []float64) float64 {
		r := make([]float64, len(xs))
		for i := range xs {
			r[i] = xs[i] / t.sum[i]
		}
		return median(r)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(n)/median(t.full), "mem/s-full")
	b.ReportMetric(float64(n)/median(t.sum), "mem/s-sum")
	b.ReportMetric(float64(n)/median(t.serial), "mem/s-serial")
	b.ReportMetric(ratio(t.full), "full/sum")
	b.ReportMetric(ratio(t.serial), "serial/sum")
	b.ReportMetric(t.sumCPU/t.sumWall, "cores-sum")
	b.ReportMetric(t.fullCPU/t.fullWall, "cores-full")
	if !math.IsNaN(t.otherCPU) {
		b.ReportMetric(max(t.otherCPU/wall, 0), "cores-others")
	}
	b.ReportMetric(perMem(t.free), "ms/mem-modelfree")
	perModel := map[models.ModelID][]float64{}
	runs := map[models.ModelID]int{}
	for _, c := range calls {
		runs[c.lm.id]++
	}
	for i, c := range calls {
		if runs[c.lm.id] > 1 {
			b.ReportMetric(perMem(t.each[i]), "ms/mem-"+string(c.lm.id)+"-"+c.slots)
		}
		if perModel[c.lm.id] == nil {
			perModel[c.lm.id] = make([]float64, len(t.each[i]))
		}
		for k, d := range t.each[i] {
			perModel[c.lm.id][k] += d
		}
	}
	for id, ds := range perModel {
		b.ReportMetric(perMem(ds), "ms/mem-"+string(id))
	}
}

// skipWithoutModels skips b, naming the missing models and the command that
// installs them, unless every model of cfg's slot plan is installed.
func skipWithoutModels(b *testing.B, cfg Config) {
	b.Helper()
	l, err := newLoader(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := Models(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var missing []string
	for _, id := range ids {
		if !l.installed(id) {
			missing = append(missing, string(id))
		}
	}
	if len(missing) > 0 {
		b.Skipf("models %s are not installed in %s: run `make setup` (or `cgraph models pull --default`)", strings.Join(missing, ", "), l.dir)
	}
}

// modelCall is one model run the registry makes for a batch: the model, the
// slots that read it, and exactly the registry's inputs.
type modelCall struct {
	lm     *loaded
	slots  string // "E1+E12", "E5", "E10sep" (E10's separately embedded spans), …
	kind   runKind
	prefix string
	in     []string
	// uses says where the registry stored each output vector.
	uses []vectorUse
}

// runKind is the model method a call uses.
type runKind int

const (
	runPooled     runKind = iota // EmbedPrefixed
	runWithTokens                // EmbedWithTokens (a run shared by two slots)
	runSparse                    // Sparse, view passage
)

// run makes the call's model run and returns its pooled vectors (none for
// a sparse run).
func (c modelCall) run(ctx context.Context) ([]runtime.Dense, error) {
	switch c.kind {
	case runWithTokens:
		ps, err := c.lm.EmbedWithTokens(ctx, c.prefix, c.in)
		if err != nil {
			return nil, err
		}
		ds := make([]runtime.Dense, len(ps))
		for i, p := range ps {
			ds[i] = p.Dense
		}
		return ds, nil
	case runSparse:
		_, err := c.lm.Sparse(ctx, runtime.ViewPassage, c.in)
		return nil, err
	default:
		return c.lm.EmbedPrefixed(ctx, c.prefix, c.in)
	}
}

// vectorUse is one stored vector made from output out of a run: slot's
// value in document doc (side A or B of a pair, else the one vector),
// after view (E5's head; nil is the identity).
type vectorUse struct {
	out, doc int
	slot     fingerprint.SlotID
	side     fingerprint.Side
	view     func([]float32, fingerprint.Side) []float32
}

// check compares the run's outputs with the vectors in fps: a cosine below
// 0.99999 means the run is not the one the registry made (one changed input
// text gives 0.997 or less). A run without stored
// vectors to compare (E10 reading MiniLM alone, E13) passes.
func (c modelCall) check(out []runtime.Dense, fps []fingerprint.Fingerprint) error {
	for _, u := range c.uses {
		got := []float32(out[u.out].Vector)
		if u.view != nil {
			got = u.view(got, u.side)
		}
		var want []float32
		switch v := fps[u.doc].Get(u.slot).Value.(type) {
		case fingerprint.Dense:
			want = v
		case fingerprint.Pair:
			want = v.Get(u.side)
		case fingerprint.Entities:
			want = v.Vector
		default:
			return fmt.Errorf("document %d %s holds %T", u.doc, u.slot, v)
		}
		if len(got) != len(want) {
			return fmt.Errorf("document %d %s side %d: %d dims, stored %d", u.doc, u.slot, u.side, len(got), len(want))
		}
		if cs := cosine(got, want); cs < 0.99999 {
			return fmt.Errorf("document %d %s side %d: cosine %.6f to the stored vector", u.doc, u.slot, u.side, cs)
		}
	}
	return nil
}

// ingestCalls lists the model runs r makes to fingerprint docs, in the slot
// order, by mirroring each model-backed embedder's EmbedDocuments. It knows
// the embedders of this package; another kind is an error, not a guess.
func ingestCalls(ctx context.Context, r *embedders.Registry, docs []embedders.Input) ([]modelCall, error) {
	texts, idx := readTexts(docs) // as the dense and token slots read them
	raw, _ := nonEmpty(docs)
	var calls []modelCall
	same := func(s fingerprint.SlotID) []vectorUse { // one output per non-empty text
		us := make([]vectorUse, len(idx))
		for k, i := range idx {
			us[k] = vectorUse{out: k, doc: i, slot: s}
		}
		return us
	}
	for _, s := range []fingerprint.SlotID{fingerprint.E1, fingerprint.E5, fingerprint.E7, fingerprint.E8, fingerprint.E10, fingerprint.E11, fingerprint.E12, fingerprint.E13} {
		switch e := r.Get(s).(type) {
		case *embedders.Unavailable, entities.Embedder: // no model run
		case *e1Shared:
			calls = append(calls, modelCall{lm: e.lm, slots: "E1+E12", kind: runWithTokens, prefix: e.pass.prefix, in: texts, uses: same(s)})
		case *e7Shared:
			calls = append(calls, modelCall{lm: e.lm, slots: "E7+E10", kind: runWithTokens, prefix: e.pass.prefix, in: texts, uses: same(s)})
		case *denseEmbedder:
			calls = append(calls, modelCall{lm: e.lm, slots: s.String(), prefix: e.docPrefix, in: texts, uses: same(s)})
		case *lateEmbedder:
			if _, ok := r.Get(fingerprint.E1).(*e1Shared); !ok || e.note != e12FallbackNote {
				return nil, fmt.Errorf("%s: a ColBERT E12 has its own run, which this benchmark does not mirror", s)
			}
		case *pairEmbedder:
			in, uses := pairInputs(e, docs)
			calls = append(calls, modelCall{lm: e.lm, slots: s.String(), in: in, uses: uses})
		case *intentEmbedder:
			if e.pass.want() == 1 { // E7 runs another model: E10 reads the MiniLM run alone
				calls = append(calls, modelCall{lm: e.lm, slots: "E10", kind: runWithTokens, prefix: e.pass.prefix, in: texts})
			}
			in, uses, err := intentSeparate(ctx, e, texts, idx)
			if err != nil {
				return nil, err
			}
			if len(in) > 0 {
				calls = append(calls, modelCall{lm: e.lm, slots: "E10sep", in: in, uses: uses})
			}
		case *entityEmbedder:
			var in []string
			var uses []vectorUse
			for i, d := range docs {
				if names := entities.Extract(d.Text); len(names) > 0 {
					uses = append(uses, vectorUse{out: len(in), doc: i, slot: s})
					in = append(in, entityText(names))
				}
			}
			if len(in) > 0 {
				calls = append(calls, modelCall{lm: e.lm, slots: s.String(), in: in, uses: uses})
			}
		case *sparseEmbedder:
			in := make([]string, len(raw))
			for i, t := range raw {
				in[i] = keywords.SplitIdentifiers(t)
			}
			calls = append(calls, modelCall{lm: e.lm, slots: s.String(), kind: runSparse, in: in})
		default:
			return nil, fmt.Errorf("%s: embedder %T is unknown to BenchmarkIngestLimit: mirror its model runs in ingestCalls", s, e)
		}
	}
	return calls, nil
}

// pairInputs is pairEmbedder.EmbedDocuments' run: the distinct side texts
// of the batch (sideTexts), and where each side's vector is stored.
func pairInputs(e *pairEmbedder, docs []embedders.Input) ([]string, []vectorUse) {
	in, todo, _ := e.sideTexts(docs)
	uses := make([]vectorUse, 0, 2*len(todo))
	for _, p := range todo {
		uses = append(uses,
			vectorUse{out: p.a, doc: p.doc, slot: e.slot, side: fingerprint.SideA, view: e.view},
			vectorUse{out: p.b, doc: p.doc, slot: e.slot, side: fingerprint.SideB, view: e.view})
	}
	return in, uses
}

// intentSeparate mirrors the second half of intentEmbedder.EmbedDocuments:
// the intent and context texts of the memories whose sentences do not align
// with the MiniLM run's tokens (found by making that run once).
func intentSeparate(ctx context.Context, e *intentEmbedder, texts []string, idx []int) ([]string, []vectorUse, error) {
	if len(texts) == 0 {
		return nil, nil, nil
	}
	res, err := e.lm.EmbedWithTokens(ctx, e.pass.prefix, texts)
	if err != nil {
		return nil, nil, fmt.Errorf("E10: %w", err)
	}
	var in []string
	var uses []vectorUse
	for k, p := range res {
		if _, _, ok := e.spans(texts[k], p.Tokens); ok {
			continue
		}
		intent, cx := e10Sides(texts[k])
		uses = append(uses,
			vectorUse{out: len(in), doc: idx[k], slot: fingerprint.E10, side: fingerprint.SideA},
			vectorUse{out: len(in) + 1, doc: idx[k], slot: fingerprint.E10, side: fingerprint.SideB})
		in = append(in, intent, cx)
	}
	return in, uses, nil
}

// goFunctions returns n Go standard-library functions (declaration and body,
// no doc comment) of minBytes to maxBytes, the first such function of each
// package directory in walk order, outside cmd, testdata and vendor.
func goFunctions(b *testing.B, n, minBytes, maxBytes int) []embedders.Input {
	b.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var out []embedders.Input
	done := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == filepath.Join(root, "cmd") || d.Name() == "testdata" || d.Name() == "vendor" {
				return filepath.SkipDir
			}
			return nil
		}
		dir := filepath.Dir(path)
		if done[dir] || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil // a file that does not parse alone (build tags) is skipped
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			text := string(src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset])
			if len(text) < minBytes || len(text) > maxBytes {
				continue
			}
			out = append(out, embedders.Input{Text: text, Created: now, Session: "bench", Seq: uint64(len(out))})
			done[dir] = true
			break
		}
		if len(out) == n {
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		b.Fatalf("walk %s: %v", root, err)
	}
	if len(out) < n {
		b.Fatalf("%d Go functions of %d–%d bytes under %s, want %d", len(out), minBytes, maxBytes, root, n)
	}
	return out
}

// modelFreeSlots are the slots of r that run no model (E2, E3, E4, E6, E9,
// and a set-only E11).
func modelFreeSlots(r *embedders.Registry) []fingerprint.SlotID {
	var out []fingerprint.SlotID
	for _, s := range fingerprint.Slots() {
		switch r.Get(s).(type) {
		case *e1Shared, *e7Shared, *denseEmbedder, *lateEmbedder, *pairEmbedder, *intentEmbedder, *entityEmbedder, *sparseEmbedder, *embedders.Unavailable:
		default:
			out = append(out, s)
		}
	}
	return out
}

// cpuSeconds is the user and system CPU time the process has used.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// machineBusy is the CPU time all processes have used (the non-idle time of
// /proc/stat's cpu line), NaN where /proc/stat cannot be read.
func machineBusy() float64 {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return math.NaN()
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return math.NaN()
	}
	var busy float64
	for i, v := range f[1:] {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return math.NaN()
		}
		if i != 3 && i != 4 && i < 8 { // not idle, iowait, nor guest time (counted in user)
			busy += n
		}
	}
	return busy / 100 // USER_HZ
}

// median of xs (not modified); NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// meanTokens is the mean e5 token count of the fingerprints' E12 values.
func meanTokens(fps []fingerprint.Fingerprint) float64 {
	var rows float64
	for i := range fps {
		if t, ok := fps[i].Get(fingerprint.E12).Value.(fingerprint.Tokens); ok {
			rows += float64(t.Rows())
		}
	}
	return rows / float64(len(fps))
}
