package captureeval

import (
	"strings"
	"testing"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/record"
)

func cand(k capture.Kind, content string) capture.Candidate {
	return capture.Candidate{Kind: k, Content: content}
}

func TestMatch(t *testing.T) {
	g := Gold{Transcript: "t", Memories: []GoldMemory{
		{ID: "e1", Kind: capture.KindError, Key: "KeyError"},
		{ID: "e2", Kind: capture.KindError, Key: "TS2339"},
		{Kind: capture.KindFix, Key: "session.get", Fixes: "e1"},
		{Kind: capture.KindDecision, Key: "401"},
	}, Absent: []string{"hunter2"}}
	p := capture.Plan{Memories: []capture.Candidate{
		cand(capture.KindError, "Error: KeyError: 'user_id' and TS2339"), // could match either error
		cand(capture.KindError, "Error: keyerror again"),                 // case-insensitive
		cand(capture.KindFix, "Fix: use session.get"),
		cand(capture.KindDecision, "Fact-like 401 but typed decision"),
		cand(capture.KindFact, "password hunter2"),
		cand(capture.KindPreference, "401"), // wrong kind: no match
	}, Links: []capture.Link{{From: 2, To: 1, Type: record.RelFixes}, {From: 2, To: 0, Type: record.RelFixes}}}
	s := Match(p, g)
	if c := s.Kinds[capture.KindError]; c.Matched != 2 || c.Predicted != 2 || c.Gold != 2 {
		t.Errorf("errors %+v, want one-to-one 2 of 2 (augmenting path)", *c)
	}
	if c := s.Kinds[capture.KindPreference]; c.Matched != 0 || c.Predicted != 1 {
		t.Errorf("preferences %+v", *c)
	}
	// The matching gives prediction 1 to e1 and prediction 0 to e2, so only
	// the link to prediction 1 is correct.
	if s.Links.Predicted != 2 || s.Links.Matched != 1 || s.Links.Gold != 1 {
		t.Errorf("links %+v, want 1 of 2 correct", s.Links)
	}
	if len(s.Leaks) != 1 || !strings.Contains(s.Leaks[0], "hunter2") {
		t.Errorf("leaks %v", s.Leaks)
	}
	if got := s.Kinds[capture.KindDecision].Precision(); got != 1 {
		t.Errorf("decision precision %v", got)
	}
	if !strings.Contains(Table(s), "errors+fixes") {
		t.Error("table lacks the errors+fixes row")
	}
}

func TestParseGoldRefuses(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"bad json", `{`, "unexpected"},
		{"unknown type", `{"memories":[{"type":"todo","key":"x"}]}`, "unknown type"},
		{"empty key", `{"memories":[{"type":"error","key":" "}]}`, "empty key"},
		{"fix of nothing", `{"memories":[{"type":"fix","key":"x","fixes":"e9"}]}`, "not an error"},
	}
	for _, tc := range tests {
		if _, err := ParseGold([]byte(tc.src), tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

func FuzzParseGold(f *testing.F) {
	f.Add([]byte(`{"transcript":"a.jsonl","memories":[{"id":"e1","type":"error","key":"x"},{"type":"fix","key":"y","fixes":"e1"}],"absent":["s"]}`))
	f.Add([]byte(`{"memories":[{"type":"fix","fixes":"e1","key":"k"},{"id":"e1","type":"decision","key":"k"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseGold(b, "fuzz")
		if err != nil {
			return
		}
		ids := map[string]capture.Kind{}
		for _, m := range g.Memories {
			if m.ID != "" {
				ids[m.ID] = m.Kind
			}
		}
		for _, m := range g.Memories {
			if strings.TrimSpace(m.Key) == "" || (m.Kind == capture.KindFix && ids[m.Fixes] != capture.KindError) {
				t.Fatalf("accepted an invalid memory %+v", m)
			}
		}
		Match(capture.Plan{}, g) // must not panic
	})
}
