package ops

import (
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/topics"
	"github.com/cgraph/cgraph/topics/topicstore"
)

// DivergenceCheck is one divergence measurement in its wire form, as the
// MCP tool get_divergence_alerts lists them: a memory (with a snippet),
// its best similarity in one semantic slot to the reference memories, the
// nearest of them, and the severity when it alerts ("" when it does not).
// `cgraph topics --json` lists the alerts in their alert view, Alert.
type DivergenceCheck struct {
	ID         record.ID `json:"id"`
	Snippet    string    `json:"snippet"`
	Slot       string    `json:"slot"`
	Similarity float64   `json:"similarity"`
	Nearest    record.ID `json:"nearest"`
	Severity   string    `json:"severity,omitempty"`
}

// Divergence is the divergence check of the newest memories of an
// analysis (topicstore.Analysis.Divergence) in wire form.
type Divergence struct {
	// Checked is how many memories were checked; Reference says against
	// what (the topics' members, or every other memory).
	Checked   int
	Reference string
	// Unmeasured are the semantic slots no memory could be measured in
	// (never nil).
	Unmeasured []string
	// Alerts are the checks that alert, high first (never nil); Checks
	// every check.
	Alerts, Checks []DivergenceCheck
}

// DivergenceOf checks the newest recent memories of a for divergence in
// the semantic slots and returns the result in wire form, snippets cut at
// 120 runes.
func DivergenceOf(a *topicstore.Analysis, recent int) Divergence {
	r, targets, ref := a.Divergence(recent)
	out := Divergence{Checked: len(targets), Reference: ref, Unmeasured: []string{}, Alerts: []DivergenceCheck{}}
	for _, sl := range r.Unmeasured {
		out.Unmeasured = append(out.Unmeasured, sl.String())
	}
	check := func(c topics.Check) DivergenceCheck {
		return DivergenceCheck{ID: a.Items[c.Memory].ID, Snippet: topicstore.Snippet(a.Items[c.Memory].Snippet, 120), Slot: c.Slot.String(),
			Similarity: c.Similarity, Nearest: a.Items[c.Nearest].ID, Severity: c.Severity}
	}
	for _, c := range r.Alerts() {
		out.Alerts = append(out.Alerts, check(c))
	}
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, check(c))
	}
	return out
}

// DivergenceAlert is a check's alert view, what `cgraph topics --json`
// lists under divergence_alerts: no snippet, the severity always written.
type DivergenceAlert struct {
	ID         record.ID `json:"id"`
	Slot       string    `json:"slot"`
	Similarity float64   `json:"similarity"`
	Nearest    record.ID `json:"nearest"`
	Severity   string    `json:"severity"`
}

// Alert is c's alert view.
func (c DivergenceCheck) Alert() DivergenceAlert {
	return DivergenceAlert{ID: c.ID, Slot: c.Slot, Similarity: c.Similarity, Nearest: c.Nearest, Severity: c.Severity}
}
