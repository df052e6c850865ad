package indexes

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/record"
)

// Iterator walks a set of documents in ascending record.DocNum order. It is the one
// candidate shape shared by every index (posting lists, bitmaps, ANN hits), after
// prometheus/tsdb's index.Postings. An Iterator is not safe for concurrent use.
//
// Use: for it.Next() { d := it.At() … }; then check it.Err().
type Iterator interface {
	// Next advances to the next document and reports whether there is one.
	Next() bool
	// Seek advances to the first document ≥ d and reports whether there is one.
	// Seek never moves backwards: if the current document is already ≥ d it stays.
	Seek(d record.DocNum) bool
	// At returns the current document. Valid only after Next or Seek returned true.
	At() record.DocNum
	// Err returns the first error the iterator met, if any.
	Err() error
}

// hitsIter walks Hits sorted by record.DocNum.
type hitsIter struct {
	h Hits
	i int // index of the current hit plus one; 0 before the first Next
}

// Iter returns an Iterator over h's documents. REQUIRES: h is sorted by record.DocNum
// (see SortByDoc) without duplicates; otherwise the iterator's Err says so.
func (h Hits) Iter() Iterator {
	for i := 1; i < len(h); i++ {
		if h[i].Doc <= h[i-1].Doc {
			return errIter{fmt.Errorf("hits iterator: hits are not sorted by doc number without duplicates (index %d: %d after %d); call SortByDoc first", i, h[i].Doc, h[i-1].Doc)}
		}
	}
	return &hitsIter{h: h}
}

func (it *hitsIter) Next() bool {
	if it.i >= len(it.h) {
		return false
	}
	it.i++
	return it.i <= len(it.h)
}

func (it *hitsIter) Seek(d record.DocNum) bool {
	if it.i > 0 && it.i <= len(it.h) && it.h[it.i-1].Doc >= d {
		return true
	}
	lo := max(it.i, 0)
	hi := len(it.h)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if it.h[m].Doc < d {
			lo = m + 1
		} else {
			hi = m
		}
	}
	it.i = lo + 1
	return lo < len(it.h)
}

func (it *hitsIter) At() record.DocNum { return it.h[it.i-1].Doc }
func (it *hitsIter) Err() error        { return nil }

// errIter is an empty iterator that carries an error.
type errIter struct{ err error }

func (errIter) Next() bool              { return false }
func (errIter) Seek(record.DocNum) bool { return false }
func (errIter) At() record.DocNum       { return 0 }
func (e errIter) Err() error            { return e.err }

// Empty returns an iterator over no documents.
func Empty() Iterator { return errIter{} }

// bitmapIter walks a roaring bitmap.
type bitmapIter struct {
	it  roaring.IntPeekable
	cur record.DocNum
	ok  bool
}

// FromBitmap returns an Iterator over b. b must not be modified while the
// iterator is in use.
func FromBitmap(b *roaring.Bitmap) Iterator {
	if b == nil {
		return Empty()
	}
	return &bitmapIter{it: b.Iterator()}
}

func (it *bitmapIter) Next() bool {
	if !it.it.HasNext() {
		it.ok = false
		return false
	}
	it.cur, it.ok = record.DocNum(it.it.Next()), true
	return true
}

func (it *bitmapIter) Seek(d record.DocNum) bool {
	if it.ok && it.cur >= d {
		return true
	}
	it.it.AdvanceIfNeeded(uint32(d))
	return it.Next()
}

func (it *bitmapIter) At() record.DocNum { return it.cur }
func (it *bitmapIter) Err() error        { return nil }

// ToBitmap drains it into a new bitmap. It returns the iterator's error, if any,
// and no partial bitmap with it.
func ToBitmap(it Iterator) (*roaring.Bitmap, error) {
	b := roaring.New()
	for it.Next() {
		b.Add(uint32(it.At()))
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("collect candidates into a bitmap: %w", err)
	}
	return b, nil
}

// ToSlice drains it into a slice of doc numbers in ascending order.
func ToSlice(it Iterator) ([]record.DocNum, error) {
	var out []record.DocNum
	for it.Next() {
		out = append(out, it.At())
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("collect candidates: %w", err)
	}
	return out, nil
}

// intersectIter yields documents present in every child.
type intersectIter struct {
	its []Iterator
	cur record.DocNum
	err error
}

// Intersect returns an iterator over the documents present in all of its.
// With no iterators it is empty.
func Intersect(its ...Iterator) Iterator {
	switch len(its) {
	case 0:
		return Empty()
	case 1:
		return its[0]
	}
	return &intersectIter{its: its}
}

