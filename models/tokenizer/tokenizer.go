// Package tokenizer turns text into model token ids with a Hugging Face tokenizer.json,
// using the pure-Go github.com/gomlx/go-huggingface hftokenizer (no Rust library).
//
// It owns the fixes for that library's known pitfalls:
//   - a tokenizer.json without model.type silently yields [UNK] for every subword:
//     Load infers the type (WordPiece, BPE, Unigram) from the model fields, or refuses
//     the file with an error saying what to add;
//   - its cost grows faster than the input length: Encode tokenizes in pieces of about
//     ChunkTarget bytes (never more than ChunkBytes), cut at word boundaries so the ids
//     do not change;
//   - it ignores the file's truncation setting: Encode truncates itself, keeping the
//     special tokens around the sequence ([CLS] … [SEP]) and reporting Truncated;
//   - it is slow (~2.5 MB/s even in pieces): for the BERT WordPiece files the default
//     models ship (e5, bge, MiniLM: BertNormalizer, BertPreTokenizer, WordPiece) Encode
//     runs its own pipeline instead (bert.go: one pass, ~30 MB/s, the same ids —
//     TestParity against the Rust library, TestNativeMatchesHF against hftokenizer).
//
// It must not know about models, pooling or ONNX; package runtime does that.
package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
)

// TokenID is one entry of a model vocabulary.
type TokenID int32

// Errors for bad input. Callers test with errors.Is; messages carry the details.
var (
	// ErrEmptyText: the text is empty or yields no token (only whitespace or control characters).
	ErrEmptyText = errors.New("empty text")
	// ErrInvalidUTF8: the text is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("text is not valid UTF-8")
)

// ChunkTarget is the size of the pieces Encode hands to the underlying tokenizer, and
// ChunkBytes the most it ever hands over at once (see Chunks).
const (
	ChunkTarget = 32
	ChunkBytes  = 2048
)

// Encoding is the tokenized form of one text.
type Encoding struct {
	// IDs are the token ids including the special tokens around the sequence.
	IDs []TokenID
	// Special marks, per entry of IDs, the tokens the post-processor added ([CLS], [SEP]).
	Special []bool
	// Truncated says the text had more tokens than the maximum length; the tail was dropped.
	Truncated bool
}

// Tokenizer encodes text. It is safe for concurrent use: after Load nothing mutates it,
// and the underlying hftokenizer only reads its tables while encoding.
type Tokenizer struct {
	hf           *hftokenizer.Tokenizer // special tokens off; Encode adds them itself
	prefix       []TokenID              // special tokens before a single sequence
	suffix       []TokenID              // special tokens after it
	padID        TokenID
	modelType    string
	typeInferred bool
	vocabSize    int
	bertClean    bool           // apply bertClean before hftokenizer (see removedByBertClean)
	native       *bertWordPiece // BERT files: Encode's own pipeline instead of hftokenizer's (nil: none)
	fileMaxLen   int            // truncation.max_length in the file, 0 when absent
}

// Load reads a tokenizer.json file. See LoadBytes.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer %s: %w", path, err)
	}
	t, err := LoadBytes(data)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

