package engine

import (
	"container/list"
	"sync"

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
// concurrent use.
type viewCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are *viewEntry
	byKey map[viewCacheKey]*list.Element
}

type viewCacheKey struct {
	text string
	view viewKey
}

type viewEntry struct {
	key   viewCacheKey
	value fingerprint.Value
}

func newViewCache(max int) *viewCache {
	if max <= 0 {
		return nil
	}
	return &viewCache{max: max, order: list.New(), byKey: map[viewCacheKey]*list.Element{}}
}

// cacheable reports whether k's view depends on the query text alone.
func cacheable(k viewKey) bool { return !k.slot.Temporal() }

func (c *viewCache) get(text string, k viewKey) (fingerprint.Value, bool) {
	if c == nil || !cacheable(k) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[viewCacheKey{text, k}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*viewEntry).value, true
}

func (c *viewCache) put(text string, k viewKey, v fingerprint.Value) {
	if c == nil || !cacheable(k) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := viewCacheKey{text, k}
	if el, ok := c.byKey[key]; ok {
		el.Value.(*viewEntry).value = v
		c.order.MoveToFront(el)
		return
	}
	c.byKey[key] = c.order.PushFront(&viewEntry{key: key, value: v})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*viewEntry).key)
	}
}

// clear drops every view: the producers changed (a re-embed).
func (c *viewCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.byKey)
}
