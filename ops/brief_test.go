package ops

import (
	"context"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestBriefPacksTheProjectsStandingKnowledge: preferences come before
// decisions, errors and facts; notes, conversation turns and other
// projects stay out; the budget holds.
func TestBriefPacksTheProjectsStandingKnowledge(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	for _, m := range []record.NewMemory{
		{Content: "fact: CI runs on Debian 12 with librocksdb-dev 7.8.3", Type: record.TypeFact, Project: "app"},
		{Content: "decision: pin grocksdb v1.7.15 because 7.8.3 lacks newer C functions", Type: record.TypeDecision, Project: "app"},
		{Content: "user: can you look at the failing test", Type: record.TypeConversation, Project: "app"},
		{Content: "preference: tabs in Makefiles, gofmt everywhere else", Type: record.TypePreference, Project: "app"},
		{Content: "decision in another project: use Postgres 16", Type: record.TypeDecision, Project: "other"},
		{Content: "a note nobody needs at session start", Type: record.TypeNote, Project: "app"},
	} {
		if _, err := e.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Brief(ctx, e, BriefRequest{Project: "app", Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	md := out.Markdown
	if out.Tokens > 300 || len(out.Items) != 3 {
		t.Fatalf("%d tokens, %d items:\n%s", out.Tokens, len(out.Items), md)
	}
	pref, dec, fact := strings.Index(md, "tabs in Makefiles"), strings.Index(md, "pin grocksdb"), strings.Index(md, "Debian 12")
	if pref < 0 || dec < pref || fact < dec {
		t.Fatalf("order preference, decision, fact:\n%s", md)
	}
	for _, out := range []string{"failing test", "Postgres", "nobody needs"} {
		if strings.Contains(md, out) {
			t.Fatalf("%q packed:\n%s", out, md)
		}
	}
	empty, err := Brief(ctx, e, BriefRequest{Project: "nobody"})
	if err != nil || len(empty.Items) != 0 || len(empty.Notes) == 0 {
		t.Fatalf("empty project: %+v %v", empty, err)
	}
	if _, err := Brief(ctx, e, BriefRequest{Budget: 5}); err == nil {
		t.Fatal("budget 5 accepted")
	}
}
