package contradict

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/cgraph/cgraph/internal/needle"
)

// Evidence is what the caller knows about the two memories' subject: the
// engine's near-duplicate evidence (record.Similar) for the pair.
type Evidence struct {
	// E1 is the cosine of the dense vectors, E6 the Jaccard overlap of the
	// keyword terms, E11 the Jaccard overlap of the entity names (1 when
	// neither names an entity).
	E1, E6, E11 float64
}

// Kind is the judgement's decision.
type Kind uint8

const (
	// None: no conflict found (the claims can both hold, or the rules
	// cannot tell).
	None Kind = iota
	// Contradiction: the new claim cannot hold with the old one and does
	// not say that anything changed.
	Contradiction
	// Update: the same fact with a newer value, the new text saying so
	// ("moved to", "upgraded", "no longer", "now").
	Update
)

var kindNames = [...]string{"none", "contradiction", "update"}

// String is the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Conflict reports whether k is a contradiction or an update.
func (k Kind) Conflict() bool { return k == Contradiction || k == Update }

// Judgement is the decision on one pair with its evidence in words.
type Judgement struct {
	Kind Kind
	// Reason says why, naming the words that differ and the subject
	// evidence.
	Reason string
}

// Rules are the thresholds of the "same subject" test.
type Rules struct {
	// E1 is the least dense cosine at which two memories share a subject.
	E1 float64
	// WeakE1 and WeakE6: below E1, a cosine of at least WeakE1 still counts
	// when the keyword overlap is at least WeakE6.
	WeakE1, WeakE6 float64
}

// DefaultRules were tuned on the dev part of testdata/pairs.jsonl with
// e5-small-v2 cosines (testdata/README.md).
var DefaultRules = Rules{E1: 0.86, WeakE1: 0.80, WeakE6: 0.3}

// MinE1 is the least cosine at which Judge can find a conflict; a caller
// may skip pairs below it.
func (r Rules) MinE1() float64 { return min(r.E1, r.WeakE1) }

// additive words say the new memory adds to the old one, or speaks of a
// thing beside it ("the worker has its own pool").
var additive = needle.MustCompile(`(?i)\b(also|as well|in addition|additionally|another|its own|their own)\b|\btoo\s*([.;,!]|$)`,
	needle.Set{Needles: additiveWords, Words: true})

// changeMarkers say the new memory reports a change over time.
var changeMarkers = needle.MustCompile(`(?i)\b(moved|migrated|switched|upgraded|downgraded|bumped|raised|lowered|increased|decreased|changed|replaced|renamed|rewritten|updated|scaled|took over|no longer|now|anymore|any more|swapped|deprecated|retired|rescheduled|extended|shortened|reduced|as of|these days|nowadays|from now on|going forward|stopped|started|shifted|transitioned|phased out|decommissioned|shut down|changed my mind|from \S+ to)\b`,
	needle.Set{Needles: changeMarkerWords, Words: true})

// additiveWords and changeMarkerWords are the words one of which every
// match of additive and changeMarkers holds as a whole word: most texts a
// write judges hold none and skip the regexps (TestCheapRegexp and
// FuzzCheapRegexp check them against the regexps).
var (
	additiveWords     = []string{"also", "as well", "in addition", "additionally", "another", "its own", "their own", "too"}
	changeMarkerWords = []string{"moved", "migrated", "switched", "upgraded", "downgraded", "bumped", "raised", "lowered", "increased",
		"decreased", "changed", "replaced", "renamed", "rewritten", "updated", "scaled", "took over", "no longer", "now", "anymore", "any more",
		"swapped", "deprecated", "retired", "rescheduled", "extended", "shortened", "reduced", "as of", "these days", "nowadays",
		"from now on", "going forward", "stopped", "started", "shifted", "transitioned", "phased out", "decommissioned", "shut down",
		"changed my mind", "from"}
)

// antonyms are the pairs of stems that flip a claim, both ways round. A
// stem may have several ("allow" / "deny", "block", "forbid"): the key is
// the pair, not the stem.
var antonyms = map[[2]string]bool{}

// antonymStems are the stems of antonyms' pairs: antonymIn looks pairs up
// only for these.
var antonymStems = map[string]bool{}

