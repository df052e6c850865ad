package contradict

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"unicode"
)

// A claim is one keyed value a memory states, read from its words rather
// than from its alignment with the other memory: which tool of a kind it
// uses ("Vitest", kind js-test), which version of a product ("Node 20"), a
// setting's value (LOG_LEVEL=warn), a quantity of a unit ("4 spaces",
// "24 hours"), a port or a clock time. Two memories that give one key
// different values contradict each other however differently they are
// worded — the case the alignment misses: "We format Python with black" /
// "Python formatting is done by ruff format; black isn't used".
type claim struct {
	key   string // "tool:js-test", "version:node", "set:log_level", "qty:replica", "qty:time", "port", "clock", "timezone", "region", "weekday"
	value string // canonical: a tool's name, a version, a value lower-cased, a quantity in its base unit
	text  string // as written
	// retired: stated under a negation or as what was replaced ("black
	// isn't used", "rather than pytest", "golint was deprecated").
	retired bool
}

// claimWord is one whitespace-separated word of a text with what the
// claim reader needs around it.
type claimWord struct {
	raw    string // as written, surrounding punctuation trimmed
	lower  string
	cue    bool // a negation word
	colon  bool // a colon followed it ("singleQuote: true")
	brk    bool // a clause ends after this word
	quoted bool // written in quotes or backticks
}

// maxClaimWords bounds the texts whose claims are read: a memory longer
// than a long note is code or a document, where "x = 1" and "x = 2" in two
// functions are no contradiction.
const maxClaimWords = 150

// claimSet is a text's claims, the scopes it names, and its content
// words with the word before each: what tells two subjects apart.
type claimSet struct {
	claims []claim
	scope  uint32
	words  map[string]bool // stems of the content words
	mods   [][2]string     // a content word's stem and the content word's stem before it in its clause
	idents map[string]bool // the identifiers it names (DATABASE_URL, daily_revenue, minSdk)
	bare   map[string]bool // its numbers standing alone, unretired
	fused  [][2]string     // its hyphenated or snake_case names split at their last separator: orders-events → orders, events
	dirs   map[string]bool // the top directories of the paths it names (services/api → services)
	valued map[string]bool // the stems of its claims' values: a value is no qualifier ("the Growth team")
	spans  map[string]bool // its code spans, in backticks (`pnpm dev`)
}

// specific is cs with only the claims whose key names one thing however
// the memories are worded: a tool of a kind, a cloud region, a setting
// named by its key. Below the cosine that makes a subject shared, these
// still conflict ("Redis runs in us-east-1" / "the Redis cluster sits in
// eu-west-1"); a version, port or quantity there belongs to another
// subject too often ("API on Python 3.12" / "notebooks use Python 3.10").
func (cs claimSet) specific() claimSet {
	out := cs
	out.claims = nil
	for _, c := range cs.claims {
		if strings.HasPrefix(c.key, "tool:") || strings.HasPrefix(c.key, "set:") || c.key == "region" {
			out.claims = append(out.claims, c)
		}
	}
	return out
}

// readClaims reads text's claims; none for a text too long or shaped like
// code.
func readClaims(text string) claimSet {
	if looksLikeCode(text) {
		return claimSet{}
	}
	ws := claimWords(text)
	if len(ws) > maxClaimWords {
		return claimSet{}
	}
	cs := claimSet{claims: claimsOf(ws), scope: scopeOf(ws), words: map[string]bool{}, idents: map[string]bool{}, bare: map[string]bool{},
		spans: codeSpans(text)}
	for _, c := range cs.claims {
		for _, w := range strings.Fields(strings.ToLower(c.text)) {
			if st := contentStem(w); st != "" {
				if cs.valued == nil {
					cs.valued = map[string]bool{}
				}
				cs.valued[st] = true
			}
		}
	}
	prev := ""
	for i, w := range ws {
		if isInt(w.lower) && !retiredAt(ws, i) {
			cs.bare[w.lower] = true
		}
		if k, _, _ := strings.Cut(w.raw, "="); identifier(k) {
			cs.idents[k] = true
		}
		name := w.lower
		if d := topDir(w.lower); d != "" {
			if cs.dirs == nil {
				cs.dirs = map[string]bool{}
			}
			cs.dirs[d] = true
			name = d // ledgerly-infra/lambdas → ledgerly-infra
		}
		if f, ok := fusedName(name); ok {
			cs.fused = append(cs.fused, f)
		}
		st := contentStem(w.lower)
		if st == "" && len(w.raw) >= 2 && len(w.raw) <= 4 && isWord(w.raw) && strings.ToUpper(w.raw) == w.raw && !cues[w.lower] {
			st = w.lower // "US", "EU": a region's name, not the pronoun
		}
		if st != "" {
			cs.words[st] = true
			if prev != "" {
				cs.mods = append(cs.mods, [2]string{st, prev})
			}
		} else if k, ok := toolOf(w.lower); ok && prev != "" {
			cs.mods = append(cs.mods, [2]string{k.name, prev}) // "EU Postgres" / "US Postgres": a tool qualified twice
		}
		prev = st
		if w.brk {
			prev = ""
		}
	}
	return cs
}

