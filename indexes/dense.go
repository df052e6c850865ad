package indexes

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/record"
)

// DefaultRerank is the number of binary-sketch candidates a Dense search rescores
// with exact cosine when DenseConfig.Rerank is 0. See the package doc for the
// recall it buys.
const DefaultRerank = 512

// DenseConfig describes one dense space.
type DenseConfig struct {
	// Name labels the space in errors, e.g. "E5 as-cause".
	Name string
	// Dim is the vector length every Add and Search must match.
	Dim int
	// Rerank is how many candidates are rescored exactly (at least k of
	// them): the best by asymmetric score of the prefilterFactor×Rerank
	// nearest by sketch Hamming distance. 0 means DefaultRerank.
	Rerank int
	// Precision of the vectors kept for reranking; Float32 by default.
	Precision Precision
}

// Dense is the approximate nearest-neighbour index of one dense space, scored by
// cosine similarity. It keeps every vector twice, contiguously: the unit vector
// (float32, Dim×4 bytes, or Int8, Dim+4 bytes; see Precision) and a sign sketch
// of the centred vector (Dim/8 bytes). A
// search computes the Hamming distance from the query's sketch to every live
// sketch (6 popcounts per 384-d vector), keeps the 6×Rerank closest, orders
// those by the query's float dot product with their sign bits
// (bestAsymmetricLocked), and rescores the best Rerank with the exact cosine. Deletes are exact and immediate (the last
// row moves into the hole), a filter restricts the scan itself, so filtered
// searches never lose recall the way graph indexes do. A search sees the
// index as Build would lay out the same vectors — rows in doc order, the
// centre of the first docs — so a store ranks the same after a restart
// however it was written; the first search after writes that moved either
// puts it back (freshen).
//
// Dense is safe for concurrent use: searches share a read lock, Add, Delete and
// Build take the write lock (so one writer at a time, readers wait for it; a
// search that refreshes takes it too).
type Dense struct {
	name   string
	dim    int
	words  int // uint64 words per sketch
	rerank int

	mu sync.RWMutex
	// center is subtracted before taking signs: the mean of the first
	// centered live docs in doc order, as of the last Build or recentring
	// (see recenterLocked).
	center []float32
	// centered is the number of vectors the centre was computed from.
	centered int
	// centerLast is the largest doc the centre was computed from: a write
	// to a doc at or below it changes the centre's set.
	centerLast record.DocNum
	// stale says a Delete or a write has changed the centre's set since it
	// was computed; the next search recentres first (freshen), so a store
	// ranks as an index built from its vectors would.
	stale bool
	// disordered says the rows are no longer in ascending doc order (a
	// Delete moved the last row into its hole, or a doc was added below
	// others). Searches break ties at their cut-offs by row order, so the
	// next search puts the rows back in doc order first (freshen).
	disordered bool
	docs       []record.DocNum // row → doc
	vecs       rows            // unit vectors, one row per doc
	codes      []uint64        // row-major sketches, len(docs)×words
	pos        []int32         // doc → row, -1 when absent
}

// NewDense returns an empty index for cfg.
func NewDense(cfg DenseConfig) (*Dense, error) {
	if cfg.Dim <= 0 {
		return nil, fmt.Errorf("dense index %q: dimension %d must be positive", cfg.Name, cfg.Dim)
	}
	if cfg.Rerank < 0 {
		return nil, fmt.Errorf("dense index %q: rerank %d is negative; use 0 for the default %d", cfg.Name, cfg.Rerank, DefaultRerank)
	}
	r := cfg.Rerank
	if r == 0 {
		r = DefaultRerank
	}
	if cfg.Precision > Int8 {
		return nil, fmt.Errorf("dense index %q: unknown precision %d; use Float32 or Int8", cfg.Name, cfg.Precision)
	}
	return &Dense{name: cfg.Name, dim: cfg.Dim, words: (cfg.Dim + 63) / 64, rerank: r,
		center: make([]float32, cfg.Dim), vecs: rows{dim: cfg.Dim, prec: cfg.Precision}}, nil
}

// Dim returns the dimension of the space.
func (x *Dense) Dim() int { return x.dim }

// Name returns the space's label (DenseConfig.Name).
func (x *Dense) Name() string { return x.name }

