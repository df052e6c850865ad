package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine"
)

// TestBadInput runs each kind of bad input and checks its exit code, that
// stderr says what was wrong and how to fix it, and that nothing was stored.
func TestBadInput(t *testing.T) {
	db := newStore(t)
	dir := t.TempDir()
	aFile := filepath.Join(dir, "file")
	if err := os.WriteFile(aFile, []byte("not a dir"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("b", 64)), 0o644); err != nil {
		t.Fatal(err)
	}
	absent := "0192f1a4-7c3e-7b2a-9d4e-1f2a3b4c5d6e"
	badPolicy := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(badPolicy, []byte("actions = [\"prune\"]\nprune_bellow = 0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  []string // substrings of stderr, in order: what, then how to fix
	}{
		{"empty content", "", []string{"add", ""}, ExitUsage, []string{"content: is empty", "give the memory some text"}},
		{"whitespace content", "", []string{"add", " \t\n "}, ExitUsage, []string{"content: is empty"}},
		{"empty stdin", "\n", []string{"add", "-"}, ExitUsage, []string{"content: is empty"}},
		{"invalid UTF-8 on stdin", "ok \xff\xfe", []string{"add", "-"}, ExitUsage, []string{"content: is not valid UTF-8", "convert"}},
		{"content over the limit", "", []string{"add", strings.Repeat("x", 11), "--max-content-bytes", "10"}, ExitUsage,
			[]string{"content: is 11 bytes, over the limit of 10", "split it"}},
		{"negative skip-lines", "", []string{"add", "--jsonl", "-", "--skip-lines", "-1"}, ExitUsage, []string{"--skip-lines -1 is negative"}},
		{"file over the limit", "", []string{"add", "--file", big, "--max-content-bytes", "10"}, ExitUsage,
			[]string{"--file " + big + " is over the limit of 10 bytes", "raise --max-content-bytes"}},
		{"missing file", "", []string{"add", "--file", filepath.Join(dir, "nope")}, ExitUsage, []string{"--file:", "no such file", "readable file"}},
		{"file is a directory", "", []string{"add", "--file", dir}, ExitUsage, []string{"--file " + dir + " is a directory", "give a file"}},
		{"jsonl is a directory", "", []string{"add", "--jsonl", dir}, ExitUsage, []string{"--jsonl " + dir + " is a directory"}},
		{"missing jsonl", "", []string{"add", "--jsonl", filepath.Join(dir, "nope")}, ExitUsage, []string{"--jsonl:", "no such file"}},
		{"text and file", "", []string{"add", "x", "--file", big}, ExitUsage, []string{"both TEXT and --file", "drop"}},
		{"nothing to add", "", []string{"add"}, ExitUsage, []string{"add needs something to store", "--jsonl F"}},
		{"two texts", "", []string{"add", "a", "b"}, ExitUsage, []string{"one TEXT argument, got 2", "quote the text"}},
		{"jsonl with --type", "", []string{"add", "--jsonl", "-", "--type", "fact"}, ExitUsage, []string{"--type does not apply to add --jsonl", "each JSONL line"}},
		{"bad type", "", []string{"add", "x", "--type", "opinion"}, ExitUsage, []string{`unknown type "opinion"`, "use one of code, conversation, decision"}},
		{"bad created-at", "", []string{"add", "x", "--created-at", "2026-13-01"}, ExitUsage, []string{"is not an RFC 3339 time", "2026-01-02T15:04:05Z"}},
		{"zero created-at", "", []string{"add", "x", "--created-at", "0001-01-01T00:00:00Z"}, ExitUsage, []string{"outside the storable range", "between 1970 and 2262"}},
		{"created-at before 1970", "", []string{"add", "x", "--created-at", "1969-12-31T23:59:59Z"}, ExitUsage, []string{"outside the storable range"}},
		{"importance out of range", "", []string{"add", "x", "--importance", "1.5"}, ExitUsage, []string{"importance: 1.5 is outside [0, 1]", "from 0 to 1"}},
		{"importance zero", "", []string{"add", "x", "--importance", "0"}, ExitUsage, []string{"--importance 0 cannot be stored", "0.01"}},
		{"control char in tag", "", []string{"add", "x", "--tag", "a\x1bb"}, ExitUsage, []string{"tags[0]: contains the control character", "remove"}},
		{"malformed id", "", []string{"get", "12345"}, ExitUsage, []string{`"12345" is neither a memory id nor a prefix of one`, "36-character id", "8 or more hex digits"}},
		{"id prefix matching nothing", "", []string{"get", "ffffffff"}, ExitError, []string{"no memory id starts or ends with ffffffff"}},
		{"unknown id", "", []string{"get", absent}, ExitError, []string{"no memory with id " + absent, "cgraph list"}},
		{"delete unknown id", "", []string{"delete", absent}, ExitError, []string{"no memory with id " + absent}},
		{"maintain-apply without a schedule", "", []string{"serve", "--maintain-apply"}, ExitUsage, []string{"need a schedule", "--maintain-every 6h"}},
		{"maintain-apply without a policy", "", []string{"serve", "--maintain-every", "6h", "--maintain-apply"}, ExitUsage, []string{"--maintain-apply needs --maintain-policy", "policy file"}},
		{"maintain-every too short", "", []string{"serve", "--maintain-every", "10ms"}, ExitUsage, []string{"--maintain-every 10ms is too short", "1s or more"}},
		{"bad policy key", "", []string{"serve", "--maintain-every", "6h", "--maintain-policy", badPolicy}, ExitUsage, []string{"prune_bellow: is not a policy key", "prune_below"}},
		{"consolidate without near", "", []string{"maintain", "--consolidate"}, ExitUsage, []string{"--consolidate needs --near", "cgraph maintain --near --consolidate"}},
		{"log limit", "", []string{"log", "--limit", "0"}, ExitUsage, []string{"--limit 0 is out of range", "from 1 to 100000"}},
		{"malformed action id", "", []string{"undo", "x1"}, ExitUsage, []string{`"x1" is not an action id`, "last 8 or more hex digits"}},
		{"unknown action id", "", []string{"undo", "deadbeef"}, ExitError, []string{"no action id ends with deadbeef", "cgraph log"}},
		{"get without id", "", []string{"get"}, ExitUsage, []string{"needs one memory id, got 0", "usage: cgraph get ID"}},
		{"list after unknown id", "", []string{"list", "--after", absent}, ExitError, []string{"that memory was deleted", "start again"}},
		{"list limit 0", "", []string{"list", "--limit", "0"}, ExitUsage, []string{"--limit 0 is too small", "1 or more"}},
		{"list limit not a number", "", []string{"list", "--limit", "ten"}, ExitUsage, []string{`invalid argument "ten"`, "cgraph list --help"}},
		{"list extra arg", "", []string{"list", "all"}, ExitUsage, []string{`takes no arguments, got "all"`}},
		{"unknown command", "", []string{"lsit"}, ExitUsage, []string{`unknown command "lsit"`, "did you mean", "list"}},
		{"unknown flag", "", []string{"list", "--newest"}, ExitUsage, []string{"unknown flag: --newest", "--help"}},
		{"bad device", "", []string{"stats", "--device", "gpu"}, ExitUsage, []string{`--device "gpu" is not a device`, "cpu or --device cuda"}},
		{"bad precision", "", []string{"stats", "--precision", "fp8"}, ExitUsage, []string{`--precision "fp8" is not a weight precision`, "default, fp32, int8, or fp16 (cuda only)"}},
		{"fp16 on the cpu", "", []string{"stats", "--precision", "fp16"}, ExitUsage, []string{"--precision fp16 runs on cuda only", "make setup-cuda-fp16"}},
		{"read-only write", "", []string{"add", "x", "--read-only"}, ExitUsage, []string{"--read-only was given", "drop --read-only"}},
		{"read-only init", "", []string{"init", "--read-only"}, ExitUsage, []string{"init creates a store", "drop --read-only"}},
		{"samples into a used store", "", []string{"init", "--samples"}, ExitUsage, []string{"already holds 1 memories", "new directory"}},
		{"search bad type", "", []string{"search", "q", "--type", "opinion"}, ExitUsage, []string{`unknown type "opinion"`, "use one of code"}},
		{"search bad rerank weight", "", []string{"search", "q", "--rerank-weight", "2"}, ExitUsage, []string{"--rerank-weight 2 is out of range"}},
		{"link bad relation type", "", []string{"link", absent, absent, "--type", "blames"}, ExitUsage, []string{`unknown relation type "blames"`, "use one of"}},
	}
	mustRun(t, "", "--db", db, "add", "the one memory")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, c.stdin, append([]string{"--db", db}, c.args...)...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, c.code, r.stderr)
			}
			checkMessage(t, r.stderr, c.want)
			if n := strings.Count(r.stderr, "use one of"); n > 1 {
				t.Errorf("the fix is said %d times: %q", n, r.stderr)
			}
			if r.stdout != "" && c.args[0] != "init" {
				t.Errorf("stdout on error: %q", r.stdout)
			}
		})
	}
	var st statsJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "stats").stdout, &st)
	if st.Memories != 1 || st.NextDocNum != 1 {
		t.Fatalf("bad input changed the store: %+v", st)
	}
}