// fusedName splits a hyphenated or snake_case name of letters at its last
// separator (orders-events → orders, events).
func fusedName(w string) ([2]string, bool) {
	j := strings.LastIndexAny(w, "-_")
	if j <= 0 || j == len(w)-1 {
		return [2]string{}, false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' && r != '_' {
			return [2]string{}, false
		}
	}
	return [2]string{w[:j], w[j+1:]}, true
}

// codeSpans are the texts between backticks, lower-cased.
func codeSpans(text string) map[string]bool {
	var out map[string]bool
	for rest := text; ; {
		_, after, ok := strings.Cut(rest, "`")
		if !ok {
			return out
		}
		span, tail, ok := strings.Cut(after, "`")
		if !ok {
			return out
		}
		if span = strings.ToLower(strings.TrimSpace(span)); span != "" {
			if out == nil {
				out = map[string]bool{}
			}
			out[span] = true
		}
		rest = tail
	}
}

// identifier reports whether k names one thing in code or configuration:
// an environment variable or snake_case name (DATABASE_URL, daily_revenue)
// or a camelCase or PascalCase one (minSdk, ReadTimeout) — not a tool's
// or product's name (PagerDuty, iOS).
func identifier(k string) bool {
	if !settingKey(k) || strings.Contains(k, "-") {
		return false
	}
	if strings.Contains(k, "_") {
		return true
	}
	lw := strings.ToLower(k)
	_, tool := toolOf(lw)
	_, product := products[lw]
	upper := 0
	for _, r := range k {
		if unicode.IsUpper(r) {
			upper++
		}
	}
	// camelCase, or PascalCase with lower case between its capitals
	// (ReadTimeout, not HTTPS)
	return (unicode.IsLower(rune(k[0])) || upper >= 2 && upper < len(k)-1) && !tool && !product
}

// ownIdentifiers reports whether each memory names an identifier the other
// does not: two settings, jobs or variables, whose values can both hold.
func ownIdentifiers(a, b claimSet) bool {
	return exclusive(a.idents, b.idents) && exclusive(b.idents, a.idents)
}

// without is cs without the identifiers ts name: the values a claim
// changes are not the subjects that tell two settings apart ("camelCase"
// became "snake_case").
func (cs claimSet) without(ts []token) claimSet {
	var drop []string
	for _, t := range ts {
		if cs.idents[t.text] {
			drop = append(drop, t.text)
		}
	}
	if len(drop) > 0 {
		cs.idents = maps.Clone(cs.idents)
		for _, k := range drop {
			delete(cs.idents, k)
		}
	}
	return cs
}

// sharedName reports whether a and b name one identifier or one
// hyphenated or snake_case name.
func sharedName(a, b claimSet) bool {
	if shareKey(a.idents, b.idents) {
		return true
	}
	for _, x := range a.fused {
		if b.hasFused(x) {
			return true
		}
	}
	return false
}

func (cs claimSet) hasFused(x [2]string) bool {
	for _, y := range cs.fused {
		if y == x {
			return true
		}
	}
	return false
}

// valuing is cs with ts's words counted as values, which qualify no
// subject ("British English" / "American English": the claim itself).
func (cs claimSet) valuing(ts []token) claimSet {
	cs.valued = maps.Clone(cs.valued)
	if cs.valued == nil {
		cs.valued = map[string]bool{}
	}
	for _, t := range ts {
		if st := contentStem(strings.ToLower(t.text)); st != "" {
			cs.valued[st] = true
		}
	}
	return cs
}

// plainModifiers qualify a noun without naming another subject: "new
// flags" are still the feature flags, "the latest SLO review" is the SLO's.
var plainModifiers = set("new", "old", "latest", "current", "existing", "each", "other", "same", "own", "more", "most",
	"main", "first", "last", "next", "previous", "whole", "entire", "single", "only", "actual", "real", "usual",
	"default", "specific", "certain", "such", "some", "many", "few", "several", "both", "either", "any", "no")

// contentStem is a word's stem when it is a content word — letters (a
// possessive dropped), not a stopword, a negation, a tool or a product —
// and "" otherwise.
func contentStem(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if len(w) < 2 || !isWord(strings.ReplaceAll(w, "-", "")) || stopwords[w] || cues[w] || plainModifiers[w] {
		return ""
	}
	if _, ok := tools[w]; ok {
		return "" // a tool is the claim's value, not its subject
	}
	if p, ok := products[w]; ok {
		return p // "Python files" / "YAML files"; "TS files" = "TypeScript files"
	}
	return stem(w)
}