// SetRerank changes how many sketch candidates are rescored exactly (0 restores
// DefaultRerank). More buys recall on hard data at about 60–100 ns per candidate;
// measure recall on the store's own vectors with BruteForce to tune it.
func (x *Dense) SetRerank(r int) error {
	if r < 0 {
		return fmt.Errorf("dense index %q: rerank %d is negative; use 0 for the default %d", x.name, r, DefaultRerank)
	}
	if r == 0 {
		r = DefaultRerank
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.rerank = r
	return nil
}

// Len returns the number of live vectors.
func (x *Dense) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.docs)
}

// Bytes estimates the heap bytes held per the layout (vectors, sketches, the
// doc tables); it excludes slice over-allocation.
func (x *Dense) Bytes() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.vecs.bytes() + len(x.codes)*8 + len(x.docs)*4 + len(x.pos)*4 + len(x.center)*4
}

// Build replaces the contents with docs[i] → vecs[i] in one pass. It is the fast
// open path: the engine reads a column family and builds each space once.
// Duplicate doc numbers are an error and leave the index unchanged.
//
// The sketches are centred where the live index that wrote these vectors
// centred them (centreOf: the mean of the first 256·2^k docs in doc order),
// not on the mean of all of vecs: the centre moves the asymmetric cut-off,
// so a store reopened with another centre than it was filled with would rank
// some queries differently after a restart (TestDenseReopenMatchesAdds,
// TestDenseReopenMatchesWrites).
func (x *Dense) Build(docs []record.DocNum, vecs [][]float32) error {
	if len(docs) != len(vecs) {
		return fmt.Errorf("dense index %q: build got %d doc numbers and %d vectors", x.name, len(docs), len(vecs))
	}
	var maxDoc record.DocNum
	for i, d := range docs {
		if err := checkDoc("dense index "+x.name, d); err != nil {
			return err
		}
		if err := checkVector(fmt.Sprintf("dense index %q: doc %d", x.name, d), vecs[i], x.dim, true); err != nil {
			return err
		}
		maxDoc = max(maxDoc, d)
	}
	pos := make([]int32, 0)
	if len(docs) > 0 {
		pos = make([]int32, int(maxDoc)+1)
	}
	for i := range pos {
		pos[i] = -1
	}
	unit := make([]float32, x.dim)
	store := rows{dim: x.dim, prec: x.vecs.prec}
	// Rows in ascending doc order, as a live index keeps them for searches.
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(docs[a], docs[b]) })
	sorted := make([]record.DocNum, len(docs))
	for i, j := range order {
		d := docs[j]
		if pos[d] >= 0 {
			return fmt.Errorf("dense index %q: build got doc %d twice", x.name, d)
		}
		pos[d], sorted[i] = int32(i), d
		store.push(normalizedInto(unit, vecs[j]))
	}
	c := make([]float32, x.dim)
	centered := centeredAfter(len(docs))
	last := centreOf(c, sorted, &store, centered, unit)
	codes := make([]uint64, len(docs)*x.words)
	for i := range docs {
		sketch(codes[i*x.words:(i+1)*x.words], store.rowInto(unit, i), c)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.center, x.docs, x.vecs, x.codes, x.pos = c, sorted, store, codes, pos
	x.centered, x.centerLast, x.stale, x.disordered = centered, last, false, false
	return nil
}

// centreOf writes into dst the mean of the first m rows, which hold the
// first m docs in doc order (Build lays rows out so and refreshLocked puts
// them back before recentring), and returns the last of those docs (0 when
// m is 0). It is a function of the live vectors alone, whatever order they
// were written in, so Build and the live index agree.
func centreOf(dst []float32, docs []record.DocNum, store *rows, m int, scratch []float32) record.DocNum {
	store.meanInto(dst, m, scratch)
	if m == 0 {
		return 0
	}
	return docs[m-1]
}

// centeredAfter is how many vectors the centre is the mean of for an index
// of n: 0 (a zero centre) below recenterMin, then recenterMin·2^k, the
// largest that fits — Add recentres each time the index doubles.
func centeredAfter(n int) int {
	if n < recenterMin {
		return 0
	}
	m := recenterMin
	for 2*m <= n {
		m *= 2
	}
	return m
}