func init() {
	for _, p := range [][2]string{{"enabl", "disabl"}, {"allow", "deny"}, {"allow", "block"}, {"allow", "forbid"},
		{"sync", "async"}, {"synchronou", "asynchronou"}, {"synchronous", "asynchronous"}, {"on", "off"}, {"true", "false"},
		{"requir", "optional"}, {"public", "private"}, {"before", "after"}, {"includ", "exclud"}, {"accept", "reject"},
		{"start", "stop"}, {"open", "clos"}, {"lazy", "eager"}, {"mutabl", "immutabl"}, {"static", "dynamic"},
		{"increas", "decreas"}, {"strict", "loos"}, {"inbound", "outbound"}, {"local", "remot"}, {"verbos", "terse"},
		{"always", "not"}, {"blocking", "non-blocking"}, {"whitelist", "blacklist"}, {"encrypt", "plaintext"},
		{"automatic", "manual"}, {"automatical", "manual"}, {"automat", "manual"}} {
		antonyms[p], antonyms[[2]string{p[1], p[0]}] = true, true
		antonymStems[p[0]], antonymStems[p[1]] = true, true
	}
}

// MaxWords bounds the words (after stopwords) of either memory that Judge
// compares: its alignment costs len(a)·len(b) time and 4·len(a)·len(b)
// bytes, so two 100 KB memories (~12,000 words each) took 2 s and 558 MB,
// and two of the 1 MB a memory may hold would take tens of gigabytes — on
// every core at once in a write. Precision first: a longer pair is judged
// None ("too long to compare"). 1,000 words is a long function or a page
// of notes; the table then stays under 4 MB.
const MaxWords = 1000

// Judge decides whether the new memory contradicts or updates the old one.
// It is pure and cheap (two short alignments); precision comes first: when
// the texts differ in more than one place, or the subject itself differs,
// it answers None.
func Judge(oldText, newText string, ev Evidence, r Rules) Judgement {
	return NewText(newText).Judge(oldText, ev, r)
}

// Text is a new memory's text prepared to be judged against several old
// ones (a write compares it with each close candidate): what Judge derives
// from the new text alone — its change marker, its tokens — is computed
// once, when first needed. Not safe for concurrent use.
type Text struct {
	text         string
	claims       claimSet
	claimsDone   bool
	marker       string
	markerDone   bool
	tokens       []token
	tokensDone   bool
	additive     string
	additiveDone bool
}

// NewText prepares text for Text.Judge.
func NewText(text string) *Text { return &Text{text: text} }

func (t *Text) changeMarker() string {
	if !t.markerDone {
		t.marker, t.markerDone = strings.ToLower(changeMarkers.FindString(t.text)), true
	}
	return t.marker
}

func (t *Text) tokenized() []token {
	if !t.tokensDone {
		t.tokens, t.tokensDone = tokenize(t.text), true
	}
	return t.tokens
}

func (t *Text) claimSet() claimSet {
	if !t.claimsDone {
		t.claims, t.claimsDone = readClaims(t.text), true
	}
	return t.claims
}

func (t *Text) adds() string {
	if !t.additiveDone {
		t.additive, t.additiveDone = additive.FindString(t.text), true
	}
	return t.additive
}

// Words is a text as the judge compares it, word by word: made once
// (Tokenize) for a text judged many times, such as a stored memory that
// several new ones come close to in a bulk import. Immutable: safe for
// concurrent use.
type Words struct {
	tokens []token
	claims claimSet
}

// Tokenize makes text's Words.
func Tokenize(text string) Words { return Words{tokenize(text), readClaims(text)} }

// Bytes estimates the memory w holds, for a cache's budget.
func (w Words) Bytes() int {
	n := 24 + len(w.tokens)*int(unsafe.Sizeof(token{}))
	for _, t := range w.tokens {
		n += len(t.stem) + len(t.text)
	}
	n += len(w.claims.claims) * int(unsafe.Sizeof(claim{}))
	for _, c := range w.claims.claims {
		n += len(c.key) + len(c.value) + len(c.text)
	}
	return n
}

// Judge is Judge(oldText, t's text, ev, r).
func (t *Text) Judge(oldText string, ev Evidence, r Rules) Judgement {
	return t.JudgeWords(func() Words { return Tokenize(oldText) }, ev, r)
}

