package cli

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/models/tokenizer"
	"github.com/cgraph/cgraph/record"
)

// lazyStore is the store of a stdio `cgraph mcp` while it opens: the server
// answers initialize and tools/list at once, and the first tool call waits
// for the store (opening it and building the model registry take most of a
// second). It implements mcpserver.Store by waiting, then delegating; a
// store that failed to open answers every call with that error.
type lazyStore struct {
	dir   string
	ready chan struct{}
	// Set once before ready closes; read only after.
	s      *engine.Engine
	writer int
	err    error
}

func newLazyStore(dir string) *lazyStore { return &lazyStore{dir: dir, ready: make(chan struct{})} }

// set records the opened store (or why it did not open) and releases the
// waiting calls. It must be called once.
func (l *lazyStore) set(s *engine.Engine, writer int, err error) {
	l.s, l.writer, l.err = s, writer, err
	close(l.ready)
}

// wait returns the open store, the open error, or ctx's.
func (l *lazyStore) wait(ctx context.Context) (*engine.Engine, error) {
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

func (l *lazyStore) Add(ctx context.Context, m record.NewMemory) (record.Memory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.Memory{}, err
	}
	return s.Add(ctx, m)
}

func (l *lazyStore) Get(ctx context.Context, id record.ID) (record.Memory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.Memory{}, err
	}
	return s.Get(ctx, id)
}

func (l *lazyStore) Peek(ctx context.Context, ids []record.ID) ([]record.Memory, []bool, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s.Peek(ctx, ids)
}

func (l *lazyStore) ResolveID(ctx context.Context, text string) (record.ID, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.ID{}, err
	}
	return s.ResolveID(ctx, text)
}

func (l *lazyStore) Update(ctx context.Context, id record.ID, c record.Change) (engine.UpdateResult, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return engine.UpdateResult{}, err
	}
	return s.Update(ctx, id, c)
}

func (l *lazyStore) History(ctx context.Context, id record.ID) ([]record.Memory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.History(ctx, id)
}

func (l *lazyStore) RevisionsAt(ctx context.Context, ms []record.Memory, t time.Time) error {
	s, err := l.wait(ctx)
	if err != nil {
		return err
	}
	return s.RevisionsAt(ctx, ms, t)
}

func (l *lazyStore) Link(ctx context.Context, r record.Relation) (record.Relation, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return record.Relation{}, err
	}
	return s.Link(ctx, r)
}

func (l *lazyStore) Unlink(ctx context.Context, from, to record.ID, t record.RelationType) (bool, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return false, err
	}
	return s.Unlink(ctx, from, to, t)
}

func (l *lazyStore) Related(ctx context.Context, id record.ID, o engine.RelatedOptions) ([]engine.RelatedMemory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.Related(ctx, id, o)
}

func (l *lazyStore) Delete(ctx context.Context, id record.ID) error {
	s, err := l.wait(ctx)
	if err != nil {
		return err
	}
	return s.Delete(ctx, id)
}

func (l *lazyStore) Fingerprint(ctx context.Context, id record.ID) (*engine.Fingerprint, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.Fingerprint(ctx, id)
}

func (l *lazyStore) EachFingerprint(ctx context.Context, fn func(m record.Memory, fp *engine.Fingerprint) error) error {
	s, err := l.wait(ctx)
	if err != nil {
		return err
	}
	return s.EachFingerprint(ctx, fn)
}

func (l *lazyStore) Search(ctx context.Context, req engine.SearchRequest) (engine.SearchResult, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return engine.SearchResult{}, err
	}
	return s.Search(ctx, req)
}

func (l *lazyStore) Slots() []engine.SlotInfo {
	s, err := l.wait(context.Background())
	if err != nil {
		return nil
	}
	return s.Slots()
}

func (l *lazyStore) List(ctx context.Context, o record.ListOptions) ([]record.Memory, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, err
	}
	return s.List(ctx, o)
}

func (l *lazyStore) SessionTimeline(ctx context.Context, session string, fromSeq uint64, limit int) (engine.Timeline, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return engine.Timeline{}, err
	}
	return s.SessionTimeline(ctx, session, fromSeq, limit)
}

func (l *lazyStore) SaveTopicSnapshot(ctx context.Context, at time.Time, value []byte, keep int) error {
	s, err := l.wait(ctx)
	if err != nil {
		return err
	}
	return s.SaveTopicSnapshot(ctx, at, value, keep)
}

func (l *lazyStore) LatestTopicSnapshot(ctx context.Context) ([]byte, time.Time, bool, error) {
	s, err := l.wait(ctx)
	if err != nil {
		return nil, time.Time{}, false, err
	}
	return s.LatestTopicSnapshot(ctx)
}

// ReadOnly waits for the store: a write tool asks before it writes.
func (l *lazyStore) ReadOnly() bool {
	s, err := l.wait(context.Background())
	return err != nil || s.ReadOnly()
}

func (l *lazyStore) Dir() string { return l.dir }

// WriterPID is the process holding the writer lock when the store opened
// read-only because of it (0: unknown or not so); mcpserver names it in
// its refusals.
func (l *lazyStore) WriterPID() int {
	if _, err := l.wait(context.Background()); err != nil {
		return 0
	}
	return l.writer
}

// lazyCounter counts tokens with the e5-small-v2 tokenizer, loaded on the
// first count (parsing it takes a good part of a second), else
// approximately; its name is known from the files alone.
type lazyCounter struct {
	a     *App
	path  string
	once  sync.Once
	count contextpack.Counter
}

// lazyTokenCounter is tokenCounter, loaded on first use.
func (a *App) lazyTokenCounter() contextpack.Counter {
	for _, id := range []string{"e5-small-v2-q", "e5-small-v2"} {
		path := filepath.Join(a.ModelsDir, id, "tokenizer.json")
		if _, err := os.Stat(path); err == nil {
			return &lazyCounter{a: a, path: path}
		}
	}
	return contextpack.Approx{}
}

func (c *lazyCounter) load() contextpack.Counter {
	c.once.Do(func() {
		t, err := tokenizer.Load(c.path)
		if err != nil {
			c.a.Warnf("tokenizer %s: %v: counting tokens approximately", c.path, err)
			c.count = contextpack.Approx{}
			return
		}
		c.count = contextpack.TokenizerCounter{T: t, Label: "e5-small-v2 WordPiece tokenizer"}
	})
	return c.count
}

func (c *lazyCounter) Count(s string) int { return c.load().Count(s) }
func (c *lazyCounter) Name() string       { return c.load().Name() }
