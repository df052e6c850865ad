package engine

import (
	"context"
	"sync"
	"time"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/record"
)

// UseFlushInterval is how often the uses that searches count are written
// to the store. A crash loses at most the last interval's counts (the
// memories themselves are never at risk); Close writes the rest.
const UseFlushInterval = time.Minute

// useFlushAt is how many distinct memories with uses waiting make the
// counter write before the interval ends, bounding its RAM.
const useFlushAt = 50_000

// useLog counts the memories that searches hand out — a memory an agent is
// shown is a memory in use, as much as one it reads by id — and writes the
// counts in batches (cellar.RecordUses), so a search costs no write. Decay
// (DecayOf) and Maintain then follow use. It is safe for concurrent use.
type useLog struct {
	store *cellar.Store
	now   func() time.Time

	mu      sync.Mutex
	pending map[record.ID]cellar.Use // guarded by mu

	kick     chan struct{} // a full log asks the flusher to write now
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

func newUseLog(store *cellar.Store, now func() time.Time) *useLog {
	return &useLog{store: store, now: now, pending: map[record.ID]cellar.Use{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// note counts one use of each memory, now.
func (u *useLog) note(ms []record.Memory) {
	if u == nil || len(ms) == 0 {
		return
	}
	at := u.now()
	u.mu.Lock()
	for _, m := range ms {
		p := u.pending[m.ID]
		p.Count++
		if at.After(p.Last) {
			p.Last = at
		}
		u.pending[m.ID] = p
	}
	full := len(u.pending) >= useFlushAt
	u.mu.Unlock()
	if full {
		select {
		case u.kick <- struct{}{}:
		default:
		}
	}
}

// waiting reports whether id was used since the last flush (its use not
// yet in its record).
func (u *useLog) waiting(id record.ID) bool {
	if u == nil {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.pending[id]
	return ok
}

// flush writes the counted uses. On failure they are counted again for the
// next flush.
func (u *useLog) flush(ctx context.Context) error {
	if u == nil {
		return nil
	}
	u.mu.Lock()
	batch := u.pending
	u.pending = map[record.ID]cellar.Use{}
	u.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := u.store.RecordUses(ctx, batch); err != nil {
		u.mu.Lock()
		for id, b := range batch {
			p := u.pending[id]
			p.Count += b.Count
			if b.Last.After(p.Last) {
				p.Last = b.Last
			}
			u.pending[id] = p
		}
		u.mu.Unlock()
		return err
	}
	return nil
}

// run flushes every interval (or when the log is full) until close.
func (u *useLog) run(interval time.Duration) {
	defer close(u.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-u.stop:
			return
		case <-t.C:
		case <-u.kick:
		}
		// A failed write keeps its counts for the next tick; Close reports
		// the error if it persists.
		_ = u.flush(context.Background())
	}
}

// close stops the flusher and writes what is left; a second close writes
// nothing new and returns nil (the store is closed by then).
func (u *useLog) close() error {
	if u == nil {
		return nil
	}
	first := false
	u.stopOnce.Do(func() { close(u.stop); first = true })
	<-u.done
	if !first {
		return nil
	}
	return u.flush(context.Background())
}

// FlushUses writes the uses searches counted since the last write (they are
// written every UseFlushInterval and at Close anyway). Maintain calls it so
// that decay sees every use.
func (s *Engine) FlushUses(ctx context.Context) error {
	return s.uses.flush(ctx)
}
