// Package benchstore is the bench over a real store. Its Retriever
// indexes a corpus into an engine.Engine of its own (never the user's
// store), reuses it when its manifest says it holds the same corpus computed
// by the same slot producers, and maps each bench run (mode, profile, slot,
// the rrf baseline) to an engine search. Run (bench run), Ablate (bench
// ablate) and Learn (profiles learn) are the orchestration over it: load
// the set, open the store, run, compare, fit, write the reports or the
// profile file; a face parses its flags into their options and prints the
// answer.
//
// It is the bench's face on the engine, so it must not reach the engine's
// storage or the parts behind it; it loads no model itself (the caller's
// Opener hands it the embedders) and draws nothing (progress and warnings
// go through the caller's hooks). The package bench below it knows no
// engine at all.
package benchstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cgraph/cgraph/bench"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/internal/atomicfile"
	"github.com/cgraph/cgraph/record"
)

const (
	ingestBatch    = 64
	ManifestSuffix = ".bench.json"
	manifestFormat = 1
	// sourcePrefix marks the Source of a memory the bench wrote; the
	// rest is the corpus document id, which is how a hit maps back.
	sourcePrefix = "bench:"
	// maxContent bounds a corpus document; BEIR documents are far
	// smaller, and a larger one is refused with its id.
	maxContent = 4 << 20
)

// createdAt is every bench memory's creation time: the corpus has no
// times, and a fixed one keeps rebuilt stores identical and the temporal
// slots neutral (they tie every document).
var createdAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Config is what `bench run` tells the retriever about the store and the
// stage sizes it searches with.
type Config struct {
	Dir string // store directory; the manifest is Dir + ManifestSuffix
	// RecallK, FilterK and FusionK are the pipeline stage sizes (0 = the
	// pipeline's defaults).
	RecallK, FilterK, FusionK, DenseRecallK int
	// RerankWeight is E12's S4 weight (0 = the pipeline's default).
	RerankWeight float64
	Batch        int  // memories per AddBatch (0 = 64)
	NoThresholds bool // keep results below every slot's low threshold
	// Profiles are custom profiles a run may name (a learned profile, an
	// ablation), looked up before the built-ins.
	Profiles map[string]engine.Profile
}

// New returns a retriever over a store in cfg.Dir, fingerprinted by reg;
// closeReg (may be nil) releases reg when the retriever closes. A directory
// that holds something other than a bench store is refused with a
// *record.ValidationError.
func New(cfg Config, reg *engine.Registry, closeReg func() error) (*Retriever, error) {
	if err := checkStoreDir(cfg.Dir); err != nil {
		return nil, err
	}
	r := &Retriever{cfg: cfg, reg: reg, closeReg: closeReg, notes: map[string]map[string]*runNote{}}
	if r.cfg.Batch <= 0 {
		r.cfg.Batch = ingestBatch
	}
	return r, nil
}

// Retriever implements bench.Retriever over an engine.Engine. It indexes
// a corpus into a store of its own (never the user's --db), reuses it when
// its manifest says it holds the same corpus computed by the same slot
// producers, and maps each bench run to a engine.SearchRequest. Not safe for
// concurrent use (the runner calls it from one goroutine).
type Retriever struct {
	cfg      Config
	reg      *engine.Registry
	closeReg func() error
	store    *engine.Engine
	// notes counts, per run, the space reports that were not "ok"
	// ("E7 unavailable": 40), so a slot silently missing from a run shows
	// in the report.
	notes map[string]map[string]*runNote
	// reembedded are the slots Index re-embedded in a reused store.
	reembedded []engine.SlotID
	// built is how long the store's build took and builtAt when it ended
	// (from its manifest when reused; zero when it does not say).
	built   float64
	builtAt time.Time
}

var (
	_ bench.Retriever      = (*Retriever)(nil)
	_ bench.ReproReporter  = (*Retriever)(nil)
	_ bench.RunNoter       = (*Retriever)(nil)
	_ bench.BuildTimer     = (*Retriever)(nil)
	_ bench.IndexDescriber = (*Retriever)(nil)
)

