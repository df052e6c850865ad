package indexes

import (
	"time"

	"github.com/cgraph/cgraph/record"
)

// DocTimes is the table the temporal slots score from after retrieval
// (E2 recency, E3 periodicity, E4 session position): each document's
// creation time, session and sequence. The slots' own embedders turn a
// row into a value at query time (cheap and deterministic), so nothing more
// is kept. It is not safe for concurrent use: the caller locks.
type DocTimes struct {
	rows     map[record.DocNum]timeRow
	sessions map[string]uint32 // session → id; 0 = none
}

type timeRow struct {
	createdMilli int64
	session      uint32
	seq          uint64
}

// NewDocTimes returns an empty table.
func NewDocTimes() *DocTimes {
	return &DocTimes{rows: map[record.DocNum]timeRow{}, sessions: map[string]uint32{}}
}

// Set records doc's creation time (to the millisecond), session and
// sequence number.
func (t *DocTimes) Set(doc record.DocNum, created time.Time, session string, seq uint64) {
	row := timeRow{createdMilli: created.UnixMilli(), seq: seq}
	if session != "" {
		id, ok := t.sessions[session]
		if !ok {
			id = uint32(len(t.sessions) + 1)
			t.sessions[session] = id
		}
		row.session = id
	}
	t.rows[doc] = row
}

// Remove drops doc.
func (t *DocTimes) Remove(doc record.DocNum) { delete(t.rows, doc) }

// Get returns doc's creation time and sequence number, and whether it
// belongs to session (never when session is ""); ok is false when doc has
// no row.
func (t *DocTimes) Get(doc record.DocNum, session string) (created time.Time, seq uint64, inSession, ok bool) {
	row, ok := t.rows[doc]
	if !ok {
		return time.Time{}, 0, false, false
	}
	in := row.session != 0 && t.sessions[session] == row.session
	return time.UnixMilli(row.createdMilli).UTC(), row.seq, in, true
}

// Bytes estimates the heap size.
func (t *DocTimes) Bytes() int64 { return int64(len(t.rows)) * (24 + 4 + 16) }