// apart reports, with why, whether two memories speak of two subjects
// whatever their claims: their scopes differ (staging / production), or
// they qualify one word twice (contrast).
func apart(a, b claimSet) (string, bool) {
	if a.scope != 0 && b.scope != 0 && a.scope&b.scope == 0 {
		return "in different places (their scopes differ)", true
	}
	if why, ok := contrast(a, b); ok {
		return "of two subjects (" + why + ")", true
	}
	return "", false
}

// contrast reports whether the two texts qualify one word differently —
// "access tokens" / "refresh tokens", "webhook deliveries" / "email
// deliveries", "the API server listens" / "the admin dashboard listens" —
// with neither qualifier in the other text: two subjects that share a
// noun, whose values can both hold. Fused names count the same way
// ("orders-events" / "payments-events").
func contrast(a, b claimSet) (string, bool) {
	for _, x := range a.fused { // orders-events / payments-events
		for _, y := range b.fused {
			if x != y && (x[1] == y[1] || x[0] == y[0]) && !b.hasFused(x) && !a.hasFused(y) {
				return fmt.Sprintf("%s-%s / %s-%s", x[0], x[1], y[0], y[1]), true
			}
		}
	}
	for _, x := range a.mods {
		if b.words[x[1]] || a.valued[x[1]] {
			continue
		}
		for _, y := range b.mods {
			if y[0] == x[0] && y[1] != x[1] && !a.words[y[1]] && !b.valued[y[1]] {
				return fmt.Sprintf("%s %s / %s %s", x[1], x[0], y[1], y[0]), true
			}
		}
	}
	return "", false
}

// claimsOf reads the claims of a text's words.
func claimsOf(ws []claimWord) []claim {
	var out []claim
	add := func(i int, key, value string) {
		out = append(out, claim{key: key, value: value, text: ws[i].raw, retired: retiredAt(ws, i)})
	}
	// version reads the version of the product ws[i] names as spelled:
	// fused to the name (python:3.12-slim) or the word after (Node 20),
	// unless a unit or counted noun follows that number ("Go 2 replicas").
	// It returns the words it read past ws[i].
	version := func(i int, spelled, product string) int {
		if v := versionIn(ws[i].lower, spelled); v != "" {
			add(i, "version:"+product, v)
		} else if i+1 < len(ws) && !ws[i].brk && isVersion(ws[i+1].lower) && !isUnitAt(ws, i+2) {
			add(i, "version:"+product, strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(ws[i+1].lower, "v"), "+"), ".x"))
			out[len(out)-1].text += " " + ws[i+1].raw
			return 1
		} else if i+1 < len(ws) && !ws[i].brk && ws[i+1].lower == "version" {
			// "the Node version in .nvmrc is 18.19.0": the first version
			// after "is", "=" or a colon in the clause
			for j := i + 1; j < len(ws) && j <= i+6; j++ {
				if (ws[j].lower == "is" || ws[j].lower == "=" || ws[j].colon) && j+1 < len(ws) && isVersion(ws[j+1].lower) && strings.Contains(ws[j+1].lower, ".") {
					add(j+1, "version:"+product, strings.TrimSuffix(strings.TrimPrefix(ws[j+1].lower, "v"), ".x"))
					return 0
				}
				if ws[j].brk {
					break
				}
			}
		}
		return 0
	}
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		// A tool, by a three- or two-word name first ("Weights & Biases", "GitHub Actions").
		if i+2 < len(ws) && !w.brk && !ws[i+1].brk {
			if k, ok := tools[w.lower+" "+ws[i+1].lower+" "+ws[i+2].lower]; ok {
				add(i, "tool:"+k.kind, k.name)
				out[len(out)-1].text += " " + ws[i+1].raw + " " + ws[i+2].raw
				i += 2
				continue
			}
		}
		if i+1 < len(ws) && !w.brk {
			if k, ok := tools[w.lower+" "+ws[i+1].lower]; ok {
				add(i, "tool:"+k.kind, k.name)
				out[len(out)-1].text += " " + ws[i+1].raw
				i++
				continue
			}
		}
		if k, ok := toolOf(w.lower); ok {
			add(i, "tool:"+k.kind, k.name)
			i += version(i, k.name, k.name)
			continue
		}
		if p, ok := products[productName(w.lower)]; ok {
			i += version(i, productName(w.lower), p)
			continue
		}
		if key, value, ok := assignment(ws, i); ok {
			if p := versionKey(key); p != "" && isVersion(strings.TrimLeft(value, "><=^~v")) {
				add(i, "version:"+p, strings.TrimSuffix(strings.TrimLeft(value, "><=^~v"), ".x"))
			} else {
				add(i, "set:"+key, value)
			}
			continue
		}
		if i+1 < len(ws) && !w.brk && (ws[i+1].lower == "team" || ws[i+1].lower == "squad") && owner(w.raw) {
			add(i, "owner", w.lower) // "the Growth team" / "the Messaging team"
			i++
			continue
		}
		if w.lower == "port" && i+1 < len(ws) && isInt(ws[i+1].lower) {
			add(i+1, "port", ws[i+1].lower)
			i++
			continue
		}
		if p := hostPort(w.lower); p != "" {
			add(i, "port", p)
			continue
		}
		if tz := timeZone(w.raw); tz != "" {
			add(i, "timezone", tz)
			continue
		}
		if d := weekday(w.lower); d != "" {
			add(i, "weekday", d)
			continue
		}
		if isRegion(w.lower) {
			add(i, "region", w.lower)
			continue
		}
		if isClock(w.lower) {
			add(i, "clock", w.lower)
			continue
		}
		if key, value, n, ok := quantity(ws, i); ok {
			add(i, "qty:"+key, value)
			i += n - 1
		}
	}
	return out
}

