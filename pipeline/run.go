package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// Defaults for Request fields left at zero.
const (
	DefaultTopK    = 10
	DefaultRecallK = 10_000 // S1 sparse recall (E13, E6)
	// DefaultDenseRecallK is S1's dense recall (E1 ANN): the documents that
	// share no keyword with the query come back through it.
	DefaultDenseRecallK = 1_000
	DefaultFilterK      = 1_000 // S2
	DefaultFusionK      = 100   // S3 output, and per-slot k in multi_space
	// DefaultRerankWeight is E12's WRRF weight in S4 when the profile gives
	// E12 no weight of its own (most profiles: E12 reranks only).
	DefaultRerankWeight = 0.15
)

// Request is one search. The zero values of the size and weight fields mean
// the defaults above.
type Request struct {
	Query     string           // carried into the Result for display only
	Profile   profiles.Profile // validated by Run
	Mode      Mode
	Primary   fingerprint.SlotID // embedder_first: the slot to search
	Direction Direction          // E5/E8 views
	TopK      int
	RecallK   int // S1 sparse candidates per source (E13, E6)
	// DenseRecallK is S1's dense recall depth (E1 ANN); 0 means
	// DefaultDenseRecallK.
	DenseRecallK int
	FilterK      int // S2 candidates
	FusionK      int // S3 output; per-slot k in multi_space
	// RerankWeight is E12's weight in S4 when the profile weighs E12 0.
	RerankWeight float64
	// RerankSkip, when set, skips S4 for a profile that weighs E12 0, and is
	// the reason the trace gives (the engine sets it while E12 is a
	// fallback that adds no ranking signal, unless its caller gave a
	// RerankWeight). A profile's own E12 weight still reranks; RerankWeight
	// is ignored while RerankSkip is set.
	RerankSkip string
	// ExactNameBoost is beta in the E11 factor 1 + beta·Jaccard.
	ExactNameBoost float64
	// NoThresholds keeps results below every slot's Low threshold.
	NoThresholds bool
	// Partial records a failing index as status "failed" and goes on with the
	// other spaces; by default the first index error fails the search.
	Partial bool
	// Feedback, when positive, is pseudo-relevance feedback in the fusion
	// modes: the top Feedback fused documents move the E1 and E5 queries
	// (Rocchio) and expand the E6 query (RM3), those slots are searched
	// again and S3 fuses again (StageFeedback). 0 is off; at most
	// MaxFeedback. It costs one more search per re-searched probe and a
	// second fusion; the single-slot modes ignore it.
	Feedback int
	// Fusion is how S3, the S4 rerank and weighted temporal badges turn
	// each list into contributions; FusionDefault is DefaultFusion.
	Fusion Fusion
	// IsCode reports whether a memory reads as code (codeview.IsCode). The
	// auto profile routes its weights on the share of such memories among
	// the lists' top hits (CodeShare); nil counts none. It must be safe to
	// call while the search runs.
	IsCode func(record.DocNum) bool
}

