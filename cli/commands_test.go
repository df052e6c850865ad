package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cgraph/cgraph/cli/app"
)

func TestInitAndSamples(t *testing.T) {
	db := filepath.Join(t.TempDir(), "new", "store")
	r := mustRun(t, "", "--db", db, "--json", "init", "--samples")
	var ir initResult
	oneJSON(t, r.stdout, &ir)
	nSamples := bytes.Count(sampleJSONL, []byte("\n"))
	if !ir.Created || ir.DB != db || ir.SamplesAdded != nSamples || ir.Memories != uint64(nSamples) || ir.FormatVersion == 0 {
		t.Fatalf("init --samples: %+v (want %d samples)", ir, nSamples)
	}
	if nSamples < 25 {
		t.Errorf("only %d bundled samples", nSamples)
	}
	r = mustRun(t, "", "--db", db, "init")
	if r.stdout != "store "+db+" already exists ("+itoa(nSamples)+" memories)\n" {
		t.Errorf("second init: %q", r.stdout)
	}

	var ms []memoryJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "list", "--limit", "1000").stdout, &ms)
	types := map[string]int{}
	sessions := map[string][]uint64{}
	for _, m := range ms {
		types[string(m.Type)]++
		if m.Session != "" {
			sessions[m.Session] = append(sessions[m.Session], m.Sequence)
		}
	}
	for _, typ := range []string{"decision", "error", "code", "conversation", "fact", "pattern", "preference", "note"} {
		if types[typ] == 0 {
			t.Errorf("samples have no %s memory", typ)
		}
	}
	if len(sessions) != 2 {
		t.Fatalf("samples have %d sessions, want 2", len(sessions))
	}
	for s, seqs := range sessions {
		// list is newest first, so the sequence counts down to 1.
		for i, q := range seqs {
			if q != uint64(len(seqs)-i) {
				t.Errorf("session %s sequences %v, want %d..1", s, seqs, len(seqs))
				break
			}
		}
	}

	// The samples command prints the same lines, and as one JSON array.
	if got := mustRun(t, "", "samples").stdout; got != string(sampleJSONL) {
		t.Error("samples prints something else than the bundled JSONL")
	}
	var arr []map[string]any
	oneJSON(t, mustRun(t, "", "--json", "samples").stdout, &arr)
	if len(arr) != nSamples {
		t.Errorf("samples --json has %d values, want %d", len(arr), nSamples)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestListPaging walks every page in both orders: each memory once, in
// creation order, and the human output names the next page's command.
func TestListPaging(t *testing.T) {
	db := newStore(t)
	var in strings.Builder
	const n = 7
	for i := 0; i < n; i++ {
		b, _ := json.Marshal(map[string]string{"content": "m" + itoa(i), "created_at": "2026-01-0" + itoa(i+1) + "T00:00:00Z"})
		in.Write(append(b, '\n'))
	}
	mustRun(t, in.String(), "--db", db, "add", "--jsonl", "-")
	for _, oldest := range []bool{true, false} {
		var seen []string
		after := ""
		for page := 0; page < n; page++ {
			args := []string{"--db", db, "--json", "list", "--limit", "3"}
			if oldest {
				args = append(args, "--oldest")
			}
			if after != "" {
				args = append(args, "--after", after)
			}
			var ms []memoryJSON
			oneJSON(t, mustRun(t, "", args...).stdout, &ms)
			if len(ms) == 0 {
				break
			}
			for _, m := range ms {
				seen = append(seen, m.Content)
			}
			after = ms[len(ms)-1].ID.String()
		}
		want := []string{"m0", "m1", "m2", "m3", "m4", "m5", "m6"}
		if !oldest {
			for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
				want[i], want[j] = want[j], want[i]
			}
		}
		if strings.Join(seen, ",") != strings.Join(want, ",") {
			t.Errorf("oldest=%v pages gave %v, want %v", oldest, seen, want)
		}
	}
	r := mustRun(t, "", "--db", db, "list", "--limit", "7")
	if strings.Count(r.stdout, "\n") != 7 || r.stderr != "" {
		t.Errorf("exact page: stdout %q stderr %q", r.stdout, r.stderr)
	}
	r = mustRun(t, "", "--db", db, "list", "--limit", "2", "--oldest")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	last := strings.Fields(lines[len(lines)-1])[0]
	if !strings.Contains(r.stderr, "more memories follow: cgraph list --after "+last+" --oldest") {
		t.Errorf("no next-page hint: %q", r.stderr)
	}
}