// JudgeWords is Judge with the old memory's words from old, which is
// called only when the judgement needs them (most pairs a write judges are
// decided on the evidence and the new text alone) and at most once.
func (t *Text) JudgeWords(old func() Words, ev Evidence, r Rules) Judgement {
	subject := fmt.Sprintf("E1 %.3f, E6 %.2f, E11 %.2f", ev.E1, ev.E6, ev.E11)
	differ := func() Judgement {
		return Judgement{None, fmt.Sprintf("different subjects: %s below E1 %.2f (or %.2f with E6 %.2f)", subject, r.E1, r.WeakE1, r.WeakE6)}
	}
	gated := ev.E1 >= r.E1 || (ev.E1 >= r.WeakE1 && ev.E6 >= r.WeakE6)
	same := gated
	marker := "" // below the gate it decides now; above it, only once a conflict is found (the regexp is the judge's dearest step)
	if !same && ev.E1 >= r.WeakE1 {
		marker = t.changeMarker()
	}
	typed := !same && ev.E1 >= r.WeakE1 && len(t.claimSet().claims) > 0
	if !same && marker == "" && !typed { // nothing can make the subjects the same: skip the tokenizing (most pairs a write judges)
		return differ()
	}
	ow := old()
	a, b := ow.tokens, t.tokenized()
	if len(a) > MaxWords || len(b) > MaxWords {
		return Judgement{None, fmt.Sprintf("too long to compare word by word (%d and %d words; the judge aligns memories of at most %d)", len(a), len(b), MaxWords)}
	}
	up := updated(a, b)
	if !same && up.mentioned && marker != "" { // (a pair let in only for its typed claims keeps to them)
		same, subject = true, subject+fmt.Sprintf(", and the new memory names the old value %q", up.old)
	}
	// Below the cosine a shared subject needs (or with the subject shared
	// only by a value both name), two tools of one kind still conflict
	// ("Sentry" / "Rollbar": a project picks one), and so do two regions or
	// two values of one named setting (claimSet.specific); every claim
	// counts when both memories name one resource ("orders-events has 12
	// partitions" / "the orders-events topic was created with 6").
	nc := t.claimSet()
	if !gated && !sharedName(ow.claims, nc) {
		nc = nc.specific()
	}
	if !same {
		if why, ok := claimConflict(ow.claims, nc); typed && ok && t.adds() == "" {
			return t.claimJudgement(why, marker, subject)
		}
		return differ()
	}
	if m := t.adds(); m != "" {
		return Judgement{None, fmt.Sprintf("the new memory adds to the old one (%q)", strings.TrimSpace(m))}
	}
	c := compare(a, b)
	if c.claim != "" && !c.flip {
		oc, ncv := ow.claims.without(c.values), nc.without(c.values)
		if ownIdentifiers(oc, ncv) {
			// "minSdk 24" / "targetSdk … 34": each memory's value is its own
			// setting's
			return Judgement{None, fmt.Sprintf("%s, but each memory names its own setting or variable", c.claim)}
		}
		if why, ok := apart(oc.valuing(c.changed), ncv.valuing(c.changed)); ok {
			return Judgement{None, fmt.Sprintf("%s, but %s", c.claim, why)}
		}
	}
	if c.claim != "" || up.new != "" && !c.subject {
		marker = t.changeMarker()
	}
	switch {
	case c.claim != "" && marker != "":
		return Judgement{Update, fmt.Sprintf("update (%q): %s; same subject: %s", marker, c.claim, subject)}
	case c.claim != "":
		return Judgement{Contradiction, fmt.Sprintf("contradiction: %s; same subject: %s", c.claim, subject)}
	case marker != "" && up.new != "" && !c.subject:
		return Judgement{Update, fmt.Sprintf("update (%q): %q became %q; same subject: %s", marker, up.old, up.new, subject)}
	}
	if why, ok := claimConflict(ow.claims, nc); ok {
		return t.claimJudgement(why, t.changeMarker(), subject)
	}
	return Judgement{None, c.why}
}

// claimJudgement is the conflict of two claims: an update when the new
// memory says something changed, a contradiction otherwise.
func (t *Text) claimJudgement(why, marker, subject string) Judgement {
	if marker != "" {
		return Judgement{Update, fmt.Sprintf("update (%q): %s; same subject: %s", marker, why, subject)}
	}
	return Judgement{Contradiction, fmt.Sprintf("contradiction: %s; same subject: %s", why, subject)}
}

// valueChange is the value an update replaces and the one it brings.
type valueChange struct {
	old, new  string
	mentioned bool // the new memory names the old value too ("from Travis to …")
}

