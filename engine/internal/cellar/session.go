package cellar

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cgraph/cgraph/record"
)

// SessionEntry is one memory of a session, by its sequence number.
type SessionEntry struct {
	Seq uint64
	ID  record.ID
}

// SessionPage is one page of a session's memories in sequence order.
type SessionPage struct {
	Entries []SessionEntry
	// Total is how many memories the session holds.
	Total int
	// Next is the sequence number the next page starts at; 0 when this
	// page is the last.
	Next uint64
}

// Session lists up to limit memories of session with sequence numbers from
// fromSeq on, from the sequence family on one consistent view. Cost: one
// pass over the session's keys.
func (e *Store) Session(ctx context.Context, session string, fromSeq uint64, limit int) (SessionPage, error) {
	if err := e.begin(ctx, false); err != nil {
		return SessionPage{}, err
	}
	defer e.end()
	snap := e.kv.snapshot()
	defer snap.release()
	p := sequencePrefix(session)
	it := snap.iter(FamSequence, p, prefixEnd(p))
	defer it.close()
	var page SessionPage
	for it.first(); it.valid(); it.next() {
		k, v := it.key(), it.value()
		if len(k) != len(p)+8 || len(v) != 16 {
			return SessionPage{}, fmt.Errorf("sequence/%x: %w", k, record.ErrCorrupt)
		}
		page.Total++
		seq := binary.BigEndian.Uint64(k[len(p):])
		switch {
		case seq < fromSeq:
		case len(page.Entries) == limit:
			if page.Next == 0 {
				page.Next = seq
			}
		default:
			page.Entries = append(page.Entries, SessionEntry{Seq: seq, ID: record.ID(v)})
		}
	}
	if err := it.err(); err != nil {
		return SessionPage{}, fmt.Errorf("scan session %q: %w", session, err)
	}
	return page, nil
}