// manifest sits beside a bench store and says what it holds. A store
// whose manifest is missing, incomplete or different is rebuilt.
type manifest struct {
	Format        int               `json:"format"`
	CgraphVersion string            `json:"cgraph_version"`
	CorpusSHA256  string            `json:"corpus_sha256"`
	Docs          int               `json:"docs"`
	Producers     map[string]string `json:"producers"` // slot → producer, "" when unavailable
	Complete      bool              `json:"complete"`  // false while the store is being built
	BuiltSeconds  float64           `json:"built_seconds,omitempty"`
	BuiltAt       time.Time         `json:"built_at,omitzero"` // when the build finished
}

func (m manifest) sameContent(o manifest) bool {
	return m.sameCorpus(o) && m.sameProducers(o)
}

func (m manifest) sameCorpus(o manifest) bool {
	return m.Format == o.Format && m.CorpusSHA256 == o.CorpusSHA256 && m.Docs == o.Docs
}

func (m manifest) sameProducers(o manifest) bool {
	if len(m.Producers) != len(o.Producers) {
		return false
	}
	for k, v := range m.Producers {
		if o.Producers[k] != v {
			return false
		}
	}
	return true
}

func (r *Retriever) manifestPath() string {
	return filepath.Clean(r.cfg.Dir) + ManifestSuffix
}

// producers names what computes each slot now.
func (r *Retriever) producers() map[string]string {
	out := map[string]string{}
	for i, st := range r.reg.Statuses() {
		slot := engine.Slots()[i]
		if st.State == engine.SlotUnavailable || st.Producer == (engine.Producer{}) {
			out[slot.String()] = ""
			continue
		}
		out[slot.String()] = st.Producer.Model + "@" + hex.EncodeToString(st.Producer.SHA256[:])
	}
	return out
}