// claimWords splits text at white space, trimming each word's surrounding
// punctuation and marking the clause breaks and negation cues.
func claimWords(text string) []claimWord {
	if strings.Contains(text, "n't") || strings.Contains(text, "n’t") {
		text = contractions.Replace(text)
	}
	var ws []claimWord
	for _, f := range strings.Fields(text) {
		raw := strings.TrimLeft(f, "\"'`“”‘’([{")
		core := strings.TrimRight(raw, "\"'`“”‘’)]},;:.!?")
		tail := raw[len(core):]
		if core == "" || core == "—" || core == "-" || core == "–" {
			if len(ws) > 0 {
				ws[len(ws)-1].brk = true
			}
			continue
		}
		lw := strings.ToLower(core)
		ws = append(ws, claimWord{raw: core, lower: lw, cue: cues[lw] || claimCues[lw], colon: strings.Contains(tail, ":"),
			brk: strings.ContainsAny(tail, ",;:.!?)"), quoted: len(raw) < len(f) && strings.ContainsAny(f[:len(f)-len(raw)], "\"'`“‘") && strings.ContainsAny(tail, "\"'`”’")})
	}
	return ws
}

// claimCues negate the values after them besides the judge's cues:
// "nothing for payments is kept in Secrets Manager".
var claimCues = set("nothing", "none", "neither")

// looksLikeCode reports whether text reads as source code: braces with a
// statement's punctuation, or a definition keyword starting a line.
func looksLikeCode(text string) bool {
	lines := strings.Count(text, "\n")
	if lines <= 1 {
		return false
	}
	if strings.Contains(text, "{") && strings.Contains(text, "}") && strings.ContainsAny(text, ";=") {
		return true
	}
	for rest := text; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		l = strings.TrimLeft(l, " \t")
		for _, kw := range codeStarts {
			if strings.HasPrefix(l, kw) {
				return true
			}
		}
	}
	return false
}

// codeStarts begin a line of source code.
var codeStarts = []string{"func ", "def ", "class ", "package ", "import ", "#include", "public ", "private "}

// retireBefore are words that, up to three words before a value, say the
// value is what was replaced or is not used; retireAfter, up to three
// words after it.
var (
	retireBefore = set("rather", "instead", "replaced", "replace", "replacing", "from", "dropped", "drop", "removed",
		"swapped", "deprecated", "retired", "ditched", "abandoned", "formerly", "previously", "old", "legacy", "off",
		"longer", "avoid", "stop", "stopped", "unlike", "except")
	retireAfter = set("gone", "deprecated", "removed", "replaced", "dropped", "retired", "isn't", "wasn't", "not",
		"never", "longer", "anymore", "obsolete", "dead", "eol", "end-of-life")
)

// towards are the words that introduce what replaced a value.
var towards = set("to", "for", "with", "by", "into", "onto")

// retiredAt reports whether the value at ws[i] is negated in its clause or
// named as what was replaced.
func retiredAt(ws []claimWord, i int) bool {
	lo, hi := i, i // the clause around i
	for lo > 0 && !ws[lo-1].brk {
		lo--
	}
	for hi < len(ws)-1 && !ws[hi].brk {
		hi++
	}
	cuesIn, negates := 0, false
	for j := lo; j <= hi; j++ {
		if ws[j].cue {
			cuesIn++
			// a negation reaches the words after it in its clause, and the
			// word just before it ("black isn't used": black is not)
			negates = negates || j < i || j <= i+2
		}
	}
	if cuesIn == 1 && negates { // "not X without Y" is no negation
		return true
	}
	for j := i - 1; j >= max(lo, i-3); j-- {
		if towards[ws[j].lower] {
			break // "swapped it for X", "replaced by X": X is the new value
		}
		if ws[j].lower == "from" && !fromTo(ws, j) {
			continue // "FROM python:3.12-slim", "read from X": not "from X to Y"
		}
		if retireBefore[ws[j].lower] {
			return true
		}
	}
	for j := i + 1; j <= min(hi, i+3); j++ {
		if retireAfter[ws[j].lower] {
			return true
		}
	}
	return false
}

