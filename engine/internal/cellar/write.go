package cellar

import (
	"encoding/binary"
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// BatchErr names memory i of n in err, when there is more than one.
func BatchErr(n, i int, err error) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("memory %d of %d: %w", i+1, n, err)
}

// lastSequence returns the highest stored sequence of session, or 0.
func (e *Store) lastSequence(session string) (uint64, error) {
	p := sequencePrefix(session)
	it := e.kv.iter(FamSequence, p, prefixEnd(p))
	defer it.close()
	it.last()
	if !it.valid() {
		return 0, it.err()
	}
	k := it.key()
	if len(k) != len(p)+8 {
		return 0, fmt.Errorf("sequence key %x: %w", k, record.ErrCorrupt)
	}
	return binary.BigEndian.Uint64(k[len(p):]), nil
}