// corpusSHA256 hashes the documents in order (id, title, text), so a store is
// reused only for exactly this corpus.
func corpusSHA256(docs []bench.Doc) string {
	h := sha256.New()
	for _, d := range docs {
		for _, s := range []string{string(d.ID), d.Title, d.Text} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func content(d bench.Doc) string {
	if d.Title == "" {
		return d.Text
	}
	return d.Title + "\n\n" + d.Text
}

// Index builds the store or reuses it (reused = true), then fills the E12
// token cache as a serving cgraph does at start (engine.Engine.WarmTokens),
// so the timed searches measure a warm server, not its first minutes.
func (r *Retriever) Index(ctx context.Context, docs []bench.Doc, progress func(done int)) (bool, error) {
	reused, err := r.index(ctx, docs, progress)
	if err != nil || r.store == nil {
		return reused, err
	}
	if _, err := r.store.WarmTokens(ctx); err != nil {
		return reused, fmt.Errorf("bench store %s: %w", r.cfg.Dir, err)
	}
	return reused, nil
}

func (r *Retriever) index(ctx context.Context, docs []bench.Doc, progress func(done int)) (bool, error) {
	want := manifest{Format: manifestFormat, CgraphVersion: engine.Version, CorpusSHA256: corpusSHA256(docs),
		Docs: len(docs), Producers: r.producers()}
	if old, err := readManifest(r.manifestPath()); err == nil && old.Complete && old.sameContent(want) {
		st, err := engine.Open(r.cfg.Dir, engine.Options{MaxContentBytes: maxContent, Embedders: r.reg, KeepSecrets: true, NoUses: true})
		var pm *engine.ProducerMismatchError
		switch {
		case errors.As(err, &pm):
			// the manifest was wrong about the producers: rebuild below
		case err != nil:
			return false, fmt.Errorf("reopen bench store %s: %w", r.cfg.Dir, err)
		default:
			n, err := st.Stats(ctx)
			if err == nil && int(n.Memories) == len(docs) {
				r.store, r.built, r.builtAt = st, old.BuiltSeconds, old.BuiltAt
				progress(len(docs))
				return true, nil
			}
			if cerr := st.Close(); cerr != nil {
				return false, fmt.Errorf("close bench store %s: %w", r.cfg.Dir, cerr)
			}
		}
	}
	if old, err := readManifest(r.manifestPath()); err == nil && old.Complete && old.sameCorpus(want) && !old.sameProducers(want) {
		if ok, err := r.reembed(ctx, old, want, len(docs), progress); err != nil || ok {
			return ok, err
		}
	}
	if err := r.clear(); err != nil {
		return false, err
	}
	if err := writeManifest(r.manifestPath(), want); err != nil {
		return false, err
	}
	t0 := time.Now()
	st, err := engine.Open(r.cfg.Dir, engine.Options{Create: true, MaxContentBytes: maxContent, Embedders: r.reg, KeepSecrets: true, NoUses: true})
	if err != nil {
		return false, fmt.Errorf("create bench store %s: %w", r.cfg.Dir, err)
	}
	r.store = st
	batch := make([]record.NewMemory, 0, r.cfg.Batch)
	for i := 0; i < len(docs); i += r.cfg.Batch {
		batch = batch[:0]
		for _, d := range docs[i:min(i+r.cfg.Batch, len(docs))] {
			batch = append(batch, record.NewMemory{Content: content(d), Type: record.TypeCode,
				Source: sourcePrefix + string(d.ID), CreatedAt: createdAt, AllowDuplicate: true}) // a corpus may repeat a text under two ids
		}
		if _, err := st.AddBatch(ctx, batch); err != nil {
			return false, fmt.Errorf("add documents %d–%d (%s…): %w", i+1, i+len(batch), docs[i].ID, err)
		}
		progress(i + len(batch))
	}
	want.Complete, want.BuiltSeconds, want.BuiltAt = true, time.Since(t0).Seconds(), time.Now().UTC()
	r.built, r.builtAt = want.BuiltSeconds, want.BuiltAt
	return false, writeManifest(r.manifestPath(), want)
}

// reembed brings a store of the same corpus up to the current producers
// by re-embedding only the slots whose producer changed (a tokenizer
// change to E6 costs seconds, not a rebuild). ok is false when that cannot
// be done — a slot's model is gone, the store does not hold the corpus — and
// the caller rebuilds.
func (r *Retriever) reembed(ctx context.Context, old, want manifest, docs int, progress func(int)) (ok bool, err error) {
	st, err := engine.Open(r.cfg.Dir, engine.Options{MaxContentBytes: maxContent, Embedders: r.reg, Reembed: true, KeepSecrets: true, NoUses: true})
	if err != nil {
		return false, nil
	}
	n, err := st.Stats(ctx)
	if err != nil || int(n.Memories) != docs {
		return false, errors.Join(err, st.Close())
	}
	t0 := time.Now()
	rep, err := st.Reembed(ctx, nil, nil)
	if err != nil {
		return false, st.Close() // a slot cannot be recomputed here: rebuild
	}
	want.Complete, want.BuiltSeconds, want.BuiltAt = true, old.BuiltSeconds+time.Since(t0).Seconds(), time.Now().UTC()
	if err := writeManifest(r.manifestPath(), want); err != nil {
		return false, errors.Join(err, st.Close())
	}
	r.store, r.built, r.builtAt = st, want.BuiltSeconds, want.BuiltAt
	r.reembedded = rep.Slots
	progress(docs)
	return true, nil
}

// BuildSeconds is how long building the store took, also when it was reused.
func (r *Retriever) BuildSeconds() float64 { return r.built }

// IndexInfo names the store the runs search and when its build finished
// (zero for a reused store whose manifest predates the field).
func (r *Retriever) IndexInfo() (string, time.Time) {
	return "the cgraph store at " + r.cfg.Dir, r.builtAt
}

// checkStoreDir refuses a non-empty directory that has no bench
// manifest beside it: it is not a bench store, and Index would delete it.
func checkStoreDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bench store %s: %w", dir, err)
	}
	mpath := filepath.Clean(dir) + ManifestSuffix
	if _, err := os.Stat(mpath); len(entries) > 0 && err != nil {
		return &record.ValidationError{Field: "store", Problem: fmt.Sprintf("%s is not empty and was not built by cgraph bench (no %s beside it)", dir, filepath.Base(mpath)),
			Fix: "give another --store or --out, or remove the directory"}
	}
	return nil
}

// clear removes a previous bench store, after checkStoreDir.
func (r *Retriever) clear() error {
	if err := checkStoreDir(r.cfg.Dir); err != nil {
		return err
	}
	if err := os.Remove(r.manifestPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove bench manifest: %w", err)
	}
	if err := os.RemoveAll(r.cfg.Dir); err != nil {
		return fmt.Errorf("remove old bench store %s: %w", r.cfg.Dir, err)
	}
	return nil
}

