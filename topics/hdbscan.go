package topics

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Noise is the label HDBSCAN gives an item that belongs to no cluster.
const Noise = -1

// Distance returns the dissimilarity of items i and j: symmetric, ≥ 0, and 0
// for i == j. It need not be a metric (1 − cosine is fine). HDBSCAN calls it
// O(n²) times and from one goroutine.
type Distance func(i, j int) float64

// HDBSCANOptions are the two parameters of HDBSCAN.
type HDBSCANOptions struct {
	// MinClusterSize is the smallest group counted as a cluster; groups
	// that split off smaller fall out as noise. At least 2.
	MinClusterSize int
	// MinSamples is k of the core distance: the distance from a point to
	// its k-th nearest neighbour, the point itself counted as the first
	// (scikit-learn's convention; the hdbscan package's min_samples is one
	// less). 0 means MinClusterSize. It is clamped to the number of items.
	MinSamples int
	// AllowSingleCluster lets the root (everything in one cluster) be
	// selected; off by default, as in scikit-learn.
	AllowSingleCluster bool
}

// Clustering is HDBSCAN's answer for n items.
type Clustering struct {
	// Labels[i] is item i's cluster, 0…K−1 (numbered in the order of the
	// condensed tree, as scikit-learn does), or Noise.
	Labels []int
	// Probabilities[i] is the strength of item i's membership in its
	// cluster, in [0, 1] (0 for noise): its lambda over the cluster's
	// largest lambda.
	Probabilities []float64
	// Stabilities[c] is cluster c's excess of mass (the selection score).
	Stabilities []float64
}

// K returns the number of clusters.
func (c Clustering) K() int { return len(c.Stabilities) }

// minDistance floors distances before 1/d: duplicates (d = 0) would give an
// infinite lambda and NaN stabilities.
const minDistance = 1e-12

// HDBSCAN clusters n items by density (Campello, Moulavi, Sander 2013; the
// steps of McInnes' hdbscan and scikit-learn's HDBSCAN):
//
//  1. core distance of each item: the distance to its MinSamples-th nearest
//     neighbour (itself counted);
//  2. a minimum spanning tree of the mutual-reachability graph,
//     d_mr(a, b) = max(core(a), core(b), d(a, b)), by Prim's algorithm;
//  3. the single-linkage hierarchy of that tree, condensed with
//     MinClusterSize: a split where both sides have at least
//     MinClusterSize items makes two clusters, otherwise the small side's
//     items fall out of the cluster at that lambda = 1/distance;
//  4. excess-of-mass selection: a cluster is kept when its stability
//     Σ (lambda_out − lambda_birth) over its items is at least the sum of
//     its selected descendants'.
//
// Cost: O(n²) calls of dist and O(n²) time, O(n) memory (no distance matrix).
// Fewer than MinClusterSize items are all noise.
func HDBSCAN(n int, dist Distance, o HDBSCANOptions) (Clustering, error) {
	if o.MinClusterSize < 2 {
		return Clustering{}, fmt.Errorf("hdbscan: min_cluster_size %d: use 2 or more", o.MinClusterSize)
	}
	if o.MinSamples < 0 {
		return Clustering{}, fmt.Errorf("hdbscan: min_samples %d: use 0 (= min_cluster_size) or more", o.MinSamples)
	}
	out := Clustering{Labels: make([]int, n), Probabilities: make([]float64, n)}
	for i := range out.Labels {
		out.Labels[i] = Noise
	}
	if n < o.MinClusterSize || n < 2 {
		return out, nil
	}
	k := o.MinSamples
	if k == 0 {
		k = o.MinClusterSize
	}
	k = min(k, n)
	core := coreDistances(n, dist, k)
	edges := primMST(n, dist, core)
	link := singleLinkage(n, edges)
	tree := condense(n, link, o.MinClusterSize)
	tree.selectEOM(o.AllowSingleCluster)
	tree.label(&out, o.AllowSingleCluster)
	return out, nil
}

// coreDistances returns each item's distance to its k-th nearest neighbour,
// itself counted as the first (k = 1 gives 0).
func coreDistances(n int, dist Distance, k int) []float64 {
	core := make([]float64, n)
	row := make([]float64, n)
	for i := range n {
		for j := range n {
			if i == j {
				row[j] = 0
			} else {
				row[j] = dist(i, j)
			}
		}
		core[i] = kthSmallest(row, k-1)
	}
	return core
}