func (r Request) withDefaults() (Request, error) {
	if err := r.Profile.Validate(); err != nil {
		return r, fmt.Errorf("search request: %w", err)
	}
	if int(r.Mode) >= len(modeNames) {
		return r, fmt.Errorf("search request: invalid mode %d", r.Mode)
	}
	if err := checkFeedback(r.Feedback); err != nil {
		return r, err
	}
	if !r.Fusion.Valid() {
		return r, fmt.Errorf("search request: invalid fusion %d", r.Fusion)
	}
	r.Fusion = r.Fusion.Resolve()
	if int(r.Direction) >= len(directionNames) {
		return r, fmt.Errorf("search request: invalid direction %d", r.Direction)
	}
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{{"top-k", &r.TopK, DefaultTopK}, {"recall k", &r.RecallK, DefaultRecallK}, {"dense recall k", &r.DenseRecallK, DefaultDenseRecallK},
		{"filter k", &r.FilterK, DefaultFilterK}, {"fusion k", &r.FusionK, DefaultFusionK}} {
		if *f.v < 0 {
			return r, fmt.Errorf("search request: %s is %d: give a positive number or 0 for the default %d", f.name, *f.v, f.def)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if r.FusionK < r.TopK {
		r.FusionK = r.TopK // never cut below what the caller asked for
	}
	if r.RerankWeight == 0 {
		r.RerankWeight = DefaultRerankWeight
	}
	if r.ExactNameBoost == 0 {
		r.ExactNameBoost = DefaultExactNameBoost
	}
	if math.IsNaN(r.RerankWeight) || r.RerankWeight < 0 || r.RerankWeight > 1 ||
		math.IsNaN(r.ExactNameBoost) || r.ExactNameBoost < 0 || r.ExactNameBoost > 1 {
		return r, fmt.Errorf("search request: rerank weight %v and exact-name boost %v must be in [0, 1]", r.RerankWeight, r.ExactNameBoost)
	}
	switch r.Mode {
	case ModeE1Only:
		r.Primary = fingerprint.E1
	case ModeEmbedderFirst:
		if !r.Primary.Valid() {
			return r, errors.New("search request: embedder_first needs a primary slot (--embedder E1 … E13)")
		}
		if !r.Primary.CanLead() {
			return r, fmt.Errorf("search request: %s cannot be the primary slot: temporal slots only badge and E12 only reranks; choose one of E1, E5–E11, E13", r.Primary)
		}
	}
	return r, nil
}

// Run executes req against sp and returns ranked, explained results. It is
// safe to call concurrently if sp is. Cost: one search per probe of the mode's
// stages (in parallel within a stage) plus O(n log n) fusion over the
// candidates.
func Run(ctx context.Context, sp Spaces, req Request) (Result, error) {
	req, err := req.withDefaults()
	if err != nil {
		return Result{}, err
	}
	r := &run{ctx: ctx, sp: sp, req: req,
		res: Result{Query: req.Query, Profile: req.Profile.Name, Mode: req.Mode, Hits: []ResultHit{}}}
	if req.Mode == ModeMultiSpace || req.Mode == ModePipeline {
		r.res.Fusion = req.Fusion
	}
	var cands []*cand
	switch req.Mode {
	case ModePipeline:
		cands, err = r.pipeline()
	case ModeMultiSpace:
		cands, err = r.multiSpace()
	default:
		cands, err = r.primary()
	}
	if err != nil {
		return Result{}, err
	}
	if err := r.validate(cands); err != nil {
		return Result{}, err
	}
	return r.res, nil
}

// run is the state of one Run. Not safe for concurrent use.
type run struct {
	ctx context.Context
	sp  Spaces
	req Request
	res Result
	// boosts per document from S3 (E10 on E1, E11 exact names)
	boosts map[record.DocNum][]Boost
}

// cand is a document on its way through the stages.
type cand struct {
	doc    record.DocNum
	score  float64
	slots  SlotScores
	boosts []Boost
	badges []string
	tie    float64 // badge tie-break: number of badges
}

func (r *run) weight(s fingerprint.SlotID) float64 { return r.req.Profile.Weights.Get(s) }

func (r *run) trace(st Stage, start time.Time, n int, note string) {
	r.res.Trace = append(r.res.Trace, StageTrace{Stage: st, Candidates: n, Duration: time.Since(start), Note: note})
}

func (r *run) skip(st Stage, s fingerprint.SlotID, note string) {
	r.res.Spaces = append(r.res.Spaces, SpaceReport{Stage: st, Slot: s, Name: s.String(), Weight: r.weight(s), Status: StatusSkipped, Note: note})
}

type job struct {
	probe  Probe
	k      int
	within *roaring.Bitmap
	weight float64
}

type outcome struct {
	hits   []Hit
	status string
	note   string
}

// searchAll runs the jobs in parallel, records one SpaceReport per job in job
// order, and returns their outcomes. An index error aborts unless Partial.
func (r *run) searchAll(st Stage, jobs []job) ([]outcome, error) {
	outs := make([]outcome, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = r.do(j)
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			if !r.req.Partial || r.ctx.Err() != nil {
				return nil, fmt.Errorf("%s: search %s: %w", st, j.probe, errs[i])
			}
			outs[i] = outcome{status: StatusFailed, note: errs[i].Error()}
		}
		note := outs[i].note
		if f := DirectionFactor(j.probe); f != 1 && outs[i].status == StatusOK {
			note = fmt.Sprintf("direction factor ×%g", f)
		}
		r.res.Spaces = append(r.res.Spaces, SpaceReport{Stage: st, Slot: j.probe.Slot, Name: j.probe.Slot.String(),
			View: j.probe.View, Weight: j.weight, Status: outs[i].status, Hits: len(outs[i].hits), Note: note})
	}
	return outs, nil
}

// do runs one search and checks what the index returned.
func (r *run) do(j job) (outcome, error) {
	if err := r.ctx.Err(); err != nil {
		return outcome{}, err
	}
	hits, err := r.sp.Search(r.ctx, j.probe, j.k, j.within)
	if errors.Is(err, ErrUnavailable) {
		return outcome{status: StatusUnavailable, note: err.Error()}, nil
	}
	if errors.Is(err, ErrNothingToSearch) {
		return outcome{status: StatusEmpty, note: err.Error()}, nil
	}
	if err != nil {
		return outcome{}, err
	}
	for _, h := range hits {
		if math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
			return outcome{}, fmt.Errorf("index returned score %v for doc %d (broken invariant)", h.Score, h.Doc)
		}
		if j.within != nil && !j.within.Contains(uint32(h.Doc)) {
			return outcome{}, fmt.Errorf("index returned doc %d outside the candidate set (broken invariant)", h.Doc)
		}
	}
	if d, dup := duplicate(hits); dup {
		return outcome{}, fmt.Errorf("index returned doc %d twice (broken invariant)", d)
	}
	if !slices.IsSortedFunc(hits, func(a, b Hit) int { return byScoreThenDoc(a.Score, b.Score, a.Doc, b.Doc) }) {
		hits = slices.Clone(hits) // the index owns its slice
		sortHits(hits)
	}
	if len(hits) > j.k {
		hits = hits[:j.k]
	}
	if len(hits) == 0 {
		return outcome{status: StatusEmpty, note: "returned no candidates"}, nil
	}
	return outcome{hits: hits, status: StatusOK}, nil
}

