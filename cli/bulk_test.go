package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/bulkimport"
	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
)

// TestBulkMixed feeds a file whose lines are good and bad in every way the
// parser knows: each bad line is reported with its number, every good line is
// stored, and the exit code is 1.
func TestBulkMixed(t *testing.T) {
	wantErrors := map[int]string{
		2:  "content: is empty",
		3:  `unknown field "colour": use only content, type`,
		5:  "the JSON object is cut off",
		7:  `type: unknown type "opinion": use one of code, conversation`,
		8:  `created_at: "yesterday" is not an RFC 3339 time`,
		9:  `content: is missing`,
		10: "a JSON array, not an object",
		11: "text after the JSON object",
		12: `field "tags" is a JSON string, want an array of strings`,
		14: "not valid UTF-8",
	}
	wantStored := []string{"first good memory", "second good memory", "third good memory", "last good memory without newline"}
	file := filepath.Join("..", "bulkimport", "testdata", "bulk_mixed.jsonl")

	for _, mode := range []string{"file", "stdin"} {
		t.Run(mode, func(t *testing.T) {
			db := newStore(t)
			args, stdin := []string{"--db", db, "--json", "add", "--jsonl", file}, ""
			if mode == "stdin" {
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				args[len(args)-1], stdin = "-", string(b)
			}
			r := run(t, stdin, args...)
			if r.code != ExitError {
				t.Fatalf("exit %d, want %d; stderr %s", r.code, ExitError, r.stderr)
			}
			if !strings.Contains(r.stderr, "10 of 14 lines were not stored") {
				t.Errorf("stderr lacks the summary: %s", r.stderr)
			}
			var res bulkResult
			oneJSON(t, r.stdout, &res)
			if res.Added != len(wantStored) || res.Failed != len(wantErrors) || len(res.Errors) != len(wantErrors) {
				t.Fatalf("summary %+v, want added %d failed %d", res, len(wantStored), len(wantErrors))
			}
			for _, le := range res.Errors {
				want, ok := wantErrors[le.Line]
				if !ok {
					t.Errorf("line %d reported but it is good or blank: %s", le.Line, le.Error)
					continue
				}
				if !strings.Contains(le.Error, want) {
					t.Errorf("line %d: error %q, want it to contain %q", le.Line, le.Error, want)
				}
			}
			var ms []memoryJSON
			oneJSON(t, mustRun(t, "", "--db", db, "--json", "list", "--oldest").stdout, &ms)
			var got []string
			for _, m := range ms {
				got = append(got, m.Content)
			}
			// "second" has an older created_at than the others, so it lists first.
			want := []string{wantStored[1], wantStored[0], wantStored[2], wantStored[3]}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("stored %q, want %q", got, want)
			}
			if ms[0].Session != "s1" || ms[0].Sequence != 2 || ms[1].Sequence != 1 || ms[0].Importance != 0.9 || ms[2].Source != "notes.md" {
				t.Errorf("fields not kept: %+v", ms[:3])
			}
		})
	}
}

// TestBulkHumanOutput checks the human form: each refused line on stderr
// with its number, the counts on stdout.
func TestBulkHumanOutput(t *testing.T) {
	db := newStore(t)
	r := run(t, "{\"content\":\"ok\"}\n{\"content\":\"\"}\n", "--db", db, "add", "--jsonl", "-")
	if r.code != ExitError || r.stdout != "added 1, already stored 0, failed 1\n" {
		t.Fatalf("exit %d stdout %q", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "cgraph: line 2: content: is empty: give the memory some text") {
		t.Fatalf("stderr %q", r.stderr)
	}
	r = mustRun(t, "\xef\xbb\xbf{\"content\":\"a\"}\n\n{\"content\":\"b\"}\n", "--db", db, "add", "--jsonl", "-")
	if r.stdout != "added 2, already stored 0, failed 0\n" {
		t.Fatalf("clean bulk: stdout %q", r.stdout)
	}
}

// TestBulkDuplicates: a line whose content is stored already (or repeats an
// earlier line) stores nothing and names the earlier memory;
// --allow-duplicate stores it anyway.
func TestBulkDuplicates(t *testing.T) {
	db := newStore(t)
	first := strings.TrimSpace(mustRun(t, "", "--db", db, "add", "RocksDB compaction stalls writes").stdout)
	in := "{\"content\":\"RocksDB  compaction stalls writes\"}\n{\"content\":\"a new note\"}\n{\"content\":\"a new note\"}\n"
	var res bulkResult
	oneJSON(t, mustRun(t, in, "--db", db, "--json", "add", "--jsonl", "-").stdout, &res)
	if res.Added != 1 || len(res.Duplicates) != 2 || res.Duplicates[0].Line != 1 || res.Duplicates[0].DuplicateOf.String() != first || res.Duplicates[1].Line != 3 {
		t.Fatalf("summary %+v", res)
	}
	var one map[string]string
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "add", "RocksDB compaction stalls writes").stdout, &one)
	if one["id"] != first || one["duplicate_of"] != first {
		t.Fatalf("single add of a stored content: %v", one)
	}
	oneJSON(t, mustRun(t, in, "--db", db, "--json", "add", "--jsonl", "-", "--allow-duplicate").stdout, &res)
	if res.Added != 3 || len(res.Duplicates) != 0 {
		t.Fatalf("--allow-duplicate: %+v", res)
	}
	var st statsJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "stats").stdout, &st)
	if st.Memories != 5 {
		t.Fatalf("%d memories, want 5", st.Memories)
	}
}