// LoadBytes parses the contents of a tokenizer.json. A file without model.type gets the
// type inferred from its model fields (reported by TypeInferred); a file whose type
// cannot be inferred or is not supported is refused.
func LoadBytes(data []byte) (*Tokenizer, error) {
	data, typ, inferred, err := fixModelType(data)
	if err != nil {
		return nil, err
	}
	hf, err := hftokenizer.NewFromContent(nil, data)
	if err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	if err := hf.With(api.EncodeOptions{AddSpecialTokens: false}); err != nil {
		return nil, fmt.Errorf("configure tokenizer: %w", err)
	}
	var top struct {
		Normalizer json.RawMessage `json:"normalizer"`
		Truncation *struct {
			MaxLength int `json:"max_length"`
		} `json:"truncation"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json normalizer: %w", err)
	}
	t := &Tokenizer{hf: hf, modelType: typ, typeInferred: inferred, bertClean: bertCleanEnabled(top.Normalizer)}
	t.native, _ = newBertWordPiece(data)
	if top.Truncation != nil {
		t.fileMaxLen = top.Truncation.MaxLength
	}
	// hftokenizer's VocabSize counts added tokens twice; the largest id is what a model
	// output must cover.
	for _, id := range hf.GetVocab() {
		t.vocabSize = max(t.vocabSize, id+1)
	}
	if t.vocabSize == 0 {
		return nil, errors.New("tokenizer.json has an empty model.vocab; use the tokenizer.json that ships with the model")
	}
	if id, err := hf.SpecialTokenID(api.TokPad); err == nil {
		t.padID = TokenID(id)
	}
	if err := t.learnSpecials(data); err != nil {
		return nil, err
	}
	return t, nil
}

// learnSpecials finds which ids the post-processor puts around a single sequence by
// encoding a probe with and without special tokens.
func (t *Tokenizer) learnSpecials(data []byte) error {
	withSpecial, err := hftokenizer.NewFromContent(nil, data)
	if err != nil {
		return fmt.Errorf("parse tokenizer.json: %w", err)
	}
	if err := withSpecial.With(api.EncodeOptions{AddSpecialTokens: true}); err != nil {
		return fmt.Errorf("configure tokenizer: %w", err)
	}
	for _, probe := range []string{"a", "the", "x", "1", "."} {
		plain := t.hf.Encode(probe)
		full := withSpecial.Encode(probe)
		if len(plain) == 0 {
			continue
		}
		at := indexSeq(full, plain)
		if at < 0 {
			return fmt.Errorf("tokenizer post-processor does not keep the sequence %v intact (got %v); this post_processor is not supported", plain, full)
		}
		t.prefix = toIDs(full[:at])
		t.suffix = toIDs(full[at+len(plain):])
		return nil
	}
	return errors.New("tokenizer encodes none of the probe texts \"a\", \"the\", \"x\", \"1\", \".\"; its vocabulary looks unusable")
}

func indexSeq(haystack, needle []int) int {
	for i := 0; i+len(needle) <= len(haystack); i++ {
		if slices.Equal(haystack[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

func toIDs(in []int) []TokenID {
	out := make([]TokenID, len(in))
	for i, v := range in {
		out[i] = TokenID(v)
	}
	return out
}

// fixModelType returns data with model.type set, the type, and whether it was inferred.
func fixModelType(data []byte) ([]byte, string, bool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, "", false, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	rawModel, ok := top["model"]
	if !ok {
		return nil, "", false, errors.New("tokenizer.json has no \"model\" object; use the tokenizer.json that ships with the model")
	}
	var model map[string]json.RawMessage
	if err := json.Unmarshal(rawModel, &model); err != nil {
		return nil, "", false, fmt.Errorf("parse tokenizer.json model: %w", err)
	}
	var typ string
	if raw, ok := model["type"]; ok {
		if err := json.Unmarshal(raw, &typ); err != nil {
			return nil, "", false, fmt.Errorf("parse tokenizer.json model.type: %w", err)
		}
	}
	if typ != "" {
		switch typ {
		case "WordPiece", "BPE", "Unigram":
			return data, typ, false, nil
		}
		return nil, "", false, fmt.Errorf("tokenizer.json model.type %q is not supported (supported: WordPiece, BPE, Unigram)", typ)
	}
	typ, err := inferType(model)
	if err != nil {
		return nil, "", false, err
	}
	model["type"], _ = json.Marshal(typ)
	if top["model"], err = json.Marshal(model); err != nil {
		return nil, "", false, fmt.Errorf("rewrite tokenizer.json model: %w", err)
	}
	fixed, err := json.Marshal(top)
	if err != nil {
		return nil, "", false, fmt.Errorf("rewrite tokenizer.json: %w", err)
	}
	return fixed, typ, true, nil
}

// inferType names the tokenizer model kind from the fields present, as the Rust
// library's untagged deserialisation does.
func inferType(model map[string]json.RawMessage) (string, error) {
	vocab := bytes.TrimSpace(model["vocab"])
	switch {
	case len(model["merges"]) > 0:
		return "BPE", nil
	case len(vocab) > 0 && vocab[0] == '[':
		return "Unigram", nil
	case len(vocab) > 0 && vocab[0] == '{' && (model["continuing_subword_prefix"] != nil || model["max_input_chars_per_word"] != nil):
		return "WordPiece", nil
	}
	return "", errors.New("tokenizer.json has no model.type and its fields match none of WordPiece, BPE, Unigram; add \"type\" to the model object")
}

// ModelType is the tokenizer model kind: WordPiece, BPE or Unigram.
func (t *Tokenizer) ModelType() string { return t.modelType }

// TypeInferred says the file had no model.type and Load inferred it.
func (t *Tokenizer) TypeInferred() bool { return t.typeInferred }

// VocabSize is the number of ids the tokenizer can produce.
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// FileMaxLength is the truncation max_length the tokenizer.json names (0 when it names
// none). Encode ignores it (the caller's maxLength rules, as with the Rust library's
// per-call settings); a manifest without a max length may fall back to it.
func (t *Tokenizer) FileMaxLength() int { return t.fileMaxLen }

// PadID is the id used to pad a batch (0 when the file names no pad token).
func (t *Tokenizer) PadID() TokenID { return t.padID }

// SpecialCount is the number of special tokens added around one sequence.
func (t *Tokenizer) SpecialCount() int { return len(t.prefix) + len(t.suffix) }

// Encode tokenizes text and adds the special tokens. With maxLength > 0 the result has at
// most maxLength ids: the sequence is cut, the special tokens stay, and Truncated is set;
// tokenizing stops once the limit is passed, so a long text costs only what is kept.
// maxLength must leave room for at least one token besides the special ones.
//
// Errors: ErrEmptyText, ErrInvalidUTF8 (with the byte offset), or a too small maxLength.
func (t *Tokenizer) Encode(text string, maxLength int) (Encoding, error) {
	if text == "" {
		return Encoding{}, fmt.Errorf("%w: give at least one word", ErrEmptyText)
	}
	if !utf8.ValidString(text) {
		return Encoding{}, fmt.Errorf("%w: invalid byte at offset %d; convert the text to UTF-8", ErrInvalidUTF8, invalidOffset(text))
	}
	budget := -1
	if maxLength > 0 {
		budget = maxLength - t.SpecialCount()
		if budget < 1 {
			return Encoding{}, fmt.Errorf("max length %d leaves no room for text besides %d special tokens", maxLength, t.SpecialCount())
		}
	}
	body, truncated := t.encodeBody(text, budget)
	if len(body) == 0 {
		return Encoding{}, fmt.Errorf("%w: the text has no tokens (only whitespace or control characters)", ErrEmptyText)
	}
	n := len(t.prefix) + len(body) + len(t.suffix)
	enc := Encoding{IDs: make([]TokenID, 0, n), Special: make([]bool, n), Truncated: truncated}
	enc.IDs = append(enc.IDs, t.prefix...)
	enc.IDs = append(enc.IDs, body...)
	enc.IDs = append(enc.IDs, t.suffix...)
	for i := range t.prefix {
		enc.Special[i] = true
	}
	for i := range t.suffix {
		enc.Special[n-1-i] = true
	}
	return enc, nil
}

// encodeBody is text's ids without the special tokens, at most budget of
// them (budget < 0: all), and whether more were cut.
func (t *Tokenizer) encodeBody(text string, budget int) ([]TokenID, bool) {
	if t.native != nil {
		ids, truncated := t.native.encode(text, budget, nil)
		if truncated {
			ids = ids[:budget]
		}
		return ids, truncated
	}
	return t.encodeHF(text, budget)
}

// encodeHF is encodeBody through hftokenizer, in Chunks.
func (t *Tokenizer) encodeHF(text string, budget int) ([]TokenID, bool) {
	if t.bertClean {
		text = bertClean(text)
	}
	var body []TokenID
	for chunk := range Chunks(text, ChunkTarget, ChunkBytes) {
		for _, id := range t.hf.Encode(chunk) {
			body = append(body, TokenID(id))
		}
		if budget >= 0 && len(body) > budget {
			return body[:budget], true
		}
	}
	return body, false
}

func invalidOffset(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
