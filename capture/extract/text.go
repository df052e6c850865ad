package extract

import (
	"regexp"
	"strings"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/capture/extract/sentclass"
)

var (
	// decisionStrong marks a decision on its own.
	decisionStrong = regexp.MustCompile(`(?i)\b(decided to|decided on|we decided|the decision is|opted for|settled on|we chose|i chose|let'?s go with|we'll go with|we will go with|going with|go with the|instead of\b.+\b(we'll|we will|i'll|let's|use)\b|\b(we'll|we will|let's|i'll)\b.+\b(instead of|rather than)` +
		// "go for the X approach", "I went with A over B", "let's not
		// bother with X and just use Y"
		`|\bgo for (the|it)\b|\b(i|we) went with\b|\b(let'?s|we'll|we will|i'll) not\b[^.]*\band (just )?(use|go with|keep|stick with)\b)`)
	// decisionUse marks a choice that needs a reason when the assistant says it.
	decisionUse = regexp.MustCompile(`(?i)\b(we'll|we will|we're going to|we are going to|we're|we are|i'll|let's|let us)\s+(?:just\s+|now\s+|all\s+|still\s+)?(use|switch(?:ing)? to|adopt(?:ing)?|keep|move to|moving to|pin|upgrad(?:e|ing) to|migrat(?:e|ing) to|stick(?:ing)? with|stay(?:ing)? (?:on|with)|standardi[sz](?:e|ing) on|drop(?:ping)? support for)\b`)
	reason      = regexp.MustCompile(`(?i)\b(because|since|so that|as it|to avoid|which means)\b`)
	// hedges make a sentence a proposal, not a decision.
	hedges = regexp.MustCompile(`(?i)\b(i'd suggest|i would suggest|i'd recommend|i'd use|i'd go|could|might|maybe|perhaps|option|should we|what about|let'?s try|we could|try )\b`)
	// rejection opens a prompt that turns down what was just proposed.
	rejection = regexp.MustCompile(`(?i)^\s*(no\b|nope\b|not\b|don't\b|do not\b|actually,? no|instead\b)`)
	// userDecision are the user's own short decisions: "No X, we don't want
	// …", "keep it as …".
	userDecision = regexp.MustCompile(`(?i)^(no,?\s+)?keep (it|them|this|that)\b|^no\b[^.]*\b(we don't want|we do not want|we won't)\b|^(?:no\b[\s,;:—–-]*)?(?:let's\s+)?(stick with|stay (?:on|with)|keep using)\b`)

	preference = regexp.MustCompile(`(?i)^(?:(?:also|and|oh and|fyi|btw|please|note)[,:]?\s+)*(always|never|don't|do not|prefer|make sure to|from now on|going forward|we (?:always|never|use|don't use|do not use|prefer)|i prefer)\b|\b(we always|we never|we use|we don't use|we prefer|in this (?:repo|project|codebase),? we)\b` +
		// … and the same rules said mid-sentence: "please don't ever add
		// X", "whenever you add a Y", and "no naked returns in this
		// codebase" opening a sentence or a clause (not "there's no test
		// in this repo").
		`|\bplease,?\s+(?:always|never|don't|do not|avoid)\b|\b(?:don't|do not|never)\s+ever\b|\b(?:whenever|every time)\s+you\b` +
		`|(?:^|[-—–:;,]\s*)no\s+[^.,;]{1,40}?\s+(?:in|across|anywhere in)\s+(?:this|the|our)\s+(?:repo|repository|codebase|code base|project)\b` +
		// a rule named as one, or said of every X: "standing rule: …",
		// "I want every public method to …", "… in every Makefile here"
		`|\b(?:standing rule|house rule|as a rule|for future reference)\b|\bi (?:want|'d like|would like) (?:every|all|each)\b` +
		`|\b(?:in|across) (?:every|all|each)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:here|in (?:this|the|our) (?:repo|repository|codebase|project|solution))\b` +
		// "avoid X" opening a sentence, and "Tabs, not spaces" (a short
		// "X, not Y" opening one)
		`|^(?:(?:also|and|no|please)[,.:]?\s+)*(?:avoid|stick to)\b|^[\w+#./-]+(?:\s[\w+#./-]+){0,2}, not [\w+#./-]+(?:\s[\w+#./-]+){0,2}(?:,|\.|$)`)

	// convention is an imperative about a convention's subject, in the
	// plural (commit messages, spelling, indentation, doc comments): the
	// user's "please prefix commit messages with the ticket id" sets a rule
	// where "please rename t to total" and "write a docstring for parse"
	// do not.
	convention    = regexp.MustCompile(`(?i)^(?:(?:also|and|please|btw|fyi)[,:]?\s+)*(?:use|prefix|write|keep|put|format|indent|document|sign)\b.*\b(?:commit messages|commits|spelling|tabs|spaces|indentation|doc comments|docstrings)\b`)
	notPreference = regexp.MustCompile(`(?i)\b(don't (?:worry|know|think|see|understand|remember)|never mind|always fails|i don't|don't have)\b`)
)

// Sentence is one sentence the user or the assistant wrote: what the
// decision and preference rules read. Code blocks, quoted lines and
// questions are left out.
type Sentence struct {
	User bool
	Text string
	// Prev is the other side's message just before the sentence's turn
	// (the assistant's last reply before a prompt), or "".
	Prev string
	// Turn is the index of its turn in the session's turns.
	Turn int
}

