package neural

import (
	"fmt"
	"regexp"
	"strings"

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

// Intent and context (E10). The intent of a memory is what it is for: its
// goal and imperative sentences ("Add retries so that…", "We need to…",
// "TODO: …"); the context is the rest (what happened, what the code is).
// A memory with no such sentence takes its first sentence as the intent (the
// summary line). E10 runs a different model (all-MiniLM-L6-v2) than E1 on
// these split inputs, each labelled ("goal: ", "context: "), so it is never a
// renamed copy of E1.
var (
	sentenceEnd = regexp.MustCompile(`([.!?])\s+|\n\s*\n|\n[-*] `)
	intentCue   = regexp.MustCompile(`(?i)^(?:(?:please|let's|we|i|you)\s+(?:need|want|should|must|have)\b|(?:add|fix|make|implement|use|avoid|ensure|allow|support|remove|replace|refactor|rename|move|update|improve|handle|prevent|reduce|speed up|document|test|check|build|create|write|set|enable|disable|migrate|split|keep|stop|find|get|return|search|store)\b|todo\b|goal\b|in order to\b|the (?:aim|goal|purpose|point) )|\b(?:so that|in order to|we want to|we need to|the goal is|the aim is|should be able to)\b`)
)

const (
	intentLabel  = "goal: "
	contextLabel = "context: "
)

// splitSentences cuts text into sentences at ., !, ? followed by space,
// blank lines and list items.
func splitSentences(text string) []string {
	marked := sentenceEnd.ReplaceAllString(text, "$1\x00")
	var out []string
	for _, s := range strings.Split(marked, "\x00") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// e10Sides returns the intent text (side A) and the context text (side B).
func e10Sides(text string) (intent, context, reason string) {
	ss := splitSentences(text)
	var in, ctx []string
	for _, s := range ss {
		if intentCue.MatchString(s) {
			in = append(in, s)
		} else {
			ctx = append(ctx, s)
		}
	}
	if len(in) == 0 && len(ctx) > 0 {
		in, ctx = ctx[:1], ctx[1:]
	}
	if len(ctx) == 0 {
		ctx = ss // one sentence: its context is itself, read as context
	}
	return intentLabel + strings.Join(in, " "), contextLabel + strings.Join(ctx, " "), ""
}

// e10Query labels the query as the side it is embedded as.
func e10Query(text string, side fingerprint.Side) string {
	if side == fingerprint.SideA {
		return intentLabel + text
	}
	return contextLabel + text
}

// buildE10: all-MiniLM-L6-v2 over the intent / context split of the text.
func buildE10(l *loader) (embedders.Embedder, error) {
	id := l.cfg.variant(l.mf, modelMiniLM)
	lm, why, err := l.get(id)
	if err != nil || lm == nil {
		return unavailable(fingerprint.E10, why), err
	}
	return &pairEmbedder{slot: fingerprint.E10, lm: lm, docSides: e10Sides, querySide: e10Query,
		status: embedders.SlotStatus{State: fingerprint.StatusPresent, Dims: lm.meta.Dims,
			Producer: lm.producer("E10 intent/context v1", intentCue.String(), sentenceEnd.String(), intentLabel, contextLabel),
			Representation: fmt.Sprintf("as-intent (goal and imperative sentences, else the first) / as-context (the rest) %d-d vectors, %s — a different model and input than E1; onnx sha256 %s",
				lm.meta.Dims, id, lm.short())}}, nil
}