func (it *intersectIter) Next() bool {
	if !it.its[0].Next() {
		return it.fail(it.its[0])
	}
	return it.align(it.its[0].At())
}

func (it *intersectIter) Seek(d record.DocNum) bool {
	if !it.its[0].Seek(d) {
		return it.fail(it.its[0])
	}
	return it.align(it.its[0].At())
}

// align seeks all children to the first common document ≥ target.
func (it *intersectIter) align(target record.DocNum) bool {
	for {
		agreed := true
		for _, c := range it.its {
			if !c.Seek(target) {
				return it.fail(c)
			}
			if d := c.At(); d > target {
				target, agreed = d, false
			}
		}
		if agreed {
			it.cur = target
			return true
		}
	}
}

func (it *intersectIter) fail(c Iterator) bool {
	if it.err == nil {
		it.err = c.Err()
	}
	return false
}

func (it *intersectIter) At() record.DocNum { return it.cur }
func (it *intersectIter) Err() error        { return it.err }

// mergeIter yields documents present in any child, once each.
type mergeIter struct {
	its   []Iterator
	state []childState
	init  bool // cur is valid
	cur   record.DocNum
	err   error
}

type childState uint8

const (
	childUnstarted childState = iota
	childOn                   // positioned on a document
	childDone                 // exhausted
)

// Merge returns an iterator over the union of its. It costs O(len(its)) per
// document, which suits the handful of sources a query fuses.
func Merge(its ...Iterator) Iterator {
	switch len(its) {
	case 0:
		return Empty()
	case 1:
		return its[0]
	}
	return &mergeIter{its: its, state: make([]childState, len(its))}
}

func (it *mergeIter) Next() bool {
	for i, c := range it.its {
		switch {
		case it.state[i] == childUnstarted,
			it.state[i] == childOn && it.init && c.At() == it.cur:
			it.move(i, c.Next())
		}
	}
	return it.pick()
}

func (it *mergeIter) Seek(d record.DocNum) bool {
	if it.init && it.cur >= d {
		return true
	}
	for i, c := range it.its {
		if it.state[i] == childUnstarted || (it.state[i] == childOn && c.At() < d) {
			it.move(i, c.Seek(d))
		}
	}
	return it.pick()
}

func (it *mergeIter) move(i int, ok bool) {
	if ok {
		it.state[i] = childOn
		return
	}
	it.state[i] = childDone
	if it.err == nil {
		it.err = it.its[i].Err()
	}
}

func (it *mergeIter) pick() bool {
	it.init = false
	if it.err != nil {
		return false
	}
	for i, c := range it.its {
		if it.state[i] == childOn && (!it.init || c.At() < it.cur) {
			it.cur, it.init = c.At(), true
		}
	}
	return it.init
}

func (it *mergeIter) At() record.DocNum { return it.cur }
func (it *mergeIter) Err() error        { return it.err }

// withoutIter yields documents of a that are not in b.
type withoutIter struct {
	a, b  Iterator
	bLive bool
	bInit bool
	err   error
}

// Without returns an iterator over the documents of a that are not in drop
// (deleted documents, an exclusion filter).
func Without(a, drop Iterator) Iterator { return &withoutIter{a: a, b: drop} }

func (it *withoutIter) Next() bool {
	if !it.a.Next() {
		return it.fail(it.a)
	}
	return it.skip()
}

func (it *withoutIter) Seek(d record.DocNum) bool {
	if !it.a.Seek(d) {
		return it.fail(it.a)
	}
	return it.skip()
}

// skip advances a past documents present in b.
func (it *withoutIter) skip() bool {
	for {
		d := it.a.At()
		if !it.bInit || (it.bLive && it.b.At() < d) {
			it.bInit = true
			it.bLive = it.b.Seek(d)
			if !it.bLive && it.b.Err() != nil {
				it.err = it.b.Err()
				return false
			}
		}
		if !it.bLive || it.b.At() != d {
			return true
		}
		if !it.a.Next() {
			return it.fail(it.a)
		}
	}
}

func (it *withoutIter) fail(c Iterator) bool {
	if it.err == nil {
		it.err = c.Err()
	}
	return false
}

func (it *withoutIter) At() record.DocNum { return it.a.At() }
func (it *withoutIter) Err() error        { return it.err }

// Every iterator implements Iterator.
var (
	_ Iterator = (*hitsIter)(nil)
	_ Iterator = errIter{}
	_ Iterator = (*bitmapIter)(nil)
	_ Iterator = (*postingIter)(nil)
	_ Iterator = (*intersectIter)(nil)
	_ Iterator = (*mergeIter)(nil)
	_ Iterator = (*withoutIter)(nil)
)
