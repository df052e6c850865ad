package engine

import (
	"container/list"
	"sync"
)

// lru is a least-recently-used cache bounded by a budget: each entry costs
// cost(value) (1 per entry bounds the count). An entry costlier than the
// whole budget is not kept. It is safe for concurrent use, and a nil *lru
// keeps nothing, so a cache that is off is a nil pointer.
type lru[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	used  int
	cost  func(V) int
	order *list.List // front = most recently used; values are *lruEntry
	byKey map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key   K
	value V
	cost  int
}

// newLRU returns a cache of budget max, or nil (off) when max ≤ 0.
func newLRU[K comparable, V any](max int, cost func(V) int) *lru[K, V] {
	if max <= 0 {
		return nil
	}
	return &lru[K, V]{max: max, cost: cost, order: list.New(), byKey: map[K]*list.Element{}}
}

func (c *lru[K, V]) get(k K) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[K, V]).value, true
}

// put keeps v under k (replacing an older value) and evicts the least
// recently used entries past the budget.
func (c *lru[K, V]) put(k K, v V) {
	if c == nil {
		return
	}
	n := c.cost(v)
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		e := el.Value.(*lruEntry[K, V])
		c.used += n - e.cost
		e.value, e.cost = v, n
		c.order.MoveToFront(el)
	} else {
		c.byKey[k] = c.order.PushFront(&lruEntry[K, V]{key: k, value: v, cost: n})
		c.used += n
	}
	for c.used > c.max {
		last := c.order.Back()
		e := last.Value.(*lruEntry[K, V])
		c.order.Remove(last)
		delete(c.byKey, e.key)
		c.used -= e.cost
	}
}

// putIfRoom keeps v under k if it fits in the unused budget, evicting
// nothing, and reports whether it did (a warm-up must not push out what
// searches cached).
func (c *lru[K, V]) putIfRoom(k K, v V) bool {
	if c == nil {
		return false
	}
	n := c.cost(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok || c.used+n > c.max {
		return false
	}
	c.byKey[k] = c.order.PushBack(&lruEntry[K, V]{key: k, value: v, cost: n}) // least recent: newest memories are warmed first
	c.used += n
	return true
}

func (c *lru[K, V]) remove(k K) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		c.order.Remove(el)
		delete(c.byKey, k)
		c.used -= el.Value.(*lruEntry[K, V]).cost
	}
}

func (c *lru[K, V]) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.byKey)
	c.used = 0
}

// size returns the number of entries and the budget they use.
func (c *lru[K, V]) size() (entries, used int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey), c.used
}
