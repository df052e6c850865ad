package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/record"
)

// viewKey names one encoded query view: a slot and, for pair slots, the
// stored side it is compared against (0 for symmetric slots).
type viewKey struct {
	slot    fingerprint.SlotID
	against fingerprint.Side
	// raw is a tuned slot's query as its documents' own model encodes it
	// (embedders.Query.Raw): never probed, read by the relevance evidence.
	raw bool
}

// queryViews are the encoded views of one query. A view that could not be
// made has an error wrapping pipeline.ErrUnavailable with the reason.
type queryViews struct {
	views   map[viewKey]fingerprint.Value
	missing map[viewKey]error
	session string // E4 anchor session
	// e6Extra are pseudo-relevance feedback's E6 expansion terms, searched
	// with the typed terms at their own weights (Expand); nil otherwise.
	e6Extra []pipeline.WeightedTerm
}

// spaces is the pipeline.Spaces of one query over a store's indexes.
// REQUIRES: the store's mu held shared for the life of the value.
type spaces struct {
	s  *Engine
	ix *indexSet
	q  *queryViews
	// exact makes every index scan exhaustively (dense brute force,
	// exhaustive inverted scoring): the baseline benchmarks compare with.
	exact bool
	// allow, when non-nil, is the search filter's docs: every probe
	// searches inside it, so filtering happens before fusion.
	allow *roaring.Bitmap
}

var _ pipeline.Spaces = (*spaces)(nil)