// fromTo reports whether the "from" at ws[j] starts "from X to Y".
func fromTo(ws []claimWord, j int) bool {
	for k := j + 2; k < len(ws) && k <= j+4; k++ {
		if ws[k].lower == "to" {
			return true
		}
	}
	return false
}

// assignment reads "KEY=value", "KEY: value", "KEY defaults to value" or
// "KEY is set to value" at ws[i], for a KEY shaped like a setting's name
// (LOG_LEVEL, singleQuote, max_connections, no-console).
func assignment(ws []claimWord, i int) (key, value string, ok bool) {
	w := ws[i].raw
	if k, v, found := strings.Cut(w, "="); found && (settingKey(k) || plainKey(k) && v != "") {
		if v == "" && i+1 < len(ws) {
			v = ws[i+1].raw
		}
		if v != "" {
			return strings.ToLower(k), canonicalValue(v), true
		}
	}
	if !settingKey(w) || i+1 >= len(ws) {
		return "", "", false
	}
	if ws[i].colon {
		return strings.ToLower(w), canonicalValue(ws[i+1].raw), true
	}
	next := ws[i+1].lower
	switch {
	case next == "=" && i+2 < len(ws):
		return strings.ToLower(w), canonicalValue(ws[i+2].raw), true
	case (next == "defaults" || next == "default") && i+3 < len(ws) && ws[i+2].lower == "to":
		return strings.ToLower(w), canonicalValue(ws[i+3].raw), true
	case (next == "is" || next == "=") && i+4 < len(ws) && ws[i+2].lower == "set" && ws[i+3].lower == "to":
		return strings.ToLower(w), canonicalValue(ws[i+4].raw), true
	case next == "is" && i+2 < len(ws) && literal(ws[i+2]):
		return strings.ToLower(w), canonicalValue(ws[i+2].raw), true
	case next == "is" && i+3 < len(ws) && (ws[i+2].lower == "a" || ws[i+2].lower == "an") && literal(ws[i+3]):
		return strings.ToLower(w), canonicalValue(ws[i+3].raw), true // "`no-console` is an error"
	}
	return "", "", false
}

// settingKey reports whether w is shaped like a setting's name: at least
// three characters with an underscore, a capital inside it, or a dash
// between letters, and no spaces or slashes.
func settingKey(w string) bool {
	if len(w) < 3 || strings.ContainsAny(w, "/ :.@") {
		return false
	}
	letters := 0
	inner := false
	for k, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
			if k > 0 && unicode.IsUpper(r) {
				inner = true
			}
		case r == '_' || (r == '-' && k > 0 && k < len(w)-1):
			inner = true
		case unicode.IsDigit(r):
		default:
			return false
		}
	}
	return inner && letters >= 3
}

// versionKey is the product a setting pins the version of
// (requires-python, python-version, NODE_VERSION, go-version); "" when the
// key is no such setting.
func versionKey(key string) string {
	parts := strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(parts) != 2 || parts[0] != "requires" && parts[1] != "version" {
		return ""
	}
	for _, w := range parts {
		if p, ok := products[w]; ok {
			return p
		}
	}
	return ""
}

// owner reports whether w, before "team", names one: a capitalised word
// that is not a determiner, a scope or a product ("the Growth team", not
// "the whole team", "the iOS team").
func owner(w string) bool {
	lw := strings.ToLower(w)
	if w == "" || !unicode.IsUpper(rune(w[0])) || !isWord(w) || stopwords[lw] || determiners[lw] || plainModifiers[lw] || scopes[lw] != 0 {
		return false
	}
	_, product := products[lw]
	_, tool := tools[lw]
	return !product && !tool
}

// plainKey reports whether k, written fused to "=" (sslmode=require),
// names a setting though it is one lower-case word: letters, then letters
// or digits.
func plainKey(k string) bool {
	return len(k) >= 3 && isWord(k[:1]) && strings.IndexFunc(k, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) < 0
}

// literal reports whether w reads as a setting's value after "KEY is": a
// number, a quoted word or a switch or level word ("no-console is 'off'",
// "IPHONEOS_DEPLOYMENT_TARGET is 14.0") — not a description ("DATABASE_URL
// is required").
func literal(w claimWord) bool {
	if w.quoted || isVersion(w.lower) || isInt(w.lower) {
		return true
	}
	return literalWords[w.lower]
}

var literalWords = set("true", "false", "on", "off", "yes", "no", "enabled", "disabled", "error", "warn", "warning", "info", "debug", "trace")

// canonicalValue lower-cases a setting's value and folds the ways of
// writing a boolean.
func canonicalValue(v string) string {
	v = strings.ToLower(strings.Trim(v, "\"'`.,;"))
	switch v {
	case "true", "on", "yes", "enabled", "enable", "1":
		return "true"
	case "false", "off", "no", "disabled", "disable", "0":
		return "false"
	}
	return v
}

