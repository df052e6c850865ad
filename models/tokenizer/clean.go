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
// NUL, U+FFFD and every "other" character (Cc except \t \n \r, Cf, Co, Cs, and code
// points unassigned in Go's Unicode tables). hftokenizer drops only Cc, so zero-width
// spaces, joiners, byte-order marks and private-use characters would otherwise become
// [UNK] or glue words together differently.
//
// Known residual difference: the Rust library's category tables are older than Go's,
// so a character assigned in a recent Unicode version (some new emoji) is dropped by
// the reference but kept (usually as [UNK]) here.
func removedByBertClean(r rune) bool {
	if r < 0x80 { // ASCII: the C0 controls and DEL, but tab, newline and carriage return
		return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7F
	}
	switch r {
	case '\t', '\n', '\r':
		return false
	case 0, 0xFFFD:
		return true
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
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