// sketch writes the sign bits of v−c into dst: bit j set when v[j] > c[j]
// (sketchDefinition in the tests). Each word is built in a register from
// conditional moves: the signs of an embedding minus the centre are coin
// flips, and the branch per bit this replaced was mispredicted every
// other time (BenchmarkSketch, 384 dims: ~1.9 µs → ~0.36 µs).
func sketch(dst []uint64, v, c []float32) {
	c = c[:len(v)]
	for w := range dst {
		var word uint64
		lo := w * 64
		for j, e := range v[lo:min(lo+64, len(v))] {
			var bit uint64
			if e > c[lo+j] {
				bit = 1
			}
			word |= bit << j
		}
		dst[w] = word
	}
}

// Add inserts or replaces the vector of doc. Cost: O(Dim) amortised; each time
// the index doubles past recenterMin vectors, one Add recentres all sketches.
func (x *Dense) Add(doc record.DocNum, vec []float32) error {
	what := fmt.Sprintf("dense index %q: add doc %d", x.name, doc)
	if err := checkDoc(what, doc); err != nil {
		return err
	}
	if err := checkVector(what, vec, x.dim, true); err != nil {
		return err
	}
	sp := unitPool.Get().(*[]float32) // unit is copied into the rows: scratch
	defer unitPool.Put(sp)
	unit := normalizedInto(slices.Grow((*sp)[:0], len(vec))[:len(vec)], vec)
	*sp = unit
	x.mu.Lock()
	defer x.mu.Unlock()
	for int(doc) >= len(x.pos) {
		x.pos = append(x.pos, -1)
	}
	r := x.pos[doc]
	if r < 0 {
		r = int32(len(x.docs))
		x.pos[doc] = r
		x.disordered = x.disordered || r > 0 && doc < x.docs[r-1]
		x.docs = append(x.docs, doc)
		x.vecs.push(unit)
		x.codes = append(x.codes, make([]uint64, x.words)...)
	} else {
		x.vecs.set(int(r), unit)
	}
	// A new doc below the centre's last, or a new vector for one of its docs,
	// changes the centre's set.
	x.stale = x.stale || x.centered > 0 && doc <= x.centerLast
	// The sketch is of the row as stored (Int8 rounds it), as recentring and
	// Build sketch it: one row, one sketch, however the index was filled.
	sketch(x.codes[int(r)*x.words:(int(r)+1)*x.words], x.vecs.rowInto(unit, int(r)), x.center)
	if centeredAfter(len(x.docs)) != x.centered {
		x.refreshLocked()
	}
	return nil
}

// unitPool recycles Add's unit-vector scratch.
var unitPool = sync.Pool{New: func() any { return new([]float32) }}

// recenterMin is the index size from which Add starts recentring.
const recenterMin = 256

// recenterLocked recomputes the centre from the stored vectors (centreOf
// over the first centeredAfter(n) docs) and re-sketches every row. The rows
// must be in doc order (refreshLocked sees to it).
// Embeddings share a large mean direction; sign sketches around zero instead
// of the mean lose much of their recall. Add calls it each time the index
// doubles past recenterMin, so the cost, O(n·Dim), is O(Dim) amortised per
// Add; after Deletes and rewrites of the centre's docs the next search calls
// it once (freshen), however many there were.
// REQUIRES: x.mu held for writing.
func (x *Dense) recenterLocked() {
	row := make([]float32, x.dim) // one scratch row for both passes
	x.centered = centeredAfter(len(x.docs))
	x.centerLast = centreOf(x.center, x.docs, &x.vecs, x.centered, row)
	for r := range len(x.docs) {
		sketch(x.codes[r*x.words:(r+1)*x.words], x.vecs.rowInto(row, r), x.center)
	}
	x.stale = false
}

// refreshLocked puts the rows (and their sketches) in doc order if they are
// not, and recentres if the centre's set changed (stale) or the index no
// longer holds the number of docs it was computed from.
// REQUIRES: x.mu held for writing.
func (x *Dense) refreshLocked() {
	if x.disordered {
		order := make([]int32, 0, len(x.docs))
		for _, r := range x.pos {
			if r >= 0 {
				order = append(order, r)
			}
		}
		docs := make([]record.DocNum, len(order))
		codes := make([]uint64, len(x.codes))
		w := x.words
		for i, r := range order {
			docs[i] = x.docs[r]
			x.pos[docs[i]] = int32(i)
			copy(codes[i*w:(i+1)*w], x.codes[int(r)*w:])
		}
		x.docs, x.vecs, x.codes = docs, x.vecs.permuted(order), codes
		x.disordered = false
	}
	if x.stale || centeredAfter(len(x.docs)) != x.centered {
		x.recenterLocked()
	}
}

