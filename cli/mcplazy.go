package cli

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/models/tokenizer"
)

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
