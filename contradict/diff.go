package contradict

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
// Cost: O(len(a)·len(b)); memories are short.
func align(a, b []token) []op {
	n, m := len(a), len(b)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].stem == b[j].stem {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
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
		case j < m && (i == n || l[i][j+1] >= l[i+1][j]):
			push(opInsert, i, i, j, j+1)
			j++
		default:
			push(opDelete, i, i+1, j, j)
			i++
		}
	}
	return ops
}
