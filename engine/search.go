package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/keywords"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// DefaultProfile is the profile a SearchRequest with a zero Profile uses.
const DefaultProfile = "semantic_search"

// MaxQueryBytes bounds a search query. The models read only the first 512
// tokens of it anyway; a longer query costs keyword work without helping.
const MaxQueryBytes = 64 << 10

// MaxFeedback bounds SearchRequest.Feedback (pipeline.MaxFeedback).
const MaxFeedback = pipeline.MaxFeedback

// Search encodes the query views the request needs (in parallel, only the
// slots the mode and profile use), runs pipeline.Run over the store's indexes
// and resolves the hits to memories without recording accesses. A read-only
// store first catches up with the writer. A hit whose memory was deleted
// between the index search and the resolution is dropped (the trace says so).
func (s *Engine) Search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	if err := s.checkSearch(req); err != nil {
		return SearchResult{}, err
	}
	start := time.Now()
	req, err := s.searchDefaults(ctx, req)
	if err != nil {
		return SearchResult{}, err
	}
	preq := s.rerankPolicy(req.pipelineRequest())
	keys, err := planViews(preq)
	if err != nil {
		return SearchResult{}, fmt.Errorf("search: %w", err)
	}
	keys = s.withRawE1(keys)
	var fixes []Correction
	corrected := req.Query
	if !req.NoCorrect {
		corrected, fixes = s.correct(req.Query)
	}
	encStart := time.Now()
	q, err := s.encodeViews(ctx, req, keys, req.viewText(corrected))
	if err != nil {
		return SearchResult{}, err
	}
	encode := time.Since(encStart)

	s.mu.RLock()
	defer s.mu.RUnlock()
	out, err := s.searchLocked(ctx, req, preq, q)
	if err != nil {
		return SearchResult{}, err
	}
	out.Encode, out.Total = encode, time.Since(start)
	out.Corrections, out.Corrected = fixes, corrected
	out.Query = req.Query
	return out, nil
}

// checkSearch refuses a request Search cannot serve: no embedders, a query
// over MaxQueryBytes, a bad filter, relevance bound or expand type.
func (s *Engine) checkSearch(req SearchRequest) error {
	if err := s.needEmbedders("search"); err != nil {
		return err
	}
	if n := len(req.Query); n > MaxQueryBytes {
		return &record.ValidationError{Field: "query", Problem: fmt.Sprintf("is %d bytes, over the limit of %d", n, MaxQueryBytes),
			Fix: "search with the few sentences that matter; to find what resembles a long text, store it as a memory and search with its opening"}
	}
	if err := req.Filter.Validate(); err != nil {
		return err
	}
	if err := checkMinRelevance(req.MinRelevance); err != nil {
		return err
	}
	for _, t := range req.Expand {
		if err := record.CheckRelationType("expand", t); err != nil {
			return err
		}
	}
	return nil
}

