// Package contextpack packs ranked memories into a token budget, for a
// prompt: the best memories first, each whole where it fits, near-duplicates
// of a memory already packed dropped, every item with a citation handle
// ([1], [2], …) the model can cite back. When room is left, memories one
// relation away from the packed ones are attached after them, each marked
// with its relation to the packed item it came from ("fixes [1]"). The
// budget is counted with a real tokenizer (a Counter) over exactly the text
// Markdown renders, so the rendered context never exceeds it.
//
// It must not search or read the store: the caller ranks the candidates and
// says, through Options.Related, which memories a packed one is related to.
package contextpack

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Counter counts the tokens of a text.
type Counter interface {
	Count(text string) int
	// Name says which tokenizer counts (shown with every packing).
	Name() string
}

// Candidate is one ranked memory offered to Pack, best first.
type Candidate struct {
	ID        string
	Type      string
	CreatedAt time.Time
	Score     float64
	Content   string
}

// Item is one packed memory.
type Item struct {
	Cite      string    `json:"cite"` // "[1]", "[2]", … in packing order
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	Score     float64   `json:"score"`
	Content   string    `json:"content"` // cut at a word boundary when Truncated
	Truncated bool      `json:"truncated,omitempty"`
	Tokens    int       `json:"tokens"` // of the item as rendered, header line included
	// RelatedTo is set on a memory attached for its relation to a packed
	// item (Options.Related); such an item has no score.
	RelatedTo *RelatedTo `json:"related_to,omitempty"`
}

// RelatedTo says how an attached memory relates to the packed item it was
// reached from.
type RelatedTo struct {
	Cite     string `json:"cite"` // the packed item's handle, "[1]"
	ID       string `json:"id"`
	Relation string `json:"relation"` // e.g. "fixes"
	// Direction is "out" when the relation runs from the packed item to
	// this memory ("[1] causes this"), "in" when it runs from this memory
	// to the packed item ("fixes [1]").
	Direction string `json:"direction"`
}

// Link is a memory one relation away from a packed item, as Options.Related
// gives it.
type Link struct {
	Relation  string // the relation type's name
	Direction string // "out" (packed item → Memory) or "in" (Memory → packed item)
	Memory    Candidate
}

// Drop is a candidate left out, and why.
type Drop struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Packed is the result of Pack.
type Packed struct {
	Query   string `json:"query"`
	Budget  int    `json:"budget"`
	Tokens  int    `json:"tokens"` // of Markdown() plus every item's Options.Overhead, at most Budget
	Counter string `json:"counter"`
	Items   []Item `json:"items"`
	Dropped []Drop `json:"dropped"`
	// RelatedLeftOut counts the related memories offered by
	// Options.Related that did not fit whole in what was left.
	RelatedLeftOut int `json:"related_left_out,omitempty"`
}

// Options tune Pack.
type Options struct {
	// Budget is the most tokens the rendered context may take. Required.
	Budget int
	// DuplicateJaccard is the word-trigram Jaccard similarity at which a
	// candidate counts as a near-duplicate of a packed item (0 means 0.8).
	DuplicateJaccard float64
	// MinTruncated is the fewest tokens left for which the first candidate
	// that does not fit is cut to fit instead of dropped (0 means 32).
	MinTruncated int
	// Related, when set, is asked for the memories related to each packed
	// item (by its ID), in packing order, once the candidates are packed;
	// those that fit whole in what is left are attached (see Pack). Its
	// error ends Pack.
	Related func(id string) ([]Link, error)
	// Overhead, when set, is what a packed item costs beyond its rendering
	// (e.g. its entry in a citation index sent with the Markdown), in
	// tokens; it is counted against the budget with the item, so the
	// Markdown and the index together stay within it (Packed.Tokens).
	Overhead func(it Item) int
}

