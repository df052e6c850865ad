package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/ops"
)

// TestReembedAfterModelChange builds a store without models (E1 and E7
// unavailable), then opens it with the real models: add and search refuse
// the mixed store naming reembed (exit 1), reembed recomputes the changed
// slots of every memory, and then E1 is searchable.
func TestReembedAfterModelChange(t *testing.T) {
	db := newStore(t) // $CGRAPH_MODELS is empty: model-free slots only
	var bulk bulkResult
	oneJSON(t, mustRun(t, "{\"content\":\"the build failed: grocksdb v1.7.16 needs RocksDB 8\"}\n{\"content\":\"prefer table-driven tests\"}\n{\"content\":\"UUIDv7 ids sort by time\"}\n",
		"--db", db, "--json", "add", "--jsonl", "-").stdout, &bulk)
	if bulk.Added != 3 {
		t.Fatalf("bulk: %+v", bulk)
	}
	models := realModelsDir(t)

	for _, args := range [][]string{{"add", "another"}, {"search", "build"}} {
		r := run(t, "", append([]string{"--db", db, "--models-dir", models}, args...)...)
		if r.code != ExitError || !strings.Contains(r.stderr, "other embedders") || !strings.Contains(r.stderr, "E1") || !strings.Contains(r.stderr, "cgraph reembed") {
			t.Errorf("%v on a mixed store: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	// get --fingerprint still opens the mixed store and shows what is stored:
	// E1 was never computed.
	var list []memoryJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "list").stdout, &list)
	var fp fingerprintOut
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "get", list[0].ID.String(), "--fingerprint").stdout, &fp)
	if len(fp.Fingerprint) == 0 || fp.Fingerprint[0].Slot != "E1" || fp.Fingerprint[0].Status != "unavailable" || fp.Fingerprint[0].Note == "" {
		t.Errorf("get --fingerprint on the mixed store: %+v", fp.Fingerprint)
	}
	var rows []ops.EmbedderRow
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "embedders").stdout, &rows)
	if e1 := rows[0]; !e1.StoredDiffers || e1.Stored != "" || e1.Status != "unavailable" || !strings.Contains(e1.Reason, "cgraph reembed --slot E1") || e1.Docs != 0 {
		t.Errorf("embedders does not flag E1: %+v", e1)
	}
	if e6 := rows[5]; e6.StoredDiffers || e6.Status != "ready" || e6.Docs != 3 {
		t.Errorf("embedders flags E6: %+v", e6)
	}

	r := run(t, "", "--db", db, "--models-dir", models, "--read-only", "reembed")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--read-only") {
		t.Errorf("reembed --read-only: exit %d, stderr %q", r.code, r.stderr)
	}
	// --slot E7 recomputes E7 only: E1 still differs, so search still refuses.
	var out reembedJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "reembed", "--slot", "E7").stdout, &out)
	if out.Reembedded != 3 || strings.Join(out.Slots, ",") != "E7" || out.DB != db {
		t.Fatalf("reembed --slot E7: %+v", out)
	}
	if r := run(t, "", "--db", db, "--models-dir", models, "search", "build"); r.code != ExitError || strings.Contains(r.stderr, "E7 stored") || !strings.Contains(r.stderr, "E1 stored") {
		t.Errorf("search after reembed --slot E7: exit %d, stderr %q", r.code, r.stderr)
	}
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "reembed").stdout, &out)
	if out.Reembedded != 3 || !slices.Contains(out.Slots, "E1") || slices.Contains(out.Slots, "E7") {
		t.Fatalf("reembed: %+v, want E1 among the slots it rewrote and not E7 (done before)", out)
	}

	var got searchOut
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "search", "why did the build fail", "--mode", "e1_only").stdout, &got)
	if len(got.Results) == 0 || !strings.Contains(got.Results[0].Content, "build failed") {
		t.Fatalf("E1 search after reembed: %+v", got.Results)
	}
	// Every memory now has an E1 vector.
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--json", "embedders").stdout, &rows)
	if rows[0].Status != "ready" || rows[0].Docs != 3 || rows[0].StoredDiffers {
		t.Errorf("E1 after reembed: %+v", rows[0])
	}

	// A second run finds every value current: nothing to do, said so.
	hr := mustRun(t, "", "--db", db, "--models-dir", models, "reembed", "--slot", "E6")
	if hr.stdout != "nothing to re-embed (E6): every memory's values already come from the installed embedders in "+db+"\n" {
		t.Errorf("reembed --slot E6 printed %q", hr.stdout)
	}
}