// freshen puts the index back where one built from the same vectors would
// be — rows in doc order, the centre of the first docs — if writes since
// the last refresh moved either, so that searches rank the same after a
// restart. It costs O(n·Dim) once after a batch of writes, however many.
func (x *Dense) freshen() {
	x.mu.RLock()
	stale := x.stale || x.disordered
	x.mu.RUnlock()
	if !stale {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stale || x.disordered {
		x.refreshLocked()
	}
}

// Delete removes doc; deleting an absent doc is a no-op that returns false.
// Cost: O(Dim) (the last row moves into the hole).
func (x *Dense) Delete(doc record.DocNum) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if int(doc) >= len(x.pos) || x.pos[doc] < 0 {
		return false
	}
	r, last := int(x.pos[doc]), len(x.docs)-1
	if r != last {
		x.disordered = true
		moved := x.docs[last]
		x.docs[r] = moved
		x.vecs.move(r, last)
		copy(x.codes[r*x.words:(r+1)*x.words], x.codes[last*x.words:])
		x.pos[moved] = int32(r)
	}
	x.docs = x.docs[:last]
	x.vecs.truncate(last)
	x.codes = x.codes[:last*x.words]
	x.pos[doc] = -1
	// One of the centre's docs gone, or an index that no longer holds
	// centered docs: the next search recentres.
	x.stale = x.stale || x.centered > 0 && doc <= x.centerLast || centeredAfter(len(x.docs)) != x.centered
	return true
}

// Vector returns a copy of doc's unit vector (dequantized under Int8), or nil if
// doc is absent.
func (x *Dense) Vector(doc record.DocNum) []float32 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if int(doc) >= len(x.pos) || x.pos[doc] < 0 {
		return nil
	}
	r := int(x.pos[doc])
	return x.vecs.row(r)
}

// Export returns every doc number in ascending order with a copy of its unit
// vector (dequantized under Int8): a deterministic dump for rebuilding or
// comparing indexes.
func (x *Dense) Export() ([]record.DocNum, [][]float32) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	docs := slices.Clone(x.docs)
	slices.Sort(docs)
	vecs := make([][]float32, len(docs))
	for i, d := range docs {
		r := int(x.pos[d])
		vecs[i] = x.vecs.row(r)
	}
	return docs, vecs
}

// rows lists the rows a search may visit: all (nil) or the filter's live docs.
func (x *Dense) rowsLocked(filter *roaring.Bitmap) []int32 {
	if filter == nil {
		return nil
	}
	rows := make([]int32, 0, min(int(filter.GetCardinality()), len(x.docs)))
	it := filter.Iterator()
	for it.HasNext() {
		d := it.Next()
		if int(d) >= len(x.pos) {
			break
		}
		if r := x.pos[d]; r >= 0 {
			rows = append(rows, r)
		}
	}
	return rows
}

// Search returns the k docs most cosine-similar to query (best first), among the
// docs in filter when filter is non-nil. Results are approximate: a true
// neighbour is missed only if the sketch stages drop it before the exact
// rescoring. Cost: O(n·Dim/64) popcounts over the n visited docs, Dim/8 table
// look-ups for each of 6×Rerank of them, and Rerank exact dot products.
func (x *Dense) Search(query []float32, k int, filter *roaring.Bitmap) (Hits, error) {
	x.mu.RLock()
	r := x.rerank
	x.mu.RUnlock()
	return x.search(query, k, filter, r)
}