func readManifest(path string) (manifest, error) {
	var m manifest
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("bench manifest %s: %w", path, err)
	}
	return m, nil
}

func writeManifest(path string, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode bench manifest: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("bench manifest: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write bench manifest: %w", err)
	}
	return nil
}

// rrfProfile is bench.RRFProfileName: plain RRF of E1 and E6.
func rrfProfile() engine.Profile {
	p := engine.Profile{Name: bench.RRFProfileName, Description: "baseline: unweighted RRF of E1 and E6"}
	p.Weights.Set(engine.E1, 0.5)
	p.Weights.Set(engine.E6, 0.5)
	return p
}

// The typo correction scopes a bench.RunSpec may name (its Correct):
// engine.SearchRequest's default (the corrected query for every space),
// CorrectKeywordsOnly and NoCorrect.
const (
	CorrectEvery    = "every"
	CorrectKeywords = "keywords"
	CorrectOff      = "off"
)

// CorrectScopes lists the correction scopes, the default first.
var CorrectScopes = []string{CorrectEvery, CorrectKeywords, CorrectOff}

// request maps one bench run and query to a memory search.
func (r *Retriever) request(req bench.SearchRequest) (engine.SearchRequest, error) {
	spec := req.Run
	mode, err := engine.ParseMode(spec.Mode)
	if err != nil {
		return engine.SearchRequest{}, err
	}
	dir, err := engine.ParseDirection(spec.Direction)
	if err != nil {
		return engine.SearchRequest{}, err
	}
	out := engine.SearchRequest{Query: req.Query.Text, Mode: mode, Direction: dir, TopK: req.K,
		RecallK: r.cfg.RecallK, DenseRecallK: r.cfg.DenseRecallK, FilterK: r.cfg.FilterK, FusionK: r.cfg.FusionK, NoThresholds: r.cfg.NoThresholds,
		RerankWeight: r.cfg.RerankWeight, Now: createdAt}
	out.Feedback = spec.Feedback
	if out.Fusion, err = engine.ParseFusion(spec.Fusion); err != nil {
		return out, err
	}
	switch spec.Correct {
	case "", CorrectEvery:
	case CorrectOff:
		out.NoCorrect = true
	case CorrectKeywords:
		out.CorrectKeywordsOnly = true
	default:
		return out, fmt.Errorf("correction scope %q: use one of %s", spec.Correct, strings.Join(CorrectScopes, ", "))
	}
	switch spec.Profile {
	case "":
	case bench.RRFProfileName:
		out.Profile = rrfProfile()
	default:
		if p, ok := r.cfg.Profiles[spec.Profile]; ok {
			out.Profile = p
		} else if out.Profile, err = engine.BuiltinProfile(spec.Profile); err != nil {
			return out, err
		}
	}
	if spec.Embedder != "" {
		if out.Embedder, err = engine.ParseSlot(spec.Embedder); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Search runs one query; stage timings are the query encoding followed by
// the pipeline trace.
func (r *Retriever) Search(ctx context.Context, req bench.SearchRequest) ([]bench.Ranked, []bench.StageTiming, error) {
	if r.store == nil {
		return nil, nil, errors.New("bench retriever: Search before Index")
	}
	sreq, err := r.request(req)
	if err != nil {
		return nil, nil, err
	}
	res, err := r.store.Search(ctx, sreq)
	if err != nil {
		return nil, nil, err
	}
	if len(res.Memories) != len(res.Hits) {
		return nil, nil, fmt.Errorf("search returned %d hits but %d memories", len(res.Hits), len(res.Memories))
	}
	ranked := make([]bench.Ranked, len(res.Hits))
	for i, h := range res.Hits {
		id, ok := strings.CutPrefix(res.Memories[i].Source, sourcePrefix)
		if !ok {
			return nil, nil, fmt.Errorf("memory %s in the bench store has source %q, not a bench document id: rebuild the store (delete %s)",
				res.Memories[i].ID, res.Memories[i].Source, r.manifestPath())
		}
		ranked[i] = bench.Ranked{ID: bench.DocID(id), Score: h.Score}
	}
	timings := make([]bench.StageTiming, 0, len(res.Trace)+1)
	timings = append(timings, bench.StageTiming{Stage: "encode", Duration: res.Encode})
	for _, t := range res.Trace {
		timings = append(timings, bench.StageTiming{Stage: string(t.Stage), Duration: t.Duration})
	}
	r.note(req.Run.DisplayName(), res)
	return ranked, timings, nil
}

// note counts the run's non-ok spaces and fallbacks: one line per (stage,
// slot, status) with how often it happened over the run's queries and the
// first note seen as an example (notes often quote the query, and one line
// per query would bury the pattern).
func (r *Retriever) note(run string, res engine.SearchResult) {
	if r.notes[run] == nil {
		r.notes[run] = map[string]*runNote{}
	}
	add := func(key, example string) {
		n := r.notes[run][key]
		if n == nil {
			n = &runNote{example: example}
			r.notes[run][key] = n
		}
		n.queries++
	}
	for _, sp := range res.Spaces {
		if sp.Status != engine.SpaceOK {
			add(fmt.Sprintf("%s %s %s", sp.Stage, sp.Slot, sp.Status), sp.Note)
		}
	}
	for _, t := range res.Trace {
		if strings.Contains(strings.ToLower(t.Note), "fallback") {
			add(fmt.Sprintf("%s fallback", t.Stage), t.Note)
		}
	}
}

type runNote struct {
	queries int
	example string
}

// Notes lists, for one run, each non-ok space status or fallback ("S5
// validate E4 unavailable", the same words in every run) with the number of
// queries it happened in and the first note seen as an example.
func (r *Retriever) Notes(run string) []bench.Note {
	var out []bench.Note
	for k, n := range r.notes[run] {
		ex := []rune(n.example)
		if len(ex) > 200 {
			ex = append(ex[:200], '…')
		}
		out = append(out, bench.Note{Text: k, Count: n.queries, Example: string(ex)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	if len(r.reembedded) > 0 {
		out = append(out, bench.Note{Text: fmt.Sprintf("store reused after re-embedding %v (their producer changed)", r.reembedded), Count: 1})
	}
	return out
}

// Repro reports the slots of the store as built: producer, sha256, status.
func (r *Retriever) Repro(rp *bench.Repro) {
	rp.Models = rp.Models[:0]
	for _, s := range r.store.Slots() {
		p := s.Stored
		if p == (engine.Producer{}) {
			p = s.Status.Producer
		}
		mi := bench.ModelInfo{Slot: s.Slot.String(), ID: p.Model, Status: s.Status.State.String(), Note: s.Status.Reason, Device: s.Status.Device}
		if p != (engine.Producer{}) {
			mi.SHA256 = hex.EncodeToString(p.SHA256[:])
		}
		if s.Status.State == engine.SlotUnavailable {
			mi.ID, mi.SHA256 = "", ""
		}
		rp.Models = append(rp.Models, mi)
	}
	if rp.StageSizes == nil {
		rp.StageSizes = map[string]int{}
	}
	rp.StageSizes["recall_k"] = orDefault(r.cfg.RecallK, engine.DefaultRecallK)
	rp.StageSizes["dense_recall_k"] = orDefault(r.cfg.DenseRecallK, engine.DefaultDenseRecall)
	rp.StageSizes["filter_k"] = orDefault(r.cfg.FilterK, engine.DefaultFilterK)
	rp.StageSizes["fusion_k"] = orDefault(r.cfg.FusionK, engine.DefaultFusionK)
	rp.RerankWeight = r.cfg.RerankWeight
	if rp.RerankWeight == 0 {
		rp.RerankWeight = engine.DefaultRerankWeight
	}
	rp.StageSizes["ingest_batch"] = r.cfg.Batch
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// Close closes the store and the model sessions.
func (r *Retriever) Close() error {
	var err error
	if r.store != nil {
		if cerr := r.store.Close(); cerr != nil {
			err = fmt.Errorf("close bench store: %w", cerr)
		}
		r.store = nil
	}
	if r.closeReg != nil {
		if cerr := r.closeReg(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close models: %w", cerr))
		}
		r.closeReg = nil
	}
	return err
}