// Pack fills the budget with cands in order. A candidate that does not fit
// whole is cut at a word boundary to fill the rest when at least
// MinTruncated tokens remain (then packing stops); otherwise it is dropped
// and smaller ones after it may still fit.
//
// Then, with Options.Related, the memories related to the packed items are
// attached after them, in packing order and in the order Related gives
// them: each at most once, never one that was a candidate or a
// near-duplicate of an item, only whole and only while it fits (those that
// do not are counted in RelatedLeftOut).
func Pack(query string, cands []Candidate, c Counter, o Options) (Packed, error) {
	if o.Budget <= 0 {
		return Packed{}, &BudgetError{Budget: o.Budget}
	}
	if o.DuplicateJaccard == 0 {
		o.DuplicateJaccard = 0.8
	}
	if o.MinTruncated == 0 {
		o.MinTruncated = 32
	}
	p := Packed{Query: query, Budget: o.Budget, Counter: c.Name(), Items: []Item{}, Dropped: []Drop{}}
	used := c.Count(header(query))
	if used > o.Budget {
		return Packed{}, &BudgetError{Budget: o.Budget, Header: used}
	}
	var shingles []map[string]bool
	full := false
	for _, cand := range cands {
		if full {
			p.Dropped = append(p.Dropped, Drop{cand.ID, "over budget"})
			continue
		}
		sh := trigrams(cand.Content)
		if k := duplicateOf(sh, shingles, o.DuplicateJaccard); k >= 0 {
			p.Dropped = append(p.Dropped, Drop{cand.ID, fmt.Sprintf("near-duplicate of %s", p.Items[k].Cite)})
			continue
		}
		it := Item{Cite: fmt.Sprintf("[%d]", len(p.Items)+1), ID: cand.ID, Type: cand.Type, CreatedAt: cand.CreatedAt, Score: cand.Score, Content: cand.Content}
		it.Tokens = c.Count(it.render())
		extra := o.overhead(it)
		left := o.Budget - used - extra
		if it.Tokens > left {
			if left < o.MinTruncated {
				p.Dropped = append(p.Dropped, Drop{cand.ID, "over budget"})
				continue
			}
			cut, ok := fit(it, c, left)
			if !ok {
				p.Dropped = append(p.Dropped, Drop{cand.ID, "over budget"})
				continue
			}
			it, full = cut, true
		}
		used += it.Tokens + extra
		p.Items = append(p.Items, it)
		shingles = append(shingles, sh)
	}
	if o.Related != nil {
		var err error
		if used, err = attach(&p, cands, c, o, used, shingles); err != nil {
			return Packed{}, err
		}
	}
	p.Tokens = c.Count(p.Markdown())
	for _, it := range p.Items {
		p.Tokens += o.overhead(it)
	}
	if p.Tokens > o.Budget { // the parts were counted apart; never hand out more than asked
		return Packed{}, fmt.Errorf("contextpack: rendered context counts %d tokens, over the budget %d (a tokenizer that is not additive over lines)", p.Tokens, o.Budget)
	}
	return p, nil
}

// attach adds the memories related to the packed items while they fit;
// used is the tokens taken so far, and what attach returns.
func attach(p *Packed, cands []Candidate, c Counter, o Options, used int, shingles []map[string]bool) (int, error) {
	seen := make(map[string]bool, len(cands))
	for _, cand := range cands {
		seen[cand.ID] = true
	}
	packed := len(p.Items) // the items attached are not followed further
	for k := range packed {
		from := p.Items[k]
		links, err := o.Related(from.ID)
		if err != nil {
			return used, fmt.Errorf("contextpack: memories related to %s: %w", from.ID, err)
		}
		for _, l := range links {
			m := l.Memory
			if seen[m.ID] {
				continue
			}
			seen[m.ID] = true
			sh := trigrams(m.Content)
			if duplicateOf(sh, shingles, o.DuplicateJaccard) >= 0 {
				continue
			}
			it := Item{Cite: fmt.Sprintf("[%d]", len(p.Items)+1), ID: m.ID, Type: m.Type, CreatedAt: m.CreatedAt, Content: m.Content,
				RelatedTo: &RelatedTo{Cite: from.Cite, ID: from.ID, Relation: l.Relation, Direction: l.Direction}}
			it.Tokens = c.Count(it.render())
			extra := o.overhead(it)
			if it.Tokens+extra > o.Budget-used {
				p.RelatedLeftOut++
				continue
			}
			used += it.Tokens + extra
			p.Items = append(p.Items, it)
			shingles = append(shingles, sh)
		}
	}
	return used, nil
}