func TestAddSources(t *testing.T) {
	db := newStore(t)
	file := filepath.Join(t.TempDir(), "snippet.go")
	code := "func main() {\n\tfmt.Println(\"hi\")\n}\n"
	if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"text", "", []string{"add", "plain text"}, "plain text"},
		{"file keeps inner newlines, drops the last", "", []string{"add", "--file", file, "--type", "code"}, strings.TrimSuffix(code, "\n")},
		{"stdin", "from stdin\r\n", []string{"add", "-"}, "from stdin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := strings.TrimSpace(mustRun(t, c.stdin, append([]string{"--db", db}, c.args...)...).stdout)
			var m memoryJSON
			oneJSON(t, mustRun(t, "", "--db", db, "--json", "get", id).stdout, &m)
			if m.Content != c.want {
				t.Errorf("content %q, want %q", m.Content, c.want)
			}
		})
	}
}

// TestJSONShapes: every command's --json output is one JSON value with the
// documented keys.
func TestJSONShapes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s")
	keysOf := func(stdout string) string {
		var m map[string]json.RawMessage
		oneJSON(t, stdout, &m)
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		return strings.Join(sorted(ks), ",")
	}
	if got := keysOf(mustRun(t, "", "--db", db, "--json", "init").stdout); got != "created,db,format_version,memories,samples_added" {
		t.Errorf("init keys %s", got)
	}
	var empty []memoryJSON
	r := mustRun(t, "", "--db", db, "--json", "list")
	oneJSON(t, r.stdout, &empty)
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("empty list is %q, want []", r.stdout)
	}
	if got := keysOf(mustRun(t, "", "--db", db, "--json", "add", "x").stdout); got != "id" {
		t.Errorf("add keys %s", got)
	}
	if got := keysOf(mustRun(t, `{"content":"y"}`, "--db", db, "--json", "add", "--jsonl", "-").stdout); got != "added,duplicates,errors,failed,linked" {
		t.Errorf("bulk keys %s", got)
	}
	var ms []map[string]json.RawMessage
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "list").stdout, &ms)
	var ks []string
	for k := range ms[0] {
		ks = append(ks, k)
	}
	// One wire form (ops.Memory) for the CLI, MCP and HTTP: accessed_at
	// is left out until the memory is first used.
	if got := strings.Join(sorted(ks), ","); got != "access_count,content,created_at,doc_num,id,importance,project,revision,sequence,session,source,tags,type,updated_at" {
		t.Errorf("memory keys %s", got)
	}
	if string(ms[0]["tags"]) != "[]" {
		t.Errorf("unset tags %s, want []", ms[0]["tags"])
	}
	var st statsJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "stats").stdout, &st)
	if st.Memories != 2 || st.Families["memories"].Keys == 0 || len(st.Families) < 5 {
		t.Errorf("stats %+v", st)
	}
	for name := range st.Families {
		if !strings.Contains(mustRun(t, "", "--db", db, "stats").stdout, name) {
			t.Errorf("human stats lacks family %s", name)
		}
	}
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

