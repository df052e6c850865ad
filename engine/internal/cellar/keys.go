package cellar

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cgraph/cgraph/record"
)

// Keys of the default family (store metadata). FORMAT.md lists their values.
var (
	metaMagicKey       = []byte("meta/magic")
	metaFormatKey      = []byte("meta/format_version")
	metaCreatedByKey   = []byte("meta/created_by")
	metaNextDocNumKey  = []byte("meta/next_docnum")
	metaMemoryCountKey = []byte("meta/memory_count")
	metaEditCountKey   = []byte("meta/edit_count")
)

// storeMagic is the value of meta/magic: it tells a cgraph store from any
// other RocksDB directory.
const storeMagic = "cgraph-store"

// docKey is the 4-byte big-endian doc number, the key of per-doc families.
func docKey(d record.DocNum) []byte {
	return binary.BigEndian.AppendUint32(make([]byte, 0, 4), uint32(d))
}

// Prefixes of the docnums family: one family holds both directions.
const (
	docnumByIDPrefix  = 'i'
	docnumByDocPrefix = 'd'
)

// docnumIDKey is 'i' + id (17 bytes) → doc number.
func docnumIDKey(id record.ID) []byte {
	return append([]byte{docnumByIDPrefix}, id[:]...)
}

// docnumDocKey is 'd' + big-endian doc number (5 bytes) → id.
func docnumDocKey(d record.DocNum) []byte {
	return binary.BigEndian.AppendUint32([]byte{docnumByDocPrefix}, uint32(d))
}

// timeKey maps a time to 8 bytes that sort like the time: unix nanoseconds
// with the sign bit flipped, big-endian.
func timeKey(t time.Time) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(t.UnixNano())^(1<<63))
}

// createdKey is timeKey(created) + id (24 bytes), the key of created_index.
func createdKey(t time.Time, id record.ID) []byte {
	return append(timeKey(t), id[:]...)
}

// parseCreatedKey returns the id of a created_index key.
func parseCreatedKey(k []byte) (record.ID, error) {
	var id record.ID
	if len(k) != 24 {
		return id, fmt.Errorf("created_index key of %d bytes, want 24: %w", len(k), record.ErrCorrupt)
	}
	copy(id[:], k[8:])
	return id, nil
}

// sequencePrefix is the big-endian uint16 length of session, then session.
func sequencePrefix(session string) []byte {
	p := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(session)+8), uint16(len(session)))
	return append(p, session...)
}

// sequenceKey is sequencePrefix(session) + big-endian seq → id.
func sequenceKey(session string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(sequencePrefix(session), seq)
}

// prefixEnd returns the smallest key greater than every key starting with p,
// or nil when there is none (p is all 0xff).
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// contentHash is SHA-256 of the project, a zero byte and the content with
// white space collapsed (record.NormalizeContent): two memories of one
// project have the same hash when their contents are equal in the README's
// sense. A project name holds no zero byte (record.CheckProject).
func contentHash(project, content string) [32]byte {
	h := sha256.New()
	h.Write([]byte(project))
	h.Write([]byte{0})
	h.Write([]byte(record.NormalizeContent(content)))
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// contentKey is the content hash + the memory id (48 bytes), the key of
// content_hash; its value is empty.
func contentKey(hash [32]byte, id record.ID) []byte {
	return append(append(make([]byte, 0, 48), hash[:]...), id[:]...)
}