// probesFor returns the probes a slot is searched with in fusion.
func (r *run) probesFor(s fingerprint.SlotID) []Probe {
	switch s {
	case fingerprint.E5, fingerprint.E8:
		var ps []Probe
		for _, v := range r.req.Direction.views() {
			ps = append(ps, Probe{Slot: s, View: v})
		}
		return ps
	case fingerprint.E10:
		return []Probe{{Slot: s, View: ViewForward}}
	}
	return []Probe{{Slot: s, View: ViewSymmetric}}
}

// slotLists searches slots (each with its views) in parallel and returns one
// ranked list per slot that returned hits, direction boosts applied.
func (r *run) slotLists(st Stage, slots []fingerprint.SlotID, k int, within *roaring.Bitmap, weightOf func(fingerprint.SlotID) float64) ([]RankedList, error) {
	var jobs []job
	for _, s := range slots {
		for _, p := range r.probesFor(s) {
			jobs = append(jobs, job{probe: p, k: k, within: within, weight: weightOf(s)})
		}
	}
	outs, err := r.searchAll(st, jobs)
	if err != nil {
		return nil, err
	}
	var lists []RankedList
	for _, s := range slots {
		byView := map[View][]Hit{}
		for i, j := range jobs {
			if j.probe.Slot == s && len(outs[i].hits) > 0 {
				byView[j.probe.View] = outs[i].hits
			}
		}
		if len(byView) == 0 {
			continue
		}
		lists = append(lists, RankedList{Slot: s, Weight: weightOf(s), Hits: MergeDirections(k, byView, s)})
	}
	return lists, nil
}

