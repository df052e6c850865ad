package contradict

import (
	"slices"
	"sync"
)

// opKind is one step of an alignment of two token sequences.
type opKind int

const (
	opEqual opKind = iota
	opInsert
	opDelete
	opReplace
)

// op covers old[i1:i2] and new[j1:j2].
type op struct {
	kind           opKind
	i1, i2, j1, j2 int
}

// align returns the steps that turn a into b along a longest common
// subsequence of stems; a delete next to an insert is one replace.
// Cost: O(len(a)·len(b)) past the common prefix (one table of int32);
// memories are short.
func align(a, b []token) []op {
	n, m := len(a), len(b)
	// The walk below matches equal stems greedily, so a common prefix is
	// matched whatever follows it, and the table is needed only past it
	// (l[i][j] depends on a[i:] and b[j:] only).
	p := 0
	for p < n && p < m && a[p].stem == b[p].stem {
		p++
	}
	w := m - p + 1 // l[i][j] is lt[(i-p)*w + j-p] for i, j ≥ p
	tp := tables.Get().(*[]int32)
	defer tables.Put(tp)
	lt := slices.Grow((*tp)[:0], (n-p+1)*w)[:(n-p+1)*w]
	*tp = lt
	clear(lt[len(lt)-w:]) // row n here and column m in the loop are the zero border; other cells are written before they are read
	at := func(i, j int) int32 { return lt[(i-p)*w+j-p] }
	for i := n - 1; i >= p; i-- {
		row, next := lt[(i-p)*w:(i-p+1)*w], lt[(i-p+1)*w:(i-p+2)*w]
		row[w-1] = 0
		for j := m - 1; j >= p; j-- {
			if a[i].stem == b[j].stem {
				row[j-p] = next[j-p+1] + 1
			} else {
				row[j-p] = max(next[j-p], row[j-p+1])
			}
		}
	}
	return walk(a, b, at)
}

// tables recycles align's tables (a write judges thousands of pairs).
var tables = sync.Pool{New: func() any { return new([]int32) }}

// walk turns a into b along the longest common subsequence whose lengths
// at(i, j) gives (that of a[i:] and b[j:]), matching equal stems first.
// It calls at only past the common prefix.
func walk(a, b []token, at func(i, j int) int32) []op {
	n, m := len(a), len(b)
	var ops []op
	push := func(k opKind, i1, i2, j1, j2 int) {
		if last := len(ops) - 1; last >= 0 {
			p := &ops[last]
			switch {
			case p.kind == k:
				p.i2, p.j2 = i2, j2
				return
			case k != opEqual && p.kind != opEqual:
				p.kind, p.i2, p.j2 = opReplace, i2, j2
				return
			}
		}
		ops = append(ops, op{k, i1, i2, j1, j2})
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i].stem == b[j].stem:
			push(opEqual, i, i+1, j, j+1)
			i, j = i+1, j+1
		case j < m && (i == n || at(i, j+1) >= at(i+1, j)):
			push(opInsert, i, i, j, j+1)
			j++
		default:
			push(opDelete, i, i+1, j, j)
			i++
		}
	}
	return ops
}