// kthSmallest returns the element of rank r (0-based) of xs, reordering xs.
func kthSmallest(xs []float64, r int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		p := xs[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for xs[i] < p {
				i++
			}
			for xs[j] > p {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case r <= j:
			hi = j
		case r >= i:
			lo = i
		default:
			return xs[r]
		}
	}
	return xs[r]
}

type edge struct {
	a, b int
	w    float64
}

// primMST returns the n−1 edges of a minimum spanning tree of the
// mutual-reachability graph.
func primMST(n int, dist Distance, core []float64) []edge {
	in := make([]bool, n)
	best := make([]float64, n)
	from := make([]int, n)
	for i := range best {
		best[i] = math.Inf(1)
	}
	edges := make([]edge, 0, n-1)
	cur := 0
	in[cur] = true
	for len(edges) < n-1 {
		next, nextW := -1, math.Inf(1)
		for j := range n {
			if in[j] {
				continue
			}
			w := max(core[cur], core[j], dist(cur, j))
			if w < best[j] {
				best[j], from[j] = w, cur
			}
			if best[j] < nextW || next < 0 {
				next, nextW = j, best[j]
			}
		}
		in[next] = true
		edges = append(edges, edge{from[next], next, nextW})
		cur = next
	}
	return edges
}

// merge is one row of the single-linkage hierarchy: nodes left and right
// (items are 0…n−1, merges n, n+1, …) joined at distance d into size items.
type merge struct {
	left, right int
	d           float64
	size        int
}

// singleLinkage turns MST edges into the merge hierarchy (n−1 rows; row i
// creates node n+i).
func singleLinkage(n int, edges []edge) []merge {
	sorted := slices.Clone(edges)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].w < sorted[j].w })
	parent := make([]int, 2*n-1)
	size := make([]int, 2*n-1)
	for i := range parent {
		parent[i] = i
		if i < n {
			size[i] = 1
		}
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	out := make([]merge, 0, n-1)
	for i, e := range sorted {
		a, b := find(e.a), find(e.b)
		node := n + i
		parent[a], parent[b] = node, node
		size[node] = size[a] + size[b]
		out = append(out, merge{left: a, right: b, d: e.w, size: size[node]})
	}
	return out
}

// condensedEntry is one row of the condensed tree: child (an item < n, or a
// cluster ≥ n) leaves parent cluster at lambda.
type condensedEntry struct {
	parent, child int
	lambda        float64
	size          int
}

type condensedTree struct {
	n       int
	entries []condensedEntry
	// clusters are n, n+1, …, n+numClusters−1; root is n.
	numClusters int
	stability   []float64 // indexed by cluster − n
	selected    []bool
}

func lambdaOf(d float64) float64 { return 1 / max(d, minDistance) }

// condense walks the hierarchy from the root and keeps only splits into two
// parts of at least mcs items each.
func condense(n int, link []merge, mcs int) *condensedTree {
	t := &condensedTree{n: n}
	root := 2*n - 2
	relabel := map[int]int{root: n}
	next := n + 1
	nodeSize := func(x int) int {
		if x < n {
			return 1
		}
		return link[x-n].size
	}
	// leaves appends every item under node x.
	var leaves func(x int, dst []int) []int
	leaves = func(x int, dst []int) []int {
		stack := []int{x}
		for len(stack) > 0 {
			y := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if y < n {
				dst = append(dst, y)
				continue
			}
			stack = append(stack, link[y-n].right, link[y-n].left)
		}
		return dst
	}
	fallOut := func(parent int, x int, lambda float64) {
		for _, leaf := range leaves(x, nil) {
			t.entries = append(t.entries, condensedEntry{parent: parent, child: leaf, lambda: lambda, size: 1})
		}
	}
	queue := []int{root}
	for len(queue) > 0 {
		node := queue[0]
		queue = queue[1:]
		if node < n {
			continue
		}
		m := link[node-n]
		lambda := lambdaOf(m.d)
		p := relabel[node]
		ls, rs := nodeSize(m.left), nodeSize(m.right)
		switch {
		case ls >= mcs && rs >= mcs:
			for _, c := range []int{m.left, m.right} {
				relabel[c] = next
				t.entries = append(t.entries, condensedEntry{parent: p, child: next, lambda: lambda, size: nodeSize(c)})
				next++
				queue = append(queue, c)
			}
		case ls < mcs && rs < mcs:
			fallOut(p, m.left, lambda)
			fallOut(p, m.right, lambda)
		case ls < mcs:
			relabel[m.right] = p
			fallOut(p, m.left, lambda)
			queue = append(queue, m.right)
		default:
			relabel[m.left] = p
			fallOut(p, m.right, lambda)
			queue = append(queue, m.left)
		}
	}
	t.numClusters = next - n
	return t
}