// Sentences lists the sentences of a session's turns that Session reads
// for decisions and preferences, in order.
func Sentences(turns []capture.Turn) []Sentence {
	var out []Sentence
	last := map[capture.TurnKind]string{} // each side's last message
	for i, t := range turns {
		if t.Kind != capture.KindUser && t.Kind != capture.KindAssistant {
			continue
		}
		other := capture.KindAssistant
		if t.Kind == capture.KindAssistant {
			other = capture.KindUser
		}
		for _, s := range splitSentences(t.Text) {
			if !strings.HasSuffix(s, "?") {
				out = append(out, Sentence{User: t.Kind == capture.KindUser, Text: s, Prev: last[other], Turn: i})
			}
		}
		last[t.Kind] = t.Text
		last[other] = "" // answered: an older message is not what the next one replies to
	}
	return out
}

// sentences finds decisions and preferences in what the user and the
// assistant wrote: by the rules, checked and completed by the classifier
// (Options.Policy).
func (p *planner) sentences(turns []capture.Turn) {
	pol := p.opt.Policy
	turn, rejected := -1, false
	for _, s := range Sentences(turns) {
		t := turns[s.Turn]
		if s.Turn != turn {
			turn, rejected = s.Turn, !s.User && nextPromptRejects(turns, s.Turn)
		}
		kind, rule, conf := ruleOf(s, rejected)
		// The classifier runs only where its answer can change the verdict:
		// a rule's sentence under a veto, or a sentence no rule took that
		// the policy lets it add (with the default, the user's alone).
		mayAdd := !rejected && (pol.AddPreference <= 1 && s.User || pol.AddDecision <= 1 && (s.User || pol.AssistantToo))
		if kind == "" && !mayAdd || kind != "" && pol.Veto > 1 {
			if kind != "" {
				p.add(from(kind, t, label(kind)+s.Text, rule, conf))
			}
			continue
		}
		probs := p.opt.Sentences.Probs(sentclass.Input{User: s.User, Text: s.Text, Prev: s.Prev})
		switch {
		case kind != "" && probs[sentclass.None] < pol.Veto:
		case kind != "":
			continue // vetoed
		case (s.User || pol.AssistantToo) && probs[sentclass.Decision] >= pol.AddDecision:
			kind, rule, conf = capture.KindDecision, "classifier", probs[sentclass.Decision]
		case s.User && probs[sentclass.Preference] >= pol.AddPreference:
			kind, rule, conf = capture.KindPreference, "classifier", probs[sentclass.Preference]
		default:
			continue
		}
		p.add(from(kind, t, label(kind)+s.Text, rule, conf))
	}
}

// label opens a sentence memory's content.
func label(k capture.Kind) string {
	if k == capture.KindPreference {
		return "Preference: "
	}
	return "Decision: "
}

// ruleOf is the rules' verdict on one sentence: the kind ("" for none),
// the rule and its confidence. rejected says the user's next prompt turned
// down what the assistant said.
func ruleOf(s Sentence, rejected bool) (capture.Kind, string, float64) {
	if s.User {
		m := preference.FindStringIndex(s.Text)
		if m == nil {
			m = convention.FindStringIndex(s.Text)
		}
		if m != nil && !notPreference.MatchString(s.Text) && !quoted(s.Text, m[0]) {
			if reason.MatchString(s.Text) {
				return capture.KindDecision, "user-rule-with-reason", 0.75
			}
			return capture.KindPreference, "user-rule", 0.75
		}
		if userDecision.MatchString(s.Text) {
			return capture.KindDecision, "user-keep-or-no", 0.7
		}
	}
	if rejected {
		return "", "", 0
	}
	if c, ok := decision(s.Text, s.User); ok {
		return capture.KindDecision, c.rule, c.conf
	}
	return "", "", 0
}

type verdict struct {
	rule string
	conf float64
}

// decision judges one sentence.
func decision(s string, user bool) (verdict, bool) {
	if hedges.MatchString(s) {
		return verdict{}, false
	}
	hasReason := reason.MatchString(s)
	if m := decisionStrong.FindStringIndex(s); m != nil && !quoted(s, m[0]) {
		v := verdict{"decision-marker", 0.7}
		if hasReason {
			v.conf = 0.85
		}
		return v, true
	}
	if m := decisionUse.FindStringIndex(s); m != nil && !quoted(s, m[0]) {
		switch {
		case hasReason:
			return verdict{"choice-with-reason", 0.8}, true
		case user:
			return verdict{"user-choice", 0.6}, true
		}
	}
	return verdict{}, false
}

// nextPromptRejects reports whether the user's next prompt after turn i
// turns down what the assistant said.
func nextPromptRejects(turns []capture.Turn, i int) bool {
	for _, t := range turns[i+1:] {
		if t.Kind == capture.KindUser {
			return rejection.MatchString(t.Text)
		}
	}
	return false
}

// quoted reports whether byte offset at of s lies inside double quotes or
// backticks (someone else's words, or code).
func quoted(s string, at int) bool {
	n := strings.Count(s[:at], `"`) + strings.Count(s[:at], "“") - strings.Count(s[:at], "”")
	return n%2 == 1 || strings.Count(s[:at], "`")%2 == 1
}

var sentenceEnd = regexp.MustCompile(`([.!?])\s+`)

// splitSentences splits prose into sentences, leaving out code blocks,
// quoted lines ("> …") and list markers.
func splitSentences(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		tl := strings.TrimSpace(line)
		if strings.HasPrefix(tl, "```") {
			inCode = !inCode
			continue
		}
		if inCode || tl == "" || strings.HasPrefix(tl, ">") {
			continue
		}
		tl = strings.TrimLeft(tl, "-*• ")
		for _, s := range strings.Split(sentenceEnd.ReplaceAllString(tl, "$1\x00"), "\x00") {
			if s = strings.TrimSpace(s); len(s) > 3 {
				out = append(out, s)
			}
		}
	}
	return out
}