// fusionSlots are the profile's weighted slots that retrieve and fuse: not
// the temporal slots (S5 only), not E12 (S4 only), not E13 (S1 only).
func (r *run) fusionSlots() []fingerprint.SlotID {
	var out []fingerprint.SlotID
	for _, s := range r.req.Profile.Weights.Active() {
		if s.Fused() {
			out = append(out, s)
		}
	}
	return out
}

// applyE10 re-ranks the E1 list by E10Multiplier when the profile has an E10
// boost. It returns a note for the trace.
func (r *run) applyE10(st Stage, lists []RankedList) (string, error) {
	strength := r.req.Profile.E10Boost
	if strength <= 0 {
		return "", nil
	}
	i := slices.IndexFunc(lists, func(l RankedList) bool { return l.Slot == fingerprint.E1 })
	if i < 0 {
		return "E10 boost skipped: no E1 list", nil
	}
	e1 := lists[i].Hits
	docs := roaring.New()
	for _, h := range e1 {
		docs.Add(uint32(h.Doc))
	}
	outs, err := r.searchAll(st, []job{{probe: e10BoostProbe, k: len(e1), within: docs}})
	if err != nil {
		return "", err
	}
	if outs[0].status != StatusOK {
		return "E10 boost skipped: E10 " + outs[0].status, nil
	}
	e10 := make(map[record.DocNum]float64, len(outs[0].hits))
	for _, h := range outs[0].hits {
		e10[h.Doc] = h.Score
	}
	boosted := make([]Hit, len(e1))
	for j, h := range e1 {
		boosted[j] = h
		sig, ok := e10[h.Doc]
		if !ok {
			continue
		}
		f := E10Multiplier(h.Score, sig, strength)
		boosted[j].Score = h.Score * f
		r.boosts[h.Doc] = append(r.boosts[h.Doc], Boost{Name: "E10 on E1", Signal: sig, Factor: f})
	}
	sortHits(boosted)
	lists[i].Hits = boosted
	return fmt.Sprintf("E10 boost ×strength %g on E1", strength), nil
}

// applyExactNames multiplies fused scores by the E11 exact-name factor when
// the profile weighs E11.
func (r *run) applyExactNames(st Stage, fused []Fused) (string, error) {
	if r.weight(fingerprint.E11) <= 0 || len(fused) == 0 {
		return "", nil
	}
	if r.res.Auto != nil && r.res.Auto.Gated != "" {
		return "E11 exact names skipped: " + r.res.Auto.Gated + "'s ranking returned alone", nil
	}
	docs := roaring.New()
	for _, f := range fused {
		docs.Add(uint32(f.Doc))
	}
	outs, err := r.searchAll(st, []job{{probe: exactNamesProbe, k: len(fused), within: docs}})
	if err != nil {
		return "", err
	}
	if outs[0].status != StatusOK {
		return "E11 exact names skipped: " + outs[0].status, nil
	}
	jac := make(map[record.DocNum]float64, len(outs[0].hits))
	for _, h := range outs[0].hits {
		jac[h.Doc] = h.Score
	}
	n := 0
	for i := range fused {
		j, ok := jac[fused[i].Doc]
		if !ok || j <= 0 {
			continue
		}
		f := ExactNameMultiplier(j, r.req.ExactNameBoost)
		fused[i].Score *= f
		r.boosts[fused[i].Doc] = append(r.boosts[fused[i].Doc], Boost{Name: "E11 exact names", Signal: j, Factor: f})
		n++
	}
	sortFused(fused)
	return fmt.Sprintf("E11 exact-name boost on %d", n), nil
}