// checkMessage checks stderr is one "cgraph: ..." line holding want in order.
func checkMessage(t *testing.T, stderr string, want []string) {
	t.Helper()
	if !strings.HasPrefix(stderr, "cgraph: ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr is not one `cgraph: ` line: %q", stderr)
	}
	rest := stderr
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("stderr %q lacks %q (in this order: %q)", stderr, w, want)
			return
		}
		rest = rest[i+len(w):]
	}
}

// TestStoreDirErrors: --db pointing at a file, at a missing store, at a
// directory holding something else.
func TestStoreDirErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"file as db, add", []string{"--db", file, "add", "x"}, ExitUsage, []string{file + " is a file, not a directory", "give a directory"}},
		{"file as db, init", []string{"--db", file, "init"}, ExitUsage, []string{"is a file, not a directory"}},
		{"file as db, list", []string{"--db", file, "list"}, ExitUsage, []string{"is a file, not a directory"}},
		{"missing store, add", []string{"--db", missing, "add", "x"}, ExitError, []string{"no store in directory " + missing, "cgraph init"}},
		{"missing store, read-only list", []string{"--db", missing, "list"}, ExitError, []string{"no store in directory", "cgraph init"}},
		{"foreign directory", []string{"--db", other, "init"}, ExitUsage, []string{"holds no cgraph store (found notes.txt)", "empty or new directory"}},
		{"empty db flag", []string{"--db", "", "stats"}, ExitUsage, []string{"--db is empty", "$CGRAPH_DB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "", c.args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, c.code, r.stderr)
			}
			checkMessage(t, r.stderr, c.want)
		})
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a failed add created %s (err %v)", missing, err)
	}
}