// TestBulkManyBatches stores more lines than one AddBatch takes, with a bad
// line inside the second batch.
func TestBulkManyBatches(t *testing.T) {
	db := newStore(t)
	var in strings.Builder
	n := 2*bulkimport.BatchSize + 17
	bad := bulkimport.BatchSize + 5
	for i := 1; i <= n; i++ {
		if i == bad {
			in.WriteString("{\"content\": 7}\n")
			continue
		}
		b, _ := json.Marshal(map[string]any{"content": fmt.Sprintf("memory %d %s", i, strings.Repeat("x", i%13)), "session": "bulk"})
		in.Write(append(b, '\n'))
	}
	r := run(t, in.String(), "--db", db, "--json", "add", "--jsonl", "-")
	var res bulkResult
	oneJSON(t, r.stdout, &res)
	if res.Added != n-1 || res.Failed != 1 || res.Errors[0].Line != bad {
		t.Fatalf("summary %+v", res)
	}
	if !strings.Contains(res.Errors[0].Error, `field "content" is a JSON number, want a string`) {
		t.Errorf("error %q", res.Errors[0].Error)
	}
	var st statsJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "stats").stdout, &st)
	if st.Memories != uint64(n-1) {
		t.Fatalf("stats: %d memories, want %d", st.Memories, n-1)
	}
	var ms []memoryJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "list", "--limit", "1").stdout, &ms)
	if ms[0].Sequence != uint64(n-1) {
		t.Errorf("newest memory has sequence %d, want %d (sequences continue across batches)", ms[0].Sequence, n-1)
	}
}

// TestBulkProgressBar draws the bar when stderr is a terminal and stores the
// same memories.
func TestBulkProgressBar(t *testing.T) {
	old := app.TerminalCheck
	app.TerminalCheck = func(any) bool { return true }
	defer func() { app.TerminalCheck = old }()
	db := newStore(t)
	r := mustRun(t, "", "--db", db, "add", "--jsonl", filepath.Join("..", "cli", "samples", "samples.jsonl"))
	if !strings.Contains(r.stderr, "adding") || !strings.Contains(r.stderr, "/32") {
		t.Errorf("no progress bar counting the file's 32 lines on a terminal: stderr %q", r.stderr)
	}
	if r.stdout != "added 32, already stored 0, failed 0\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	r = mustRun(t, "", "--db", db, "--json", "add", "--jsonl", filepath.Join("samples", "samples.jsonl"))
	if r.stderr != "" {
		t.Errorf("progress bar drawn with --json: %q", r.stderr)
	}
}

// lineSource yields n JSONL lines, one per Read, and calls stop once line
// stopAt has been handed out.
type lineSource struct {
	n, stopAt, next int
	stop            func()
}

func (s *lineSource) Read(p []byte) (int, error) {
	if s.next >= s.n {
		return 0, io.EOF
	}
	s.next++
	if s.next == s.stopAt {
		s.stop()
	}
	return copy(p, fmt.Sprintf("{\"content\": \"line %d\"}\n", s.next)), nil
}

