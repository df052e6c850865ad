// Package sentclass says whether one sentence of a coding session states a
// decision, a preference (a standing rule for future work) or neither, with
// a linear model over the sentence's words and word pairs. It exists because
// rules written one phrasing at a time did not carry to the next writer's
// phrasing (docs/BENCHMARKS.md, "Capture on transcripts the rules never
// saw"): the model is trained on labelled sentences written by several
// hands and on the labelled transcripts' sentences, and capture/extract
// combines its probabilities with its rules.
//
// The model is a multinomial logistic regression: a weight per feature and
// class, a bias per class, softmax. Features are the lower-cased words (a
// word with a digit reads "<num>", a code span "<code>"), adjacent word
// pairs with sentence start and end marks, the speaker, the speaker with the
// first word, a length bucket, and of the other side's previous message only
// whether there is one, whether it asks, and its words that offer a choice
// ("option", "either", "or", "suggest", "i'd", …), never its subject. Default returns the model shipped in
// default.model, built by `go run ./capture/extract/sentclass/train`.
//
// It must not read files at run time, call a model or keep state: a Model
// is read-only after Parse or Train and safe for concurrent use.
package sentclass

import (
	"strings"
	"unicode"
)

// Label is what a sentence states.
type Label int

// The labels, in the order of a model's columns.
const (
	None Label = iota
	Decision
	Preference
	numLabels
)

var labelNames = [...]string{"none", "decision", "preference"}

// String is the label's name: "none", "decision" or "preference".
func (l Label) String() string {
	if l >= 0 && l < numLabels {
		return labelNames[l]
	}
	return "unknown"
}

// ParseLabel reads a label's name.
func ParseLabel(s string) (Label, bool) {
	for i, n := range labelNames {
		if s == n {
			return Label(i), true
		}
	}
	return None, false
}

// Probs are a sentence's probabilities, indexed by Label; they sum to 1.
type Probs [numLabels]float64

// Input is one sentence to classify, with its context.
type Input struct {
	// User is true for the user's sentence, false for the assistant's.
	User bool
	Text string
	// Prev is the other side's message just before (the assistant's reply
	// that a user's "ok, the second one" answers), or "".
	Prev string
}

// prevCues are the words of the previous message that the model reads: the
// ones that offer a choice or ask for one, never its subject.
var prevCues = map[string]bool{"option": true, "options": true, "either": true, "or": true, "suggest": true,
	"recommend": true, "i'd": true, "would": true, "could": true, "should": true, "prefer": true, "which": true,
	"approach": true, "alternatively": true, "want": true, "proposal": true, "instead": true, "rather": true}

// Features are the model's inputs for one sentence. Repeated features count
// once.
func Features(in Input) []string {
	toks := tokens(in.Text)
	spk := "a"
	if in.User {
		spk = "u"
	}
	out := make([]string, 0, 2*len(toks)+6)
	seen := make(map[string]bool, 2*len(toks)+6)
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	add("s:" + spk)
	first := "</s>"
	if len(toks) > 0 {
		first = toks[0]
	}
	add("f:" + spk + ":" + first)
	switch n := len(toks); {
	case n <= 4:
		add("n:4")
	case n <= 10:
		add("n:10")
	case n <= 20:
		add("n:20")
	default:
		add("n:max")
	}
	prev := "<s>"
	for _, t := range toks {
		add("w:" + t)
		add("b:" + prev + " " + t)
		prev = t
	}
	add("b:" + prev + " </s>")
	if in.Prev != "" {
		add("p:any")
		if strings.Contains(in.Prev, "?") {
			add("p:?")
		}
		for _, t := range tokens(in.Prev) {
			if prevCues[t] {
				add("p:" + t)
			}
		}
	}
	return out
}

// tokens lower-cases text and splits it into words: letters and
// apostrophes ("let's", "don't"), a word holding a digit as "<num>", a
// backquoted span as "<code>".
func tokens(text string) []string {
	var out []string
	var b strings.Builder
	digit := false
	flush := func() {
		if b.Len() == 0 {
			return
		}
		w := strings.Trim(b.String(), "'")
		switch {
		case digit:
			out = append(out, "<num>")
		case w == "":
		case strings.ContainsAny(strings.TrimRight(w, ".-/"), "./"):
			out = append(out, "<path>")
		case strings.Contains(w, "_"):
			out = append(out, "<ident>")
		case len(w) > 24:
			out = append(out, "<long>")
		default:
			out = append(out, w)
		}
		b.Reset()
		digit = false
	}
	inCode := false
	for _, r := range text {
		if r == '`' {
			flush()
			if !inCode {
				out = append(out, "<code>")
			}
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		switch {
		case r == '’' || r == '\'':
			b.WriteByte('\'')
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsDigit(r):
			digit = true
			b.WriteRune(r)
		case (r == '.' || r == '-' || r == '_' || r == '/') && b.Len() > 0:
			// inside a name ("v1.2", "snake_case", "src/app"): one word
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	for i, w := range out {
		// a word's trailing dot is the sentence's
		out[i] = strings.TrimRight(w, ".-/")
		if out[i] == "" {
			out[i] = w
		}
	}
	return out
}
