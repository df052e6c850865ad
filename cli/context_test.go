package cli

import (
	"strings"
	"testing"

	"github.com/cgraph/cgraph/ops"
)

// TestContextCommand: the packed context fits the budget as counted, cites
// its items in order, and drops an exact repeat as a near-duplicate; bad
// budgets are usage errors.
func TestContextCommand(t *testing.T) {
	db := newStore(t)
	lines := []string{
		`{"content": "The build fails on CI because librocksdb-dev 7.8.3 is missing from the image."}`,
		`{"content": "The build fails on CI because librocksdb-dev 7.8.3 is missing from the image!"}`,
		`{"content": "CI images are rebuilt every Monday from docker/ci.Dockerfile; the build pins librocksdb-dev."}`,
	}
	mustRun(t, strings.Join(lines, "\n")+"\n", "--db", db, "add", "--jsonl", "-")
	var out ops.CompactContext
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "context", "why does the build fail on CI librocksdb-dev", "--budget", "200", "--profile", "fact_checking").stdout, &out)
	if out.Tokens > 200 || out.Tokens <= 0 || out.Budget != 200 || !strings.Contains(out.Counter, "approximate") {
		t.Fatalf("packing: %d of %d tokens, counter %q", out.Tokens, out.Budget, out.Counter)
	}
	if len(out.Cites) != 2 || out.Cites[0].Cite != "[1]" || out.Cites[1].Cite != "[2]" || !strings.Contains(out.Markdown, "[2] note · ") || out.Cites[1].Type != "note" {
		t.Fatalf("cites %+v\n%s", out.Cites, out.Markdown)
	}
	if out.Left.Count != 1 || out.Left.Reason != "1 near-duplicate of a packed memory" {
		t.Fatalf("left out %+v", out.Left)
	}
	human := mustRun(t, "", "--db", db, "context", "librocksdb-dev", "--budget", "100")
	if !strings.HasPrefix(human.stdout, "## Memories for: librocksdb-dev") || !strings.Contains(human.stderr, "of 100 tokens") {
		t.Fatalf("markdown output: %q / %q", human.stdout, human.stderr)
	}
	// A filter keeps the context to the memories that match it.
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "context", "librocksdb-dev CI build", "--budget", "300", "--tag", "nowhere").stdout, &out)
	if len(out.Cites) != 0 {
		t.Fatalf("--tag nowhere packed %+v", out.Cites)
	}
	mustRun(t, `{"content": "CI build note in project side about librocksdb-dev", "project": "side"}`+"\n", "--db", db, "add", "--jsonl", "-")
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "--project", "side", "context", "librocksdb-dev CI build", "--budget", "300").stdout, &out)
	if len(out.Cites) != 1 || !strings.Contains(out.Markdown, "project side") {
		t.Fatalf("--project side: %+v", out)
	}
	for _, args := range [][]string{{"context", "q", "--budget", "10"}, {"context", "q", "--candidates", "0"}, {"context"}, {"context", "q", "--profile", "nope"},
		{"context", "q", "--superseded", "sometimes"}, {"context", "q", "--created-after", "soon"}} {
		if r := run(t, "", append([]string{"--db", db}, args...)...); r.code != ExitUsage {
			t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
}
