package mcpserver

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cgraph/cgraph/engine"
)

// ellipsis ends a snippet that was cut.
const ellipsis = " …"

// moreNote is the one note an answer with cut snippets carries: the "more"
// handle.
const moreNote = "a snippet ending in … is cut: get_memory ID (or the resource memory://ID) reads the memory whole"

// snippet is the start of text up to max runes: whole when it fits, else cut
// at the last sentence or line end in the second half of the window, else
// at the last space, and ended with ellipsis.
func snippet(text string, max int) string {
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	cut := 0
	for i := range text { // byte offset of rune max
		if cut == max {
			cut = i
			break
		}
		cut++
	}
	win := text[:cut]
	end := -1
	for _, sep := range []string{"\n", ". ", "; ", "! ", "? "} {
		if k := strings.LastIndex(win, sep); k > end {
			end = k + len(strings.TrimRight(sep, " "))
		}
	}
	if end < len(win)/2 {
		end = strings.LastIndexFunc(win, unicode.IsSpace)
	}
	if end <= 0 {
		end = len(win)
	}
	return strings.TrimRightFunc(win[:end], unicode.IsSpace) + ellipsis
}

// spaceWords names each space in an agent's words, not slot numbers.
var spaceWords = map[engine.SlotID]string{
	engine.E1: "meaning", engine.E2: "recency", engine.E3: "time of day", engine.E4: "session order",
	engine.E5: "causal", engine.E6: "keywords", engine.E7: "code", engine.E8: "code structure",
	engine.E9: "spelling", engine.E10: "intent", engine.E11: "names", engine.E12: "token match",
	engine.E13: "expanded keywords",
}

// why says why a hit matched, short: the query's words the memory holds
// (at most four) and the one or two spaces that carried it (the largest
// fusion contributions; a second only when it is at least half the first).
// Empty when there is neither (a listing without a query).
func why(words []string, slots engine.SlotScores, content string) string {
	var parts []string
	if len(words) > 0 {
		have := map[string]bool{}
		for _, w := range splitWords(content) {
			have[w] = true
		}
		var got []string
		for _, w := range words {
			if have[w] && len(got) < 4 {
				got = append(got, w)
			}
		}
		if len(got) > 0 {
			parts = append(parts, "words: "+strings.Join(got, ", "))
		}
	}
	type carried struct {
		slot engine.SlotID
		c    float64
	}
	var cs []carried
	for slot, sc := range slots {
		if sc.Contribution > 0 {
			cs = append(cs, carried{slot, sc.Contribution})
		}
	}
	slices.SortFunc(cs, func(a, b carried) int {
		if c := cmp.Compare(b.c, a.c); c != 0 {
			return c
		}
		return cmp.Compare(a.slot.Index(), b.slot.Index())
	})
	if len(cs) == 0 && len(slots) == 1 { // one space searched (embedder_first): it carried the hit
		for slot := range slots {
			cs = append(cs, carried{slot, 1})
		}
	}
	var names []string
	for i, c := range cs {
		if i == 2 || (i == 1 && c.c < cs[0].c/2) {
			break
		}
		names = append(names, spaceWords[c.slot])
	}
	if len(names) > 0 {
		parts = append(parts, "spaces: "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// stopWords are query words that say nothing about why a memory matched.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for are was were but not you your with this that these those from into what when where which who why how
		does did has have had can could should would will its our their there here than then them they about after before over under
		use used using all any each some more most other such only also just very why what make get got one two`) {
		stopWords[w] = true
	}
}

// queryWords are the query's words that can explain a match: lower-cased,
// identifiers split (camelCase, snake_case), stop words and words under
// three letters dropped, each once, in query order.
func queryWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		if len([]rune(w)) < 3 || stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// splitWords lower-cases text into words: runs of letters and digits, with
// camelCase and snake_case identifiers given both whole and in parts.
func splitWords(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		parts := strings.FieldsFunc(f, func(r rune) bool { return r == '_' })
		for _, p := range parts {
			out = append(out, strings.ToLower(p))
			start := 0
			rs := []rune(p)
			for i := 1; i < len(rs); i++ {
				if unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i-1]) {
					out = append(out, strings.ToLower(string(rs[start:i])))
					start = i
				}
			}
			if start > 0 {
				out = append(out, strings.ToLower(string(rs[start:])))
			}
		}
		if len(parts) > 1 {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

// dropCommonBadges removes from every hit a kind of badge that every hit
// carries (recent and periodic on a fresh store, faded on an idle one): it
// tells the agent nothing. A badge's kind is its first word.
func dropCommonBadges(hs []Hit) {
	if len(hs) < 2 {
		return
	}
	kind := func(b string) string { k, _, _ := strings.Cut(b, " "); return k }
	for _, b := range slices.Clone(hs[0].Badges) {
		k := kind(b)
		all := true
		for _, h := range hs[1:] {
			all = all && slices.ContainsFunc(h.Badges, func(x string) bool { return kind(x) == k })
		}
		if !all {
			continue
		}
		for i := range hs {
			hs[i].Badges = slices.DeleteFunc(hs[i].Badges, func(x string) bool { return kind(x) == k })
			if len(hs[i].Badges) == 0 {
				hs[i].Badges = nil
			}
		}
	}
}
