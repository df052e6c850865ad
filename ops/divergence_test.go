package ops

import (
	"context"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestDivergenceOf: the newest memories are checked in the semantic
// slots; an unrelated newest memory alerts, each alert is one of the
// checks, the alerts come high first, and the alert view keeps the
// check's fields but the snippet.
func TestDivergenceOf(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	addTopicNotes(t, e)
	odd, err := e.Add(ctx, record.NewMemory{Content: "Grandmother's sourdough wants a cold overnight proof in the fridge."})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := Topics(ctx, e, TopicsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	d := DivergenceOf(ans.Analysis, 1)
	if d.Checked != 1 || d.Reference == "" || d.Unmeasured == nil || len(d.Checks) == 0 {
		t.Fatalf("divergence of the newest memory: %+v", d)
	}
	checks := map[DivergenceCheck]bool{}
	for _, c := range d.Checks {
		checks[c] = true
		if c.ID != odd.ID || c.Snippet == "" {
			t.Errorf("check %+v: want the newest memory %s, with its snippet", c, odd.ID)
		}
	}
	if len(d.Alerts) == 0 {
		t.Fatalf("an unrelated newest memory raised no alert: %+v", d.Checks)
	}
	for i, a := range d.Alerts {
		if !checks[a] || a.Severity == "" || (i > 0 && a.Severity == "high" && d.Alerts[i-1].Severity != "high") {
			t.Errorf("alert %d %+v: not a check, without severity, or out of order", i, a)
		}
		if v := a.Alert(); v.ID != a.ID || v.Slot != a.Slot || v.Similarity != a.Similarity || v.Nearest != a.Nearest || v.Severity != a.Severity {
			t.Errorf("alert view %+v of %+v", v, a)
		}
	}
}
