package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cgraph/cgraph/cli/storecmd"
)

// TestCrashSoak kills a writing `cgraph serve` with SIGKILL at a random
// moment (seeded) while two clients store memories, one deletes them and
// one updates and links them, then checks the store: it opens, `check` is
// clean, every memory whose store was acknowledged (201) is there and every
// acknowledged delete (200) is gone, every acknowledged update (200) holds
// (the memory shows that revision's metadata, or a later one sent before
// the kill), and every acknowledged link (201) between memories still
// stored is there. Rounds reuse one store, so each round also recovers from the
// previous kill. CGRAPH_SOAK_RUNS sets the rounds (default 3; the long form
// is scripts/soak.sh with 100) and CGRAPH_SOAK_SEED the seed.
func TestCrashSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	runs, seed := 3, uint64(1)
	if v, err := strconv.Atoi(os.Getenv("CGRAPH_SOAK_RUNS")); err == nil && v > 0 {
		runs = v
	}
	if v, err := strconv.ParseUint(os.Getenv("CGRAPH_SOAK_SEED"), 10, 64); err == nil {
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	bin := cgraphBinary(t)
	db := initStore(t, bin)
	stored, deleted, inDoubt := map[string]bool{}, map[string]bool{}, map[string]bool{}
	clean, lost := 0, 0
	for round := range runs {
		// Odd rounds defer the slots of the models other than E1's, so the
		// kill also lands while the background filler writes (when the
		// models are installed; the test binary without them defers none).
		args := []string{"--db", db, "serve", "--addr", "127.0.0.1:0"}
		if round%2 == 1 {
			args = append(args, "--defer-slots")
		}
		base, srv := startServeArgs(t, bin, args...)
		var mu sync.Mutex
		var ackedAdds, ackedDeletes, sentDeletes []string
		ackedRev := map[string]int{} // id → the last update acknowledged (meta soak_rev)
		sentRev := map[string]int{}  // id → the last update sent
		var ackedLinks [][2]string   // from, to
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					id, ok := storeOverHTTP(base, fmt.Sprintf("round %d writer %d memory %d", round, w, i))
					if !ok {
						return
					}
					mu.Lock()
					ackedAdds = append(ackedAdds, id)
					mu.Unlock()
				}
			})
		}
		wg.Go(func() { // deletes every third acknowledged memory
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				var id string
				if n := len(ackedAdds); n > 0 && n%3 == 0 && (len(ackedDeletes) == 0 || ackedDeletes[len(ackedDeletes)-1] != ackedAdds[n-1]) {
					id = ackedAdds[n-1]
				}
				mu.Unlock()
				if id == "" {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				mu.Lock()
				sentDeletes = append(sentDeletes, id) // from here its fate is unknown until the 200
				mu.Unlock()
				req, _ := http.NewRequest(http.MethodDelete, base+"/v1/memories/"+id, nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					mu.Lock()
					ackedDeletes = append(ackedDeletes, id)
					mu.Unlock()
				}
			}
		})
		wg.Go(func() { // updates and links acknowledged memories
			for i := 1; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				var a, b string
				if n := len(ackedAdds); n >= 2 {
					a, b = ackedAdds[(i*7)%n], ackedAdds[(i*13+1)%n]
				}
				mu.Unlock()
				if a == "" || a == b {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				mu.Lock()
				sentRev[a] = i
				mu.Unlock()
				code, ok := sendJSON(http.MethodPatch, base+"/v1/memories/"+a, fmt.Sprintf(`{"meta":{"soak_rev":"%d"}}`, i))
				if !ok {
					return
				}
				if code == http.StatusOK {
					mu.Lock()
					ackedRev[a] = i
					mu.Unlock()
				}
				code, ok = sendJSON(http.MethodPost, base+"/v1/relations", fmt.Sprintf(`{"from":%q,"to":%q,"type":"related_to"}`, a, b))
				if !ok {
					return
				}
				if code == http.StatusCreated {
					mu.Lock()
					ackedLinks = append(ackedLinks, [2]string{a, b})
					mu.Unlock()
				}
			}
		})
		time.Sleep(time.Duration(50+rng.IntN(450)) * time.Millisecond) // the random kill moment
		if err := srv.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = srv.Wait() // killed: the error says so
		close(stop)
		wg.Wait()
		for _, id := range ackedAdds {
			stored[id] = true
		}
		for _, id := range ackedDeletes {
			deleted[id] = true
		}
		for _, id := range sentDeletes {
			if !deleted[id] {
				inDoubt[id] = true // sent but not acknowledged: the kill may have come before or after it
			}
		}

		// The store opens and is consistent.
		out, err := exec.Command(bin, "--db", db, "--json", "check").Output()
		var ck storecmd.CheckJSON
		if jerr := json.Unmarshal(out, &ck); err != nil || jerr != nil || !ck.OK {
			t.Fatalf("round %d: check after SIGKILL: %v %v %s", round, err, jerr, out)
		}
		out, err = exec.Command(bin, "--db", db, "--json", "list", "--limit", "1000000").Output()
		var listed []struct {
			ID   string            `json:"id"`
			Meta map[string]string `json:"meta"`
		}
		if jerr := json.Unmarshal(out, &listed); err != nil || jerr != nil {
			t.Fatalf("round %d: list: %v %v", round, err, jerr)
		}
		have := map[string]bool{}
		rev := map[string]int{}
		for _, m := range listed {
			have[m.ID] = true
			rev[m.ID], _ = strconv.Atoi(m.Meta["soak_rev"])
		}
		roundLost := 0
		doubtDone := 0
		for id := range stored {
			if inDoubt[id] && !deleted[id] {
				if !have[id] {
					doubtDone++
				}
				continue // either state is right
			}
			if have[id] == deleted[id] { // stored and not deleted must be there; deleted must be gone
				roundLost++
				t.Errorf("round %d: memory %s: acknowledged %s, but the store %s it", round, id,
					map[bool]string{true: "delete", false: "store"}[deleted[id]], map[bool]string{true: "has", false: "lacks"}[have[id]])
			}
		}
		gone := func(id string) bool { return deleted[id] || inDoubt[id] || !have[id] }
		for id, r := range ackedRev {
			if gone(id) {
				continue
			}
			if got := rev[id]; got < r || got > sentRev[id] {
				roundLost++
				t.Errorf("round %d: memory %s: update %d acknowledged (last sent %d), but the store shows update %d", round, id, r, sentRev[id], got)
			}
		}
		linksChecked := 0
		for _, l := range ackedLinks {
			if gone(l[0]) || gone(l[1]) || linksChecked == 20 { // each check is a process: 20 per round
				continue
			}
			linksChecked++
			out, err := exec.Command(bin, "--db", db, "--json", "related", l[0], "--type", "related_to", "--limit", "1000").Output()
			if err != nil || !strings.Contains(string(out), l[1]) {
				roundLost++
				t.Errorf("round %d: link %s related_to %s acknowledged, but related does not list it: %v", round, l[0], l[1], err)
			}
		}
		lost += roundLost
		if roundLost == 0 {
			clean++
		}
		t.Logf("round %d: %d stores, %d deletes, %d updates and %d links acknowledged before the kill (%d links checked); %d memories in the store; %d deletes sent but not acknowledged took effect",
			round, len(ackedAdds), len(ackedDeletes), len(ackedRev), len(ackedLinks), linksChecked, ck.Memories, doubtDone)
	}
	t.Logf("crash soak (seed %d): %d runs, %d clean, %d acknowledged operations lost", seed, runs, clean, lost)
}