// search is Search with an explicit rerank depth.
func (x *Dense) search(query []float32, k int, filter *roaring.Bitmap, rerank int) (Hits, error) {
	what := fmt.Sprintf("dense index %q: search", x.name)
	if err := checkK(what, k); err != nil {
		return nil, err
	}
	if err := checkVector(what, query, x.dim, true); err != nil {
		return nil, err
	}
	q := normalized(query)
	x.freshen()
	x.mu.RLock()
	defer x.mu.RUnlock()
	if k == 0 || len(x.docs) == 0 {
		return Hits{}, nil
	}
	qc := make([]uint64, x.words)
	sketch(qc, q, x.center)
	rows := x.rowsLocked(filter)
	n := len(x.docs)
	if rows != nil {
		n = len(rows)
	}
	r := max(rerank, k)
	var cand []int32
	switch {
	case n <= r:
		cand = rows
		if cand == nil {
			cand = make([]int32, n)
			for i := range cand {
				cand[i] = int32(i)
			}
		}
	case n <= prefilterFactor*r:
		cand = x.bestAsymmetricLocked(q, x.allRows(rows, n), r)
	default:
		cand = x.bestAsymmetricLocked(q, x.closestSketchesLocked(qc, rows, n, prefilterFactor*r), r)
	}
	top := newTopK(k)
	for _, row := range cand {
		s := x.vecs.dot(q, int(row))
		top.offer(Hit{Doc: x.docs[row], Score: s})
	}
	return top.sorted(), nil
}

// prefilterFactor is how many more sketches than Rerank the Hamming scan
// keeps for the asymmetric stage. Measured at 100k real e5 vectors (docs/BENCHMARKS.md):
// with 33 near-copies per text the Hamming order alone keeps 0.83 of the exact
// top 10 at depth 2048 and 0.94 at 8192; 8×2048 Hamming candidates ordered
// asymmetrically keep 0.96 at the same 2048 exact rescorings.
const prefilterFactor = 6

