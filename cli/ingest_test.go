package cli

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

const ingestFixtures = "../capture/extract/testdata/transcripts"

// TestIngestCommand: `cgraph ingest claude-code DIR` ingests every
// *.jsonl under DIR (a sub-agent's file in a subdirectory too) and prints
// the totals; a second run stores nothing; a bad host and a directory
// without transcripts are usage errors.
func TestIngestCommand(t *testing.T) {
	db := newStore(t)
	dir := t.TempDir()
	for _, name := range []string{"go-failing-test.jsonl", "rust-borrow.jsonl"} {
		b, err := os.ReadFile(filepath.Join(ingestFixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dir, name)
		if name == "rust-borrow.jsonl" {
			to = filepath.Join(dir, "sess", "subagents", name)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a transcript"), 0o600); err != nil {
		t.Fatal(err)
	}
	var first ops.IngestTotal
	r := mustRun(t, "", "--db", db, "--project", "p", "--json", "ingest", "claude-code", dir)
	oneJSON(t, r.stdout, &first)
	if len(first.Files) != 2 || first.Stored == 0 || first.Typed["error"] == 0 || first.Files[0].Project != "p" || !strings.Contains(r.stderr, "[2/2]") {
		t.Fatalf("first ingest: %+v\nstderr: %s", first, r.stderr)
	}
	var second ops.IngestTotal
	oneJSON(t, mustRun(t, "", "--db", db, "--project", "p", "--json", "ingest", "claude-code", dir).stdout, &second)
	if second.Stored != 0 || second.Turns != 0 {
		t.Errorf("second ingest stored %d (read %d turns), want 0", second.Stored, second.Turns)
	}
	human := mustRun(t, "", "--db", db, "--project", "p", "ingest", "claude-code", filepath.Join(dir, "go-failing-test.jsonl"), "--final")
	if !strings.HasPrefix(human.stdout, "1 files, 0 turns read: 0 memories stored") {
		t.Errorf("human output: %q", human.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ingest", "cursor", dir}, "unknown host"},
		{[]string{"ingest", "claude-code", t.TempDir()}, "no *.jsonl"},
		{[]string{"ingest", "claude-code", filepath.Join(dir, "missing.jsonl")}, "no such file"},
	} {
		r := run(t, "", append([]string{"--db", db}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("cgraph %v: exit %d, stderr %q, want a usage error saying %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

var (
	synthUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	synthTool = regexp.MustCompile(`toolu_[0-9a-f]+`)
)

// synthTranscript repeats the fixtures with fresh uuids, tool ids and
// texts up to size bytes.
func synthTranscript(t *testing.T, size int) []byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(ingestFixtures, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out strings.Builder
	for r := 0; out.Len() < size; r++ {
		b, err := os.ReadFile(paths[r%len(paths)])
		if err != nil {
			t.Fatal(err)
		}
		s := synthUUID.ReplaceAllStringFunc(string(b), func(u string) string {
			h := sha256.Sum256([]byte(fmt.Sprint(r, u)))
			return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
		})
		s = synthTool.ReplaceAllStringFunc(s, func(id string) string { return fmt.Sprintf("%s%d", id, r) })
		s = strings.ReplaceAll(s, `"text":"`, fmt.Sprintf(`"text":"(part %d) `, r))
		s = strings.ReplaceAll(s, `"content":"`, fmt.Sprintf(`"content":"(part %d) `, r))
		out.WriteString(s)
	}
	return []byte(out.String())
}

// turnKeysOf opens a store's records and counts its conversation memories
// per capture key.
func turnKeysOf(t *testing.T, db string) (map[string]int, int) {
	t.Helper()
	e, err := engine.Open(db, engine.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	}()
	keys, n := map[string]int{}, 0
	var after record.ID
	for {
		page, err := e.List(context.Background(), record.ListOptions{Limit: 1000, After: after, Oldest: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			n++
			if m.Type == record.TypeConversation {
				keys[m.Meta["capture_key"]]++
			}
		}
		if len(page) < 1000 {
			return keys, n
		}
		after = page[len(page)-1].ID
	}
}

// TestIngestKilled: the real binary ingesting a large transcript is killed
// with SIGKILL once it has committed a chunk; a second run loses nothing
// and duplicates nothing: the store then holds the same turns, each once,
// as a store that ingested the file in one run.
func TestIngestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := cgraphBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(path, synthTranscript(t, 3<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	cg := func(db string, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir, "CGRAPH_NO_SERVER=1", "CGRAPH_MODELS="+filepath.Join(dir, "no-models"))
		return cmd
	}
	ref := filepath.Join(dir, "ref")
	if out, err := cg(ref, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	if out, err := cg(ref, "ingest", "claude-code", path).CombinedOutput(); err != nil {
		t.Fatalf("reference ingest: %v\n%s", err, out)
	}
	want, wantN := turnKeysOf(t, ref)

	db := filepath.Join(dir, "store")
	if out, err := cg(db, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	cmd := cg(db, "ingest", "claude-code", path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cursors := filepath.Join(db, "capture", "cursors")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if es, _ := os.ReadDir(cursors); len(es) > 0 {
			break // a chunk is committed: kill it in the middle of the next
		}
		if time.Now().After(deadline) {
			t.Fatal("no cursor after 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Skip("the ingest finished before the kill: nothing to test on this machine")
	}
	out, err := cg(db, "--json", "ingest", "claude-code", path).CombinedOutput()
	if err != nil {
		t.Fatalf("rerun after the kill: %v\n%s", err, out)
	}
	got, gotN := turnKeysOf(t, db)
	for k, n := range got {
		if n != 1 {
			t.Errorf("turn %s stored %d times", k, n)
		}
		if want[k] == 0 {
			t.Errorf("turn %s stored only after the kill", k)
		}
	}
	for k := range want {
		if got[k] == 0 {
			t.Errorf("turn %s lost by the kill", k)
		}
	}
	if gotN != wantN {
		t.Errorf("store holds %d memories after kill and rerun, %d after one run", gotN, wantN)
	}
}