// isVersion reports whether w is a version: digits with dots, an optional
// v before, an optional .x or + after.
func isVersion(w string) bool {
	w = strings.TrimPrefix(w, "v")
	w = strings.TrimSuffix(strings.TrimSuffix(w, "+"), ".x")
	if w == "" || w[0] < '0' || w[0] > '9' {
		return false
	}
	for _, r := range w {
		if !(r >= '0' && r <= '9' || r == '.') {
			return false
		}
	}
	return !strings.HasSuffix(w, ".") && !strings.Contains(w, "..")
}

// versionIn reads a version fused to a name: python:3.11-slim, nodejs16.x,
// go1.22, react@18.3.
func versionIn(w, name string) string {
	rest := w
	for _, n := range []string{name, strings.TrimSuffix(name, "js")} {
		if strings.HasPrefix(w, n) {
			rest = w[len(n):]
			break
		}
	}
	if rest == w {
		return ""
	}
	rest = strings.TrimLeft(rest, ":@-v")
	if k := strings.IndexAny(rest, "-_/ "); k >= 0 {
		rest = rest[:k]
	}
	if isVersion(rest) {
		return strings.TrimSuffix(strings.TrimSuffix(rest, ".x"), "+")
	}
	return ""
}

// productName is w without a fused version: python:3.11-slim → python.
func productName(w string) string {
	k := strings.IndexFunc(w, func(r rune) bool { return r >= '0' && r <= '9' || r == ':' || r == '@' })
	if k > 0 {
		return strings.TrimSuffix(w[:k], "v")
	}
	return w
}

func isInt(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// hostPort reads the port of host:port (localhost:5432, 127.0.0.1:6379,
// redis://cache:6379/1).
func hostPort(w string) string {
	w = strings.TrimPrefix(w, "//")
	if k := strings.Index(w, "://"); k >= 0 {
		w = w[k+3:]
	}
	if k := strings.IndexByte(w, '/'); k >= 0 {
		w = w[:k]
	}
	h, p, ok := strings.Cut(w, ":")
	if !ok || h == "" || isInt(h) || !isInt(p) || len(p) < 2 || strings.Contains(p, ":") {
		return "" // 02:00 is a clock
	}
	return p
}

// timeZone reads a time zone: UTC, GMT, or an IANA name (Europe/Berlin,
// America/New_York); "" when w is none.
func timeZone(w string) string {
	switch strings.ToUpper(w) {
	case "UTC", "GMT", "Z":
		if w != "z" {
			return "utc"
		}
	}
	area, city, ok := strings.Cut(w, "/")
	if !ok || strings.Contains(city, "/") {
		return ""
	}
	switch area {
	case "Europe", "America", "Asia", "Africa", "Australia", "Pacific", "Atlantic", "Indian", "Antarctica":
		if city != "" && unicode.IsUpper(rune(city[0])) && isWord(strings.ReplaceAll(city, "_", "")) {
			return strings.ToLower(w)
		}
	}
	return ""
}

// weekday is the day w names (Friday, fridays → friday); "" when none.
func weekday(w string) string {
	w = strings.TrimSuffix(w, "s")
	switch w {
	case "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday":
		return w
	}
	return ""
}

// isRegion reports whether w is a cloud region: us-east-1, eu-west-2,
// ap-southeast-1.
func isRegion(w string) bool {
	parts := strings.Split(w, "-")
	if len(parts) != 3 || len(parts[0]) != 2 || !isWord(parts[0]) || !isWord(parts[1]) || !isInt(parts[2]) || len(parts[2]) > 1 {
		return false
	}
	switch parts[1] {
	case "east", "west", "north", "south", "central", "northeast", "northwest", "southeast", "southwest":
		return true
	}
	return false
}

// isClock reports whether w is a time of day, 02:00 or 4:30.
func isClock(w string) bool {
	h, m, ok := strings.Cut(w, ":")
	return ok && len(h) >= 1 && len(h) <= 2 && len(m) == 2 && isInt(h) && isInt(m)
}

// units maps a unit's spellings to its dimension and its size in the
// dimension's base unit (seconds, bytes, percent).
var units = map[string]struct {
	dim  string
	size float64
}{}

func init() {
	for dim, us := range map[string]map[float64][]string{
		"time": {0.001: {"ms", "millisecond", "milliseconds"}, 1: {"s", "sec", "secs", "second", "seconds"},
			60: {"m", "min", "mins", "minute", "minutes"}, 3600: {"h", "hr", "hrs", "hour", "hours"},
			86400: {"d", "day", "days"}, 604800: {"w", "wk", "week", "weeks"}, 2592000: {"month", "months"}},
		"size": {1: {"b", "byte", "bytes"}, 1e3: {"kb", "kilobyte", "kilobytes"}, 1024: {"kib", "ki"},
			1e6: {"mb", "megabyte", "megabytes"}, 1 << 20: {"mib", "mi"}, 1e9: {"gb", "gigabyte", "gigabytes"}, 1 << 30: {"gib", "gi"},
			1e12: {"tb", "terabyte", "terabytes"}, 1 << 40: {"tib", "ti"}},
		"percent": {1: {"%", "percent", "pct"}},
	} {
		for size, names := range us {
			for _, n := range names {
				units[n] = struct {
					dim  string
					size float64
				}{dim, size}
			}
		}
	}
}

// isUnitAt reports whether ws[i] is a unit or a counted noun: what turns
// the number before it into a quantity rather than a version.
func isUnitAt(ws []claimWord, i int) bool {
	if i >= len(ws) {
		return false
	}
	_, ok := units[strings.TrimSuffix(ws[i].lower, "/")]
	return ok
}

// quantity reads a number with its unit at ws[i] ("4 spaces", "30 days",
// "15s", "10 MB", "80%", "three replicas"): the key is the unit's dimension
// or the counted noun's stem, the value the amount in the base unit. n is
// the words it spans.
func quantity(ws []claimWord, i int) (key, value string, n int, ok bool) {
	w := ws[i].lower
	if d, found := numberWords[w]; found {
		w = d
	}
	num, unit := splitNumber(w)
	if num == "" {
		return "", "", 0, false
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return "", "", 0, false
	}
	n = 1
	if unit == "" {
		if ws[i].brk || i+1 >= len(ws) {
			return "", "", 0, false
		}
		unit, n = ws[i+1].lower, 2
	}
	if k := strings.IndexByte(unit, '/'); k > 0 {
		unit = unit[:k] // requests/minute
	}
	if u, found := units[unit]; found {
		return u.dim, strconv.FormatFloat(x*u.size, 'g', -1, 64), n, true
	}
	if n == 2 && len(unit) >= 3 && !stopwords[unit] && !cues[unit] && isWord(unit) {
		return stem(unit), strconv.FormatFloat(x, 'g', -1, 64), n, true
	}
	return "", "", 0, false
}

// splitNumber splits a word into its leading number and what follows
// ("15s" → 15, s); num is "" when w does not start with a plain number.
func splitNumber(w string) (num, rest string) {
	k := 0
	for k < len(w) && (w[k] >= '0' && w[k] <= '9' || w[k] == '.' && k > 0 && k+1 < len(w) && w[k+1] >= '0' && w[k+1] <= '9') {
		k++
	}
	if k == 0 || strings.Count(w[:k], ".") > 1 {
		return "", ""
	}
	rest = w[k:]
	if len(rest) > 1 && rest[0] == '-' && isWord(rest[1:]) {
		rest = rest[1:] // "a 30-day window", "15-minute tokens"
	}
	if rest != "" && rest != "%" && !isWord(rest) {
		return "", ""
	}
	return w[:k], rest
}

func isWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return w != ""
}