// updated finds the first value of the old memory and the first value of
// the new one that the old does not hold.
func updated(a, b []token) valueChange {
	var v valueChange
	for _, t := range b {
		if t.value && !t.lead && !holds(a, t) {
			v.new = t.text
			break
		}
	}
	for _, t := range a {
		if t.value && !t.lead {
			if v.old == "" || (!holds(b, t) && !v.mentioned) {
				v.old, v.mentioned = t.text, holds(b, t)
			}
		}
	}
	if v.old == "" {
		v.new = ""
	}
	return v
}

// holds reports whether ts has t's value, or one that starts the same
// (Postgres, PostgreSQL).
func holds(ts []token, t token) bool {
	for _, u := range ts {
		if sameValue(u.stem, t.stem) {
			return true
		}
	}
	return false
}

func sameValue(x, y string) bool {
	if len(x) > len(y) {
		x, y = y, x
	}
	return x == y || (len(x) >= 4 && strings.HasPrefix(y, x))
}

// comparison is what the alignment of two memories shows.
type comparison struct {
	claim   string  // the differing claim in words; "" when none
	why     string  // why there is none
	scope   bool    // the subject or scope differs
	subject bool    // … because the subject itself differs
	flip    bool    // the claim is a negation or an antonym, not one value for another
	values  []token // a claim of one word for another: the two words
	changed []token // a claim of one value for another: the words of both sides
}

func compare(a, b []token) comparison {
	ops := align(a, b)
	negA, negB := negated(a), negated(b)
	var subs []op
	var flips []string
	sharedNeg := false
	for k, o := range ops {
		oa, ob := a[o.i1:o.i2], b[o.j1:o.j2]
		if o.kind == opEqual {
			for _, t := range oa {
				sharedNeg = sharedNeg || t.cue
			}
			continue
		}
		ca, cb := hasCue(oa), hasCue(ob)
		if o.kind == opReplace {
			if x, y, ok := antonymIn(oa, ob); ok {
				flips = append(flips, fmt.Sprintf("%q became %q", x, y))
				continue
			}
		}
		switch {
		case ca != cb:
			// A negation on one side only: it flips the claim when what it
			// negates stands unnegated in the other memory.
			neg, other, otherNeg, side := b, a, negA, "new"
			if ca {
				neg, other, otherNeg, side = a, b, negB, "old"
			}
			lo, hi := o.j1, o.j2
			if ca {
				lo, hi = o.i1, o.i2
			}
			if conditional(neg, lo, hi) {
				continue // "if the primary hasn't acked after 15 minutes": a condition, not a claim
			}
			if hasCue(other) {
				// both memories negate, each something else ("never from
				// process.env" / "don't read FEATURE_* vars"): a
				// restatement, not a flip
				continue
			}
			if w := flipTarget(neg, lo, hi, other, otherNeg); w != "" {
				rest := nonCue(oa)
				if len(rest) > 0 && len(nonCue(ob)) > 0 && k+1 < len(ops) && !valueAfter(ops, k, a) && len(subs) == 0 {
					subs = append(subs, o) // the negation comes with a change of subject
					continue
				}
				flips = append(flips, fmt.Sprintf("the %s memory negates %q", side, w))
			}
		case o.kind == opReplace:
			if sameValue(a[o.i2-1].stem, b[o.j2-1].stem) {
				continue // Postgres / database PostgreSQL
			}
			if len(flips) == 0 {
				subs = append(subs, o)
			}
		}
	}
	if len(subs) > 0 && len(flips) > 0 {
		return comparison{scope: true, subject: true, why: fmt.Sprintf("the subject differs (%s) besides the claim", span(a, subs[0].i1, subs[0].i2))}
	}
	if len(flips) > 0 {
		return comparison{claim: strings.Join(flips, ", "), flip: true}
	}
	switch {
	case len(subs) == 0:
		return comparison{why: "no differing claim: the texts differ only by additions or rewording"}
	case len(subs) > 1:
		return comparison{scope: true, why: fmt.Sprintf("the texts differ in %d places (%s, %s): a different scope, not one fact", len(subs), span(a, subs[0].i1, subs[0].i2), span(a, subs[1].i1, subs[1].i2))}
	}
	s := subs[0]
	if s == ops[len(ops)-1] && s.j2-s.j1 > s.i2-s.i1 {
		s.j2 = s.j1 + s.i2 - s.i1 // the rest of the new text's end is its elaboration ("5433 to avoid clashing …")
	}
	oa, ob := a[s.i1:s.i2], b[s.j1:s.j2]
	switch {
	case a[s.i1].lead:
		return comparison{scope: true, subject: true, why: fmt.Sprintf("the subject differs (%s / %s)", span(a, s.i1, s.i2), span(b, s.j1, s.j2))}
	case sharedNeg:
		return comparison{why: "both memories negate, over different things: both can hold"}
	case !oneValue(oa, ob):
		return comparison{why: fmt.Sprintf("%s / %s is not one value for another (a change of wording or of statement)", span(a, s.i1, s.i2), span(b, s.j1, s.j2))}
	}
	return comparison{claim: fmt.Sprintf("%s became %s", span(a, s.i1, s.i2), span(b, s.j1, s.j2)), values: oneForOne(oa, ob), changed: append(slices.Clone(oa), ob...)}
}