// Search runs one probe (see pipeline.Spaces): scores on the slot's own
// scale, at most k hits best first, only docs in within when it is non-nil,
// and every doc of within that has a representation when k ≥ |within|. For
// the inverted spaces (E6, E13) a document has a representation in the
// query's space when it shares a term with the query: the others score 0 and
// are not returned.
func (sp *spaces) Search(ctx context.Context, p pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	if !p.Slot.Valid() {
		return nil, fmt.Errorf("probe of invalid slot %d", uint8(p.Slot))
	}
	if k <= 0 {
		return nil, nil
	}
	if why := sp.s.stale[p.Slot.Index()]; why != "" {
		return nil, fmt.Errorf("%s: %s: %w", p.Slot, why, pipeline.ErrUnavailable)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if sp.allow != nil {
		if within == nil {
			within = sp.allow
		} else {
			within = roaring.And(within, sp.allow)
		}
	}
	h := probeHandlers[p.Slot.Index()]
	return h(ctx, sp, p, k, within)
}

type probeHandler func(ctx context.Context, sp *spaces, p pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error)

// probeHandlers maps each slot to its search, indexed by SlotID.Index().
var probeHandlers = [fingerprint.NumSlots]probeHandler{
	searchE1, searchTemporal, searchTemporal, searchTemporal, searchPair, searchE6,
	searchSymmetricDense, searchPair, searchE9, searchPair, searchE11, searchE12, searchE13,
}

// view returns the query's value for (slot, against) or why there is none.
func (sp *spaces) view(slot fingerprint.SlotID, against fingerprint.Side) (fingerprint.Value, error) {
	k := viewKey{slot: slot, against: against}
	if v, ok := sp.q.views[k]; ok {
		return v, nil
	}
	if err := sp.q.missing[k]; err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s: the query was not encoded for this view (broken invariant: the search plan missed it)", slot)
}

// toPipeline is the one conversion between the two hit types: an index's
// float32 score (the precision its vectors hold) becomes the pipeline's
// float64 (the precision fusion sums in).
func toPipeline(hs indexes.Hits) []pipeline.Hit {
	out := make([]pipeline.Hit, len(hs))
	for i, h := range hs {
		out[i] = pipeline.Hit{Doc: h.Doc, Score: float64(h.Score)}
	}
	return out
}

func (sp *spaces) denseSearch(key spaceKey, q []float32, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	if len(q) == 0 {
		return nil, fmt.Errorf("%s: query view has no vector: %w", key, pipeline.ErrUnavailable)
	}
	sp.ix.mu.RLock()
	d := sp.ix.dense[key]
	sp.ix.mu.RUnlock()
	if d == nil {
		return nil, nil // no memory has a vector here yet
	}
	search := d.Search
	if sp.exact {
		search = d.BruteForce
	}
	hs, err := search(q, k, within)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return toPipeline(hs), nil
}

func searchE1(_ context.Context, sp *spaces, p pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	v, err := sp.view(fingerprint.E1, 0)
	if err != nil {
		return nil, err
	}
	q := denseOf(v)
	switch p.View {
	case pipeline.ViewSymmetric:
		return sp.denseSearch(spaceKey{slot: fingerprint.E1}, q, k, within)
	case pipeline.ViewMatryoshka128:
		if len(q) < 128 {
			return nil, fmt.Errorf("E1 query has %d dims, the Matryoshka-128 view needs 128: %w", len(q), pipeline.ErrUnavailable)
		}
		hs, err := sp.ix.m128.Search(q, k, within)
		if err != nil {
			return nil, fmt.Errorf("E1-Matryoshka-128: %w", err)
		}
		return toPipeline(hs), nil
	}
	return nil, fmt.Errorf("E1 has no %s view", p.View)
}

func searchSymmetricDense(_ context.Context, sp *spaces, p pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	if p.View != pipeline.ViewSymmetric {
		return nil, fmt.Errorf("%s has no %s view", p.Slot, p.View)
	}
	v, err := sp.view(p.Slot, 0)
	if err != nil {
		return nil, err
	}
	return sp.denseSearch(spaceKey{slot: p.Slot}, denseOf(v), k, within)
}

// searchPair searches an asymmetric slot: the query's view of one side
// against the documents' vectors of the other (pipeline.View.Sides).
func searchPair(_ context.Context, sp *spaces, p pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	_, against, ok := p.View.Sides()
	if !ok {
		return nil, fmt.Errorf("%s is asymmetric: search it with the forward or backward view, not %s", p.Slot, p.View)
	}
	v, err := sp.view(p.Slot, against)
	if err != nil {
		return nil, err
	}
	q := denseOf(v)
	if pr, isPair := v.(fingerprint.Pair); isPair {
		q = pr.Get(against.Opposite())
	}
	return sp.denseSearch(spaceKey{p.Slot, against}, q, k, within)
}

func searchE6(_ context.Context, sp *spaces, _ pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	v, err := sp.view(fingerprint.E6, 0)
	if err != nil {
		return nil, err
	}
	tf, ok := v.(fingerprint.TermFreqs)
	if !ok {
		return nil, fmt.Errorf("E6 query view is %T, want term frequencies", v)
	}
	var terms []string
	for i, t := range tf.Terms {
		for range tf.Counts[i] {
			terms = append(terms, t) // the query's term frequency
		}
	}
	if len(sp.q.e6Extra) > 0 {
		weights := make([]float64, len(terms), len(terms)+len(sp.q.e6Extra))
		for i := range weights {
			weights[i] = 1
		}
		for _, t := range sp.q.e6Extra {
			terms, weights = append(terms, t.Term), append(weights, t.Weight)
		}
		hs, err := sp.ix.bm25.SearchWeighted(terms, weights, k, within, sp.exact)
		if err != nil {
			return nil, fmt.Errorf("E6 with feedback terms: %w", err)
		}
		return toPipeline(hs), nil
	}
	search := sp.ix.bm25.Search
	if sp.exact {
		search = sp.ix.bm25.SearchExhaustive
	}
	hs, err := search(terms, k, within)
	if err != nil {
		return nil, fmt.Errorf("E6: %w", err)
	}
	return toPipeline(hs), nil
}

func searchE13(_ context.Context, sp *spaces, _ pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	v, err := sp.view(fingerprint.E13, 0)
	if err != nil {
		return nil, err
	}
	q, ok := v.(fingerprint.Sparse)
	if !ok {
		return nil, fmt.Errorf("E13 query view is %T, want a sparse vector", v)
	}
	search := sp.ix.splade.Search
	if sp.exact {
		search = sp.ix.splade.SearchExhaustive
	}
	hs, err := search(q, k, within)
	if err != nil {
		return nil, fmt.Errorf("E13: %w", err)
	}
	return toPipeline(hs), nil
}

// e9Depth is how many projection-ANN candidates per wanted hit E9 rescores
// by Hamming similarity (at least e9MinDepth).
const (
	e9Depth    = 4
	e9MinDepth = 100
)

// searchE9 takes candidates from the projection ANN (or all of within when it
// is small enough) and scores them by Hamming similarity of the 10,000-bit
// hypervectors (kept in RAM: hyperStore).
func searchE9(_ context.Context, sp *spaces, p pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	if p.View != pipeline.ViewSymmetric {
		return nil, fmt.Errorf("E9 has no %s view", p.View)
	}
	v, err := sp.view(fingerprint.E9, 0)
	if err != nil {
		return nil, err
	}
	q, ok := v.(fingerprint.Hyper)
	if !ok {
		return nil, fmt.Errorf("E9 query view is %T, want a hypervector", v)
	}
	depth := max(e9Depth*k, e9MinDepth)
	var cands []record.DocNum
	if within != nil && within.GetCardinality() <= uint64(depth) {
		sp.ix.mu.RLock()
		for _, d := range roaring.And(within, sp.ix.has[fingerprint.E9.Index()]).ToArray() {
			cands = append(cands, record.DocNum(d))
		}
		sp.ix.mu.RUnlock()
	} else {
		hs, err := sp.denseSearch(spaceKey{slot: fingerprint.E9}, q.Projection, depth, within)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			cands = append(cands, h.Doc)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	out := make([]pipeline.Hit, 0, len(cands))
	sp.ix.mu.RLock()
	for _, d := range cands {
		if sim, ok := sp.ix.hyper.Similarity(d, q.Bits); ok {
			out = append(out, pipeline.Hit{Doc: d, Score: sim})
		}
	}
	sp.ix.mu.RUnlock()
	return topHits(out, k), nil
}

// topHits sorts best first (score descending, ties by doc) and cuts to k.
func topHits(hs []pipeline.Hit, k int) []pipeline.Hit {
	slices.SortFunc(hs, func(a, b pipeline.Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return int(a.Doc) - int(b.Doc)
	})
	if len(hs) > k {
		hs = hs[:k]
	}
	return hs
}

// searchE11: symmetric is the entity-vector cosine (ANN), entity_set the
// Jaccard overlap of the exact names.
func searchE11(_ context.Context, sp *spaces, p pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	v, err := sp.view(fingerprint.E11, 0)
	if err != nil {
		return nil, err
	}
	q, ok := v.(fingerprint.Entities)
	if !ok {
		return nil, fmt.Errorf("E11 query view is %T, want entities", v)
	}
	switch p.View {
	case pipeline.ViewSymmetric:
		if len(q.Vector) == 0 {
			return nil, fmt.Errorf("E11 entity vectors: %s: %w", sp.s.reg.Get(fingerprint.E11).Status().Reason, pipeline.ErrUnavailable)
		}
		return sp.denseSearch(spaceKey{slot: fingerprint.E11}, q.Vector, k, within)
	case pipeline.ViewEntitySet:
		return sp.jaccard(q.Names, k, within), nil
	}
	return nil, fmt.Errorf("E11 has no %s view", p.View)
}

// jaccard scores every doc with an entity set (in within when non-nil) by
// the Jaccard overlap with names; the top k, zeros included when fewer
// overlap.
func (sp *spaces) jaccard(names []string, k int, within *roaring.Bitmap) []pipeline.Hit {
	sp.ix.mu.RLock()
	hs := sp.ix.names.Jaccard(names, within)
	sp.ix.mu.RUnlock()
	return topHits(toPipeline(hs), k)
}

// searchE12 is MaxSim of the query token matrix over the candidates in
// within, matrices loaded from e12_late_interaction; the score is the mean
// over query tokens of the best cosine (pipeline scale). E12 reranks only:
// it needs within.
func searchE12(ctx context.Context, sp *spaces, _ pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	v, err := sp.view(fingerprint.E12, 0)
	if err != nil {
		return nil, err
	}
	q, ok := v.(fingerprint.Tokens)
	if !ok {
		return nil, fmt.Errorf("E12 query view is %T, want a token matrix", v)
	}
	if within == nil {
		return nil, fmt.Errorf("E12 reranks candidates only (AP-73): give it a candidate set")
	}
	sp.ix.mu.RLock()
	cands := roaring.And(within, sp.ix.has[fingerprint.E12.Index()]).ToArray()
	sp.ix.mu.RUnlock()
	if len(cands) == 0 || q.Rows() == 0 {
		return nil, nil
	}
	docs := make([]record.DocNum, len(cands))
	byDoc := make(map[record.DocNum]indexes.TokenMatrix, len(cands))
	var keys [][]byte // the matrices the cache lacks
	var missed []record.DocNum
	for i, d := range cands {
		docs[i] = record.DocNum(d)
		if m, ok := sp.s.tokens.get(docs[i]); ok {
			byDoc[docs[i]] = m
			continue
		}
		keys, missed = append(keys, docKey(docs[i])), append(missed, docs[i])
	}
	if len(keys) > 0 {
		vals, err := sp.s.cellar.Values(ctx, cellar.FamE12LateInteraction, keys)
		if err != nil {
			return nil, fmt.Errorf("E12: load token matrices: %w", err)
		}
		for i, b := range vals {
			if b == nil {
				continue
			}
			m, err := indexes.DecodeTokenMatrix(b)
			if err != nil {
				return nil, fmt.Errorf("E12: e12_late_interaction/%d: %w", missed[i], err)
			}
			byDoc[missed[i]] = m
			sp.s.tokens.put(missed[i], m)
		}
	}
	load := func(d record.DocNum) (indexes.TokenMatrix, bool, error) {
		m, ok := byDoc[d]
		return m, ok, nil
	}
	hs, _, err := indexes.MaxSim(q.Data, int(q.Dim), docs, load)
	if err != nil {
		return nil, fmt.Errorf("E12: %w", err)
	}
	out := toPipeline(hs)
	for i := range out {
		out[i].Score /= float64(q.Rows())
	}
	return topHits(out, k), nil
}

// scorer is the Score method the temporal embedders have, per value type.
type scorer[V fingerprint.Value] interface {
	Score(doc, query V) float64
}

func scoreAs[V fingerprint.Value](e embedders.Embedder) func(doc, query fingerprint.Value) (float64, bool) {
	sc, ok := e.(scorer[V])
	if !ok {
		return nil
	}
	return func(doc, query fingerprint.Value) (float64, bool) {
		d, ok1 := doc.(V)
		q, ok2 := query.(V)
		if !ok1 || !ok2 {
			return 0, false
		}
		return sc.Score(d, q), true
	}
}

// temporalScorers picks the typed scorer of each temporal slot's embedder.
var temporalScorers = map[fingerprint.SlotID]func(embedders.Embedder) func(doc, query fingerprint.Value) (float64, bool){
	fingerprint.E2: scoreAs[fingerprint.Timestamp],
	fingerprint.E3: scoreAs[fingerprint.Periodic],
	fingerprint.E4: scoreAs[fingerprint.Sequence],
}

// searchTemporal scores the candidates in within on E2 recency, E3
// periodicity or E4 session proximity, in [0, 1]. The docs' values are
// computed by the slot's own (model-free, deterministic) embedder from the
// creation time, session and position kept in RAM — the same inputs the
// stored fingerprint was computed from. E4 scores only memories of the
// query's session. Temporal slots act after retrieval only: within is
// required.
func searchTemporal(ctx context.Context, sp *spaces, p pipeline.Probe, k int, within *roaring.Bitmap) ([]pipeline.Hit, error) {
	if within == nil {
		return nil, fmt.Errorf("%s scores retrieved candidates only (ARCH-25): give it a candidate set", p.Slot)
	}
	qv, err := sp.view(p.Slot, 0)
	if err != nil {
		return nil, err
	}
	e := sp.s.reg.Get(p.Slot)
	score := temporalScorers[p.Slot](e)
	if score == nil {
		return nil, fmt.Errorf("%s: embedder %T has no Score method: %w", p.Slot, e, pipeline.ErrUnavailable)
	}
	x := sp.ix
	x.mu.RLock()
	var docs []record.DocNum
	var inputs []embedders.Input
	it := roaring.And(within, x.has[p.Slot.Index()]).Iterator()
	for it.HasNext() {
		d := record.DocNum(it.Next())
		created, seq, inSession, ok := x.times.Get(d, sp.q.session)
		if !ok || (p.Slot == fingerprint.E4 && !inSession) {
			continue
		}
		docs = append(docs, d)
		inputs = append(inputs, embedders.Input{Created: created, Session: sp.q.session, Seq: seq})
	}
	x.mu.RUnlock()
	if len(docs) == 0 {
		return nil, nil
	}
	entries, err := e.EmbedDocuments(ctx, inputs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Slot, err)
	}
	out := make([]pipeline.Hit, 0, len(docs))
	for i, en := range entries {
		if en.Value == nil {
			continue
		}
		sc, ok := score(en.Value, qv)
		if !ok {
			return nil, fmt.Errorf("%s: value %T does not match the query view %T", p.Slot, en.Value, qv)
		}
		out = append(out, pipeline.Hit{Doc: docs[i], Score: sc})
	}
	return topHits(out, k), nil
}
