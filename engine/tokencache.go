package engine

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/indexes"
	"github.com/cgraph/cgraph/record"
)

// DefaultTokenCacheBytes is how much of the E12 token matrices a writer
// keeps decoded in RAM by default (Options.TokenCacheBytes): S4 reranks the
// same memories again and again, and reading and decoding a matrix from
// RocksDB costs as much as scoring it.
const DefaultTokenCacheBytes = 64 << 20

// tokenCache keeps decoded E12 token matrices by doc number, bounded in
// bytes (an lru). Doc numbers are never reused, so an entry can only go
// stale when its memory is re-embedded (Reembed clears the cache) or
// deleted (Delete drops it). Only a writer has one: a read-only follower
// cannot see a re-embedding in the writer. Cached matrices are shared and
// must not be modified.
type tokenCache = lru[record.DocNum, indexes.TokenMatrix]

func newTokenCache(maxBytes int) *tokenCache {
	return newLRU[record.DocNum](maxBytes, func(m indexes.TokenMatrix) int { return m.Rows()*m.Dim() + 4*m.Rows() + 64 })
}

// warmChunk is how many matrices WarmTokens reads per hold of writeMu.
const warmChunk = 256

// WarmTokens fills the E12 token cache from e12_late_interaction, newest
// memories first, until the next matrix would not fit or every one is in,
// and returns how many it added. Without it the first searches after a
// start read every S4 candidate's matrix from RocksDB: on the 2,000-memory
// Go set the first 60 pipeline_full queries of a fresh process took S4 mean
// 6.0–6.4 ms without it and 4.7–5.0 ms with it (two runs each). S4's p95
// (≈ 10 ms either way there) is MaxSim over long candidates, not reads.
// It reads and caches each chunk of warmChunk under
// writeMu, so no write (which drops a memory's cached matrix) falls between
// a read and its put. It never evicts: a warm cache keeps what searches put
// there. A store without a cache (read-only, or TokenCacheBytes < 0) warms
// nothing.
func (s *Engine) WarmTokens(ctx context.Context) (int, error) {
	if s.tokens == nil || s.ix == nil {
		return 0, nil
	}
	s.mu.RLock()
	s.ix.mu.RLock()
	docs := s.ix.has[fingerprint.E12.Index()].Clone()
	s.ix.mu.RUnlock()
	s.mu.RUnlock()
	it := docs.ReverseIterator()
	added := 0
	for it.HasNext() {
		var chunk []record.DocNum
		var keys [][]byte
		for len(chunk) < warmChunk && it.HasNext() {
			d := record.DocNum(it.Next())
			chunk, keys = append(chunk, d), append(keys, docKey(d))
		}
		n, full, err := s.warmChunk(ctx, chunk, keys)
		added += n
		if err != nil || full {
			return added, err
		}
	}
	return added, nil
}

// warmChunk caches the matrices of chunk (their keys in keys) that are not
// cached yet, while they fit; full reports that one did not.
func (s *Engine) warmChunk(ctx context.Context, chunk []record.DocNum, keys [][]byte) (added int, full bool, err error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	vals, err := s.cellar.Values(ctx, cellar.FamE12LateInteraction, keys)
	if err != nil {
		return 0, false, fmt.Errorf("warm the token cache: %w", err)
	}
	for i, b := range vals {
		if b == nil {
			continue // deleted since the bitmap was read
		}
		if _, ok := s.tokens.get(chunk[i]); ok {
			continue
		}
		m, err := indexes.DecodeTokenMatrix(b)
		if err != nil {
			return added, false, fmt.Errorf("warm the token cache: e12_late_interaction/%d: %w", chunk[i], err)
		}
		if !s.tokens.putIfRoom(chunk[i], m) {
			return added, true, nil
		}
		added++
	}
	return added, false, nil
}