// compatible reports whether two values of one key agree: equal, or a
// version and a more precise one (20, 20.11.1).
func compatible(key, a, b string) bool {
	if a == b {
		return true
	}
	if strings.HasPrefix(key, "version:") {
		return strings.HasPrefix(a, b+".") || strings.HasPrefix(b, a+".")
	}
	return false
}

// claimConflict finds a key the two memories give different values: the
// new memory states a value the old one does not hold, and the old one's
// value is absent from the new one or retired there. A key other than a
// tool's kind must hold one value on each side. Memories whose scopes
// differ (staging / production, frontend / backend) are not compared.
func claimConflict(olds, news claimSet) (string, bool) {
	old, new := olds.claims, news.claims
	if len(old) == 0 || len(new) == 0 {
		return "", false
	}
	if why, ok := replaced(old, new); ok {
		return why, true // said outright: scopes and qualifiers do not matter
	}
	if _, ok := apart(olds, news); ok {
		return "", false
	}
	if len(olds.dirs) > 0 && len(news.dirs) > 0 && !shareKey(olds.dirs, news.dirs) {
		return "", false // services/ and ml/: two parts of the repository
	}
	// each memory's own variable, or its own command ("`pnpm dev` … port
	// 3000" / "`pnpm storybook` … port 6006")
	ownIdents := ownIdentifiers(olds, news) || exclusive(olds.spans, news.spans) && exclusive(news.spans, olds.spans)
	for _, n := range new {
		if n.retired || ownIdents && !strings.HasPrefix(n.key, "tool:") {
			continue // DATABASE_URL's port / DIRECT_DATABASE_URL's port
		}
		if !strings.HasPrefix(n.key, "tool:") && (distinctValues(new, n.key) != 1 || distinctValues(old, n.key) != 1) {
			continue
		}
		heldByOld := false // a value the old memory rules out holds nothing ("Redux is not installed" / "state lives in Redux")
		for _, o := range old {
			if o.key == n.key && !o.retired && compatible(n.key, o.value, n.value) {
				heldByOld = true
				break
			}
		}
		if heldByOld {
			continue
		}
		for _, o := range old {
			if o.key != n.key || o.retired || heldPositively(new, o) || !strings.HasPrefix(o.key, "tool:") && news.says(o.value) {
				continue
			}
			return fmt.Sprintf("%s: %q became %q", n.key[strings.IndexByte(n.key, ':')+1:], o.text, n.text), true
		}
	}
	return "", false
}

