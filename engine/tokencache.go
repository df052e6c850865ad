package engine

import (
	"container/list"
	"sync"

	"github.com/cgraph/cgraph/indexes"
)

// DefaultTokenCacheBytes is how much of the E12 token matrices a writer
// keeps decoded in RAM by default (Options.TokenCacheBytes): S4 reranks the
// same memories again and again, and reading and decoding a matrix from
// RocksDB costs as much as scoring it.
const DefaultTokenCacheBytes = 64 << 20

// tokenCache is an LRU cache of decoded E12 token matrices by doc number,
// bounded in bytes. Doc numbers are never reused, so an entry can only go
// stale when its memory is re-embedded (Reembed clears the cache) or
// deleted (Delete drops it). Only a writer has one: a read-only follower
// cannot see a re-embedding in the writer. Safe for concurrent use; cached
// matrices are shared and must not be modified.
type tokenCache struct {
	mu    sync.Mutex
	max   int
	bytes int
	order *list.List // front = most recently used; values are *tokenEntry
	byDoc map[uint32]*list.Element
}

type tokenEntry struct {
	doc uint32
	m   indexes.TokenMatrix
	n   int // bytes
}

func newTokenCache(max int) *tokenCache {
	if max <= 0 {
		return nil
	}
	return &tokenCache{max: max, order: list.New(), byDoc: map[uint32]*list.Element{}}
}

func (c *tokenCache) get(doc uint32) (indexes.TokenMatrix, bool) {
	if c == nil {
		return indexes.TokenMatrix{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byDoc[doc]
	if !ok {
		return indexes.TokenMatrix{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*tokenEntry).m, true
}

func (c *tokenCache) put(doc uint32, m indexes.TokenMatrix) {
	if c == nil {
		return
	}
	n := m.Rows()*m.Dim() + 4*m.Rows() + 64
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byDoc[doc]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.byDoc[doc] = c.order.PushFront(&tokenEntry{doc: doc, m: m, n: n})
	c.bytes += n
	for c.bytes > c.max {
		last := c.order.Back()
		e := last.Value.(*tokenEntry)
		c.order.Remove(last)
		delete(c.byDoc, e.doc)
		c.bytes -= e.n
	}
}

func (c *tokenCache) remove(doc uint32) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byDoc[doc]; ok {
		c.order.Remove(el)
		delete(c.byDoc, doc)
		c.bytes -= el.Value.(*tokenEntry).n
	}
}

func (c *tokenCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	c.byDoc = map[uint32]*list.Element{}
	c.bytes = 0
}
