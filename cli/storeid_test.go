package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/httpapi"
	"github.com/cgraph/cgraph/serverfile"
)

// TestCopiedStoreBesideItsServer is issue 27 item 2: `cp -a` of a served
// store copies the discovery file; a search on the copy must run on the
// copy, not be answered by the original's server, and the server refuses
// a request meant for another store.
func TestCopiedStoreBesideItsServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := cgraphBinary(t)
	db := initStore(t, bin)
	if out, err := exec.Command(bin, "--db", db, "add", "the original holds this note about zebras").CombinedOutput(); err != nil {
		t.Fatalf("add: %v %s", err, out)
	}
	base, _ := startServe(t, bin, db)
	raw, err := os.ReadFile(engine.ServerFile(db))
	if err != nil {
		t.Fatal(err)
	}
	var info serverfile.Info
	if err := json.Unmarshal(raw, &info); err != nil || len(info.Store) != 36 || info.Dir == "" {
		t.Fatalf("discovery file %s: %v, want the store's identity and directory", raw, err)
	}
	cp := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", db, cp).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v %s", err, out)
	}
	if _, err := os.Stat(engine.ServerFile(cp)); err != nil {
		t.Fatalf("cp -a did not copy the discovery file (the case under test): %v", err)
	}
	if out, err := exec.Command(bin, "--db", cp, "add", "only the copy holds this note about giraffes").CombinedOutput(); err != nil {
		t.Fatalf("add to the copy: %v %s", err, out)
	}
	env := append(os.Environ(), "CGRAPH_NO_SERVER=") // the test's own environment must not choose
	search := exec.Command(bin, "--db", cp, "--json", "search", "note about giraffes", "--profile", "fact_checking")
	search.Env = env
	out, err := search.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "only the copy holds") {
		t.Fatalf("search on the copy was not answered by the copy: %v\n%s", err, out)
	}
	// The original's server refuses a request that names another store.
	req, err := http.NewRequest(http.MethodPost, base+"/v1/cli", strings.NewReader(`{"args": ["search", "zebras"]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(httpapi.StoreHeader, "0190a1b2-0000-4000-8000-000000000000")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusConflict || body.Error.Code != "wrong_store" || !strings.Contains(body.Error.Message, info.Store) {
		t.Fatalf("request for another store: %d %+v %v, want 409 wrong_store naming %s", resp.StatusCode, body, err, info.Store)
	}
	// Its own store's requests are served.
	req, _ = http.NewRequest(http.MethodPost, base+"/v1/search/explain", strings.NewReader(`{"query": "zebras", "top_k": 3}`))
	req.Header.Set(httpapi.StoreHeader, info.Store)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("request for the served store: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}