// stabilities computes every cluster's stability and returns each cluster's
// child clusters.
func (t *condensedTree) stabilities() [][]int {
	n := t.n
	birth := make([]float64, t.numClusters) // root is born at lambda 0
	children := make([][]int, t.numClusters)
	for _, e := range t.entries {
		if e.child >= n {
			birth[e.child-n] = e.lambda
			children[e.parent-n] = append(children[e.parent-n], e.child-n)
		}
	}
	t.stability = make([]float64, t.numClusters)
	for _, e := range t.entries {
		c := e.parent - n
		t.stability[c] += (e.lambda - birth[c]) * float64(e.size)
	}
	return children
}

// selectEOM computes stabilities and selects clusters by excess of mass.
func (t *condensedTree) selectEOM(allowSingle bool) {
	children := t.stabilities()
	t.selected = make([]bool, t.numClusters)
	stab := slices.Clone(t.stability)
	first := 1
	if allowSingle {
		first = 0
	}
	for c := first; c < t.numClusters; c++ {
		t.selected[c] = true
	}
	// Children have larger numbers than their parents (breadth-first
	// labelling), so a descending walk sees every child before its parent.
	for c := t.numClusters - 1; c >= first; c-- {
		var sub float64
		for _, ch := range children[c] {
			sub += stab[ch]
		}
		if sub > stab[c] {
			t.selected[c] = false
			stab[c] = sub
			continue
		}
		stack := slices.Clone(children[c])
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			t.selected[x] = false
			stack = append(stack, children[x]...)
		}
	}
}

// label gives every item the selected cluster it falls out of (directly or
// through unselected descendants), or Noise.
func (t *condensedTree) label(out *Clustering, allowSingle bool) {
	n := t.n
	clusterParent := make([]int, t.numClusters) // −1 for the root
	clusterParent[0] = -1
	itemParent := make([]int, n)
	itemLambda := make([]float64, n)
	// maxLambda is a cluster's death: the largest lambda of its entries
	// (items and child clusters), as scikit-learn's max_lambdas.
	maxLambda := make([]float64, t.numClusters)
	for _, e := range t.entries {
		maxLambda[e.parent-n] = max(maxLambda[e.parent-n], e.lambda)
		if e.child >= n {
			clusterParent[e.child-n] = e.parent - n
			continue
		}
		itemParent[e.child] = e.parent - n
		itemLambda[e.child] = e.lambda
	}
	labelOf := make([]int, t.numClusters)
	k := 0
	for c := range t.numClusters {
		labelOf[c] = Noise
		if t.selected[c] {
			labelOf[c] = k
			out.Stabilities = append(out.Stabilities, t.stability[c])
			k++
		}
	}
	// The root alone selected (AllowSingleCluster): an item that fell out
	// of the root before its last items did is noise, as in hdbscan.
	var rootMaxChild float64
	for _, e := range t.entries {
		if e.parent == n {
			rootMaxChild = max(rootMaxChild, e.lambda)
		}
	}
	for i := range n {
		c := itemParent[i]
		for c >= 0 && !t.selected[c] {
			c = clusterParent[c]
		}
		if c < 0 {
			continue
		}
		if c == 0 && allowSingle && itemLambda[i] < rootMaxChild {
			continue
		}
		out.Labels[i] = labelOf[c]
		ml := maxLambda[c]
		if ml == 0 || math.IsInf(itemLambda[i], 0) {
			out.Probabilities[i] = 1
		} else {
			out.Probabilities[i] = min(itemLambda[i], ml) / ml
		}
	}
}