// TestJSONError: with --json a failure still prints exactly one JSON value.
func TestJSONError(t *testing.T) {
	db := newStore(t)
	r := run(t, "", "--db", db, "--json", "get", "0192f1a4-7c3e-7b2a-9d4e-1f2a3b4c5d6e")
	var e struct {
		Error struct {
			Message  string `json:"message"`
			ExitCode int    `json:"exit_code"`
		} `json:"error"`
	}
	oneJSON(t, r.stdout, &e)
	if r.code != ExitError || e.Error.ExitCode != ExitError || !strings.Contains(e.Error.Message, "no memory with id") {
		t.Fatalf("exit %d, JSON %+v", r.code, e)
	}
	// A flag that fails to parse before --json: cobra never sets --json.
	r = run(t, "", "--db", db, "add", "x", "--bogus-flag", "--json")
	oneJSON(t, r.stdout, &e)
	if r.code != ExitUsage || e.Error.ExitCode != ExitUsage || !strings.Contains(e.Error.Message, "unknown flag: --bogus-flag") {
		t.Fatalf("bad flag before --json: exit %d, JSON %+v", r.code, e)
	}
}

// TestBesideWriter: while another opener holds the writer lock, reads work
// (get falls back to read-only and records no access) and writes say who
// holds the store and what to do.
func TestBesideWriter(t *testing.T) {
	db := newStore(t)
	id := strings.TrimSpace(mustRun(t, "", "--db", db, "add", "held memory").stdout)
	w, err := engine.Open(db, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}()
	r := run(t, "", "--db", db, "add", "x")
	if r.code != ExitError {
		t.Fatalf("add beside a writer: exit %d", r.code)
	}
	checkMessage(t, r.stderr, []string{"is in use by process", "its only writer", "stop pid", "cgraph serve"})
	if r := run(t, "", "--db", db, "delete", id); r.code != ExitError || strings.Contains(r.stderr, "open it with --read-only") {
		t.Fatalf("delete beside a writer: exit %d, told %q", r.code, r.stderr) // a write cannot be done read-only
	}
	if !strings.Contains(mustRun(t, "", "--db", db, "list").stdout, id) {
		t.Error("list beside a writer misses the memory")
	}
	var m memoryJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "get", id).stdout, &m)
	if m.Content != "held memory" || m.AccessCount != 0 {
		t.Errorf("get beside a writer: %+v", m)
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "--read-only", "stats").stdout, new(statsJSON))
}