// allRows lists rows 0..n-1 when rows is nil (no filter), else rows.
func (x *Dense) allRows(rows []int32, n int) []int32 {
	if rows != nil {
		return rows
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// lutPool recycles the asymmetric lookup tables and score buffers.
var lutPool = sync.Pool{New: func() any { return new(asymScratch) }}

type asymScratch struct {
	lut    []float32
	scores []float32
}

// bestAsymmetricLocked returns the r rows of cand with the highest asymmetric
// score: the float query against the doc's sign bits, Σ_j q_j·(±1), which
// estimates q·(v−c) (the centre's part q·c is the same for every doc) far
// better than the Hamming distance between two sketches, because the query
// is not quantized. Near-copies of one text have almost equal sketches, so
// Hamming order cannot tell them apart from other texts at a similar
// distance; this ordering does, at 48 table look-ups per 384-d doc. Ties at the
// cut-off (one histogram bin) are broken by candidate order. REQUIRES: x.mu
// held; len(cand) > r.
func (x *Dense) bestAsymmetricLocked(q []float32, cand []int32, r int) []int32 {
	if len(cand) <= r {
		return cand
	}
	sc := lutPool.Get().(*asymScratch)
	defer lutPool.Put(sc)
	nb := x.words * 8 // sketch bytes
	if cap(sc.lut) < nb*256 {
		sc.lut = make([]float32, nb*256)
	}
	lut := sc.lut[:nb*256]
	// lut[b*256+v] = Σ over the 8 bits i of byte v: ±q[8b+i] (+ when set).
	for b := range nb {
		t := lut[b*256 : (b+1)*256]
		var base float32
		for i := range 8 {
			if j := b*8 + i; j < len(q) {
				base -= q[j]
			}
		}
		t[0] = base
		for v := 1; v < 256; v++ {
			low := bits.TrailingZeros(uint(v))
			var qj float32
			if j := b*8 + low; j < len(q) {
				qj = q[j]
			}
			t[v] = t[v&(v-1)] + 2*qj
		}
	}
	if cap(sc.scores) < len(cand) {
		sc.scores = make([]float32, len(cand))
	}
	scores := sc.scores[:len(cand)]
	w := x.words
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for i, row := range cand {
		var s float32
		for j, word := range x.codes[int(row)*w : int(row)*w+w] {
			t := lut[j*8*256 : (j+1)*8*256]
			s += t[byte(word)] + t[256+int(byte(word>>8))] + t[512+int(byte(word>>16))] + t[768+int(byte(word>>24))] +
				t[1024+int(byte(word>>32))] + t[1280+int(byte(word>>40))] + t[1536+int(byte(word>>48))] + t[1792+int(byte(word>>56))]
		}
		scores[i] = s
		lo, hi = min(lo, s), max(hi, s)
	}
	// A histogram over the score range finds the cut-off in two linear passes.
	const bins = 4096
	var hist [bins + 1]int32
	scale := float32(0)
	if hi > lo {
		scale = bins / (hi - lo)
	}
	bin := func(s float32) int { return bins - int((s-lo)*scale) } // 0 is the best
	for _, s := range scores {
		hist[bin(s)]++
	}
	cut, above := 0, 0
	for ; cut <= bins; cut++ {
		if above+int(hist[cut]) >= r {
			break
		}
		above += int(hist[cut])
	}
	atCut := r - above
	out := make([]int32, 0, r)
	for i, s := range scores {
		b := bin(s)
		if b < cut || (b == cut && atCut > 0) {
			if b == cut {
				atCut--
			}
			out = append(out, cand[i])
		}
	}
	return out
}

// distPool recycles the per-search distance buffers.
var distPool = sync.Pool{New: func() any { return new([]uint16) }}

// closestSketchesLocked returns the r rows (of rows, or of all when rows is nil)
// whose sketches are nearest qc in Hamming distance; ties at the cut-off are
// broken by row order, which a search finds in doc order (freshen). It runs
// two passes: distances with a histogram, then a collection below the
// cut-off. REQUIRES: x.mu held; n > r.
func (x *Dense) closestSketchesLocked(qc []uint64, rows []int32, n, r int) []int32 {
	bp := distPool.Get().(*[]uint16)
	defer distPool.Put(bp)
	if cap(*bp) < n {
		*bp = make([]uint16, n)
	}
	dist := (*bp)[:n]
	hist := make([]int32, x.words*64+1)
	w := x.words
	if rows == nil && w == 6 { // 384-d, every model here: the words stay in registers
		x.hamming6(qc, dist, hist)
	} else {
		for i := range n {
			row := i
			if rows != nil {
				row = int(rows[i])
			}
			c := x.codes[row*w : row*w+w]
			c = c[:len(qc)]
			var h int
			for j, q := range qc {
				h += bits.OnesCount64(q ^ c[j])
			}
			dist[i] = uint16(h)
			hist[h]++
		}
	}
	cut, below := 0, 0 // rows with distance < cut number below
	for ; cut < len(hist); cut++ {
		if below+int(hist[cut]) >= r {
			break
		}
		below += int(hist[cut])
	}
	atCut := r - below // how many rows at distance cut to take
	out := make([]int32, 0, r)
	for i, d := range dist {
		if int(d) < cut || (int(d) == cut && atCut > 0) {
			if int(d) == cut {
				atCut--
			}
			row := int32(i)
			if rows != nil {
				row = rows[i]
			}
			out = append(out, row)
		}
	}
	return out
}

// hamming6 is closestSketchesLocked's first pass for 6-word sketches over
// every row: dist[i] and its histogram.
func (x *Dense) hamming6(qc []uint64, dist []uint16, hist []int32) {
	q0, q1, q2, q3, q4, q5 := qc[0], qc[1], qc[2], qc[3], qc[4], qc[5]
	codes := x.codes[:len(dist)*6]
	for i := range dist {
		c := codes[i*6 : i*6+6 : i*6+6]
		h := bits.OnesCount64(q0^c[0]) + bits.OnesCount64(q1^c[1]) + bits.OnesCount64(q2^c[2]) +
			bits.OnesCount64(q3^c[3]) + bits.OnesCount64(q4^c[4]) + bits.OnesCount64(q5^c[5])
		dist[i] = uint16(h)
		hist[h]++
	}
}

// BruteForce returns the exact top k by cosine over the live docs (in filter when
// non-nil). It is the baseline Search is measured against; cost O(n·Dim).
func (x *Dense) BruteForce(query []float32, k int, filter *roaring.Bitmap) (Hits, error) {
	what := fmt.Sprintf("dense index %q: brute-force search", x.name)
	if err := checkK(what, k); err != nil {
		return nil, err
	}
	if err := checkVector(what, query, x.dim, true); err != nil {
		return nil, err
	}
	q := normalized(query)
	x.mu.RLock()
	defer x.mu.RUnlock()
	top := newTopK(k)
	score := func(row int) {
		top.offer(Hit{Doc: x.docs[row], Score: x.vecs.dot(q, row)})
	}
	if rows := x.rowsLocked(filter); rows != nil {
		for _, r := range rows {
			score(int(r))
		}
	} else {
		for r := range x.docs {
			score(r)
		}
	}
	return top.sorted(), nil
}