// oneForOne is both words of a claim of one word for one other, nil for a
// longer claim.
func oneForOne(oa, ob []token) []token {
	if len(oa) == 1 && len(ob) == 1 {
		return []token{oa[0], ob[0]}
	}
	return nil
}

// conditional reports whether the negation cue in ts[lo:hi] stands in a
// clause that begins with "if" or "unless".
func conditional(ts []token, lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if !ts[i].cue {
			continue
		}
		for _, t := range ts {
			if t.clause == ts[i].clause {
				return strings.EqualFold(t.text, "if") || strings.EqualFold(t.text, "unless")
			}
		}
	}
	return false
}

// negated marks the tokens in the clause of a negation cue.
func negated(ts []token) []bool {
	out := make([]bool, len(ts))
	for _, t := range ts {
		if !t.cue {
			continue
		}
		for j := range ts {
			if ts[j].clause == t.clause {
				out[j] = true
			}
		}
	}
	return out
}

// flipTarget returns a word of the clause of the cue in neg[lo:hi] that the
// other memory states without a negation; "" when none.
func flipTarget(neg []token, lo, hi int, other []token, otherNeg []bool) string {
	for i := lo; i < hi; i++ {
		if !neg[i].cue {
			continue
		}
		for _, t := range neg {
			if t.clause != neg[i].clause || t.cue {
				continue
			}
			for j, u := range other {
				if u.stem == t.stem && !otherNeg[j] {
					return t.text
				}
			}
		}
	}
	return ""
}

// valueAfter reports whether the step after ops[k] starts with a value
// ("PagerDuty, not Slack": the negation names the old value).
func valueAfter(ops []op, k int, a []token) bool {
	return k+1 < len(ops) && ops[k+1].kind == opEqual && a[ops[k+1].i1].value
}

// antonymIn returns the first antonym pair, in x's order then y's: a stem
// of x and one of y that antonyms pairs.
func antonymIn(x, y []token) (string, string, bool) {
	var ys []token // y's tokens that can be half of a pair
	for _, t := range y {
		if antonymStems[t.stem] {
			ys = append(ys, t)
		}
	}
	if len(ys) == 0 {
		return "", "", false
	}
	for _, s := range x {
		if !antonymStems[s.stem] {
			continue
		}
		for _, t := range ys {
			if antonyms[[2]string{s.stem, t.stem}] {
				return s.text, t.text, true
			}
		}
	}
	return "", "", false
}

func hasCue(ts []token) bool {
	for _, t := range ts {
		if t.cue {
			return true
		}
	}
	return false
}

func nonCue(ts []token) []token {
	var out []token
	for _, t := range ts {
		if !t.cue {
			out = append(out, t)
		}
	}
	return out
}

// oneValue reports whether old → new replaces one value by another: one
// word by at most two with a value among them, or a value of at most two
// tokens by at most three.
func oneValue(old, new []token) bool {
	if len(old) == 1 && len(new) <= 2 && (old[0].value || anyValue(new)) {
		return true
	}
	return len(old) <= 2 && allValues(old) && len(new) <= 3 && anyValue(new)
}

func allValues(ts []token) bool {
	for _, t := range ts {
		if !t.value {
			return false
		}
	}
	return true
}

func anyValue(ts []token) bool {
	for _, t := range ts {
		if t.value {
			return true
		}
	}
	return false
}

func span(ts []token, i, j int) string {
	ws := make([]string, 0, j-i)
	for _, t := range ts[i:j] {
		ws = append(ws, t.text)
	}
	return fmt.Sprintf("%q", strings.Join(ws, " "))
}
