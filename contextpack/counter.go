package contextpack

import (
	"strings"

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