func TestDefaultDirs(t *testing.T) {
	cases := []struct {
		env           map[string]string
		db, modelsDir string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.local/share/cgraph/default", "/h/.cache/cgraph/models"},
		{map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x/data", "XDG_CACHE_HOME": "/x/cache"}, "/x/data/cgraph/default", "/x/cache/cgraph/models"},
		{map[string]string{"HOME": "/h", "XDG_DATA_HOME": "relative", "XDG_CACHE_HOME": "rel"}, "/h/.local/share/cgraph/default", "/h/.cache/cgraph/models"},
		{map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x", "CGRAPH_DB": "./mine", "CGRAPH_MODELS": "/m"}, "./mine", "/m"},
	}
	for _, c := range cases {
		getenv := func(k string) string { return c.env[k] }
		if got := defaultDBDir(getenv); got != c.db {
			t.Errorf("%v: db %s, want %s", c.env, got, c.db)
		}
		if got := defaultModelsDir(getenv); got != c.modelsDir {
			t.Errorf("%v: models %s, want %s", c.env, got, c.modelsDir)
		}
	}
}

// TestEnvDB: with no --db the store is $CGRAPH_DB, else under $XDG_DATA_HOME.
func TestEnvDB(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CGRAPH_DB", "")
	t.Setenv("XDG_DATA_HOME", dir)
	mustRun(t, "", "init")
	if _, err := os.Stat(filepath.Join(dir, "cgraph", "default", "CURRENT")); err != nil {
		t.Fatalf("init without --db did not create the XDG store: %v", err)
	}
	t.Setenv("CGRAPH_DB", filepath.Join(dir, "env"))
	var ir initResult
	oneJSON(t, mustRun(t, "", "--json", "init").stdout, &ir)
	if ir.DB != filepath.Join(dir, "env") || !ir.Created {
		t.Fatalf("init with $CGRAPH_DB: %+v", ir)
	}
}

func TestHelpAndCompletion(t *testing.T) {
	r := mustRun(t, "")
	for _, cmd := range []string{"init", "add", "get", "delete", "list", "stats", "samples", "completion"} {
		if !strings.Contains(r.stdout, "\n  "+cmd+" ") {
			t.Errorf("help lacks command %s:\n%s", cmd, r.stdout)
		}
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		if out := mustRun(t, "", "completion", shell).stdout; !strings.Contains(out, "cgraph") || len(out) < 500 {
			t.Errorf("completion %s: %d bytes", shell, len(out))
		}
	}
	// Dynamic completion of --type values.
	r = mustRun(t, "", "__complete", "add", "--type", "")
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	var got []string
	for sc.Scan() {
		if l := sc.Text(); !strings.HasPrefix(l, ":") {
			got = append(got, l)
		}
	}
	if strings.Join(got, ",") != "code,conversation,decision,error,fact,note,pattern,preference" {
		t.Errorf("--type completions %v", got)
	}
}

// TestCompleteIDs: get and delete complete ids from the store, newest first,
// described by type and first line.
func TestCompleteIDs(t *testing.T) {
	db := newStore(t)
	older := strings.TrimSpace(mustRun(t, "", "--db", db, "add", "older one", "--created-at", "2026-01-01T00:00:00Z").stdout)
	newer := strings.TrimSpace(mustRun(t, "", "--db", db, "add", "newer one\nsecond line", "--type", "fact").stdout)
	complete := func(args ...string) []string {
		r := mustRun(t, "", append([]string{"__complete", "--db", db}, args...)...)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if !strings.HasPrefix(l, ":") {
				got = append(got, l)
			}
		}
		return got
	}
	got := complete("get", "")
	want := []string{newer + "\tfact: newer one", older + "\tnote: older one"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("get completions %q, want %q", got, want)
	}
	if got := complete("delete", older[:len(older)-2]); len(got) != 1 || !strings.HasPrefix(got[0], older) {
		t.Errorf("prefix completion %q, want only %s", got, older)
	}
	if got := complete("get", newer, ""); len(got) != 0 {
		t.Errorf("second argument completed: %q", got)
	}
}

// TestFlagUsageNoBackquotes: pflag reads a `quoted` word in a flag's usage
// as the name of its value, so "--precision `make setup-cuda-fp16`" was
// printed as if the flag took that. No flag of any command may carry one.
func TestFlagUsageNoBackquotes(t *testing.T) {
	root := newRoot(&app.App{Ctx: context.Background()}, func(string) string { return "" })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if strings.Contains(f.Usage, "`") {
					t.Errorf("%s --%s: usage %q has a backquote (help prints the quoted words as the value's name)", c.CommandPath(), f.Name, f.Usage)
				}
			})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	if n := len(root.Commands()); n < 20 {
		t.Fatalf("walked %d commands under the root, want the whole tree", n)
	}
}