// initStore creates an empty store with the binary and returns its path.
func initStore(t testing.TB, bin string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command(bin, "--db", db, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	return db
}

// startServe starts `cgraph serve` on a random loopback port and returns
// its base URL once it listens.
func startServe(t testing.TB, bin, db string) (string, *exec.Cmd) {
	t.Helper()
	return startServeArgs(t, bin, "--db", db, "serve", "--addr", "127.0.0.1:0")
}

// startServeArgs is startServe with the whole command line.
func startServeArgs(t testing.TB, bin string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	srv := exec.Command(bin, args...)
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill() }) // after an exit it reports "already finished"
	addrRe := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)/`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := addrRe.FindStringSubmatch(sc.Text()); m != nil {
			go func() { // drain the rest so the server never blocks on stderr
				for sc.Scan() {
				}
			}()
			return "http://" + m[1], srv
		}
	}
	t.Fatalf("serve never said where it listens: %v", sc.Err())
	return "", nil
}

// storeOverHTTP stores one memory and returns its id when the server
// acknowledged it (201).
// sendJSON sends body with method and returns the status; ok is false when
// the server did not answer (it was killed).
func sendJSON(method, url, body string) (int, bool) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false
	}
	resp.Body.Close()
	return resp.StatusCode, true
}

func storeOverHTTP(base, content string) (string, bool) {
	body, _ := json.Marshal(map[string]string{"content": content})
	resp, err := http.Post(base+"/v1/memories", "application/json", strings.NewReader(string(body)))
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var env struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&env) != nil {
		return "", false
	}
	return env.Data.ID, true
}
