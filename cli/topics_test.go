package cli

import (
	"strings"
	"testing"
)

// TestTopicsCommand runs `cgraph topics` on the samples: the first run saves
// a snapshot, the second finds every topic stable against it, --no-save
// saves nothing; bad flags are usage errors.
func TestTopicsCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds the samples with the installed models; skipped with -short")
	}
	models := realModelsDir(t)
	db := sampleStore(t, models)
	m := []string{"--db", db, "--models-dir", models}

	var first topicsJSON
	oneJSON(t, mustRun(t, "", append(m, "--json", "topics")...).stdout, &first)
	if first.Memories != 32 || !first.Saved || first.Stability != nil || len(first.Slots) != 13 {
		t.Fatalf("first run: %+v", first)
	}
	t.Logf("32 samples: %d topics, reachable agreement %.1f, %d unassigned, %d divergence alerts", len(first.Topics), first.Reachable, first.Unassigned, len(first.Divergence))
	for _, tp := range first.Topics {
		if tp.MinAgreement < 2.5 || len(tp.Members) != tp.Size || tp.Size < 3 {
			t.Errorf("topic %+v", tp)
		}
	}
	if first.Reachable < 2.5 || len(first.Topics) == 0 {
		t.Errorf("with the models: %d topics, reachable %.1f", len(first.Topics), first.Reachable)
	}
	for _, d := range first.Divergence {
		if d.Slot == "E8" || d.Slot == "E9" || d.Slot == "E11" || (d.Severity != "high" && d.Severity != "medium") {
			t.Errorf("divergence alert %+v", d)
		}
	}

	var second topicsJSON
	oneJSON(t, mustRun(t, "", append(m, "--json", "topics", "--no-save")...).stdout, &second)
	if second.Saved || second.Stability == nil || second.Stability.Common != 32 {
		t.Fatalf("second run: saved %v stability %+v", second.Saved, second.Stability)
	}
	if len(second.Topics) > 0 && second.Stability.Overall != 1 {
		t.Errorf("same memories, stability %v", second.Stability.Overall)
	}
	for _, tp := range second.Topics {
		if tp.Stability != "stable" {
			t.Errorf("topic %d: %s", tp.Topic, tp.Stability)
		}
	}
	human := mustRun(t, "", append(m, "topics", "--no-save")...).stdout
	if !strings.Contains(human, "32 memories") || !strings.Contains(human, "stability since") {
		t.Errorf("human output:\n%s", human)
	}

	for _, args := range [][]string{{"topics", "--min-cluster-size", "1"}, {"topics", "--recent", "-1"}, {"topics", "extra"}} {
		if r := run(t, "", append([]string{"--db", db}, args...)...); r.code != ExitUsage {
			t.Errorf("%v: exit %d, stderr %s", args, r.code, r.stderr)
		}
	}
}

// TestTopicsWithoutModels: with the model-free slots only (E6, E9, E11:
// at most 2.0) no topic can form, and the output says why instead of
// lowering the bar.
func TestTopicsWithoutModels(t *testing.T) {
	db := newStore(t)
	mustRun(t, mustRun(t, "", "samples").stdout, "--db", db, "add", "--jsonl", "-")
	var out topicsJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "topics").stdout, &out)
	if len(out.Topics) != 0 || out.Reachable != 2 || len(out.Notes) == 0 || !strings.Contains(out.Notes[0], "below the topic threshold 2.5") {
		t.Fatalf("topics without models: %d topics, reachable %v, notes %v", len(out.Topics), out.Reachable, out.Notes)
	}
}

// TestMCPFlags: a non-loopback --http address is refused unless
// --allow-remote says so, and a malformed one is a usage error; nothing is
// opened.
func TestMCPFlags(t *testing.T) {
	db := newStore(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--http", "0.0.0.0:8765"}, "not a loopback address"},
		{[]string{"mcp", "--http", "192.168.1.10:8765"}, "--allow-remote"},
		{[]string{"mcp", "--http", "8765"}, "host:port"},
		{[]string{"mcp", "extra"}, ""},
	} {
		r := run(t, "", append([]string{"--db", db}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
}