// fuse runs S3 over lists: E10 boost, WRRF, E11 boost, keep the best keep.
func (r *run) fuse(st Stage, lists []RankedList, keep int) ([]*cand, []string, error) {
	r.boosts = map[record.DocNum][]Boost{}
	var notes []string
	if r.req.Profile.Adaptive {
		dec := DefaultAutoModel.Weigh(r.req.Query, lists, r.req.IsCode)
		r.res.Auto = &dec
		notes = append(notes, dec.String())
	}
	note, err := r.applyE10(st, lists)
	if err != nil {
		return nil, nil, err
	}
	notes = appendNote(notes, note)
	fused := Fuse(lists, r.req.Fusion)
	note, err = r.applyExactNames(st, fused)
	if err != nil {
		return nil, nil, err
	}
	notes = appendNote(notes, note)
	if len(fused) > keep {
		fused = fused[:keep]
	}
	out := make([]*cand, len(fused))
	for i, f := range fused {
		c := &cand{doc: f.Doc, score: f.Score, slots: make(SlotScores, len(f.Parts)+4), boosts: r.boosts[f.Doc]}
		for _, p := range f.Parts {
			c.slots[p.Slot] = SlotScore{Rank: p.Rank, Score: p.Score, Contribution: p.Contribution}
		}
		out[i] = c
	}
	return out, notes, nil
}

func appendNote(notes []string, n string) []string {
	if n == "" {
		return notes
	}
	return append(notes, n)
}

func joinNotes(notes []string) string { return strings.Join(notes, "; ") }

// primary runs e1_only and embedder_first: one slot, its raw scores.
func (r *run) primary() ([]*cand, error) {
	start := time.Now()
	s := r.req.Primary
	lists, err := r.slotLists(StagePrimary, []fingerprint.SlotID{s}, r.req.TopK, nil, func(fingerprint.SlotID) float64 { return 1 })
	if err != nil {
		return nil, err
	}
	var cands []*cand
	note := "raw " + s.String() + " scores, no fusion"
	if len(lists) == 0 {
		note = s.String() + " returned nothing (see spaces)"
	} else {
		for rank, h := range lists[0].Hits {
			cands = append(cands, &cand{doc: h.Doc, score: h.Score,
				slots: SlotScores{s: {Rank: rank, Score: h.Score, Contribution: h.Score}}})
		}
	}
	r.trace(StagePrimary, start, len(cands), note)
	return cands, nil
}

// multiSpace searches every fused slot in parallel over all documents.
func (r *run) multiSpace() ([]*cand, error) {
	start := time.Now()
	for _, s := range []fingerprint.SlotID{fingerprint.E12, fingerprint.E13} {
		if r.weight(s) > 0 {
			r.skip(StageFusion, s, "E12 reranks and E13 recalls only in pipeline mode")
		}
	}
	lists, err := r.slotLists(StageFusion, r.fusionSlots(), r.req.FusionK, nil, r.weight)
	if err != nil {
		return nil, err
	}
	raw := slices.Clone(lists) // fuse re-weighs and boosts lists in place
	cands, notes, err := r.fuse(StageFusion, lists, r.req.FusionK)
	if err != nil {
		return nil, err
	}
	notes = append([]string{r.req.Fusion.note(len(lists))}, notes...)
	r.trace(StageFusion, start, len(cands), joinNotes(notes))
	return r.feedback(raw, r.req.FusionK, nil, cands)
}

// duplicate reports a document listed twice. It uses a bitset when document
// numbers are dense (the usual case) and a map otherwise.
func duplicate(hs []Hit) (record.DocNum, bool) {
	var hi record.DocNum
	for _, h := range hs {
		hi = max(hi, h.Doc)
	}
	if int(hi) > 64*len(hs)+1<<16 {
		seen := make(map[record.DocNum]struct{}, len(hs))
		for _, h := range hs {
			if _, ok := seen[h.Doc]; ok {
				return h.Doc, true
			}
			seen[h.Doc] = struct{}{}
		}
		return 0, false
	}
	bits := make([]uint64, int(hi)/64+1)
	for _, h := range hs {
		w, b := h.Doc/64, uint64(1)<<(h.Doc%64)
		if bits[w]&b != 0 {
			return h.Doc, true
		}
		bits[w] |= b
	}
	return 0, false
}
