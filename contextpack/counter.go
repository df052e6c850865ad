package contextpack

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cgraph/cgraph/models/tokenizer"
)

// TokenizerCounter counts the tokens a Hugging Face tokenizer makes of a
// text, without the special tokens a model adds around a sequence.
type TokenizerCounter struct {
	T     *tokenizer.Tokenizer
	Label string // e.g. "e5-small-v2 WordPiece"
}

// Count returns the token count; a text the tokenizer refuses (it only
// refuses empty text and invalid UTF-8) is counted as Approx does.
func (c TokenizerCounter) Count(text string) int {
	if strings.TrimSpace(text) == "" {
		return 0
	}
	e, err := c.T.Encode(text, 0)
	if err != nil {
		return Approx{}.Count(text)
	}
	return len(e.IDs) - c.T.SpecialCount()
}

func (c TokenizerCounter) Name() string { return c.Label }

// Approx counts one token per three bytes, rounded up: more than real
// tokenizers give for English and about what they give for code, so a budget
// counted with it is rarely exceeded. For when no tokenizer is installed.
type Approx struct{}

func (Approx) Count(text string) int { return (len(text) + 2) / 3 }

func (Approx) Name() string { return "approximate (1 token per 3 bytes; no tokenizer installed)" }

// e5Dirs are the model directories, in order of preference, whose
// tokenizer.json is the e5-small-v2 WordPiece tokenizer: the int8 build's
// and the fp32 one's (one file, two installs).
var e5Dirs = []string{"e5-small-v2-q", "e5-small-v2"}

// e5Label names the e5 tokenizer in every packing.
const e5Label = "e5-small-v2 WordPiece tokenizer"

// ModelsCounter is the Counter of context packing for the models directory
// dir: the e5-small-v2 tokenizer installed there, loaded on the first count
// (parsing it takes a good part of a second, which a process that never
// packs should not pay), else Approx. A tokenizer file that is there but
// does not load is reported once through warn and counted with Approx; it
// is not replaced by the other build's. Safe for concurrent use.
func ModelsCounter(dir string, warn func(format string, args ...any)) Counter {
	for _, id := range e5Dirs {
		path := filepath.Join(dir, id, "tokenizer.json")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		return &lazyCounter{path: path, warn: warn}
	}
	return Approx{}
}

// lazyCounter is a TokenizerCounter loaded on first use, or Approx when
// the load fails.
type lazyCounter struct {
	path  string
	warn  func(format string, args ...any)
	once  sync.Once
	count Counter // set once by load
}

func (c *lazyCounter) load() Counter {
	c.once.Do(func() {
		t, err := tokenizer.Load(c.path)
		if err != nil {
			c.warn("tokenizer %s: %v: counting tokens approximately", c.path, err)
			c.count = Approx{}
			return
		}
		c.count = TokenizerCounter{T: t, Label: e5Label}
	})
	return c.count
}

func (c *lazyCounter) Count(s string) int { return c.load().Count(s) }
func (c *lazyCounter) Name() string       { return c.load().Name() }