func (o Options) overhead(it Item) int {
	if o.Overhead == nil {
		return 0
	}
	return o.Overhead(it)
}

// BudgetError is a budget Pack cannot work with: not positive, or smaller
// than the context's own header. It is the caller's to fix.
type BudgetError struct {
	Budget int
	Header int // tokens of the header when it does not fit, else 0
}

func (e *BudgetError) Error() string {
	if e.Header > 0 {
		return fmt.Sprintf("contextpack: budget %d is smaller than the context's own header (%d tokens): give a larger budget", e.Budget, e.Header)
	}
	return fmt.Sprintf("contextpack: budget %d: give a positive number of tokens", e.Budget)
}

// Markdown renders the packed context for a prompt.
func (p Packed) Markdown() string {
	var b strings.Builder
	b.WriteString(header(p.Query))
	for _, it := range p.Items {
		b.WriteString(it.render())
	}
	return b.String()
}

func header(query string) string {
	return fmt.Sprintf("## Memories for: %s\n\n", oneLine(query))
}

// render is an item as Markdown: a header line with its citation handle,
// type, date and id (and for an attached memory its relation: "fixes [1]"
// or "[1] causes this"), then its content, then a blank line.
func (it Item) render() string {
	content := strings.TrimSpace(it.Content)
	if it.Truncated {
		content += " …"
	}
	rel := ""
	if r := it.RelatedTo; r != nil {
		if r.Direction == "out" {
			rel = fmt.Sprintf(" · %s %s this", r.Cite, r.Relation)
		} else {
			rel = fmt.Sprintf(" · %s %s", r.Relation, r.Cite)
		}
	}
	return fmt.Sprintf("%s %s · %s · %s%s\n%s\n\n", it.Cite, it.Type, it.CreatedAt.UTC().Format("2006-01-02"), it.ID, rel, content)
}

// fit cuts it's content at a word boundary to the longest prefix whose
// rendering takes at most left tokens.
func fit(it Item, c Counter, left int) (Item, bool) {
	words := strings.Fields(it.Content)
	lo, hi := 0, len(words) // lo words fit; find the largest
	try := func(n int) Item {
		x := it
		x.Content, x.Truncated = strings.Join(words[:n], " "), true
		x.Tokens = c.Count(x.render())
		return x
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if try(mid).Tokens <= left {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return Item{}, false
	}
	return try(lo), true
}

// trigrams is the set of word trigrams of a text, lower-cased, punctuation
// dropped; texts of fewer than three words give their words.
func trigrams(text string) map[string]bool {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := map[string]bool{}
	if len(ws) < 3 {
		for _, w := range ws {
			out[w] = true
		}
		return out
	}
	for i := 0; i+3 <= len(ws); i++ {
		out[ws[i]+" "+ws[i+1]+" "+ws[i+2]] = true
	}
	return out
}

// duplicateOf returns the index of the first packed item whose trigram set
// has Jaccard similarity ≥ min with sh, or -1.
func duplicateOf(sh map[string]bool, packed []map[string]bool, min float64) int {
	for k, o := range packed {
		inter := 0
		for g := range sh {
			if o[g] {
				inter++
			}
		}
		union := len(sh) + len(o) - inter
		if union > 0 && float64(inter)/float64(union) >= min {
			return k
		}
	}
	return -1
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
