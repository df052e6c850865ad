package engine

import (
	"github.com/cgraph/cgraph/indexes"
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
type tokenCache = lru[uint32, indexes.TokenMatrix]

func newTokenCache(maxBytes int) *tokenCache {
	return newLRU[uint32](maxBytes, func(m indexes.TokenMatrix) int { return m.Rows()*m.Dim() + 4*m.Rows() + 64 })
}