func TestReembedUsage(t *testing.T) {
	db := newStore(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reembed", "--slot", "E14"}, `unknown slot "E14"`},
		{[]string{"reembed", "--slot", "E1", "--slot", "semantic"}, "--slot E1 given twice"},
		{[]string{"reembed", "extra"}, "takes no arguments"},
	} {
		r := run(t, "", append([]string{"--db", db}, tc.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, r.code, r.stderr)
		}
	}
	// Nothing changed: nothing to re-embed.
	var out reembedJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "reembed").stdout, &out)
	if out.Reembedded != 0 {
		t.Errorf("reembed of an empty, consistent store: %+v", out)
	}
}

// fingerprintOut is `get --fingerprint --json` as a script reads it.
type fingerprintOut struct {
	ID          string                `json:"id"`
	Content     string                `json:"content"`
	Fingerprint []ops.FingerprintSlot `json:"fingerprint"`
}

func TestGetFingerprint(t *testing.T) {
	db := sharedSampleStore(t)
	models := realModelsDir(t)
	var list []memoryJSON
	oneJSON(t, mustRun(t, "", "--db", db, "--json", "list", "--limit", "100").stdout, &list)
	var id, content string
	for _, m := range list {
		if m.Type == "code" && m.Session == "" {
			id, content = m.ID.String(), m.Content
			break
		}
	}
	var got fingerprintOut
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", models, "--read-only", "--json", "get", id, "--fingerprint").stdout, &got)
	if got.ID != id || got.Content != content {
		t.Fatalf("get --fingerprint returned %s", got.ID)
	}
	by := map[string]ops.FingerprintSlot{}
	for _, s := range got.Fingerprint {
		by[s.Slot] = s
	}
	e1 := by["E1"]
	if e1.Status != "present" || e1.Dims != 384 || math.Abs(e1.Norm-1) > 1e-3 || !strings.HasPrefix(e1.Model, "e5-small-v2") || e1.Producer == "" {
		t.Errorf("E1: %+v", e1)
	}
	if e6 := by["E6"]; e6.Status != "present" || e6.NNZ == 0 || e6.Tokens < e6.NNZ {
		t.Errorf("E6: %+v (want distinct terms ≤ tokens)", e6)
	}
	if e2 := by["E2"]; e2.Status != "present" {
		t.Errorf("E2 of a memory with a creation time: %+v", e2)
	}
	for _, s := range got.Fingerprint {
		if s.Status == "unavailable" && s.Note == "" {
			t.Errorf("%s unavailable without a note", s.Slot)
		}
	}
	out := mustRun(t, "", "--db", db, "--models-dir", models, "--read-only", "get", id, "--fingerprint").stdout
	if !strings.Contains(out, "\nfingerprint:\n  E1 present") || !strings.Contains(out, content[:20]) {
		t.Errorf("human get --fingerprint:\n%s", out)
	}
}

