package extract

import (
	"strings"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/capture/extract/sentclass"
	"github.com/cgraph/cgraph/record"
)

// Options tune extraction. The zero value is ready to use.
type Options struct {
	// MinConfidence drops candidates below it (0 keeps all).
	MinConfidence float64
	// MaxContent is the most bytes of a candidate's content
	// (DefaultMaxContent when 0).
	MaxContent int
	// Sentences classifies the user's and the assistant's sentences
	// (sentclass.Default() when nil).
	Sentences *sentclass.Model
	// Policy says how the classifier and the rules combine; the zero value
	// is DefaultPolicy.
	Policy Policy
}

// Policy combines the sentence rules with the sentence classifier. A
// sentence becomes a decision or preference when a rule says so and the
// classifier's probability of "none" is below Veto, or, with no rule, when
// the classifier's probability of that label is at least AddDecision or
// AddPreference (the user's sentences only, unless AssistantToo).
type Policy struct {
	Veto          float64 // above 1: rules never vetoed
	AddDecision   float64 // above 1: the classifier adds no decision
	AddPreference float64 // above 1: the classifier adds no preference
	AssistantToo  bool    // the classifier may add the assistant's decisions
}

// RulesOnly is the policy of the rules alone: the classifier neither
// vetoes nor adds.
var RulesOnly = Policy{Veto: 2, AddDecision: 2, AddPreference: 2}

// DefaultPolicy is what Session uses when Options.Policy is zero: the
// rules as they are, and the user's sentences they miss that the classifier
// calls a preference at 0.95 or more. The classifier adds no decisions: on
// the two transcript sets written blind after it, its decisions at 0.7 were
// right 3 times in 24 (rules alone: 3 in 4), and at 0.95, on the two sets
// before, 8 in 15 (docs/BENCHMARKS.md, "Decisions and preferences by a
// trained classifier"). Options.Policy turns them on.
var DefaultPolicy = Policy{Veto: 2, AddDecision: 2, AddPreference: 0.95}

// DefaultMaxContent keeps notes short enough to read at a glance.
const DefaultMaxContent = 400

// Session extracts the plan of one session from its turns (in order). It
// is O(turns × later turns) in the worst case for error resolution, linear
// otherwise.
func Session(turns []capture.Turn, opt Options) capture.Plan {
	if opt.MaxContent <= 0 {
		opt.MaxContent = DefaultMaxContent
	}
	if opt.Sentences == nil {
		opt.Sentences = sentclass.Default()
	}
	if opt.Policy == (Policy{}) {
		opt.Policy = DefaultPolicy
	}
	p := &planner{opt: opt}
	if len(turns) > 0 {
		p.plan.Session = turns[0].Session
	}
	p.errors(turns)
	p.sentences(turns)
	p.facts(turns)
	return p.plan
}

type planner struct {
	opt  Options
	plan capture.Plan
}

// add appends a candidate (content cut to MaxContent) unless it is below
// the confidence floor; it returns its index or -1.
func (p *planner) add(c capture.Candidate) int {
	if c.Confidence < p.opt.MinConfidence {
		return -1
	}
	c.Content = clip(c.Content, p.opt.MaxContent)
	p.plan.Memories = append(p.plan.Memories, c)
	return len(p.plan.Memories) - 1
}

func (p *planner) link(from, to int, t record.RelationType) {
	if from >= 0 && to >= 0 {
		p.plan.Links = append(p.plan.Links, capture.Link{From: from, To: to, Type: t})
	}
}

// from fills a candidate's provenance from a turn.
func from(k capture.Kind, t capture.Turn, content, rule string, conf float64) capture.Candidate {
	return capture.Candidate{Kind: k, Content: content, Confidence: conf, Session: t.Session, Seq: t.Seq,
		Time: t.Time, UUIDs: append([]string(nil), t.UUIDs...), Source: t.Source, Files: t.Files, Rule: rule}
}

// clip cuts s to n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	i := n - 3
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// oneLine collapses white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
