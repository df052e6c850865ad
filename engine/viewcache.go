package engine

import (
	"github.com/cgraph/cgraph/fingerprint"
)

// DefaultViewCacheSize is how many query views Options.ViewCacheSize keeps
// by default: a few hundred queries' worth, a few MB.
const DefaultViewCacheSize = 2048

// viewCache is an LRU cache of encoded query views, so that a query asked
// again — a bench's many runs over one query set, an agent repeating itself —
// skips the models. Only views that depend on the query text alone are
// kept: the temporal slots depend on the time and session, and are cheap.
// A cached view is shared: callers must not modify it. It is safe for
// concurrent use; a nil *viewCache keeps nothing.
type viewCache struct {
	c *lru[viewCacheKey, fingerprint.Value]
}

type viewCacheKey struct {
	text string
	view viewKey
}

func newViewCache(max int) *viewCache {
	if max <= 0 {
		return nil
	}
	return &viewCache{newLRU[viewCacheKey](max, func(fingerprint.Value) int { return 1 })}
}

// cacheable reports whether k's view depends on the query text alone.
func cacheable(k viewKey) bool { return !k.slot.Temporal() }

func (c *viewCache) get(text string, k viewKey) (fingerprint.Value, bool) {
	if c == nil || !cacheable(k) {
		return nil, false
	}
	return c.c.get(viewCacheKey{text, k})
}

func (c *viewCache) put(text string, k viewKey, v fingerprint.Value) {
	if c == nil || !cacheable(k) {
		return
	}
	c.c.put(viewCacheKey{text, k}, v)
}

// clear drops every view: the producers changed (a re-embed).
func (c *viewCache) clear() {
	if c != nil {
		c.c.clear()
	}
}
