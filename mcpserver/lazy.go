package mcpserver

import (
	"context"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// LazyStore is the store of a stdio `cgraph mcp` while it opens: the server
// answers initialize and tools/list at once, and the first tool call waits
// for the store (opening it and building the model registry take most of a
// second). It implements Store by waiting, then delegating; a store that
// failed to open answers every call with that error. It is safe for
// concurrent use; it neither opens nor closes the store (its owner does).
type LazyStore struct {
	dir   string
	ready chan struct{}
	// Set once before ready closes; read only after.
	s      *engine.Engine
	writer int
	err    error
}

// NewLazyStore is the store in dir, to be Set once it opened.
func NewLazyStore(dir string) *LazyStore { return &LazyStore{dir: dir, ready: make(chan struct{})} }

// Set records the opened store (or why it did not open) and releases the
// waiting calls. It must be called once.
func (l *LazyStore) Set(s *engine.Engine, writer int, err error) {
	l.s, l.writer, l.err = s, writer, err
	close(l.ready)
}

// wait returns the open store, the open error, or ctx's.
func (l *LazyStore) wait(ctx context.Context) (*engine.Engine, error) {
	select {
	case <-l.ready:
		if l.err != nil {
			return nil, l.err
		}
		return l.s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *LazyStore) Add(ctx context.Context, m record.NewMemory) (record.Memory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.Memory{}, err
	}
	return s.Add(ctx, m)
}

func (l *LazyStore) Get(ctx context.Context, id record.ID) (record.Memory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.Memory{}, err
	}
	return s.Get(ctx, id)
}

func (l *LazyStore) Peek(ctx context.Context, ids []record.ID) ([]record.Memory, []bool, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s.Peek(ctx, ids)
}

func (l *LazyStore) ResolveID(ctx context.Context, text string) (record.ID, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.ID{}, err
	}
	return s.ResolveID(ctx, text)
}

func (l *LazyStore) Update(ctx context.Context, id record.ID, c record.Change) (engine.UpdateResult, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return engine.UpdateResult{}, err
	}
	return s.Update(ctx, id, c)
}

func (l *LazyStore) History(ctx context.Context, id record.ID) ([]record.Memory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.History(ctx, id)
}

func (l *LazyStore) RevisionsAt(ctx context.Context, ms []record.Memory, t time.Time) error {
	s, err := l.wait(ctx)
	if err != nil {
		return err
	}
	return s.RevisionsAt(ctx, ms, t)
}

func (l *LazyStore) Link(ctx context.Context, r record.Relation) (record.Relation, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.Relation{}, err
	}
	return s.Link(ctx, r)
}

func (l *LazyStore) Unlink(ctx context.Context, from, to record.ID, t record.RelationType) (bool, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return false, err
	}
	return s.Unlink(ctx, from, to, t)
}

func (l *LazyStore) Related(ctx context.Context, id record.ID, o engine.RelatedOptions) ([]engine.RelatedMemory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.Related(ctx, id, o)
}

func (l *LazyStore) Delete(ctx context.Context, id record.ID) error {
	s, err := l.wait(ctx)
	if err != nil {
		return err
	}
	return s.Delete(ctx, id)
}

func (l *LazyStore) Fingerprint(ctx context.Context, id record.ID) (*engine.Fingerprint, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.Fingerprint(ctx, id)
}

func (l *LazyStore) EachFingerprint(ctx context.Context, fn func(m record.Memory, fp *engine.Fingerprint) error) error {
	s, err := l.wait(ctx)
	if err != nil {
		return err
	}
	return s.EachFingerprint(ctx, fn)
}

func (l *LazyStore) Search(ctx context.Context, req engine.SearchRequest) (engine.SearchResult, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return engine.SearchResult{}, err
	}
	return s.Search(ctx, req)
}

func (l *LazyStore) Slots() []engine.SlotInfo {
	s, err := l.wait(context.Background())
	if err != nil {
		return nil
	}
	return s.Slots()
}

func (l *LazyStore) List(ctx context.Context, o record.ListOptions) ([]record.Memory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.List(ctx, o)
}

func (l *LazyStore) SessionTimeline(ctx context.Context, session string, fromSeq uint64, limit int) (engine.Timeline, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return engine.Timeline{}, err
	}
	return s.SessionTimeline(ctx, session, fromSeq, limit)
}

func (l *LazyStore) SaveTopicSnapshot(ctx context.Context, at time.Time, value []byte, keep int) error {
	s, err := l.wait(ctx)
	if err != nil {
		return err
	}
	return s.SaveTopicSnapshot(ctx, at, value, keep)
}

func (l *LazyStore) LatestTopicSnapshot(ctx context.Context) ([]byte, time.Time, bool, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, time.Time{}, false, err
	}
	return s.LatestTopicSnapshot(ctx)
}

func (l *LazyStore) Tally(ctx context.Context) (engine.Tally, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return engine.Tally{}, err
	}
	return s.Tally(ctx)
}

func (l *LazyStore) Stats(ctx context.Context) (record.Stats, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.Stats{}, err
	}
	return s.Stats(ctx)
}

func (l *LazyStore) Maintain(ctx context.Context, o engine.MaintainOptions) ([]engine.MaintainAction, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.Maintain(ctx, o)
}

// ReadOnly waits for the store: a write tool asks before it writes.
func (l *LazyStore) ReadOnly() bool {
	s, err := l.wait(context.Background())
	return err != nil || s.ReadOnly()
}

func (l *LazyStore) Dir() string { return l.dir }

// WriterPID is the process holding the writer lock when the store opened
// read-only because of it (0: unknown or not so); mcpserver names it in
// its refusals.
func (l *LazyStore) WriterPID() int {
	if _, err := l.wait(context.Background()); err != nil {
		return 0
	}
	return l.writer
}

// Opened is the store Set recorded, or why it did not open; only after Set.
func (l *LazyStore) Opened() (*engine.Engine, error) { return l.s, l.err }

// compile-time check: the tools serve a LazyStore like an open one.
var _ Store = (*LazyStore)(nil)