// searchDefaults fills a zero Profile (DefaultProfile), Now and Fusion (the
// store's Options.Fusion), and has a read-only store catch up with the
// writer first.
func (s *Engine) searchDefaults(ctx context.Context, req SearchRequest) (SearchRequest, error) {
	if req.Profile.Name == "" && req.Profile.Weights == (profiles.Weights{}) {
		p, err := profiles.Lookup(DefaultProfile)
		if err != nil {
			return req, err
		}
		req.Profile = p
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if req.Fusion == FusionDefault {
		req.Fusion = s.fusion
	}
	if s.ro {
		if err := s.catchUp(ctx); err != nil {
			return req, fmt.Errorf("search: catch up with the writer: %w", err)
		}
	}
	return req, nil
}

// fallbackRerankSkip is why pipeline mode skips S4 while E12 is the
// e5-small-v2 token-state fallback: its MaxSim re-reads E1's own run, and
// over four sets and three profiles reranking with it at 0.15 moved
// nDCG@10 by −0.0004 on average (−0.005 to +0.008), cost auto 0.002–0.003
// on three sets of four, and was what put pipeline below multi_space on
// the one set and profile where it was (docs/BENCHMARKS.md, "Pipeline
// stages"). A real ColBERT model reranks at DefaultRerankWeight;
// SearchRequest.RerankWeight reranks with the fallback anyway.
const fallbackRerankSkip = "E12 is the e5 token-state fallback, which re-reads E1's run and measured no gain as a rerank (docs/BENCHMARKS.md \"Pipeline stages\"); a rerank weight reranks with it anyway"

// rerankPolicy skips S4 while E12 is the fallback (fallbackRerankSkip),
// unless preq gives a rerank weight.
func (s *Engine) rerankPolicy(preq pipeline.Request) pipeline.Request {
	if preq.RerankWeight == 0 && s.reg.Get(fingerprint.E12).Status().State == fingerprint.StatusFallback {
		preq.RerankSkip = fallbackRerankSkip
	}
	return preq
}

// pipelineRequest is the part of req the pipeline plans and runs.
func (req SearchRequest) pipelineRequest() pipeline.Request {
	return pipeline.Request{Query: req.Query, Profile: req.Profile, Mode: req.Mode, Primary: req.Embedder,
		Direction: req.Direction, TopK: req.TopK, RecallK: req.RecallK, DenseRecallK: req.DenseRecallK, FilterK: req.FilterK, FusionK: req.FusionK,
		RerankWeight: req.RerankWeight, NoThresholds: req.NoThresholds, Partial: req.Partial, Feedback: req.Feedback, Fusion: req.Fusion}
}

// viewText says which text each query view encodes: the corrected query,
// or with CorrectKeywordsOnly the typed one for every view outside
// keywordSlots.
func (req SearchRequest) viewText(corrected string) func(viewKey) string {
	return func(k viewKey) string {
		if !req.CorrectKeywordsOnly || keywordSlots[k.slot] {
			return corrected
		}
		return req.Query
	}
}

// searchLocked runs the pipeline over the indexes with the encoded views
// q, resolves the hits to memories (as they read at Filter.AsOf when set),
// drops those under MinRelevance, notes the uses, adds decay badges and
// follows Expand.
// REQUIRES: s.mu held for reading.
func (s *Engine) searchLocked(ctx context.Context, req SearchRequest, preq pipeline.Request, q *queryViews) (SearchResult, error) {
	allow := s.ix.allow(req.Filter)
	if preq.Profile.Adaptive {
		code := s.ix.codeDocs()
		preq.IsCode = func(d record.DocNum) bool { return code.Contains(uint32(d)) }
	}
	res, err := pipeline.Run(ctx, &spaces{s: s, ix: s.ix, q: q, allow: allow}, preq)
	if err != nil {
		return SearchResult{}, err
	}
	out, err := s.resolve(ctx, res)
	if err != nil {
		return SearchResult{}, err
	}
	if !req.Filter.AsOf.IsZero() { // each memory as it read then
		if err := s.RevisionsAt(ctx, out.Memories, req.Filter.AsOf); err != nil {
			return SearchResult{}, fmt.Errorf("search: %w", err)
		}
	}
	out.Relevance = relevanceOf(out.Result, s.rawE1(q, out.Hits))
	if req.MinRelevance > 0 {
		out.keepRelevant(req.MinRelevance)
	}
	// A memory handed out is in use: decay follows it. Decay is shown,
	// never ranked by.
	s.uses.note(out.Memories)
	for i, m := range out.Memories {
		if b := DecayOf(m, req.Now).Badge(); b != "" {
			out.Hits[i].Badges = append(out.Hits[i].Badges, b)
		}
	}
	out.Filtered = -1
	if allow != nil {
		out.Filtered = int(allow.GetCardinality())
	}
	if len(req.Expand) > 0 {
		if out.Expanded, err = s.expandAt(ctx, out.Memories, req); err != nil {
			return SearchResult{}, err
		}
	}
	return out, nil
}

// expandAt follows req.Expand from the hits' memories (expand), each
// memory reached as it read at req.Filter.AsOf when that is set.
func (s *Engine) expandAt(ctx context.Context, hits []record.Memory, req SearchRequest) ([]Expansion, error) {
	exp, err := s.expand(ctx, hits, req.Expand, req.Filter)
	if err != nil || req.Filter.AsOf.IsZero() {
		return exp, err
	}
	for i := range exp {
		one := []record.Memory{exp[i].Memory}
		if err := s.RevisionsAt(ctx, one, req.Filter.AsOf); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		exp[i].Memory = one[0]
	}
	return exp, nil
}

// keywordSlots are the spaces that match exact strings (E6 BM25 terms, E9
// character n-grams): with SearchRequest.CorrectKeywordsOnly only they
// read the corrected query. By default every space does: the dense
// encoders' sub-word tokenizers do not tolerate typos as well as hoped
// (e1_only on typo queries: 0.606 typed, 0.690 corrected, Go set), and the
// speller's evidence rules keep clean queries from losing (docs/BENCHMARKS.md,
// "Typo correction: which words, which spaces").
var keywordSlots = map[fingerprint.SlotID]bool{fingerprint.E6: true, fingerprint.E9: true}

// correct replaces the typos of a query (indexes.Speller: a word that
// neither the stored text nor the English word list knows, one edit from a
// store word clearly likelier than any other candidate, its count weighed by
// the slip that makes the typo) by store words with live E6 documents, or,
// where no store word is one edit away, by the one English word a
// neighbouring key or a swap away.
func (s *Engine) correct(query string) (string, []Correction) {
	s.mu.RLock()
	ix := s.ix
	s.mu.RUnlock()
	if ix == nil {
		return query, nil
	}
	live := func(form string) bool { return ix.bm25.DocFreq(keywords.Stem(form)) > 0 }
	text, fs := ix.speller.CorrectText(query, live)
	out := make([]Correction, len(fs))
	for i, f := range fs {
		out[i] = Correction{From: f.From, To: f.To}
	}
	return text, out
}

// resolve maps the hits to memories, dropping hits of deleted memories.
func (s *Engine) resolve(ctx context.Context, res pipeline.Result) (SearchResult, error) {
	docs := make([]record.DocNum, len(res.Hits))
	for i, h := range res.Hits {
		docs[i] = record.DocNum(h.Doc)
	}
	ms, found, err := s.cellar.PeekDocs(ctx, docs)
	if err != nil {
		return SearchResult{}, fmt.Errorf("search: resolve %d hits: %w", len(docs), err)
	}
	out := SearchResult{Result: res, Memories: make([]record.Memory, 0, len(ms))}
	hits := res.Hits[:0:0]
	for i, h := range res.Hits {
		if !found[i] {
			continue
		}
		hits = append(hits, h)
		s.markRelations(ctx, &ms[i])
		out.Memories = append(out.Memories, ms[i])
	}
	if n := len(res.Hits) - len(hits); n > 0 && len(res.Trace) > 0 {
		last := &out.Trace[len(out.Trace)-1]
		last.Note += fmt.Sprintf("; %d hits dropped: deleted while searching", n)
	}
	out.Hits = hits
	return out, nil
}

// planViews returns the query views the request's probe plan needs: one
// per slot, and per stored side searched for a pair slot (the query is
// embedded as the other side). The pipeline plans the probes; the engine
// encodes exactly those.
func planViews(preq pipeline.Request) ([]viewKey, error) {
	probes, err := pipeline.Plan(preq)
	if err != nil {
		return nil, err
	}
	var out []viewKey
	for _, p := range probes {
		k := viewKey{slot: p.Slot}
		if _, against, ok := p.View.Sides(); ok {
			k.against = against
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// withRawE1 adds E1's raw view to keys that probe E1 when E1's queries
// run through a tuned encoder (e1tune.bin): the relevance model reads the
// hits' cosines on the scale of E1's documents' own model, which it was
// calibrated on, while the tuned view ranks (relevanceOf). One more pass of
// E1's model per query that is not cached.
func (s *Engine) withRawE1(keys []viewKey) []viewKey {
	if !slices.Contains(keys, viewKey{slot: fingerprint.E1}) {
		return keys
	}
	if t, ok := s.reg.Get(fingerprint.E1).(embedders.TunedQueries); !ok || !t.Tuned() {
		return keys
	}
	return append(keys, viewKey{slot: fingerprint.E1, raw: true})
}

// encode computes the planned views in parallel. A view a slot cannot give
// becomes "unavailable" for that slot's probes, with the encoder's reason in
// the result's spaces report; only a failing E1 encoder (the foundation) or a
// cancelled context fails the search.
func (s *Engine) encode(ctx context.Context, req SearchRequest, keys []viewKey) (*queryViews, error) {
	return s.encodeViews(ctx, req, keys, func(viewKey) string { return req.Query })
}

// encodeViews is encode with each view's text given by textOf (the typed
// or the corrected query).
func (s *Engine) encodeViews(ctx context.Context, req SearchRequest, keys []viewKey, textOf func(viewKey) string) (*queryViews, error) {
	q := &queryViews{views: map[viewKey]fingerprint.Value{}, missing: map[viewKey]error{}, session: req.Session}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(keys))
	for i, k := range keys {
		wg.Go(func() {
			text := textOf(k)
			v, hit := s.views.get(text, k)
			var err error
			if !hit {
				if v, err = s.encodeOne(ctx, req, text, k); err == nil {
					s.views.put(text, k, v)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				q.views[k] = v
			case ctx.Err() != nil || (k.slot == fingerprint.E1 && !errors.Is(err, embedders.ErrUnavailable)):
				errs[i] = fmt.Errorf("search: encode the query for %s: %w", k.slot, err)
			case errors.Is(err, embedders.ErrNothingToEmbed):
				// The slot works but the query holds nothing it represents
				// (no keyword, entity, session): reported empty, with why.
				q.missing[k] = pipeline.NothingToSearch(err)
			default:
				// No model (or no code structure for E8): the slot is
				// reported unavailable with the reason.
				q.missing[k] = fmt.Errorf("%w: query view: %w", pipeline.ErrUnavailable, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return q, nil
}

func (s *Engine) encodeOne(ctx context.Context, req SearchRequest, text string, k viewKey) (fingerprint.Value, error) {
	eq := embedders.Query{Text: text, Now: req.Now, Session: req.Session, Seq: req.Seq, Raw: k.raw}
	if k.against != 0 {
		eq.As = k.against.Opposite()
	}
	qv, err := s.reg.Get(k.slot).EmbedQuery(ctx, eq)
	if err != nil {
		return nil, err
	}
	if qv.Value == nil {
		return nil, fmt.Errorf("%s query view has no value (broken embedder)", k.slot)
	}
	return qv.Value, nil
}

// expand returns the memories one relation of a type in types away from
// the hits, each once, that are not hits and are inside f's scope
// (record.Filter.Scope: project and superseded mode).
// REQUIRES: s.mu held shared.
func (s *Engine) expand(ctx context.Context, hits []record.Memory, types []record.RelationType, f record.Filter) ([]Expansion, error) {
	seen := make(map[record.ID]bool, len(hits))
	for _, m := range hits {
		seen[m.ID] = true
	}
	var out []Expansion
	for _, h := range hits {
		rels, err := s.cellar.Relations(ctx, h.ID)
		if err != nil {
			return nil, fmt.Errorf("expand hit %s: %w", h.ID, err)
		}
		for _, r := range rels {
			other := r.To
			if other == h.ID {
				other = r.From
			}
			if seen[other] || !slices.Contains(types, r.Type) {
				continue
			}
			seen[other] = true
			m, err := s.peek(ctx, other)
			if err != nil {
				return nil, fmt.Errorf("expand hit %s: %w", h.ID, err)
			}
			s.markRelations(ctx, &m)
			if !f.Scope().Match(m, len(m.SupersededBy) > 0) {
				continue
			}
			out = append(out, Expansion{Memory: m, Relation: r, From: h.ID})
		}
	}
	return out, nil
}
