// Package codeview gives the text the dense encoders read of a memory and of
// a query (docs/BENCHMARKS.md "The code view"): View puts the name a
// function defines (keywords.DefinedName) first as words and splits every
// identifier; Query splits a query's identifiers. Every function is pure and
// does no I/O: the views decide stored values (Recipe), so a change here is
// a change of the producers of the slots that read them.
package codeview

import (
	"strings"

	"github.com/cgraph/cgraph/embedders/keywords"
)

// View is the text the dense and token slots (E1, E5, E7, E10, E12)
// encode for a stored memory: the defined function's name as words, then
// the text with every identifier split into its words ("func (h *Header)
// FileInfo() fs.FileInfo {" becomes "file info: func (h *Header) File Info()
// fs.File Info {"). The encoders' word pieces cut "FileInfo" into fragments
// they rarely saw in training; split, they read the words a doc comment
// uses, and the name first is the summary a query paraphrases (+0.03 to
// +0.09 nDCG@10 on Go, Java and JavaScript pairs, level on Python:
// docs/BENCHMARKS.md "The code view"). A definition under a leading comment
// gets no name: the comment already summarises it in words, first, and a
// name before it would push it back (bge's CLS vector leans on the start).
// Prose without a definition on its first line only has its identifiers
// split. Queries get their identifiers split too (Query), never a name.
//
// View must stay a pure function of the text: it decides those slots'
// stored values, so a change to it is a change of their producers
// (Recipe).
func View(text string) string {
	split := keywords.SplitIdentifiers(text)
	if strings.TrimSpace(split) == "" { // "_": only separators; keep what was written
		split = text
	}
	name, commented := keywords.DefinedName(text)
	if name == "" || commented { // a doc comment says it in words already, first
		return split
	}
	return strings.ToLower(keywords.SplitIdentifiers(name)) + ": " + split
}

// Query is the text E1, E5, E7 and E10 encode for a query: its
// identifiers split into words ("why does parseHTTPRequest fail" → "why does
// parse HTTP Request fail"), as the memories' code view has them. No name
// goes first: a query defines nothing. A query of separators only stays as
// written. Not part of any producer: queries are never stored.
func Query(q string) string {
	if s := keywords.SplitIdentifiers(q); strings.TrimSpace(s) != "" {
		return s
	}
	return q
}

// Recipe names View in the producers of the slots that read
// documents through it; change it with View.
const Recipe = "code view v2: the defined name's words first, identifiers split" // v2: the name finder reads Rust's pub(crate), generics and attributes, and a "new" a keyword defines

// Note says in a slot's representation (embedders, --explain) that
// it reads memories through View.
const Note = "memories read through their code view (a function's name first, identifiers split)"