// TestReembedProgressBar draws the bar on a terminal, never with --json.
func TestReembedProgressBar(t *testing.T) {
	old := app.TerminalCheck
	app.TerminalCheck = func(any) bool { return true }
	defer func() { app.TerminalCheck = old }()
	db := newStore(t) // without models
	mustRun(t, "", "--db", db, "add", "one memory")
	mustRun(t, "", "--db", db, "add", "another memory")
	models := realModelsDir(t)
	r := mustRun(t, "", "--db", db, "--models-dir", models, "reembed", "--slot", "E7")
	if !strings.Contains(r.stderr, "re-embedding") || r.stdout != "re-embedded 2 memories (E7) in "+db+"\n" {
		t.Errorf("reembed on a terminal: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	r = mustRun(t, "", "--db", db, "--models-dir", models, "--json", "reembed", "--slot", "E1")
	if r.stderr != "" {
		t.Errorf("progress bar drawn with --json: %q", r.stderr)
	}
}

// TestCorruptModelIsReportedAndNotReembedded changes 64 bytes of E1's model
// file: every command that reports a missing model reports it as corrupt
// (the file, both sha256 digests, `cgraph models pull`), reembed refuses, and
// once the file is restored the store works without any re-embedding.
func TestCorruptModelIsReportedAndNotReembedded(t *testing.T) {
	real := realModelsDir(t)
	const id = "e5-small-v2-q"
	modelsDir := t.TempDir()
	entries, err := os.ReadDir(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		src, dst := filepath.Join(real, en.Name()), filepath.Join(modelsDir, en.Name())
		if en.Name() != id {
			if err := os.Symlink(src, dst); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	onnx := filepath.Join(modelsDir, id, "model.onnx")
	good, err := os.ReadFile(onnx)
	if err != nil {
		t.Fatalf("E1's default model is not %s: %v", id, err)
	}
	db := filepath.Join(t.TempDir(), "store")
	mustRun(t, "", "--db", db, "init")
	mustRun(t, "", "--db", db, "--models-dir", modelsDir, "add", "the build failed because CGO_LDFLAGS lacked -lrocksdb")
	mustRun(t, "", "--db", db, "--models-dir", modelsDir, "add", "prefer table-driven tests")

	bad := bytes.Clone(good)
	for i := range 64 {
		bad[len(bad)/2+i] ^= 0x5a
	}
	if err := os.WriteFile(onnx, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	says := func(what, text string, extra ...string) {
		t.Helper()
		for _, want := range append([]string{"corrupt", "model.onnx", "sha256", "cgraph models pull " + id}, extra...) {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not say %q: %s", what, want, text)
			}
		}
	}
	var rows []ops.EmbedderRow
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", modelsDir, "--json", "embedders").stdout, &rows)
	if rows[0].Status != "unavailable" {
		t.Errorf("embedders: E1 is %q with a corrupt model", rows[0].Status)
	}
	says("embedders", rows[0].Reason)
	for _, args := range [][]string{{"search", "build"}, {"add", "a third memory"}} {
		r := run(t, "", append([]string{"--db", db, "--models-dir", modelsDir}, args...)...)
		if r.code != ExitError {
			t.Errorf("%v with a corrupt model: exit %d", args, r.code)
		}
		says(args[0], r.stderr, "do not re-embed")
	}
	r := run(t, "", "--models-dir", modelsDir, "models", "verify")
	if r.code != ExitError {
		t.Errorf("models verify: exit %d", r.code)
	}
	says("models verify", r.stdout+r.stderr)
	r = run(t, "", "--db", db, "--models-dir", modelsDir, "reembed")
	if r.code != ExitError {
		t.Errorf("reembed with a corrupt model: exit %d, stdout %q", r.code, r.stdout)
	}
	says("reembed", r.stderr, "refused", "nothing was changed")

	if err := os.WriteFile(onnx, good, 0o644); err != nil {
		t.Fatal(err)
	}
	var got searchOut
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", modelsDir, "--json", "search", "why did the build fail", "--mode", "e1_only").stdout, &got)
	if len(got.Results) != 2 || !strings.Contains(got.Results[0].Content, "build failed") {
		t.Fatalf("E1 search after the model was restored: %+v", got.Results)
	}
}
