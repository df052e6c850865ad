package cellar

// The key-value seam. The engine reaches its storage only through these small
// interfaces so that a backend with the same model (column families, atomic
// batches, ordered iteration, snapshots) can replace RocksDB later — TiKV is
// the planned candidate (DESIGN.md, "Storage"). RocksDB is the only
// implementation today (kv_rocks.go).

// Family is the index of a column family in the families table
// (families.go). It is a position in this build's table, not an on-disk
// number: on disk, families are known by name.
type Family int

// kvReader reads keys of one consistent view of the store.
type kvReader interface {
	// get returns a copy of the value of key in f, and found=false when the
	// key is absent. Cost: one point lookup.
	get(f Family, key []byte) (value []byte, found bool, err error)
	// view calls fn with the value of key in f where it is found, without
	// copying it: value is valid only during fn, which must not keep it or
	// any part of it (RocksDB pins the block it lies in meanwhile). found is
	// false, and fn not called, when the key is absent. Cost: one point
	// lookup, no copy.
	view(f Family, key []byte, fn func(value []byte) error) (found bool, err error)
	// iter returns an iterator over keys k of f with lower <= k < upper; a
	// nil bound is open. The caller must close it.
	iter(f Family, lower, upper []byte) kvIter
}

// kvIter walks keys in byte order. Key and value return copies that the
// caller may keep. It is not safe for concurrent use.
type kvIter interface {
	first()
	last()
	// seek moves to the first key >= k.
	seek(k []byte)
	// seekForPrev moves to the last key <= k.
	seekForPrev(k []byte)
	next()
	prev()
	valid() bool
	key() []byte
	value() []byte
	err() error
	close()
}

// kvBatch collects puts and deletes that a kvStore applies atomically: after
// a crash either all of them are visible or none is.
type kvBatch interface {
	put(f Family, key, value []byte)
	del(f Family, key []byte)
	count() int
	// destroy frees the batch; it must be called once, written or not.
	destroy()
}

// kvSnapshot is a frozen view; release it when done.
type kvSnapshot interface {
	kvReader
	release()
}

// kvFamilyStats are a backend's estimates for one family.
type kvFamilyStats struct {
	keys, bytes uint64
}

// kvStore is one open store. Implementations must be safe for concurrent
// use; batches and iterators are not. A goroutine holding an iterator or a
// snapshot must not call the store's own methods until it closes or
// releases it (a follower's views hold a read lock that catchUp waits for).
type kvStore interface {
	kvReader
	newBatch() kvBatch
	// write applies b atomically; sync asks for an fsync of the log first.
	write(b kvBatch, sync bool) error
	snapshot() kvSnapshot
	// catchUp makes a read-only follower see the writer's latest writes. It
	// is a no-op on the writer.
	catchUp() error
	familyStats(f Family) kvFamilyStats
	close() error
}
