package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/cli/storecmd"
)

// upkeepEnv runs the binary on a model-free store (CGRAPH_MODELS names an
// empty directory), so that hundreds of memories are stored in a second.
type upkeepEnv struct {
	t        *testing.T
	bin, db  string
	policy   string
	contents []string
}

func newUpkeepEnv(t *testing.T, distinct int) *upkeepEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	dir := t.TempDir()
	t.Setenv("CGRAPH_MODELS", filepath.Join(dir, "no-models")) // every command, serve too
	t.Setenv("CGRAPH_NO_SERVER", "")
	u := &upkeepEnv{t: t, bin: cgraphBinary(t), db: filepath.Join(dir, "store"), policy: filepath.Join(dir, "policy.toml")}
	if err := os.WriteFile(u.policy, []byte("actions = [\"merge_duplicate\"]\nmax_actions = 100000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u.run("init")
	var jsonl strings.Builder
	for i := range distinct {
		c := fmt.Sprintf("upkeep note %d: the cache of service %d is warmed at start", i, i)
		u.contents = append(u.contents, c)
		b, _ := json.Marshal(map[string]string{"content": c})
		jsonl.Write(append(b, '\n'))
	}
	path := filepath.Join(dir, "notes.jsonl")
	if err := os.WriteFile(path, []byte(jsonl.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	u.run("add", "--jsonl", path)
	u.run("add", "--jsonl", path, "--allow-duplicate") // one exact copy of each
	return u
}

// run runs the binary on the store and returns stdout; a failure fails
// the test.
func (u *upkeepEnv) run(args ...string) string {
	u.t.Helper()
	cmd := exec.Command(u.bin, append([]string{"--db", u.db}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		u.t.Fatalf("cgraph %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func (u *upkeepEnv) serve(args ...string) (string, *exec.Cmd) {
	u.t.Helper()
	return startServeArgs(u.t, u.bin, append([]string{"--db", u.db, "serve", "--addr", "127.0.0.1:0"}, args...)...)
}

type logEntry struct {
	ID       string    `json:"id"`
	Action   string    `json:"action"`
	Memory   string    `json:"memory"`
	Keep     string    `json:"keep"`
	Evidence string    `json:"evidence"`
	By       string    `json:"by"`
	Kept     bool      `json:"kept"`
	UndoneAt time.Time `json:"undone_at"`
}

func (u *upkeepEnv) log() []logEntry {
	u.t.Helper()
	var log []logEntry
	if err := json.Unmarshal([]byte(u.run("--json", "log", "--limit", "100000")), &log); err != nil {
		u.t.Fatal(err)
	}
	return log
}

func (u *upkeepEnv) ids() map[string]bool {
	u.t.Helper()
	var listed []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(u.run("--json", "list", "--limit", "1000000")), &listed); err != nil {
		u.t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range listed {
		out[m.ID] = true
	}
	return out
}

// consistent checks the store after a kill: check is clean, and every
// memory is either stored or named by a logged, kept action (each copy
// merged is in the log, and nothing is in the log that is still stored):
// each action is wholly done or not at all.
func (u *upkeepEnv) consistent(round int) []logEntry {
	u.t.Helper()
	var ck storecmd.CheckJSON
	if err := json.Unmarshal([]byte(u.run("--json", "check")), &ck); err != nil || !ck.OK {
		u.t.Fatalf("round %d: check: %v %+v", round, err, ck)
	}
	ids, log := u.ids(), u.log()
	gone := 0
	for _, e := range log {
		if !e.UndoneAt.IsZero() {
			continue
		}
		gone++
		if ids[e.Memory] || !ids[e.Keep] || !e.Kept || e.Action != "merge_duplicate" || e.Evidence == "" {
			u.t.Fatalf("round %d: action %+v: memory stored %v, kept memory stored %v", round, e, ids[e.Memory], ids[e.Keep])
		}
	}
	u.t.Logf("round %d: %d copies merged so far", round, gone)
	if len(ids)+gone != 2*len(u.contents) {
		u.t.Fatalf("round %d: %d memories stored and %d merged, want %d in all: a merge half done", round, len(ids), gone, 2*len(u.contents))
	}
	return log
}

// TestCrashDuringScheduledApply kills a `cgraph serve` whose schedule is
// merging exact copies (--maintain-apply) with SIGKILL at a random moment
// after its first merge, three times on one store: after each kill the
// store checks clean and every copy is either stored or merged with its
// entry in the audit log — never deleted without its entry, never logged
// while stored. A last serve finishes the merges, and undo brings copies
// back.
func TestCrashDuringScheduledApply(t *testing.T) {
	u := newUpkeepEnv(t, 300)
	rng := rand.New(rand.NewPCG(31, 0))
	merged := 0
	for round := range 3 {
		base, srv := u.serve("--maintain-every", "1s", "--maintain-apply", "--maintain-policy", u.policy)
		deadline := time.Now().Add(60 * time.Second)
		for {
			var log []logEntry
			if err := getData(base+"/v1/log?limit=100000", &log); err == nil && len(log) > merged {
				break // this round's run has merged a copy
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the schedule applied nothing in 60 s", round)
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		if err := srv.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = srv.Wait()
		log := u.consistent(round)
		if len(log) == merged {
			t.Fatalf("round %d: nothing merged before the kill", round)
		}
		merged = len(log)
	}
	base, srv := u.serve("--maintain-every", "1s", "--maintain-apply", "--maintain-policy", u.policy)
	deadline := time.Now().Add(90 * time.Second)
	for {
		var st struct {
			Last *struct {
				Applied int `json:"applied"`
				Actions []struct {
					Action string `json:"action"`
				} `json:"actions"`
			} `json:"last"`
		}
		if err := getData(base+"/v1/maintenance", &st); err == nil && st.Last != nil && len(st.Last.Actions) == 0 {
			break // a run found nothing left to merge
		}
		if time.Now().After(deadline) {
			t.Fatal("the schedule did not finish the merges in 90 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := srv.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = srv.Wait()
	log := u.consistent(3)
	if len(u.ids()) != len(u.contents) || len(log) != len(u.contents) {
		t.Fatalf("%d memories and %d actions after the merges, want %d each", len(u.ids()), len(log), len(u.contents))
	}
	// Undo two merges by the last 8 digits of their ids: the copies are back.
	for _, e := range log[:2] {
		u.run("undo", e.ID[len(e.ID)-8:])
	}
	ids := u.ids()
	for _, e := range log[:2] {
		if !ids[e.Memory] {
			t.Fatalf("undo %s: memory %s is not back", e.ID, e.Memory)
		}
	}
	u.consistent(4)
}

// TestLogAndUndoBesideServe: with a serve running a dry-run schedule,
// GET /v1/maintenance reports the run with its evidence and nothing
// changes; after a maintain --apply, log and undo beside a serve go
// through its /v1/log and /v1/undo (the typed client) and answer as a
// local run does; a second undo and a malformed id are refused (400).
func TestLogAndUndoBesideServe(t *testing.T) {
	u := newUpkeepEnv(t, 3)
	base, srv := u.serve("--maintain-every", "1s")
	var st struct {
		Scheduled bool `json:"scheduled"`
		Apply     bool `json:"apply"`
		Last      *struct {
			Apply   bool `json:"apply"`
			Applied int  `json:"applied"`
			Actions []struct {
				Action string `json:"action"`
				Reason string `json:"reason"`
			} `json:"actions"`
		} `json:"last"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for st.Last == nil {
		if time.Now().After(deadline) {
			t.Fatal("no scheduled run reported in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
		if err := getData(base+"/v1/maintenance", &st); err != nil {
			t.Fatal(err)
		}
	}
	if !st.Scheduled || st.Apply || st.Last.Apply || st.Last.Applied != 0 || len(st.Last.Actions) != 3 || st.Last.Actions[0].Reason == "" {
		t.Fatalf("dry-run schedule: %+v", st)
	}
	if len(u.ids()) != 6 {
		t.Fatal("a dry run changed the store")
	}
	if log := u.log(); len(log) != 0 {
		t.Fatalf("log beside serve: %+v", log)
	}
	if err := srv.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = srv.Wait()

	// Apply by hand, then log and undo beside a serve without a schedule.
	u.run("maintain", "--apply")
	local := u.log()
	if len(local) != 3 || local[0].By != "maintain" {
		t.Fatalf("log after maintain --apply: %+v", local)
	}
	base, srv = u.serve()
	if served := u.log(); len(served) != 3 || served[0].ID != local[0].ID {
		t.Fatalf("log through the server: %+v", served)
	}
	var undone logEntry
	if err := json.Unmarshal([]byte(u.run("--json", "undo", local[0].ID)), &undone); err != nil || undone.UndoneAt.IsZero() {
		t.Fatalf("undo through the server: %+v %v", undone, err)
	}
	var m struct {
		ID string `json:"id"`
	}
	if err := getData(base+"/v1/memories/"+local[0].Memory, &m); err != nil || m.ID != local[0].Memory {
		t.Fatalf("the memory is not back: %v %+v", err, m)
	}
	code, _ := sendJSON(http.MethodPost, base+"/v1/undo", fmt.Sprintf(`{"action": %q}`, local[0].ID))
	if code != http.StatusBadRequest {
		t.Fatalf("a second undo over HTTP: %d, want 400", code)
	}
	if code, _ := sendJSON(http.MethodPost, base+"/v1/undo", `{"action": "nothing"}`); code != http.StatusBadRequest {
		t.Fatalf("a malformed action id: %d, want 400", code)
	}
}

// getData GETs url and decodes its {"data": …} into out.
func getData(url string, out any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.Unmarshal(env.Data, out)
}