// TestBulkInterrupted: a cancel mid-import stores every line read so far,
// whole, and names the last line done.
func TestBulkInterrupted(t *testing.T) {
	db := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopAt := bulkimport.BatchSize + 44
	src := &lineSource{n: 1000, stopAt: stopAt, stop: cancel}
	var out, errb bytes.Buffer
	code := ExecuteContext(ctx, []string{"--db", db, "--json", "add", "--jsonl", "-"}, src, &out, &errb)
	if code != ExitInterrupted {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	var res bulkResult
	oneJSON(t, out.String(), &res)
	// The reader had handed over at least the lines before stopAt.
	if res.Added < stopAt-1 || res.Added >= 1000 || res.Failed != 0 {
		t.Fatalf("summary %+v, want at least %d added and not all", res, stopAt-1)
	}
	want := fmt.Sprintf("interrupted after line %d (%d memories stored, every line up to it): resume with --skip-lines %d", res.Added, res.Added, res.Added)
	if !strings.Contains(errb.String(), want) {
		t.Fatalf("stderr %q lacks %q", errb.String(), want)
	}
	var st statsJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "stats").stdout, &st)
	if st.Memories != uint64(res.Added) {
		t.Fatalf("store holds %d memories, summary says %d", st.Memories, res.Added)
	}
	// Resuming as told stores the rest once: 1,000 memories, no line twice.
	var rest bulkResult
	all, err := io.ReadAll(&lineSource{n: 1000, stop: func() {}})
	if err != nil {
		t.Fatal(err)
	}
	oneJSON(t, mustRun(t, string(all), "--db", db, "--json", "add", "--jsonl", "-", "--skip-lines", fmt.Sprint(res.Added)).stdout, &rest)
	if rest.Added != 1000-res.Added {
		t.Fatalf("resume stored %d, want %d", rest.Added, 1000-res.Added)
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "stats").stdout, &st)
	if st.Memories != 1000 {
		t.Fatalf("after the resume the store holds %d memories, want 1000", st.Memories)
	}
	// Or, as the message also says, the whole file again: nothing new.
	var again bulkResult
	oneJSON(t, mustRun(t, string(all), "--db", db, "--json", "add", "--jsonl", "-").stdout, &again)
	if again.Added != 0 || len(again.Duplicates) != 1000 {
		t.Fatalf("rerun of the whole file: added %d, duplicates %d; want 0 and 1000", again.Added, len(again.Duplicates))
	}
}

// TestBulkLoneSurrogate: a line whose content escapes half a UTF-16 pair
// is refused by number (encoding/json would store U+FFFD), the rest stored.
func TestBulkLoneSurrogate(t *testing.T) {
	db := newStore(t)
	r := run(t, "{\"content\":\"fine\"}\n{\"content\":\"bad \\ud800\"}\n", "--db", db, "--json", "add", "--jsonl", "-")
	var res bulkResult
	oneJSON(t, r.stdout, &res)
	if r.code != ExitError || res.Added != 1 || len(res.Errors) != 1 || res.Errors[0].Line != 2 ||
		!strings.Contains(res.Errors[0].Error, `content: is not valid UTF-8 (a lone UTF-16 high surrogate \ud800)`) {
		t.Fatalf("exit %d, %+v", r.code, res)
	}
}

// TestBulkRerunSharedTerms is issue 27's repro: 300 short notes from a
// small vocabulary (every note shares all its words with many others);
// the second `add --jsonl` of the same file stores nothing.
func TestBulkRerunSharedTerms(t *testing.T) {
	db := newStore(t)
	words := strings.Fields("alpha bravo charlie delta echo foxtrot")
	var in strings.Builder
	n := 0
	for i := 0; n < 300; i++ {
		a, b, c, d := i%6, i/6%6, i/36%6, i/216
		if a == b || a == c || a == d || b == c || b == d || c == d {
			continue
		}
		fmt.Fprintf(&in, "{\"content\":%q}\n", words[a]+" "+words[b]+" "+words[c]+" "+words[d])
		n++
	}
	var first, second bulkResult
	oneJSON(t, mustRun(t, in.String(), "--db", db, "--json", "add", "--jsonl", "-").stdout, &first)
	if first.Added != 300 {
		t.Fatalf("first import: %+v", first)
	}
	oneJSON(t, mustRun(t, in.String(), "--db", db, "--json", "add", "--jsonl", "-").stdout, &second)
	if second.Added != 0 || len(second.Duplicates) != 300 {
		t.Fatalf("second import of the same file: added %d, duplicates %d; want 0 and 300", second.Added, len(second.Duplicates))
	}
	var st statsJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "stats").stdout, &st)
	if st.Memories != 300 {
		t.Fatalf("%d memories, want 300", st.Memories)
	}
}

// TestBulkIdleFlush: lines of a stream that pauses are stored during the
// pause, before the stream ends.
func TestBulkIdleFlush(t *testing.T) {
	e, err := engine.Open(filepath.Join(t.TempDir(), "s"), engine.Options{Create: true, Embedders: modelFreeEmbedders(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	}()
	flushed := make(chan struct{}, 10)
	a := &app.App{Stdout: io.Discard, Stderr: io.Discard, Ctx: context.Background(), AfterFlush: func() { flushed <- struct{}{} }}
	pr, pw := io.Pipe()
	type outcome struct {
		res bulkResult
		err error
	}
	doneCh := make(chan outcome, 1)
	go func() {
		res, err := addJSONL(a, e, pr, -1)
		doneCh <- outcome{res, err}
	}()
	if _, err := io.WriteString(pw, "{\"content\":\"a\"}\n{\"content\":\"b\"}\n{\"content\":\"c\"}\n"); err != nil {
		t.Fatal(err)
	}
	<-flushed // the stream is open and silent: the pause stores the lines
	st, err := e.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 3 {
		t.Fatalf("after the pause the store holds %d memories, want 3", st.Memories)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	o := <-doneCh
	if o.err != nil || o.res.Added != 3 {
		t.Fatalf("bulk: %+v %v", o.res, o.err)
	}
}