// replaced finds a tool the old memory states that the new one both rules
// out and replaces by another of its kind ("App secrets live in Vault" /
// "we keep secrets in Secrets Manager; there is no Vault"): a conflict
// however differently the two name their subject.
func replaced(old, new []claim) (string, bool) {
	for _, o := range old {
		if o.retired || !strings.HasPrefix(o.key, "tool:") || heldPositively(new, o) {
			continue
		}
		ruledOut := false
		for _, n := range new {
			ruledOut = ruledOut || n.key == o.key && n.retired && n.value == o.value
		}
		if !ruledOut {
			continue
		}
		for _, n := range new {
			if n.key == o.key && !n.retired && n.value != o.value {
				return fmt.Sprintf("%s: %q became %q (the new memory rules %q out)", o.key[len("tool:"):], o.text, n.text, o.text), true
			}
		}
	}
	return "", false
}

// says reports whether the text holds v as a word of its own outside any
// claim's retired value ("workers: process.env.CI ? 4 : 1" says 4).
func (cs claimSet) says(v string) bool { return cs.bare[v] }

// shareKey reports whether a and b hold a name in common.
func shareKey(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

// topDir is the first directory of a relative path written with a slash
// (services/, ml/uv.lock, src/store/slices/); "" for a URL, a path from
// the root or home, a word pair (CI/CD, and/or) or a placeholder.
func topDir(w string) string {
	d, rest, ok := strings.Cut(w, "/")
	if !ok || d == "" || strings.Contains(w, "://") || strings.ContainsAny(w, "<>{}*") || strings.Contains(rest, " ") {
		return ""
	}
	if rest != "" && !strings.ContainsAny(rest, "/.") && !strings.ContainsAny(d, "-_.") {
		return "" // CI/CD, and/or, read/write: no file, no deeper directory, a plain word first
	}
	for _, r := range d {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.') {
			return ""
		}
	}
	if d == "." || d == ".." {
		return ""
	}
	return d
}

// exclusive reports whether a holds a name b does not.
func exclusive(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return true
		}
	}
	return false
}

// distinctValues counts the values a memory gives key unretired,
// compatible ones once.
func distinctValues(cs []claim, key string) int {
	var vs []string
	for _, c := range cs {
		if c.key != key || c.retired {
			continue
		}
		dup := false
		for _, v := range vs {
			dup = dup || compatible(key, v, c.value)
		}
		if !dup {
			vs = append(vs, c.value)
		}
	}
	return len(vs)
}

// heldPositively reports whether cs states o's value unretired.
func heldPositively(cs []claim, o claim) bool {
	for _, c := range cs {
		if c.key == o.key && !c.retired && compatible(o.key, c.value, o.value) {
			return true
		}
	}
	return false
}

// scopes are groups of words that name where a claim holds; two memories
// that each name scopes, none shared, speak of different places.
var scopes = map[string]uint32{}

func init() {
	for g, ws := range [][]string{
		{"prod", "production", "live"},
		{"staging", "stage", "preprod", "pre-prod", "uat"},
		{"dev", "development", "local", "locally", "localhost"},
		{"ci", "pipeline"},
		{"test", "tests", "testing"},
		{"frontend", "front-end", "web", "browser", "spa", "client", "ui"},
		{"backend", "back-end", "server", "api"},
		{"mobile", "ios", "android"},
		{"worker", "workers"},
		{"preview", "review-app", "ephemeral"},
		{"qa"},
		{"sandbox"},
		{"canary"},
		{"cli", "command-line"},
		{"windows"},
		{"linux"},
		{"macos", "mac", "darwin"},
	} {
		for _, w := range ws {
			scopes[w] = 1 << g
		}
	}
}

// scopeOf is the set of scope groups text names.
func scopeOf(ws []claimWord) uint32 {
	var s uint32
	for i, w := range ws {
		s |= scopes[w.lower]
		if strings.HasPrefix(w.lower, ".") || strings.Contains(w.lower, "/") && !strings.Contains(w.lower, "://") {
			// a file named for its environment: .env.production, values-staging.yaml
			for _, part := range strings.FieldsFunc(w.lower, func(r rune) bool { return strings.ContainsRune("./-_", r) }) {
				s |= scopes[part]
			}
		}
		if i+1 < len(ws) && (w.lower == "front" || w.lower == "back") && ws[i+1].lower == "end" {
			s |= scopes[w.lower+"end"]
		}
	}
	return s
}
