package neural

import (
	"fmt"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/embedders/structure"
	"github.com/cgraph/cgraph/fingerprint"
)

// noStructure is the E8 note of a memory without code structure.
const noStructure = "no code structure found (imports, calls, definitions or paths)"

// e8Sides splits a memory's structure into the as-source text (what it
// depends on: imports, calls, paths) and the as-target text (what it
// provides: defined symbols, paths). A side with nothing of its own gets the
// whole structure text, so both vectors still describe this memory.
func e8Sides(text string) (src, tgt, reason string) {
	s := structure.Parse(text)
	if s.Empty() {
		return "", "", noStructure
	}
	src, tgt = s.SourceText(), s.TargetText()
	if len(s.Imports)+len(s.Calls)+len(s.Paths) == 0 {
		src = s.Text()
	}
	if len(s.Defines)+len(s.Paths) == 0 {
		tgt = s.Text()
	}
	return src, tgt, ""
}

// e8Query embeds a query's own structure side when it has one (a code
// snippet), else its text (a question such as "who imports net/http").
func e8Query(text string, side fingerprint.Side) string {
	s := structure.Parse(text)
	if s.Empty() {
		return text
	}
	t := s.TargetText()
	if side == fingerprint.SideA {
		t = s.SourceText()
	}
	if t == "" {
		// As in e8Sides: a side with nothing of its own ("calls: w.Reset"
		// has no target side) takes the whole structure text, never "".
		return s.Text()
	}
	return t
}

// buildE8: all-MiniLM-L6-v2 over the structure text of package structure.
func buildE8(l *loader) (embedders.Embedder, error) {
	id := l.cfg.variant(l.mf, modelMiniLM)
	lm, why, err := l.get(id)
	if err != nil || lm == nil {
		return unavailable(fingerprint.E8, why), err
	}
	return &pairEmbedder{slot: fingerprint.E8, lm: lm, docSides: e8Sides, querySide: e8Query,
		status: embedders.SlotStatus{State: fingerprint.StatusPresent, Dims: lm.meta.Dims,
			Producer: lm.producer("E8 structure pair v1", structure.MaxItems),
			Representation: fmt.Sprintf("as-source (imports, calls, paths) / as-target (definitions, paths) %d-d vectors of the structure text, %s; onnx sha256 %s",
				lm.meta.Dims, id, lm.short())}}, nil
}
