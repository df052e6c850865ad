package cellar

import (
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// MemoryHook is the extension point for data a later stage derives from a
// memory (fingerprint, slot vectors, posting lists): it adds that data to the
// same atomic WriteBatch as the memory's record, and removes it in the same
// batch as the delete. A hook error aborts the whole write; nothing of the
// memory is stored.
//
// Families keyed by record.ID or record.DocNum (fingerprints, the dense vector
// families, e12_late_interaction — see FORMAT.md) are already cleaned by
// Delete; DeleteMemory must remove entries shared between memories, such as
// a document's postings in e6_sparse_inverted and e13_splade_inverted.
//
// Hooks run while the engine's write lock is held: they must not call Store
// methods.
type MemoryHook interface {
	AddMemory(tx *Tx, m record.Memory) error
	DeleteMemory(tx *Tx, m record.Memory) error
}

// Tx is the write batch of one Add, AddBatch or Delete as a hook sees it.
// Get reads the store as committed plus the batch's own pending writes, so a
// hook may read-modify-write a key that an earlier memory of the same
// AddBatch changed. A Tx lives for one call only and is not safe for
// concurrent use.
type Tx struct {
	r       kvReader
	b       kvBatch
	pending map[family]map[string]pendingValue
	// payload is what the caller of AddBatchWith handed in for the memory
	// the hooks are adding now; nil otherwise.
	payload any
}

// Payload returns the value the caller of AddBatchWith gave for the memory
// being added (for example its precomputed fingerprint), or nil in Add,
// AddBatch, Delete and UpdateDerived. Hooks use it to write derived data they
// must not compute under the write lock.
func (tx *Tx) Payload() any { return tx.payload }

type pendingValue struct {
	value   []byte
	deleted bool
}

func newTx(r kvReader, b kvBatch) *Tx {
	return &Tx{r: r, b: b, pending: make(map[family]map[string]pendingValue)}
}

func lookupFamily(name string) (family, error) {
	f, ok := familyByName(name)
	if !ok {
		return 0, fmt.Errorf("column family %q is not part of store format %d (known: %v)", name, FormatVersion, familyNames())
	}
	return f, nil
}

// Put sets key to value in the named family, in this batch.
func (tx *Tx) Put(familyName string, key, value []byte) error {
	f, err := lookupFamily(familyName)
	if err != nil {
		return err
	}
	tx.put(f, key, value)
	return nil
}

// Delete removes key from the named family, in this batch.
func (tx *Tx) Delete(familyName string, key []byte) error {
	f, err := lookupFamily(familyName)
	if err != nil {
		return err
	}
	tx.del(f, key)
	return nil
}

// Get returns a copy of the value of key in the named family, seeing this
// batch's pending writes.
func (tx *Tx) Get(familyName string, key []byte) ([]byte, bool, error) {
	f, err := lookupFamily(familyName)
	if err != nil {
		return nil, false, err
	}
	return tx.get(f, key)
}

func (tx *Tx) put(f family, key, value []byte) {
	tx.b.put(f, key, value)
	tx.note(f, key, pendingValue{value: append([]byte{}, value...)})
}

func (tx *Tx) del(f family, key []byte) {
	tx.b.del(f, key)
	tx.note(f, key, pendingValue{deleted: true})
}

func (tx *Tx) note(f family, key []byte, v pendingValue) {
	m := tx.pending[f]
	if m == nil {
		m = make(map[string]pendingValue)
		tx.pending[f] = m
	}
	m[string(key)] = v
}

func (tx *Tx) get(f family, key []byte) ([]byte, bool, error) {
	if v, ok := tx.pending[f][string(key)]; ok {
		if v.deleted {
			return nil, false, nil
		}
		return append([]byte{}, v.value...), true, nil
	}
	return tx.r.get(f, key)
}
