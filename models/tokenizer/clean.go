package tokenizer

import (
	"encoding/json"
	"strings"
	"unicode"
)

// bertCleanEnabled says the tokenizer.json normalizer is a BertNormalizer with
// clean_text, directly or inside a Sequence normalizer.
func bertCleanEnabled(rawNormalizer json.RawMessage) bool {
	var n struct {
		Type        string            `json:"type"`
		CleanText   bool              `json:"clean_text"`
		Normalizers []json.RawMessage `json:"normalizers"`
	}
	if len(rawNormalizer) == 0 || json.Unmarshal(rawNormalizer, &n) != nil {
		return false
	}
	if n.Type == "BertNormalizer" {
		return n.CleanText
	}
	for _, sub := range n.Normalizers {
		if bertCleanEnabled(sub) {
			return true
		}
	}
	return false
}

// removedByBertClean reports the characters the Rust BertNormalizer's clean_text drops:
// NUL, U+FFFD, and the control (Cc except \t \n \r), format (Cf), private-use (Co) and
// surrogate (Cs) characters. hftokenizer drops only Cc, so zero-width spaces, joiners,
// byte-order marks and private-use characters would otherwise become [UNK] or glue words
// together differently. A code point unassigned in Unicode (Cn) is kept, as the Rust
// library keeps it (it becomes [UNK]): measured with tokenizers 0.23.3 on U+0378,
// U+0380, U+D7FF, U+3097, U+FE1C, U+4ADBF and others (issue 33's tokenizer check; before
// it this dropped them).
func removedByBertClean(r rune) bool {
	if r < 0x80 { // ASCII: the C0 controls and DEL, but tab, newline and carriage return
		return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7F
	}
	switch r {
	case 0xFFFD:
		return true
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// bertClean removes the characters removedByBertClean reports; it returns text itself
// when there is nothing to remove. Cost: one pass over text.
func bertClean(text string) string {
	if strings.IndexFunc(text, removedByBertClean) < 0 {
		return text
	}
	return strings.Map(func(r rune) rune {
		if removedByBertClean(r) {
			return -1
		}
		return r
	}, text)
}
