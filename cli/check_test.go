package cli

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/cli/storecmd"
)

// storeFiles maps each file of the store directory to a digest of its
// bytes (the writer lock's pid left out).
func storeFiles(t *testing.T, db string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(db)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, en := range entries {
		if en.Name() == "cgraph.lock" {
			out[en.Name()] = "lock"
			continue
		}
		b, err := os.ReadFile(filepath.Join(db, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[en.Name()] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return out
}

// TestMissingCurrentFollowsNoDestructiveAdvice: with CURRENT gone, every
// command — init included — refuses the store as damaged, names the files
// and `cgraph check --repair`, and changes no byte; check reports it, and
// check --repair brings every memory back.
func TestMissingCurrentFollowsNoDestructiveAdvice(t *testing.T) {
	db := newStore(t)
	for i := range 4 {
		mustRun(t, "", "--db", db, "add", fmt.Sprintf("memory %d about column families", i))
	}
	if err := os.Remove(filepath.Join(db, "CURRENT")); err != nil {
		t.Fatal(err)
	}
	before := storeFiles(t, db)
	for _, args := range [][]string{{"init"}, {"init", "--samples"}, {"stats"}, {"list"}, {"add", "x"},
		{"search", "column"}, {"--read-only", "search", "column"}, {"embedders"}, {"check"}} {
		r := run(t, "", append([]string{"--db", db}, args...)...)
		if r.code != ExitError {
			t.Errorf("%v: exit %d, want %d", args, r.code, ExitError)
		}
		for _, want := range []string{"damaged", "CURRENT file is missing", ".log", "cgraph check --repair"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: stderr does not say %q:\n%s", args, want, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "create one with `cgraph init`") {
			t.Errorf("%v: advises init on a damaged store:\n%s", args, r.stderr)
		}
		if after := storeFiles(t, db); !maps.Equal(before, after) {
			t.Fatalf("%v changed the damaged store's files", args)
		}
	}
	var out storecmd.CheckJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "check", "--repair").stdout, &out)
	if !out.OK || out.Memories != 4 || out.Repair == nil || !out.Repair.Changed || !strings.HasPrefix(out.Repair.Manifest, "MANIFEST-") {
		t.Fatalf("check --repair: %+v", out)
	}
	r := mustRun(t, "", "--db", db, "list")
	if got := strings.Count(r.stdout, "column families"); got != 4 {
		t.Fatalf("list after repair shows %d of 4 memories:\n%s", got, r.stdout)
	}
	r = mustRun(t, "", "--db", db, "check")
	if !strings.Contains(r.stdout, "consistent: 4 memories") {
		t.Fatalf("check after repair: %q", r.stdout)
	}
}
